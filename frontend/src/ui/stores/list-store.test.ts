import { get } from 'svelte/store';
import { describe, expect, it, vi } from 'vitest';
import { createListStore, type ListStoreOptions } from './list-store';
import type { ToastStore } from './toasts';

interface Row {
  id: string;
  name: string;
}

const row = (id: string, name = id): Row => ({ id, name });

function setup(options: Partial<ListStoreOptions<Row>> = {}) {
  const toasts = { error: vi.fn(), info: vi.fn(), dismiss: vi.fn(), subscribe: vi.fn() } as unknown as ToastStore & { error: ReturnType<typeof vi.fn> };
  const read = vi.fn(async () => [row('b', 'Beta'), row('a', 'alpha')]);
  const store = createListStore<Row>({ toasts, read, readFailure: 'Could not load the rows', keyOf: (r) => r.id, ...options });
  return { store, toasts, read };
}

/** deferred is a promise settled from outside. */
function deferred<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('createListStore', () => {
  it('loads the list as read gives it, showing loading meanwhile', async () => {
    const { store, read } = setup();
    const answer = deferred<Row[]>();
    read.mockReturnValueOnce(answer.promise);
    const loading = store.load();
    expect(get(store.loading)).toBe(true);
    answer.resolve([row('z'), row('y')]);
    await loading;
    expect(get(store.loading)).toBe(false);
    expect(get(store.list).map((r) => r.id)).toEqual(['z', 'y']);
  });

  it('toasts a failed read under its title and keeps the list it had', async () => {
    const { store, read, toasts } = setup();
    await store.load();
    read.mockRejectedValueOnce({ code: 'internal', message: 'disk on fire' });
    await store.load();
    expect(get(store.list).map((r) => r.id)).toEqual(['b', 'a']);
    expect(get(store.loading)).toBe(false);
    expect(toasts.error).toHaveBeenCalledWith({ code: 'internal', message: 'disk on fire' }, 'Could not load the rows');
    read.mockRejectedValueOnce(new Error('again'));
    expect(await store.refresh()).toBe(false);
    expect(await store.refresh()).toBe(true);
  });

  it('refreshes without showing loading, and keeps loading shown until the last of overlapping loads ends', async () => {
    const { store, read } = setup();
    const slow = deferred<Row[]>();
    read.mockReturnValueOnce(slow.promise);
    const refreshing = store.refresh();
    expect(get(store.loading)).toBe(false);
    slow.resolve([row('r')]);
    await refreshing;
    expect(get(store.list).map((r) => r.id)).toEqual(['r']);

    const first = deferred<string>();
    const second = deferred<string>();
    const a = store.whileLoading(first.promise);
    const b = store.whileLoading(second.promise);
    first.resolve('one');
    expect(await a).toBe('one');
    expect(get(store.loading)).toBe(true);
    second.reject(new Error('no'));
    await expect(b).rejects.toThrow('no');
    expect(get(store.loading)).toBe(false);
  });

  it('puts an item in place of the one with its key, in sort order, and drops by key', async () => {
    const byName = (list: Row[]) => [...list].sort((x, y) => x.name.localeCompare(y.name, undefined, { sensitivity: 'base' }));
    const { store } = setup({ sort: byName });
    await store.load();
    store.put(row('c', 'Gamma'));
    store.put(row('b', 'Aardvark'));
    expect(get(store.list).map((r) => `${r.id}:${r.name}`)).toEqual(['b:Aardvark', 'a:alpha', 'c:Gamma']);
    store.drop('a');
    store.drop('missing');
    expect(get(store.list).map((r) => r.id)).toEqual(['b', 'c']);
  });

  it('without sort, puts a new item last and a known one last too', async () => {
    const { store } = setup();
    await store.load();
    store.put(row('n'));
    store.put(row('b', 'Beta 2'));
    expect(get(store.list).map((r) => r.id)).toEqual(['a', 'n', 'b']);
  });

  it('attempt resolves the call, or null with a toast (through shown)', async () => {
    const shown = vi.fn((err: unknown) => ({ code: 'x', message: `shown ${String((err as Error).message)}` }));
    const { store, toasts } = setup({ shown });
    expect(await store.attempt('Could not do it', async () => 42)).toBe(42);
    expect(await store.attempt('Could not do it', async () => Promise.reject(new Error('nope')))).toBeNull();
    expect(shown).toHaveBeenCalledTimes(1);
    expect(toasts.error).toHaveBeenCalledWith({ code: 'x', message: 'shown nope' }, 'Could not do it');
  });

  it('succeeds says whether the call worked, toasting a failure', async () => {
    const { store, toasts } = setup();
    const effect = vi.fn();
    expect(await store.succeeds('Could not switch', async () => effect())).toBe(true);
    expect(effect).toHaveBeenCalledOnce();
    expect(await store.succeeds('Could not switch', async () => Promise.reject({ code: 'conflict', message: 'busy' }))).toBe(false);
    expect(toasts.error).toHaveBeenCalledWith({ code: 'conflict', message: 'busy' }, 'Could not switch');
    expect(toasts.error).toHaveBeenCalledTimes(1);
  });
});
