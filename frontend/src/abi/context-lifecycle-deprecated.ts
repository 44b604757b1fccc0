// The low-level calls Luker deprecates, kept with SillyTavern/Luker
// signatures and mapped onto the unified ones. In SillyTavern they render or
// persist what a script already pushed into chat[]; getContext().chat is
// read-only here, so each one does the whole write itself. A message that
// carries the id of a message already in the chat is taken as already there
// (a script handing back chat[i]) and not stored twice.
import type { ChatCache } from './chat-cache';
import { HostError } from './errors';
import type { Call } from './host';
import { deepEqual } from './json-patch';
import type { HearthContext, JsonPatchOp, StMessage } from './types';

/** The most operations one patchChatMessages call takes (the backend bounds them too). */
const MAX_OPS = 10_000;

/** DeprecatedDeps is what the aliases call through. */
export interface DeprecatedDeps {
  call: Call;
  cache: ChatCache;
  /** self is the finished context, whose unified methods the aliases call. */
  self: () => HearthContext;
  /** settle waits until the cache shows chatId at revision. */
  settle: (chatId: string, revision: number) => Promise<void>;
}

function invalid(message: string): HostError {
  return new HostError('validation.invalid_argument', message);
}

function plain(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** createDeprecated returns the deprecated methods; each warns once, naming its replacement. */
export function createDeprecated(deps: DeprecatedDeps) {
  const { call, cache, self, settle } = deps;
  const warned = new Set<string>();

  function warn(name: string, instead: string): void {
    if (warned.has(name)) return;
    warned.add(name);
    console.warn(`Hearth: getContext().${name}() is deprecated, use ${instead} instead`);
  }

  function openChat(): string {
    const c = cache.committed();
    if (!c) throw new HostError('chat.not_found', 'no chat is open in this window; open one with api.chat.select(chatId)');
    return c.chatId;
  }

  /** present reports whether message carries the id of a message in the open chat. */
  function present(message: Record<string, unknown>): boolean {
    const id = message.id;
    return typeof id === 'string' && (cache.committed()?.messages ?? []).some((m) => m.id === id);
  }

  /** copy returns a plain copy of a message (a read-only view from getMessage() included) without its id. */
  function copy(message: Record<string, unknown>): Partial<StMessage> {
    const { id: _id, ...rest } = JSON.parse(JSON.stringify(message)) as Record<string, unknown>;
    return rest as Partial<StMessage>;
  }

  /** rebase points a chat-array path ("/3/mes", as Luker writes them) into chat.patch's document. */
  function rebase(path: unknown, what: string): string {
    if (typeof path !== 'string' || (path !== '' && !path.startsWith('/'))) {
      throw new HostError('patch.invalid', `${what} must be a JSON pointer into the chat array ("" or "/index…")`);
    }
    return `/messages${path}`;
  }

  return {
    /** @deprecated addOneMessage stores mes unless it is already in the chat; use addMessages(). */
    async addOneMessage(mes: Partial<StMessage>, _options?: Record<string, unknown>): Promise<void> {
      warn('addOneMessage', 'addMessages()');
      if (!plain(mes)) throw invalid('addOneMessage: mes must be a message object');
      openChat();
      if (present(mes)) return;
      await self().addMessages(copy(mes));
    },
    /** @deprecated deleteLastMessage deletes the last message; use deleteMessages(chat.length - 1). */
    async deleteLastMessage(): Promise<void> {
      warn('deleteLastMessage', 'deleteMessages(chat.length - 1)');
      openChat();
      const count = self().getMessageCount();
      if (count === 0) throw new HostError('message.index_out_of_range', 'deleteLastMessage: the chat has no messages', { index: -1 });
      await self().deleteMessages(count - 1);
    },
    /**
     * @deprecated deleteMessage(id, swipeDeletionIndex?) deletes a message or one of its swipes; use deleteMessages().
     * askConfirmation is not honoured: the ABI shows no dialogs, so a script that wants one asks first.
     */
    async deleteMessage(id: number, swipeDeletionIndex?: number | null, _askConfirmation?: boolean): Promise<void> {
      warn('deleteMessage', 'deleteMessages()');
      const withSwipe = swipeDeletionIndex !== undefined && swipeDeletionIndex !== null;
      await self().deleteMessages(id, withSwipe ? { swipe: swipeDeletionIndex } : undefined);
    },
    /** @deprecated updateMessageBlock(messageId, message) stores the fields of message that differ; use updateMessages(). */
    async updateMessageBlock(messageId: number, message: Partial<StMessage>, _options?: Record<string, unknown>): Promise<void> {
      warn('updateMessageBlock', 'updateMessages()');
      if (!plain(message)) throw invalid('updateMessageBlock: message must be a message object');
      openChat();
      const current = Number.isInteger(messageId) ? cache.message(messageId) : null;
      const fields = copy(message) as Record<string, unknown>;
      const patch: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(fields)) {
        if (!current || !deepEqual(v, (current as Record<string, unknown>)[k])) patch[k] = v;
      }
      if (current && Object.keys(patch).length === 0) return;
      await self().updateMessages({ index: messageId, patch: patch as Partial<StMessage> });
    },
    /**
     * @deprecated patchChatMessages(operations) applies RFC 6902 operations to
     * the chat array (paths "/3/mes", as Luker writes them) in one
     * transaction; use updateMessages()/deleteMessages(). Resolves true, or
     * false for no operations (Luker's "nothing patched"); a failed patch
     * rejects (patch.invalid, patch.test_failed) and changes nothing.
     */
    async patchChatMessages(operations: JsonPatchOp[]): Promise<boolean> {
      warn('patchChatMessages', 'updateMessages() or deleteMessages()');
      if (!Array.isArray(operations)) throw new HostError('patch.invalid', 'patchChatMessages: operations must be an array of RFC 6902 operations');
      if (operations.length > MAX_OPS) throw new HostError('validation.too_many', `patchChatMessages: more than ${MAX_OPS} operations`);
      const chatId = openChat();
      if (operations.length === 0) return false;
      const ops = operations.map((op, i) => {
        if (!plain(op)) throw new HostError('patch.invalid', `patchChatMessages: operation ${i} must be an object`);
        const out: Record<string, unknown> = { ...op, path: rebase(op.path, `operation ${i} path`) };
        if ('from' in op) out.from = rebase(op.from, `operation ${i} from`);
        return out;
      });
      const { revision } = (await call('chat.patch', chatId, ops)) as { revision: number };
      await settle(chatId, revision);
      return true;
    },
    /**
     * @deprecated appendChatMessages(messages) stores the messages not yet in
     * the chat; use addMessages(). Resolves true, or false when given none.
     */
    async appendChatMessages(messages: Partial<StMessage>[]): Promise<boolean> {
      warn('appendChatMessages', 'addMessages()');
      if (!Array.isArray(messages) || !messages.every(plain)) throw invalid('appendChatMessages: messages must be an array of message objects');
      openChat();
      if (messages.length === 0) return false;
      const fresh = messages.filter((m) => !present(m)).map(copy);
      if (fresh.length > 0) await self().addMessages(fresh);
      return true;
    },
  };
}
