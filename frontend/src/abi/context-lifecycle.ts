// The chat lifecycle of getContext() (HOST-ABI §3.1, §9): SillyTavern's and
// Luker's reloadCurrentChat, renameChat, openCharacterChat,
// closeCurrentChat, doNewChat, getPastCharacterChats, deleteCharacterChat,
// saveChat, printMessages, clearChat and sendSystemMessage, plus the
// deprecated low-level calls, with their signatures and return values, over
// api.chat and this window's chat cache.
//
// SillyTavern identifies chats by file name within the current character;
// each call resolves that to a chatId (chat.resolve) and then works by id.
import type { CharactersCache } from './characters-cache';
import { SUPERSEDED, type ChatCache } from './chat-cache';
import { createDeprecated } from './context-lifecycle-deprecated';
import { systemMessage } from './context-lifecycle-system';
import { createChatView, registerChatRender, type ChatRender, type ChatView } from './context-lifecycle-view';
import { createWriteTracker } from './context-lifecycle-writes';
import { HostError } from './errors';
import { T } from './event-types';
import type { Call } from './host';
import type { ChatSummary, HearthContext } from './types';

/** LifecycleDeps is what the lifecycle methods work through (a subset of the context's deps). */
export interface LifecycleDeps {
  call: Call;
  cache: ChatCache;
  characters: CharactersCache;
  /** settleMs is how long a write waits for its events before the cache re-fetches. */
  settleMs: number;
  /**
   * extensionPrompts, once generation brings setExtensionPrompt, is the map
   * clearChat({ clearData: true }) empties, as SillyTavern resets
   * extension_prompts. Until then there is none to reset.
   */
  extensionPrompts?: { reset(): void };
}

/** ContextLifecycle is what createContext builds the context with. */
export interface ContextLifecycle {
  /** call is deps.call counted for saveChat(): the context makes every host call through it. */
  call: Call;
  /** cache is the chat cache as getContext() reads it (a chat cleared with clearData shows empty). */
  cache: ChatCache;
  /** methods are spread into the context object. */
  methods: ReturnType<typeof createLifecycleMethods>;
  /** attach finishes the context: counts its calls for saveChat() and hooks it up for the UI's chatRender(). */
  attach<C extends HearthContext>(ctx: C): C;
}

/** Context methods saveChat() does not wait for: saveChat itself (two saves would wait on each other for nothing). */
const UNTRACKED: ReadonlySet<string> = new Set(['saveChat']);

/** createContextLifecycle returns the lifecycle part of a context over deps. */
export function createContextLifecycle(deps: LifecycleDeps): ContextLifecycle {
  const writes = createWriteTracker();
  const view = createChatView(deps.cache);
  const call = writes.call(deps.call);
  let attached: HearthContext | null = null;
  const self = (): HearthContext => {
    if (!attached) throw new Error('Hearth: the context lifecycle was used before attach()');
    return attached;
  };
  return {
    call,
    cache: view.cache,
    methods: createLifecycleMethods({ ...deps, call, view, self, settled: writes.settled }),
    attach(ctx) {
      attached = ctx;
      writes.wrap(ctx, UNTRACKED);
      registerChatRender(ctx, view satisfies ChatRender);
      return ctx;
    },
  };
}

interface MethodDeps extends LifecycleDeps {
  view: ChatView;
  /** self is the finished context (its addMessages, name2, …). */
  self: () => HearthContext;
  /** settled is the write tracker's: everything under way has finished. */
  settled: () => Promise<void>;
}

function invalid(message: string): HostError {
  return new HostError('validation.invalid_argument', message);
}

/** checkFileName checks a chat file name argument (".jsonl" is tolerated; the backend strips it). */
function checkFileName(v: unknown, what: string): void {
  if (typeof v !== 'string' || v.trim() === '') throw invalid(`${what} must be a non-empty chat file name`);
}

function options(v: unknown, what: string): Record<string, unknown> {
  if (v === undefined || v === null) return {};
  if (typeof v !== 'object' || Array.isArray(v)) throw invalid(`${what} must be an object`);
  return v as Record<string, unknown>;
}

function flag(o: Record<string, unknown>, key: string, what: string): boolean {
  const v = o[key];
  if (v === undefined) return false;
  if (typeof v !== 'boolean') throw invalid(`${what}.${key} must be a boolean`);
  return v;
}

function code(err: unknown): unknown {
  return (err as { code?: unknown } | null)?.code;
}

function createLifecycleMethods(d: MethodDeps) {
  // The real cache: these calls work on the chat as stored, whatever clearChat() hid.
  const { call, cache, characters, view } = d;

  /** The avatar of the current chat's character (SillyTavern's this_chid), if any. */
  function currentAvatar(): string | null {
    return cache.current()?.avatar ?? null;
  }

  function requireAvatar(what: string): string {
    const avatar = currentAvatar();
    if (avatar === null) throw new HostError('character.not_found', `${what}: no character chat is open in this window`);
    return avatar;
  }

  /**
   * characterAvatar reads SillyTavern's characterId: an index into
   * getContext().characters (a number, or a string of digits as this_chid
   * often is), or — Hearth's own identity — an avatar. null is a
   * well-formed id that names no character.
   */
  function characterAvatar(id: unknown, what: string): string | null {
    let index: number;
    if (typeof id === 'number') {
      if (!Number.isInteger(id) || id < 0) throw invalid(`${what}: characterId must be a non-negative integer index or an avatar`);
      index = id;
    } else if (typeof id === 'string' && /^\d{1,9}$/.test(id)) {
      index = Number(id);
    } else if (typeof id === 'string' && id !== '') {
      return id;
    } else {
      throw invalid(`${what}: characterId must be a non-negative integer index or an avatar`);
    }
    return characters.list()[index]?.avatar ?? null;
  }

  async function settle(chatId: string, revision: number): Promise<void> {
    await cache.waitFor(chatId, revision, d.settleMs);
  }

  /**
   * reselect opens chatId again from the backend. The reload keeps the kind
   * of choice the window's chat was: an automatic one (restored at start-up)
   * stays automatic, so it still yields to later explicit choices; an
   * automatic select refuses, changing nothing, exactly when the current
   * choice was explicit, and then an explicit one runs.
   */
  async function reselect(chatId: string): Promise<void> {
    try {
      await cache.select(chatId, { automatic: true });
    } catch (err) {
      const reason = (err as { details?: { reason?: unknown } } | null)?.details?.reason;
      if (code(err) !== SUPERSEDED || reason !== 'explicit') throw err;
      await cache.select(chatId);
    }
  }

  let reloads: Promise<void> = Promise.resolve();

  async function reloadOnce(): Promise<void> {
    const cur = cache.current();
    if (!cur) return;
    try {
      await reselect(cur.chatId);
    } catch (err) {
      // A newer select() took the window elsewhere: nothing left to reload.
      if (code(err) === SUPERSEDED) return;
      throw err;
    }
    view.reset();
  }

  async function resolve(avatar: string, fileName: string): Promise<string> {
    return (await call('chat.resolve', { avatar, fileName })) as string;
  }

  return {
    /**
     * reloadCurrentChat re-reads the current chat from the backend, as a
     * select() of it again: getContext().chat is empty while it loads, and
     * CHAT_CHANGED fires once the whole chat is back (SillyTavern's reload
     * clears the chat and fires it too). Calls run one after another, never
     * interleaved; with no chat open it does nothing.
     */
    reloadCurrentChat(): Promise<void> {
      const run = reloads.then(reloadOnce, reloadOnce);
      reloads = run.catch(() => undefined);
      return run;
    },

    /** renameChat renames a chat of the current character; getCurrentChatId() shows the new name when it resolves. */
    async renameChat(oldFileName: string, newName: string): Promise<void> {
      checkFileName(oldFileName, 'renameChat: oldFileName');
      checkFileName(newName, 'renameChat: newName');
      const chatId = await resolve(requireAvatar('renameChat'), oldFileName);
      const summary = (await call('chat.rename', chatId, newName)) as ChatSummary;
      // The cache learns the name from CHAT_RENAMED; this is that event, early.
      cache.ingest({ type: T.CHAT_RENAMED, payload: { chatId, fileName: summary.fileName } });
    },

    /** openCharacterChat opens a chat of the current character; it resolves once the whole chat is in getContext().chat. */
    async openCharacterChat(fileName: string): Promise<void> {
      checkFileName(fileName, 'openCharacterChat: fileName');
      const chatId = await resolve(requireAvatar('openCharacterChat'), fileName);
      await cache.select(chatId);
    },

    /**
     * closeCurrentChat closes the window's chat and resolves true. Luker
     * resolves false when a generation is running and the user declines to
     * stop it; Hearth has no generation yet, and once it has, this is where
     * a running one will be asked about.
     */
    async closeCurrentChat(): Promise<boolean> {
      await cache.select(null);
      return true;
    },

    /**
     * doNewChat starts a new chat with the current character (its greeting
     * first) and opens it; with deleteCurrentChat the chat that was open is
     * deleted once the new one is. With no character chat open it does
     * nothing, as in SillyTavern.
     */
    async doNewChat(opts?: { deleteCurrentChat?: boolean }): Promise<void> {
      const o = options(opts, 'doNewChat options');
      const deleteCurrent = flag(o, 'deleteCurrentChat', 'doNewChat options');
      const cur = cache.current();
      if (!cur || (cur.avatar === null && cur.groupId === null)) return;
      const owner = cur.avatar !== null ? { avatar: cur.avatar } : { groupId: cur.groupId };
      const created = (await call('chat.create', owner)) as ChatSummary;
      await cache.select(created.chatId);
      if (deleteCurrent) await call('chat.delete', cur.chatId);
    },

    /**
     * getPastCharacterChats lists a character's chats, newest first, with
     * SillyTavern's fields (file_name with ".jsonl", file_id without it —
     * what openCharacterChat, renameChat and deleteCharacterChat take —
     * file_size, mes, last_mes) and api.chat.list's. characterId indexes
     * getContext().characters (default: the current character); a
     * character that does not exist has no chats ([]), as in SillyTavern.
     */
    async getPastCharacterChats(characterId?: number | string | null): Promise<ChatSummary[]> {
      const avatar = characterId === undefined || characterId === null ? currentAvatar() : characterAvatar(characterId, 'getPastCharacterChats');
      if (avatar === null) return [];
      return (await call('chat.list', { avatar })) as ChatSummary[];
    },

    /**
     * deleteCharacterChat(characterId, fileName) deletes a chat of that
     * character for good (a trailing ".jsonl" is fine). characterId is an
     * index into getContext().characters, a string of its digits, or an
     * avatar. Deleting the window's open chat closes it.
     */
    async deleteCharacterChat(characterId: number | string, fileName: string): Promise<void> {
      checkFileName(fileName, 'deleteCharacterChat: fileName');
      const avatar = characterAvatar(characterId, 'deleteCharacterChat');
      if (avatar === null) throw new HostError('character.not_found', `deleteCharacterChat: no character at index ${String(characterId)}`);
      const chatId = await resolve(avatar, fileName);
      await call('chat.delete', chatId);
      // The cache closes a deleted chat at CHAT_DELETED; this is that event, early.
      cache.ingest({ type: T.CHAT_DELETED, payload: { chatId } });
    },

    /**
     * saveChat resolves once this window's context calls under way have
     * finished. Every call stores its change before it resolves, so there
     * is nothing else to write: after fire-and-forget writes,
     * `await saveChat()` means they are stored.
     */
    async saveChat(): Promise<void> {
      await d.settled();
    },

    /** printMessages re-renders the chat from getContext().chat (showing rows clearChat() hid). */
    async printMessages(_options?: { clear?: boolean }): Promise<void> {
      view.print();
    },

    /**
     * clearChat hides the rendered messages until printMessages(), a reload,
     * a select or any change to the chat. With clearData, getContext().chat
     * is [] and chat_metadata {} too (until a reload, a select or a change;
     * printMessages() then prints the empty chat) and extensionPrompts is
     * reset. Nothing is deleted: the chat stays stored as it was.
     */
    async clearChat(opts?: { clearData?: boolean }): Promise<void> {
      const clearData = flag(options(opts, 'clearChat options'), 'clearData', 'clearChat options');
      view.clear(clearData);
      if (clearData) d.extensionPrompts?.reset();
    },

    /**
     * sendSystemMessage(type, text?, extra?) adds one of SillyTavern's
     * system messages to the open chat (type: the constant name, "GENERIC",
     * or its value, "generic"), stored so every window shows it. An unknown
     * type is ignored with a console warning, as SillyTavern ignores it.
     */
    async sendSystemMessage(type: string, text?: string, extra?: Record<string, unknown>): Promise<void> {
      const c = cache.committed();
      if (!c) throw new HostError('chat.not_found', 'sendSystemMessage: no chat is open in this window');
      const msg = systemMessage(type, text, extra, { metadata: c.details.metadata, characterName: d.self().name2 });
      if (msg === null) {
        console.warn(`Hearth: sendSystemMessage(${JSON.stringify(type)}) sends nothing: not a system message type, or one that needs a text`);
        return;
      }
      await d.self().addMessages(msg);
    },

    ...createDeprecated({ call, cache, self: d.self, settle }),
  };
}
