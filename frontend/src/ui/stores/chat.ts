// The open chat: what the message list shows, kept in step with the ABI's
// window cache (api.chat.loaded()) while select() loads it and afterwards
// through message events, plus the message actions the UI offers.
import { get, writable, type Readable, type Writable } from 'svelte/store';
import type { HearthAbi, MediaRef, StMessage } from '../../abi/types';
import { eventType, listen, MESSAGE_EVENTS } from '../lib/events';
import { stepWords } from '../lib/undo-keys';
import { createChatHistory, type ChatHistory } from './chat-history';
import type { ConfirmStore } from './confirm';
import type { ToastStore } from './toasts';

export interface ChatView {
  chatId: string | null;
  /** The owning character's avatar key, when it is a character chat. */
  avatar: string | null;
  /** The owning group's id, when it is a group chat (HOST-ABI §5.1). */
  groupId: string | null;
  /** messages[i] is the message at whole-chat index start + i. */
  start: number;
  total: number;
  messages: readonly Readonly<StMessage>[];
  /** version changes on every refresh, so rows re-read messages mutated in place. */
  version: number;
  /** loading is true while select() is still filling the window cache. */
  loading: boolean;
}

export interface ChatViewStore {
  view: Readable<ChatView>;
  /** The id of the message being edited inline, if any. */
  editing: Writable<string | null>;
  /** history is the open chat's undo and redo (its status, the steps, the Undo toasts). */
  history: ChatHistory;
  /**
   * select opens chatId (null closes the chat). automatic marks a choice the
   * UI makes on its own (restoring the last chat): it yields to a chat a
   * person or a script chose (api.chat.select's automatic option), and the
   * view then shows that chat instead.
   */
  select(chatId: string | null, options?: { automatic?: boolean }): Promise<void>;
  /** send adds the user's message, with attachments (uploaded with api.chat.uploadMedia) in extra.media / extra.files. */
  send(text: string, attachments?: readonly MediaRef[]): Promise<boolean>;
  saveEdit(messageId: string, text: string): Promise<boolean>;
  /** remove deletes a message once confirmed, then says so in a toast with Undo. */
  remove(messageId: string): Promise<void>;
  setExcluded(messageId: string, excluded: boolean): Promise<void>;
  setHidden(messageId: string, hidden: boolean): Promise<void>;
  swipe(messageId: string, direction: 'left' | 'right'): Promise<void>;
  /** editLastUserMessage starts editing the newest user message; returns its id. */
  editLastUserMessage(): string | null;
  /** rowMounted tells the store a message row is in the DOM (render events). */
  rowMounted(messageId: string): void;
  start(): () => void;
}

const EMPTY: ChatView = { chatId: null, avatar: null, groupId: null, start: 0, total: 0, messages: [], version: 0, loading: false };

/**
 * LOAD_REFRESH_MS spaces the list's updates while a chat fills in behind
 * its tail: each page would re-key the whole list (10–50 ms in the desktop
 * webview) for rows nobody sees yet, since the view follows the newest
 * message. Someone scrolling up meanwhile sees older pages this often.
 */
export const LOAD_REFRESH_MS = 400;

/** Owner is whose chat it is: a character's (avatar) or a group's (groupId), as api.chat.current() says. */
type Owner = { avatar: string | null; groupId?: string | null };

/** NEXT_CHAT marks the view as waiting for the chat a script's select() is about to open. */
const NEXT_CHAT = '\u0000next';

/** SUPERSEDED is the ABI's code for a select() replaced by a newer one (abi/chat-cache). */
const SUPERSEDED = 'chat.select_superseded';

export function createChatViewStore(hearth: HearthAbi, toasts: ToastStore, confirm: ConfirmStore): ChatViewStore {
  const view = writable<ChatView>(EMPTY);
  const editing = writable<string | null>(null);
  const history = createChatHistory({ hearth, toasts, view });
  let version = 0;
  let selectSeq = 0;
  /** New messages whose render event is due once their row is in the DOM (id → MESSAGE_RECEIVED type). */
  const pendingRender = new Map<string, unknown>();

  function current(): ChatView {
    return get(view);
  }

  /** refresh re-reads the ABI's window cache for the open chat. */
  function refresh(): void {
    const v = current();
    if (!v.chatId) return;
    const l = hearth.api.chat.loaded();
    if (!l || l.chatId !== v.chatId) return;
    const cur = hearth.api.chat.current();
    view.set({
      ...v,
      avatar: cur?.chatId === v.chatId ? cur.avatar : v.avatar,
      groupId: cur?.chatId === v.chatId ? (cur.groupId ?? null) : v.groupId,
      start: l.start,
      total: l.total,
      messages: l.messages,
      version: ++version,
    });
  }

  let refreshQueued = false;
  function refreshSoon(): void {
    if (refreshQueued) return;
    refreshQueued = true;
    queueMicrotask(() => {
      refreshQueued = false;
      refresh();
    });
  }

  let loadTimer: ReturnType<typeof setTimeout> | null = null;
  /** refreshWhileLoading shows a later page of a loading chat within LOAD_REFRESH_MS. */
  function refreshWhileLoading(): void {
    if (loadTimer !== null) return;
    loadTimer = setTimeout(() => {
      loadTimer = null;
      refresh();
    }, LOAD_REFRESH_MS);
  }

  /**
   * following is the chat a select() made outside the UI is loading, which
   * the view shows as it fills; NEXT_CHAT when that select has not named
   * its chat yet (the view keeps what it shows until CHAT_CHANGED says).
   */
  let following: string | null = null;

  /** show switches the view to chatId, owned by owner's character or group (empty until refreshed). */
  function show(chatId: string | null, owner: Owner | null, loading: boolean): void {
    pendingRender.clear();
    editing.set(null);
    view.set({ ...EMPTY, chatId, avatar: owner?.avatar ?? null, groupId: owner?.groupId ?? null, loading, version: ++version });
  }

  /** finishLoading shows the open chat whole: the cache has all of it. */
  function finishLoading(): void {
    refresh();
    view.update((v) => ({ ...v, loading: false }));
  }

  /** locate finds a message's whole-chat index and data by id in the loaded window. */
  function locate(messageId: string): { chatId: string; index: number; message: Readonly<StMessage> } | null {
    const v = current();
    if (!v.chatId) return null;
    const i = v.messages.findIndex((m) => m.id === messageId);
    const message = v.messages[i];
    return message ? { chatId: v.chatId, index: v.start + i, message } : null;
  }

  /**
   * showCurrent shows the chat the ABI holds for this window: after an
   * automatic select yielded to an explicit one, that one's chat. If it has
   * not reached its first page yet, its CHAT_LOAD_PROGRESS shows it.
   */
  function showCurrent(): void {
    const cur = hearth.api.chat.current();
    if (!cur) {
      // The explicit select() that took over is still looking its chat up:
      // closing the view now would flash the chat away (and send a phone
      // back to the list) just before that select opens it.
      following = NEXT_CHAT;
      return;
    }
    const complete = hearth.getContext().getCurrentChatId() !== undefined;
    following = complete ? null : cur.chatId;
    show(cur.chatId, cur, !complete);
    refresh();
  }

  async function select(chatId: string | null, options: { automatic?: boolean } = {}): Promise<void> {
    const automatic = options.automatic === true;
    const mine = ++selectSeq;
    following = null;
    show(chatId, null, chatId !== null);
    try {
      await hearth.api.chat.select(chatId, automatic ? { automatic } : undefined);
    } catch (err) {
      if (mine !== selectSeq) return; // the UI's own newer select took over
      if (automatic && (err as { details?: { reason?: unknown } } | null)?.details?.reason === 'explicit') {
        showCurrent();
        return;
      }
      if ((err as { code?: unknown } | null)?.code === SUPERSEDED) {
        // A script's select() took over. Of another chat, the view switches
        // to it at its first page; of this same chat, the view is already
        // showing it and finishes at its CHAT_CHANGED, unless that select
        // is done already (its calls overtook this one's): its CHAT_CHANGED
        // then came while this select still counted as the view's own, was
        // let pass, and no other one follows.
        const cur = hearth.api.chat.current();
        if (cur?.chatId === chatId && hearth.getContext().getCurrentChatId() !== undefined) {
          following = null;
          finishLoading();
          return;
        }
        following = cur?.chatId === chatId ? chatId : NEXT_CHAT;
        return;
      }
      toasts.error(err, 'Could not open the chat');
      show(null, null, false);
      return;
    }
    if (mine !== selectSeq) return;
    finishLoading();
  }

  async function run(what: string, fn: () => Promise<unknown>): Promise<boolean> {
    try {
      await fn();
      return true;
    } catch (err) {
      toasts.error(err, what);
      return false;
    }
  }

  return {
    view,
    editing,
    history,
    select,
    async send(text, attachments = []) {
      const chatId = current().chatId;
      if (!chatId || (text.trim() === '' && attachments.length === 0)) return false;
      const name = hearth.getContext().name1 || 'User';
      const media = attachments.filter((a) => a.type !== 'file').map((a) => ({ url: a.url, type: a.type, title: a.name, mime: a.mime }));
      const files = attachments.filter((a) => a.type === 'file').map((a) => ({ url: a.url, name: a.name, size: a.size, mime: a.mime }));
      const message: Partial<StMessage> = { is_user: true, name, mes: text };
      if (attachments.length > 0) message.extra = { ...(media.length > 0 ? { media } : {}), ...(files.length > 0 ? { files } : {}) };
      return run('Could not send the message', () => hearth.api.chat.addMessages(chatId, message));
    },
    async saveEdit(messageId, text) {
      const at = locate(messageId);
      if (!at) return false;
      if (at.message.mes === text) {
        editing.set(null);
        return true;
      }
      const ok = await run('Could not save the edit', () =>
        hearth.api.chat.updateMessages(at.chatId, { index: at.index, patch: { mes: text } }),
      );
      if (ok) editing.set(null);
      return ok;
    },
    async remove(messageId) {
      const first = locate(messageId);
      if (!first) return;
      const preview = first.message.mes.length > 120 ? `${first.message.mes.slice(0, 120)}…` : first.message.mes;
      const versions = Array.isArray(first.message.swipes) ? first.message.swipes.length : 1;
      const ok = await confirm.ask({
        title: 'Delete message?',
        message: `Message #${first.index} from ${first.message.name} will be deleted${versions > 1 ? `, with all ${versions} versions` : ''}. Undo brings it back.\n\n${preview}`,
        confirmLabel: 'Delete',
        danger: true,
      });
      if (!ok) return;
      const at = locate(messageId); // indexes may have moved while the dialog was open
      if (!at) return;
      const write = history.watch(at.chatId, ['MESSAGE_DELETED'], (p) =>
        Array.isArray(p.deleted) ? p.deleted.some((d) => (d as { id?: unknown } | null)?.id === messageId) : false,
      );
      if (await run('Could not delete the message', () => hearth.api.chat.deleteMessages(at.chatId, at.index))) {
        history.offer(stepWords('deleteMessages').done, at.chatId, write);
      } else {
        write.stop();
      }
    },
    async setExcluded(messageId, excluded) {
      const at = locate(messageId);
      if (!at) return;
      await run('Could not change the message', () =>
        hearth.api.chat.updateMessages(at.chatId, { index: at.index, patch: { is_system: excluded } }),
      );
    },
    async setHidden(messageId, hidden) {
      const chatId = current().chatId;
      if (!chatId) return;
      await run('Could not change the message', () => hearth.api.chat.setMessageHidden(chatId, messageId, hidden));
    },
    async swipe(messageId, direction) {
      const at = locate(messageId);
      if (!at) return;
      await run('Could not swipe', () => hearth.api.chat.swipe(at.chatId, at.index, { direction }));
    },
    editLastUserMessage() {
      const msgs = current().messages;
      for (let i = msgs.length - 1; i >= 0; i--) {
        const m = msgs[i];
        if (m?.is_user) {
          editing.set(m.id);
          return m.id;
        }
      }
      return null;
    },
    rowMounted(messageId) {
      if (!pendingRender.has(messageId)) return;
      const kind = pendingRender.get(messageId);
      pendingRender.delete(messageId);
      const at = locate(messageId);
      if (!at) return;
      // SillyTavern: USER_MESSAGE_RENDERED(mesId), CHARACTER_MESSAGE_RENDERED(mesId, type).
      const user = at.message.is_user;
      const type = eventType(hearth, user ? 'USER_MESSAGE_RENDERED' : 'CHARACTER_MESSAGE_RENDERED');
      const args: unknown[] = user ? [at.index] : [at.index, typeof kind === 'string' ? kind : 'normal'];
      hearth
        .getContext()
        .eventSource.emit(type, ...args)
        .catch((err: unknown) => console.error(`[hearth] ${type} listener failed`, err));
    },
    start() {
      const offMessages = listen(hearth, MESSAGE_EVENTS, (p, name) => {
        const v = current();
        if (!v.chatId || p.chatId !== v.chatId) return;
        if ((name === 'MESSAGE_SENT' || name === 'MESSAGE_RECEIVED') && typeof p.id === 'string') pendingRender.set(p.id, p.type);
        refreshSoon();
      });
      const offProgress = listen(hearth, ['CHAT_LOAD_PROGRESS'], (p) => {
        const v = current();
        if (typeof p.chatId !== 'string') return;
        if (p.chatId !== v.chatId) {
          // A script's select() is loading another chat: show it from its tail on, as if clicked.
          const cur = hearth.api.chat.current();
          if (cur?.chatId !== p.chatId) return;
          selectSeq++;
          following = p.chatId;
          show(p.chatId, cur, true);
          refresh();
          return;
        }
        if (v.messages.length === 0) refreshSoon();
        else refreshWhileLoading();
      });
      const offLifecycle = listen(hearth, ['CHAT_DELETED', 'CHAT_CHANGED'], (p, name) => {
        const v = current();
        if (name === 'CHAT_DELETED') {
          if (v.chatId && p.chatId === v.chatId) void select(null, { automatic: true });
          return;
        }
        const cur = hearth.api.chat.current();
        const chatId = cur?.chatId ?? null;
        if (following === NEXT_CHAT) {
          // The script's select() opened its chat (or closed the window's).
          following = null;
          if (chatId === v.chatId) {
            finishLoading();
          } else {
            show(chatId, cur, false);
            refresh();
          }
          return;
        }
        if (following !== null && following === chatId && v.chatId === chatId) {
          following = null;
          finishLoading();
          return;
        }
        // Someone else (an extension, the console) switched or closed this window's chat.
        if ((!v.loading || following !== null) && chatId !== v.chatId) {
          following = null;
          show(chatId, cur, false);
          refresh();
        }
      });
      const offHistory = history.start();
      return () => {
        offMessages();
        offProgress();
        offLifecycle();
        offHistory();
        if (loadTimer !== null) clearTimeout(loadTimer);
      };
    },
  };
}
