import { describe, expect, it } from 'vitest';
import { applyPatch, deepEqual, PatchError } from './json-patch';
import { deepFreeze } from './readonly';
import type { JsonPatchOp } from './types';

const doc = () =>
  deepFreeze({
    metadata: { note: 'keep', 'a/b': 1, 'c~d': 2 },
    messages: [
      { id: 'x', mes: 'one', swipes: ['one'], extra: {} },
      { id: 'y', mes: 'two', swipes: ['two'], extra: { model: 'm' } },
    ],
  });

describe('applyPatch', () => {
  it('applies every op kind without touching the frozen input', () => {
    const d = doc();
    const out = applyPatch(d, [
      { op: 'replace', path: '/messages/0/mes', value: 'uno' },
      { op: 'add', path: '/messages/-', value: { id: 'z', mes: 'three' } },
      { op: 'add', path: '/messages/1/swipes/0', value: 'zwei' },
      { op: 'remove', path: '/messages/1/extra/model' },
      { op: 'copy', from: '/metadata/note', path: '/metadata/copied' },
      { op: 'move', from: '/metadata/a~1b', path: '/metadata/moved' },
      { op: 'test', path: '/metadata/c~0d', value: 2 },
    ]);
    expect(out).toEqual({
      metadata: { note: 'keep', 'c~d': 2, copied: 'keep', moved: 1 },
      messages: [
        { id: 'x', mes: 'uno', swipes: ['one'], extra: {} },
        { id: 'y', mes: 'two', swipes: ['zwei', 'two'], extra: {} },
        { id: 'z', mes: 'three' },
      ],
    });
    expect(d).toEqual(doc());
    expect(out.messages[0]).not.toBe(d.messages[0]);
    expect(out.messages[0]!.extra).toBe(d.messages[0]!.extra);
  });

  it('inserts and removes inside arrays by index', () => {
    const out = applyPatch(doc(), [
      { op: 'add', path: '/messages/0', value: { id: 'w' } },
      { op: 'remove', path: '/messages/2' },
    ]);
    expect(out.messages.map((m) => m.id)).toEqual(['w', 'x']);
  });

  it('replaces the whole document at the root path', () => {
    expect(applyPatch({ a: 1 }, [{ op: 'replace', path: '', value: { b: 2 } }])).toEqual({ b: 2 });
  });

  it.each<[string, JsonPatchOp]>([
    ['missing member', { op: 'remove', path: '/metadata/nope' }],
    ['index past the end', { op: 'replace', path: '/messages/2', value: 1 }],
    ['leading zero index', { op: 'add', path: '/messages/01', value: 1 }],
    ['failing test', { op: 'test', path: '/messages/0/mes', value: 'other' }],
    ['bad pointer', { op: 'add', path: 'messages', value: 1 }],
    ['__proto__', { op: 'add', path: '/metadata/__proto__', value: { polluted: true } }],
    ['move into itself', { op: 'move', from: '/messages', path: '/messages/0' }],
  ])('throws PatchError on %s', (_, op) => {
    expect(() => applyPatch(doc(), [op])).toThrow(PatchError);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('deepEqual', () => {
  it('compares JSON values structurally', () => {
    expect(deepEqual({ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] })).toBe(true);
    expect(deepEqual({ a: 1 }, { a: 1, b: undefined })).toBe(false);
    expect(deepEqual([1], { 0: 1 })).toBe(false);
    expect(deepEqual(null, {})).toBe(false);
  });
});
