import { describe, expect, it } from 'vitest';
import type { ExtensionEntry } from '../abi/types-extensions';
import { createRegistry, MAX_AGE_MS } from './registry';
import { entry } from './testing/fakes';

describe('the extension registry', () => {
  it('answers current() from its copy until an invalidate() or MAX_AGE_MS, then reads again', async () => {
    let clock = 0;
    let reads = 0;
    const r = createRegistry(
      async () => {
        reads++;
        return [entry('x', ['chat.read'])];
      },
      () => clock,
    );
    expect(r.stale()).toBe(true);
    await r.current();
    await r.current();
    expect(reads).toBe(1);
    r.invalidate();
    expect(r.stale()).toBe(true);
    await r.current();
    await r.current();
    expect(reads).toBe(2);
    clock += MAX_AGE_MS + 1;
    await r.current();
    expect(reads).toBe(3);
  });

  it('stays stale when invalidate() comes while a read is under way', async () => {
    let release: (v: ExtensionEntry[]) => void = () => {};
    const r = createRegistry(() => new Promise((resolve) => (release = resolve)), () => 0);
    const read = r.current();
    r.invalidate();
    release([]);
    await read;
    expect(r.stale()).toBe(true);
  });

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

  it('answers current() with a read under way that started after the last invalidate(), and never with an older one', async () => {
    const reads: ((v: ExtensionEntry[]) => void)[] = [];
    let clock = 0;
    const r = createRegistry(() => new Promise((resolve) => reads.push(resolve)), () => clock);
    // The host's start reads; the page loader's current() shares that read.
    const host = r.fresh();
    const loader = r.current();
    expect(reads).toHaveLength(1);
    reads[0]!([entry('x', [])]);
    await Promise.all([host, loader]);
    expect(r.entries().map((e) => e.id)).toEqual(['x']);

    // A read that started before an invalidate() is not current: current() waits for the next.
    r.invalidate();
    const before = r.fresh();
    r.invalidate();
    const after = r.current();
    reads[1]!([entry('x', [])]);
    await before;
    await Promise.resolve();
    await Promise.resolve();
    expect(reads).toHaveLength(3);
    reads[2]!([entry('y', [])]);
    await after;
    expect(r.entries().map((e) => e.id)).toEqual(['y']);

    // Nor is one that started longer than MAX_AGE_MS ago.
    clock += MAX_AGE_MS + 1;
    const slow = r.fresh();
    clock += MAX_AGE_MS + 1;
    const late = r.current();
    reads[3]!([entry('y', [])]);
    await slow;
    await Promise.resolve();
    await Promise.resolve();
    expect(reads).toHaveLength(5);
    reads[4]!([entry('z', [])]);
    await late;
    expect(r.entries().map((e) => e.id)).toEqual(['z']);
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
});
