import { get, writable } from 'svelte/store';
import { describe, expect, it, vi } from 'vitest';
import type { HearthAbi, SearchHit } from '../../abi/types';
import type { ChatView } from './chat';
import { createSearchStore, marks, roleLabel, TYPE_DELAY_MS } from './search';

function hit(id: string, index: number, fields: Partial<SearchHit> = {}): SearchHit {
  return { id, index, role: 'assistant', snippet: `text of ${id}`, score: 1, ...fields };
}

/** setup builds the store over a fake host whose chat.search answers when told to. */
function setup() {
  const view = writable<ChatView>({ chatId: 'c1', avatar: 'Ann.png', groupId: null, start: 0, total: 3, messages: [], version: 1, loading: false });
  const pending: { args: unknown[]; resolve: (hits: SearchHit[]) => void; reject: (err: unknown) => void }[] = [];
  const search = vi.fn(
    (...args: unknown[]) =>
      new Promise<SearchHit[]>((resolve, reject) => {
        pending.push({ args, resolve, reject });
      }),
  );
  const hearth = { api: { chat: { search } } } as unknown as HearthAbi;
  const select = vi.fn(async (id: string) => {
    view.update((v) => ({ ...v, chatId: id }));
  });
  const show = vi.fn();
  const store = createSearchStore({ hearth, view, layout: { show }, select });
  return { store, view, pending, search, select, show };
}

describe('marks', () => {
  it('splits a snippet around case-insensitive matches, as text', () => {
    expect(marks('The Lantern and the lantern', 'LANTERN')).toEqual([
      { text: 'The ', mark: false },
      { text: 'Lantern', mark: true },
      { text: ' and the ', mark: false },
      { text: 'lantern', mark: true },
    ]);
    expect(marks('…東京の夜…', '東京')).toEqual([
      { text: '…', mark: false },
      { text: '東京', mark: true },
      { text: 'の夜…', mark: false },
    ]);
    expect(marks('<b>x</b>', '<b>')).toEqual([
      { text: '<b>', mark: true },
      { text: 'x</b>', mark: false },
    ]);
    expect(marks('nothing here', '')).toEqual([{ text: 'nothing here', mark: false }]);
    // "İ" lowercases to two code units: left unmarked rather than misplaced.
    expect(marks('İstanbul', 'stan')).toEqual([{ text: 'İstanbul', mark: false }]);
  });

  it('names speakers', () => {
    expect(roleLabel('user')).toBe('You');
    expect(roleLabel('system', 'Ann')).toBe('Narrator');
    expect(roleLabel('assistant', 'Ann')).toBe('Ann');
    expect(roleLabel('assistant')).toBe('Character');
  });
});

describe('createSearchStore', () => {
  it('searches the open chat and keeps only the newest answer', async () => {
    const { store, pending } = setup();
    const first = store.searchChat('old');
    const second = store.searchChat('  new ');
    expect(pending.map((p) => p.args)).toEqual([
      ['c1', 'old', { limit: 100 }],
      ['c1', 'new', { limit: 100 }],
    ]);
    pending[1]?.resolve([hit('m2', 2)]);
    await second;
    pending[0]?.resolve([hit('m1', 1)]);
    await first;
    const r = get(store.inChat);
    expect(r.query).toBe('new');
    expect(r.hits.map((h) => h.id)).toEqual(['m2']);
    expect(r.loading).toBe(false);
  });

  it('shows a refused query as an error, and an empty query as nothing', async () => {
    const { store, pending, search } = setup();
    const run = store.searchAll('x'.repeat(5));
    pending[0]?.reject(Object.assign(new Error('query is too long'), { code: 'validation.invalid_argument' }));
    await run;
    expect(get(store.all).error).toContain('query is too long');
    await store.searchAll('   ');
    expect(search).toHaveBeenCalledTimes(1);
    expect(get(store.all)).toMatchObject({ query: '', hits: [], error: null });
  });

  it('opens the chat of a hit elsewhere, then asks for the reveal', async () => {
    const { store, select, show } = setup();
    store.open(hit('m9', 9, { chatId: 'c2', fileName: 'f', avatar: 'Bo.png' }));
    expect(select).toHaveBeenCalledWith('c2');
    expect(show).toHaveBeenCalledWith('chat');
    const t = get(store.target);
    expect(t).toMatchObject({ chatId: 'c2', messageId: 'm9', index: 9 });
    store.revealed((t?.seq ?? 0) + 1);
    expect(get(store.target)).not.toBeNull();
    store.revealed(t?.seq ?? 0);
    expect(get(store.target)).toBeNull();
  });

  it('reveals a hit of the open chat without reopening it', () => {
    const { store, select } = setup();
    store.open(hit('m1', 1), 'c1');
    expect(select).not.toHaveBeenCalled();
    expect(get(store.target)).toMatchObject({ chatId: 'c1', messageId: 'm1' });
  });

  it('searches as the query is typed: old hits go at once, one search per pause', async () => {
    vi.useFakeTimers();
    try {
      const { store, pending, search } = setup();
      const first = store.searchChat('lantern');
      pending[0]?.resolve([hit('m1', 1)]);
      await first;
      expect(get(store.inChat).hits).toHaveLength(1);

      store.typeChat('k');
      // The lantern's hits are gone before any search ran: the bar shows one under way.
      expect(get(store.inChat)).toEqual({ query: 'k', chatId: 'c1', hits: [], loading: true, error: null });
      store.typeChat('ke');
      store.typeChat('kestrel ');
      vi.advanceTimersByTime(TYPE_DELAY_MS - 1);
      expect(search).toHaveBeenCalledTimes(1);
      store.typeChat('kestrel'); // the same query: the pause goes on
      vi.advanceTimersByTime(1);
      expect(search).toHaveBeenCalledTimes(2);
      expect(pending[1]?.args).toEqual(['c1', 'kestrel', { limit: 100 }]);
      pending[1]?.resolve([hit('m7', 7)]);
      await vi.runAllTimersAsync();
      expect(get(store.inChat)).toMatchObject({ query: 'kestrel', hits: [{ id: 'm7' }], loading: false });

      // An answer for a query typed over is dropped, even when it comes last.
      store.typeChat('owl');
      vi.advanceTimersByTime(TYPE_DELAY_MS);
      store.typeChat('owls');
      pending[2]?.resolve([hit('m3', 3)]);
      await vi.runAllTimersAsync();
      pending[3]?.resolve([]);
      await vi.runAllTimersAsync();
      expect(get(store.inChat)).toMatchObject({ query: 'owls', hits: [], loading: false });

      // Enter (searchChat) runs at once and the pending pause is dropped; an emptied field clears.
      store.typeChat('door');
      const now = store.searchChat('door');
      expect(search).toHaveBeenCalledTimes(5);
      pending[4]?.resolve([hit('m2', 2)]);
      await now;
      vi.advanceTimersByTime(TYPE_DELAY_MS * 2);
      expect(search).toHaveBeenCalledTimes(5);
      store.typeChat('  ');
      expect(get(store.inChat)).toMatchObject({ query: '', hits: [], loading: false });
      vi.advanceTimersByTime(TYPE_DELAY_MS * 2);
      expect(search).toHaveBeenCalledTimes(5);
    } finally {
      vi.useRealTimers();
    }
  });

  it('drops a typed search when another chat opens', async () => {
    vi.useFakeTimers();
    try {
      const { store, view, search } = setup();
      store.typeChat('lantern');
      view.update((v) => ({ ...v, chatId: 'c3' }));
      vi.advanceTimersByTime(TYPE_DELAY_MS * 2);
      expect(search).not.toHaveBeenCalled();
      expect(get(store.inChat)).toMatchObject({ chatId: 'c3', query: '', hits: [], loading: false });
    } finally {
      vi.useRealTimers();
    }
  });

  it('forgets the bar results of a chat when another opens', async () => {
    const { store, pending, view } = setup();
    const run = store.searchChat('x');
    pending[0]?.resolve([hit('m1', 1)]);
    await run;
    view.update((v) => ({ ...v, chatId: 'c3' }));
    expect(get(store.inChat)).toMatchObject({ chatId: 'c3', hits: [] });
  });
});
