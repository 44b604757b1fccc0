// Search in the UI (HOST-ABI §3.6, api.chat.search): the bar over the open
// chat, the dialog that searches every chat, and the jump to a hit — which
// opens the hit's chat if need be, and asks the chat view to bring the
// message into view and mark it for a moment.
import { getContext, setContext } from 'svelte';
import { get, writable, type Readable, type Writable } from 'svelte/store';
import type { HearthAbi, SearchHit } from '../../abi/types';
import { describeError } from '../lib/errors';
import type { ChatView } from './chat';
import type { LayoutStore } from './layout';

/** Results is one search's state: its query and scope, and its hits or error. */
export interface Results {
  query: string;
  /** chatId is the chat searched; null for every chat. */
  chatId: string | null;
  hits: readonly SearchHit[];
  loading: boolean;
  /** error is why the search failed (a query the host refused, say). */
  error: string | null;
}

/** Target is a message the chat view should bring into view and highlight. */
export interface Target {
  chatId: string;
  messageId: string;
  index: number;
  /** seq tells a repeated jump to the same message from the last one. */
  seq: number;
}

export interface SearchStore {
  /** bar is whether the search bar of the open chat is shown. */
  bar: Writable<boolean>;
  /** everywhere is whether the dialog searching every chat is open. */
  everywhere: Writable<boolean>;
  /** inChat are the results of the bar; all, of the dialog. */
  inChat: Readable<Results>;
  all: Readable<Results>;
  /** searchChat searches the open chat now; searchAll, every chat. */
  searchChat(query: string): Promise<void>;
  /**
   * typeChat searches the open chat as its query is typed: the hits of an
   * older query go at once (the bar shows a search under way, never stale
   * hits), and the search runs once typing pauses for TYPE_DELAY_MS. The
   * same query again (a space typed after it) changes nothing.
   */
  typeChat(query: string): void;
  searchAll(query: string): Promise<void>;
  /** target is the message to reveal, until the chat view calls revealed. */
  target: Readable<Target | null>;
  /** open shows a hit: its chat is opened first when it is not the open one. */
  open(hit: SearchHit, chatId?: string): void;
  revealed(seq: number): void;
}

/** SearchDeps is what the store needs from the app. */
export interface SearchDeps {
  hearth: HearthAbi;
  view: Readable<ChatView>;
  layout: Pick<LayoutStore, 'show'>;
  /** select opens a chat as a person's choice. */
  select(chatId: string): Promise<void>;
}

/** LIMIT is how many hits a search shows (the host allows up to 200). */
export const LIMIT = 100;

/** TYPE_DELAY_MS is the pause in typing after which the bar searches: a search per word, not per key. */
export const TYPE_DELAY_MS = 200;

const EMPTY: Results = { query: '', chatId: null, hits: [], loading: false, error: null };

export function createSearchStore({ hearth, view, layout, select }: SearchDeps): SearchStore {
  const bar = writable(false);
  const everywhere = writable(false);
  const target = writable<Target | null>(null);
  let targetSeq = 0;

  /**
   * runner makes a search function whose answers arrive in order: a newer
   * search drops an older one's answer. later runs one after a pause, and
   * a search (or drop) before then replaces it.
   */
  function runner() {
    const results = writable<Results>(EMPTY);
    let seq = 0;
    let timer: ReturnType<typeof setTimeout> | null = null;
    /** drop forgets the search waiting to run and the answer on its way. */
    function drop(): void {
      if (timer !== null) clearTimeout(timer);
      timer = null;
      seq++;
    }
    function later(chatId: string | null, query: string, delayMs: number): void {
      const q = query.trim();
      const now = get(results);
      if (q !== '' && now.chatId === chatId && now.query === q && now.error === null) return;
      drop();
      if (q === '') {
        results.set({ ...EMPTY, chatId });
        return;
      }
      results.set({ query: q, chatId, hits: [], loading: true, error: null });
      timer = setTimeout(() => {
        timer = null;
        void run(chatId, q);
      }, delayMs);
    }
    async function run(chatId: string | null, query: string): Promise<void> {
      drop();
      const mine = seq;
      const q = query.trim();
      if (q === '') {
        results.set({ ...EMPTY, chatId });
        return;
      }
      results.set({ query: q, chatId, hits: [], loading: true, error: null });
      try {
        const hits = await hearth.api.chat.search(chatId, q, { limit: LIMIT });
        if (mine === seq) results.set({ query: q, chatId, hits, loading: false, error: null });
      } catch (err) {
        if (mine === seq) results.set({ query: q, chatId, hits: [], loading: false, error: describeError(err).message });
      }
    }
    return { results, run, later, drop };
  }

  const inChat = runner();
  const all = runner();

  // A bar left open on another chat starts empty there.
  let shown: string | null = get(view).chatId;
  view.subscribe((v) => {
    if (v.chatId === shown) return;
    shown = v.chatId;
    if (get(inChat.results).chatId === v.chatId) return;
    inChat.drop();
    inChat.results.set({ ...EMPTY, chatId: v.chatId });
  });

  return {
    bar,
    everywhere,
    inChat: { subscribe: inChat.results.subscribe },
    all: { subscribe: all.results.subscribe },
    searchChat(query) {
      const chatId = get(view).chatId;
      if (!chatId) return Promise.resolve();
      return inChat.run(chatId, query);
    },
    typeChat(query) {
      const chatId = get(view).chatId;
      if (chatId) inChat.later(chatId, query, TYPE_DELAY_MS);
    },
    searchAll: (query) => all.run(null, query),
    target: { subscribe: target.subscribe },
    open(hit, chatId) {
      const id = hit.chatId ?? chatId;
      if (!id) return;
      target.set({ chatId: id, messageId: hit.id, index: hit.index, seq: ++targetSeq });
      if (get(view).chatId !== id) void select(id);
      layout.show('chat');
    },
    revealed(seq) {
      if (get(target)?.seq === seq) target.set(null);
    },
  };
}

/** Segment is a piece of a snippet: marked when it is the query. */
export interface Segment {
  text: string;
  mark: boolean;
}

/**
 * marks splits a snippet around the case-insensitive occurrences of query,
 * for showing them marked (as text, never HTML). Case folding is the
 * browser's toLowerCase; where it changes a string's length the snippet is
 * left unmarked rather than marked in the wrong place.
 */
export function marks(snippet: string, query: string): Segment[] {
  const q = query.trim().toLowerCase();
  const lower = snippet.toLowerCase();
  if (q === '' || lower.length !== snippet.length) return [{ text: snippet, mark: false }];
  const out: Segment[] = [];
  let at = 0;
  for (;;) {
    const i = lower.indexOf(q, at);
    if (i < 0) break;
    if (i > at) out.push({ text: snippet.slice(at, i), mark: false });
    out.push({ text: snippet.slice(i, i + q.length), mark: true });
    at = i + q.length;
  }
  if (at < snippet.length) out.push({ text: snippet.slice(at), mark: false });
  return out;
}

/** roleLabel names a hit's speaker for people: the character's name for its replies when known. */
export function roleLabel(role: SearchHit['role'], characterName?: string | null): string {
  if (role === 'user') return 'You';
  if (role === 'system') return 'Narrator';
  return characterName || 'Character';
}

const KEY = Symbol('hearth.search');

export function setSearch(store: SearchStore): void {
  setContext(KEY, store);
}

export function getSearch(): SearchStore {
  const store = getContext<SearchStore | undefined>(KEY);
  if (!store) throw new Error('getSearch() outside the Hearth app');
  return store;
}
