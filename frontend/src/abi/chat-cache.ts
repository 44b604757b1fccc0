// This window's current chat, cached whole and kept live. select() loads
// it in windows (chat-load.ts); afterwards every event of the chat is
// applied in revision order (chat-apply.ts). Whenever the cache cannot be
// sure it matches the backend — a revision gap, an event that does not
// fit, a reconnected event stream — it re-fetches instead of guessing.
// Events that arrive while a fetch is running are buffered and replayed
// once the fetched copy is in place.
import { applyEvent, type CachedChat } from './chat-apply';
import { asDetails, loadChat, Superseded, type LoadOptions } from './chat-load';
import { HostError } from './errors';
import { CHAT_REVISION_EVENTS, T } from './event-types';
import type { Call } from './host';
import type { HostEvent } from './transport';
import type { ChatApi, ChatDetails, StMessage } from './types';

/** The code a select() rejects with when a newer select() (or close) replaced it. */
export const SUPERSEDED = 'chat.select_superseded';

/** Loaded is what api.chat.loaded() returns: a frozen window of the current chat. */
export type Loaded = NonNullable<ReturnType<ChatApi['loaded']>>;

/** CacheHooks is how the cache tells the rest of the ABI what happened. */
export interface CacheHooks {
  /** progress: select() has more of the chat (loaded() changed); also after a resync. */
  progress(chatId: string, start: number, total: number, revision: number): void;
  /** changed: the window's chat is now complete (chatId) or closed (null). */
  changed(chatId: string | null): void;
  /** applied: a live event of the current chat is now reflected in the cache. */
  applied(event: HostEvent): void;
}

/** Committed is the current chat once complete: what getContext() shows. */
export interface Committed {
  chatId: string;
  details: ChatDetails;
  revision: number;
  messages: readonly StMessage[];
}

interface Entry extends CachedChat {
  chatId: string;
  /** seq of the select() that opened it; a higher seq means a newer select is under way. */
  token: number;
  /** revision the cached data reflects. */
  revision: number;
  /** the revision whose events are being applied one by one (more may follow). */
  open: number | null;
  /** which events of the open revision are applied already (a redelivery is ignored). */
  openKeys: Set<string>;
  /** whole-chat index of msgs[0]. */
  start: number;
  /** loaded() has something to show. */
  shown: boolean;
  complete: boolean;
  /** a fetch is running: events wait in buffer; dirty means start it over. */
  fetch: { base: number | null; dirty: boolean } | null;
  buffer: HostEvent[];
  snapshot: Loaded | null;
  retryMs: number;
}

interface Waiter {
  chatId: string;
  revision: number;
  done: () => void;
}

/** SelectOptions is select()'s second argument (api.chat.select). */
export interface SelectOptions {
  /**
   * automatic marks a choice the window makes on its own (restoring the
   * last chat at start-up, following a character list that changed), not
   * one a person or a script asked for. It never replaces an explicit
   * choice: while the window's chat was chosen (or is being opened) by an
   * explicit select, an automatic one rejects with chat.select_superseded
   * and changes nothing.
   */
  automatic?: boolean;
}

/** ChatCache is the window's current chat (see the file comment). */
export interface ChatCache {
  select(chatId: string | null, options?: SelectOptions): Promise<void>;
  current(): ReturnType<ChatApi['current']>;
  loaded(): Loaded | null;
  committed(): Committed | null;
  /** message returns the committed chat's message at index, without copying. */
  message(index: number): StMessage | null;
  /**
   * ingest offers a backend event. It returns true when the event belongs
   * to the current chat's revision stream: the cache then reports it
   * through hooks.applied once (and if) it is applied.
   */
  ingest(event: HostEvent): boolean;
  /** resync re-fetches the current chat (events may have been missed). */
  resync(): void;
  /**
   * waitFor resolves once the cache reflects chatId at revision or later,
   * or chatId is no longer current. If that takes longer than resyncAfterMs
   * (the events were silent or lost), the cache resyncs.
   */
  waitFor(chatId: string, revision: number, resyncAfterMs: number): Promise<void>;
}

/** createChatCache returns an empty cache (no chat selected). */
export function createChatCache(call: Call, hooks: CacheHooks, loadOptions: Omit<LoadOptions, 'first'> = {}): ChatCache {
  let seq = 0;
  let entry: Entry | null = null;
  let waiters: Waiter[] = [];
  /**
   * explicit says the window's current choice (the chat shown, one being
   * opened, or none) came from an explicit select(); automatic selects yield
   * to it. It lapses when that choice fails or its chat is deleted.
   */
  let explicit = false;

  function settleWaiters(): void {
    waiters = waiters.filter((w) => {
      const e = entry;
      const done = !e || e.chatId !== w.chatId || (e.complete && !e.fetch && e.revision >= w.revision);
      if (done) w.done();
      return !done;
    });
  }

  function touch(e: Entry): void {
    e.snapshot = null;
  }

  /** close empties the window and cancels any select() under way; lapsed says the choice behind it failed. */
  function close(lapsed = false): void {
    seq++;
    if (lapsed) explicit = false;
    drop();
  }

  /** drop forgets the current chat; loads of it stop at their next live check. */
  function drop(): void {
    const had = entry !== null;
    entry = null;
    settleWaiters();
    if (had) hooks.changed(null);
  }

  /**
   * deleted handles the deletion of the current chat. A newer select()
   * under way (its chat.get still pending) is not cancelled, and keeps its
   * own kind of choice; otherwise the choice lapses with its chat.
   */
  function deleted(e: Entry): void {
    if (e.token === seq) explicit = false;
    drop();
  }

  function liveCheck(e: Entry, token: number): () => void {
    return () => {
      if (token !== seq || entry !== e) throw new Superseded();
    };
  }

  /** install puts a freshly fetched copy in place and replays what arrived meanwhile. */
  function install(e: Entry, details: ChatDetails, msgs: StMessage[]): void {
    e.details = details;
    e.msgs = msgs;
    e.start = 0;
    e.revision = details.revision;
    e.open = null;
    e.openKeys.clear();
    e.shown = true;
    e.fetch = null;
    e.retryMs = 0;
    touch(e);
    const buffered = e.buffer;
    e.buffer = [];
    if (!e.complete) {
      e.complete = true;
      hooks.changed(e.chatId);
    } else {
      hooks.progress(e.chatId, 0, msgs.length, e.revision);
    }
    for (const ev of buffered) ingest(ev);
    settleWaiters();
  }

  function control(e: Entry, token: number, show: boolean) {
    return {
      live: liveCheck(e, token),
      begin(base: number) {
        const f = (e.fetch ??= { base: null, dirty: false });
        f.base = base;
        f.dirty = e.buffer.some((ev) => (ev.payload.revision as number) > base);
      },
      dirty: () => e.fetch?.dirty === true,
      ...(show
        ? {
            window(details: ChatDetails, start: number, msgs: StMessage[]) {
              e.details = details;
              e.revision = details.revision;
              e.start = start;
              e.msgs = msgs;
              e.shown = true;
              touch(e);
              hooks.progress(e.chatId, start, start + msgs.length, details.revision);
            },
          }
        : {}),
    };
  }

  async function select(chatId: string | null, options?: SelectOptions): Promise<void> {
    if (chatId !== null && (typeof chatId !== 'string' || chatId === '')) {
      throw new HostError('validation.invalid_argument', 'chatId must be a non-empty string or null');
    }
    const automatic = selectAutomatic(options);
    if (automatic && explicit) {
      throw new HostError(SUPERSEDED, 'an explicit select() chose this window\'s chat; an automatic one does not replace it', {
        reason: 'explicit',
      });
    }
    const prior = explicit;
    explicit = !automatic;
    if (chatId === null) return close();
    const token = ++seq;
    let first: ChatDetails;
    try {
      first = asDetails(await call('chat.get', chatId));
    } catch (err) {
      if (token === seq) {
        // This select replaced one still loading, which cannot finish now.
        if (entry && !entry.complete) close(true);
        else explicit = entry ? prior : false;
      }
      throw err;
    }
    if (token !== seq) throw superseded();
    const e: Entry = {
      chatId,
      token,
      details: first,
      msgs: [],
      revision: first.revision,
      open: null,
      openKeys: new Set(),
      start: first.messageCount,
      shown: false,
      complete: false,
      fetch: { base: first.revision, dirty: false },
      buffer: [],
      snapshot: null,
      retryMs: 0,
    };
    entry = e;
    settleWaiters();
    try {
      const loaded = await loadChat(call, chatId, control(e, token, true), { ...loadOptions, first });
      install(e, loaded.details, loaded.messages);
    } catch (err) {
      if (err instanceof Superseded) throw superseded();
      if (entry === e) close(true);
      throw err;
    }
  }

  function selectAutomatic(options: unknown): boolean {
    if (options === undefined || options === null) return false;
    if (typeof options !== 'object' || Array.isArray(options)) {
      throw new HostError('validation.invalid_argument', 'select options must be an object');
    }
    const automatic = (options as SelectOptions).automatic;
    if (automatic !== undefined && typeof automatic !== 'boolean') {
      throw new HostError('validation.invalid_argument', 'options.automatic must be a boolean');
    }
    return automatic === true;
  }

  function superseded(): HostError {
    return new HostError(SUPERSEDED, 'a newer select() replaced this one');
  }

  function resync(): void {
    const e = entry;
    if (!e) return;
    if (e.fetch) {
      e.fetch.dirty = true;
      return;
    }
    e.fetch = { base: null, dirty: false };
    refetch(e, seq);
  }

  /**
   * refetch loads e again while it keeps showing the old copy. On failure
   * the events stay buffered and it retries with backoff: replaying them
   * onto a copy known to be stale would only find the gap again.
   */
  function refetch(e: Entry, token: number): void {
    loadChat(call, e.chatId, control(e, token, false), loadOptions).then(
      (loaded) => install(e, loaded.details, loaded.messages),
      (err: unknown) => {
        if (entry !== e) return;
        // A select() that failed (or is still asking) bumped seq while e
        // stays current: e still needs its fresh copy.
        if (err instanceof Superseded) return refetch(e, seq);
        console.warn('Hearth: could not resync the current chat; retrying', err);
        e.retryMs = Math.min(Math.max(e.retryMs * 2, 1000), 30_000);
        setTimeout(() => {
          if (entry === e) refetch(e, seq);
        }, e.retryMs);
      },
    );
  }

  /**
   * applyLive applies ev if it is next in revision order. One write may send
   * several events with the same revision (MESSAGE_EDITED + MESSAGE_UPDATED,
   * one MESSAGE_RECEIVED per added message), so events of the revision the
   * cache reached through events stay welcome; those of a revision the
   * cache fetched, or older, are already in it.
   */
  function applyLive(e: Entry, ev: HostEvent): void {
    const p = ev.payload;
    const rev = p.revision;
    if (!Number.isInteger(rev)) return resync();
    const r = rev as number;
    const key = `${ev.type}|${String(p.index ?? p.messageId)}|${String(p.id)}|${String(p.swipeId)}`;
    if (r < e.revision || (r === e.revision && (e.open !== r || e.openKeys.has(key)))) return;
    if (r > e.revision + 1) return resync();
    if (!applyEvent(e, ev.type, p)) return resync();
    if (e.open !== r) e.openKeys.clear();
    e.openKeys.add(key);
    e.revision = r;
    e.open = r;
    touch(e);
    hooks.applied(ev);
    settleWaiters();
  }

  function ingest(ev: HostEvent): boolean {
    const e = entry;
    const p = ev.payload;
    if (!e || p.chatId !== e.chatId) return false;
    if (ev.type === T.CHAT_DELETED) {
      deleted(e);
      return false;
    }
    if (ev.type === T.CHAT_RENAMED) {
      if (typeof p.fileName === 'string') {
        const name = p.fileName;
        e.details = Object.freeze({ ...e.details, fileName: name, file_id: name, file_name: `${name}.jsonl` });
      }
      return false;
    }
    if (!CHAT_REVISION_EVENTS.has(ev.type)) return false;
    if (e.fetch) {
      e.buffer.push(ev);
      const base = e.fetch.base;
      if (base !== null && (p.revision as number) > base) e.fetch.dirty = true;
      return true;
    }
    applyLive(e, ev);
    return true;
  }

  function snapshot(e: Entry): Loaded {
    return (e.snapshot ??= Object.freeze({
      chatId: e.chatId,
      start: e.start,
      total: e.start + e.msgs.length,
      revision: e.revision,
      messages: Object.freeze(e.msgs.slice()),
    }));
  }

  return {
    select,
    resync,
    ingest,
    current() {
      const e = entry;
      return e ? { chatId: e.chatId, avatar: e.details.avatar ?? null, groupId: e.details.groupId ?? null } : null;
    },
    loaded() {
      return entry?.shown ? snapshot(entry) : null;
    },
    committed() {
      const e = entry;
      if (!e?.complete) return null;
      return { chatId: e.chatId, details: e.details, revision: e.revision, messages: snapshot(e).messages };
    },
    message(index) {
      const e = entry;
      if (!e?.complete || !Number.isInteger(index) || index < 0) return null;
      return e.msgs[index] ?? null;
    },
    waitFor(chatId, revision, resyncAfterMs) {
      return new Promise<void>((resolve) => {
        let timer: ReturnType<typeof setTimeout> | null = null;
        const w: Waiter = {
          chatId,
          revision,
          done: () => {
            if (timer !== null) clearTimeout(timer);
            resolve();
          },
        };
        waiters.push(w);
        settleWaiters();
        if (!waiters.includes(w)) return;
        timer = setTimeout(() => {
          timer = null;
          if (waiters.includes(w)) resync();
        }, resyncAfterMs);
      });
    },
  };
}
