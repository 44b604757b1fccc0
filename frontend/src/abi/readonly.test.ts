import { describe, expect, it } from 'vitest';
import { deepFreeze, readonlyView } from './readonly';

describe('deepFreeze', () => {
  it('freezes nested objects and arrays', () => {
    const v = deepFreeze({ a: { b: [1, { c: 2 }] } });
    expect(Object.isFrozen(v.a.b[1])).toBe(true);
    expect(() => {
      'use strict';
      (v.a.b as unknown[]).push(3);
    }).toThrow(TypeError);
  });

  it('freezes values nested far deeper than the call stack allows recursion', () => {
    const root: { next?: unknown } = {};
    let at = root;
    for (let i = 0; i < 200_000; i++) {
      const next = {};
      at.next = [next];
      at = next;
    }
    expect(deepFreeze(root)).toBe(root);
    expect(Object.isFrozen(at)).toBe(true);
  });

  it('stops at parts that are frozen already', () => {
    const shared = Object.freeze({ inner: { n: 1 } });
    deepFreeze({ shared });
    expect(Object.isFrozen(shared.inner)).toBe(false);
  });
});

describe('readonlyView', () => {
  const msg = () => deepFreeze({ id: 'x', mes: 'hi', swipes: ['hi'], extra: { model: 'm', nested: { deep: 1 } } });

  it('reads like the original, with stable nested identity', () => {
    const v = readonlyView(msg(), 'updateMessages()');
    expect(v.mes).toBe('hi');
    expect(v.swipes[0]).toBe('hi');
    expect(v.swipes.length).toBe(1);
    expect(Array.isArray(v.swipes)).toBe(true);
    expect(v.swipes.map((s) => s.toUpperCase())).toEqual(['HI']);
    expect(v.extra).toBe(v.extra);
    expect(Object.keys(v)).toEqual(['id', 'mes', 'swipes', 'extra']);
    expect(JSON.parse(JSON.stringify(v))).toEqual(msg());
    expect({ ...v.extra.nested }).toEqual({ deep: 1 });
    expect('mes' in v).toBe(true);
  });

  it.each<[string, (v: ReturnType<typeof msg>) => void]>([
    ['set', (v) => ((v as { mes: string }).mes = 'x')],
    ['delete', (v) => delete (v as { mes?: string }).mes],
    ['nested set', (v) => ((v.extra.nested as { deep: number }).deep = 2)],
    ['array push', (v) => (v.swipes as string[]).push('x')],
    ['defineProperty', (v) => Object.defineProperty(v, 'y', { value: 1 })],
    ['freeze', (v) => Object.freeze(v)],
  ])('throws an error naming the hint on %s', (_, write) => {
    const v = readonlyView(msg(), 'getContext().updateMessages()');
    expect(() => write(v)).toThrow(/updateMessages/);
  });
});
