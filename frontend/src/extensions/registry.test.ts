import { describe, expect, it } from 'vitest';
import type { ExtensionEntry } from '../abi/types-extensions';
import { createRegistry } from './registry';
import { entry } from './testing/fakes';

describe('the extension registry', () => {
  it('answers fresh() only with a read that started after the call, sharing reads between callers', async () => {
    const reads: { started: number; resolve: (v: ExtensionEntry[]) => void }[] = [];
    let clock = 0;
    const r = createRegistry(() => new Promise((resolve) => reads.push({ started: clock, resolve })));
    const a = r.fresh();
    clock = 1;
    // Called while the first read is under way: these wait for the next one.
    let bDone = false;
    const b = r.fresh().then(() => (bDone = true));
    const c = r.fresh();
    expect(reads).toHaveLength(1);
    reads[0]!.resolve([entry('x', ['chat.read'])]);
    await a;
    expect(r.get('x')?.granted).toEqual(['chat.read']);
    await Promise.resolve();
    await Promise.resolve();
    expect(bDone).toBe(false);
    expect(reads).toHaveLength(2);
    expect(reads[1]!.started).toBe(1);
    reads[1]!.resolve([entry('x', [])]);
    await Promise.all([b, c]);
    expect(r.get('x')?.granted).toEqual([]);
    expect(reads).toHaveLength(2);
  });

  it('rejects the callers of a read that failed, and reads again for the next', async () => {
    let fail = true;
    const r = createRegistry(async () => {
      if (fail) throw new Error('offline');
      return [entry('x', [])];
    });
    await expect(r.fresh()).rejects.toThrow('offline');
    fail = false;
    await r.fresh();
    expect(r.entries().map((e) => e.id)).toEqual(['x']);
  });

  it('stays invalidated until a read that started after invalidate() has landed', async () => {
    const reads: { resolve: (v: ExtensionEntry[]) => void }[] = [];
    let clock = 0;
    const r = createRegistry(() => new Promise((resolve) => reads.push({ resolve })), () => clock);
    const first = r.fresh();
    reads[0]!.resolve([entry('x', ['chat.read'])]);
    await first;
    clock = 10;
    expect(r.age()).toBe(10);
    expect(r.invalidated()).toBe(false);

    // A read under way when the list changed may have missed the change.
    const before = r.fresh();
    r.invalidate();
    expect(r.age()).toBe(Infinity);
    expect(r.invalidated()).toBe(true);
    reads[1]!.resolve([entry('x', ['chat.read'])]);
    await before;
    expect(r.invalidated()).toBe(true);
    expect(r.age()).toBe(Infinity);

    const after = r.fresh();
    reads[2]!.resolve([entry('x', [])]);
    await after;
    expect(r.invalidated()).toBe(false);
    expect(r.age()).toBe(0);
    expect(r.get('x')?.granted).toEqual([]);
  });
});
