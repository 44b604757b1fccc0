// The list the settings stores share (connections, personas, presets,
// agent profiles, lorebooks): a list read from the host with a loading
// flag, kept in order as items are saved and deleted here, and calls whose
// failures become toasts. Each store builds its own public API on one.
import { writable, type Readable, type Writable } from 'svelte/store';
import type { ToastStore } from './toasts';

export interface ListStoreOptions<T> {
  toasts: ToastStore;
  /** read fetches the list, in the order it is shown; it may set the owner's other state from the same answer. */
  read: () => Promise<T[]>;
  /** readFailure is the toast's title when read fails ("Could not load the connections"). */
  readFailure: string;
  /** keyOf names an item: put replaces the item of the same key, drop removes one by key. */
  keyOf: (item: T) => string;
  /** sort orders the list after put; without it a new item goes last. */
  sort?: (list: T[]) => T[];
  /** shown turns an error into what its toast says (default: the error itself). */
  shown?: (err: unknown) => unknown;
}

export interface ListStore<T> {
  /** list is the owner's to set too (an event's change, a rename). */
  list: Writable<T[]>;
  loading: Readable<boolean>;
  /** load reads the list, loading set meanwhile; a failure is toasted and keeps the old list. */
  load(): Promise<void>;
  /** refresh reads the list as load does, without showing it loading; true when it worked. */
  refresh(): Promise<boolean>;
  /** whileLoading shows loading until work settles (one flag for overlapping loads), and returns its result. */
  whileLoading<R>(work: Promise<R>): Promise<R>;
  /** put adds an item, or replaces the one of its key, keeping the order. */
  put(item: T): void;
  /** drop takes out the item of key. */
  drop(key: string): void;
  /** attempt awaits call; a failure is toasted under failure and resolves null. */
  attempt<R>(failure: string, call: () => Promise<R>): Promise<R | null>;
  /** succeeds awaits call for its effect: true when it worked, false (toasted under failure) when not. */
  succeeds(failure: string, call: () => Promise<unknown>): Promise<boolean>;
}

export function createListStore<T>(options: ListStoreOptions<T>): ListStore<T> {
  const { toasts, read, readFailure, keyOf, sort } = options;
  const shown = options.shown ?? ((err: unknown) => err);
  const list = writable<T[]>([]);
  const loading = writable(false);
  let loads = 0;

  async function whileLoading<R>(work: Promise<R>): Promise<R> {
    loads++;
    loading.set(true);
    try {
      return await work;
    } finally {
      if (--loads === 0) loading.set(false);
    }
  }

  async function refresh(): Promise<boolean> {
    try {
      list.set(await read());
      return true;
    } catch (err) {
      toasts.error(shown(err), readFailure);
      return false;
    }
  }

  return {
    list,
    loading: { subscribe: loading.subscribe },
    async load() {
      await whileLoading(refresh());
    },
    refresh,
    whileLoading,
    put(item) {
      const key = keyOf(item);
      list.update((all) => {
        const next = [...all.filter((i) => keyOf(i) !== key), item];
        return sort ? sort(next) : next;
      });
    },
    drop(key) {
      list.update((all) => all.filter((i) => keyOf(i) !== key));
    },
    async attempt(failure, call) {
      try {
        return await call();
      } catch (err) {
        toasts.error(shown(err), failure);
        return null;
      }
    },
    async succeeds(failure, call) {
      try {
        await call();
        return true;
      } catch (err) {
        toasts.error(shown(err), failure);
        return false;
      }
    },
  };
}
