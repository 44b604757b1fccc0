// The open chat's undo history as the window shows it: what the next undo
// and redo would act on (api.chat.undoStatus, re-read whenever the chat
// changes), the steps themselves (lib/undo-keys, one queue for the keys,
// the menu and the toasts), and the toast after a destructive action that
// says what happened, with an Undo that takes back exactly that write.
import { get, writable, type Readable } from 'svelte/store';
import type { HearthAbi, UndoStatus } from '../../abi/types';
import { listen, type EventName } from '../lib/events';
import { createUndoSteps, type UndoSteps } from '../lib/undo-keys';
import type { ToastStore } from './toasts';

/** HistoryStatus is undoStatus's answer for one chat. */
export interface HistoryStatus extends UndoStatus {
  chatId: string;
}

/** WriteWatch follows the event of a write this window makes, to learn its revision. */
export interface WriteWatch {
  /** revision is the write's revision once its event came (null before). */
  revision(): number | null;
  stop(): void;
}

export interface ChatHistory extends UndoSteps {
  /** status is what undo and redo would act on in the open chat; null while not known. */
  status: Readable<HistoryStatus | null>;
  /**
   * watch starts listening, before a write, for its event (names, in
   * chatId, matched by match) and remembers that event's revision. It
   * stops by itself after WATCH_MS.
   */
  watch(chatId: string, names: readonly EventName[], match: (payload: Record<string, unknown>) => boolean): WriteWatch;
  /**
   * offer shows message (what was just done, in words) with an Undo button
   * that takes back that write: only while the chat is at the write's
   * revision, so a change made since (a reply landing, another window) is
   * never taken back instead.
   */
  offer(message: string, chatId: string, write: WriteWatch): void;
  start(): () => void;
}

export interface ChatHistoryDeps {
  hearth: HearthAbi;
  toasts: ToastStore;
  /** chatId and version of the open chat: the status is re-read when they change. */
  view: Readable<{ chatId: string | null; version: number }>;
  /** refreshMs: how long the status waits for more changes before it is re-read. */
  refreshMs?: number;
}

/** WATCH_MS bounds how long a write's event is waited for (longer than an Undo toast stays). */
export const WATCH_MS = 60_000;

/** REFRESH_MS gathers a burst of changes (a reply's events, a chat loading) into one status read. */
export const REFRESH_MS = 60;

export function createChatHistory(deps: ChatHistoryDeps): ChatHistory {
  const { hearth, toasts, view } = deps;
  const refreshMs = deps.refreshMs ?? REFRESH_MS;
  const status = writable<HistoryStatus | null>(null);
  const steps = createUndoSteps({
    step: (action, chatId, options) => hearth.api.chat[action](chatId, options),
    notices: toasts,
  });
  let timer: ReturnType<typeof setTimeout> | null = null;
  let reads = 0;

  function read(): void {
    timer = null;
    const chatId = get(view).chatId;
    const mine = ++reads;
    if (!chatId) {
      status.set(null);
      return;
    }
    hearth.api.chat
      .undoStatus(chatId)
      .then((s) => {
        if (mine === reads && get(view).chatId === chatId) status.set({ ...s, chatId });
      })
      .catch(() => {
        // The chat is gone or the host is away: say nothing is known.
        if (mine === reads) status.set(null);
      });
  }

  function refreshSoon(): void {
    if (timer !== null) clearTimeout(timer);
    timer = setTimeout(read, refreshMs);
  }

  return {
    status,
    run: steps.run,
    idle: steps.idle,
    watch(chatId, names, match) {
      let revision: number | null = null;
      const off = listen(hearth, names, (p) => {
        if (p.chatId !== chatId || typeof p.revision !== 'number' || !match(p)) return;
        revision = p.revision;
        stop();
      });
      const timeout = setTimeout(off, WATCH_MS);
      function stop(): void {
        clearTimeout(timeout);
        off();
      }
      return { revision: () => revision, stop };
    },
    offer(message, chatId, write) {
      toasts.info(message, {
        label: 'Undo',
        run: () => {
          const ifRevision = write.revision();
          write.stop();
          // Without its event (the connection dropped meanwhile) the write's revision is unknown: undo the newest write.
          void steps.run('undo', chatId, ifRevision === null ? undefined : { ifRevision });
        },
      });
    },
    start() {
      let shown: { chatId: string | null; version: number } | null = null;
      const offView = view.subscribe((v) => {
        if (shown && v.chatId === shown.chatId && v.version === shown.version) return;
        if (v.chatId !== shown?.chatId) status.set(null);
        shown = { chatId: v.chatId, version: v.version };
        refreshSoon();
      });
      // Writes that leave the messages as they were (metadata) change the history too.
      const offMeta = listen(hearth, ['CHAT_METADATA_UPDATED'], (p) => {
        if (p.chatId === get(view).chatId) refreshSoon();
      });
      return () => {
        offView();
        offMeta();
        if (timer !== null) clearTimeout(timer);
        timer = null;
        reads++;
      };
    },
  };
}
