// api.chat: thin calls onto the host router ("chat.get" with the same
// positional arguments), plus the window-local parts that never reach the
// backend (select/current/loaded).
import { bind } from './bind';
import type { ChatCache, SelectOptions } from './chat-cache';
import { HostError } from './errors';
import type { Call } from './host';
import { uploadMedia, type MediaUpload } from './media';
import type { BranchOptions, ChatApi, ChatSummary } from './types';

/** The chat.* host methods, called with the caller's positional arguments. */
const CHAT_METHODS = [
  'list',
  'create',
  'get',
  'resolve',
  'rename',
  'delete',
  'getMessages',
  'getStMessages',
  'count',
  'addMessages',
  'updateMessages',
  'deleteMessages',
  'patch',
  'appendMessage',
  'updateMessage',
  'deleteMessage',
  'setMessageHidden',
  'setMessagesHidden',
  'isMessageHidden',
  'swipe',
  'addSwipe',
  'deleteSwipe',
  'getMetadata',
  'saveMetadata',
  'createCheckpoint',
  'tree',
  'exportJsonl',
  'importJsonl',
  'saveJsonl',
  'undo',
  'redo',
  'undoStatus',
  'search',
] as const;

/**
 * createBranch makes the branch in the backend and, unless options.open is
 * false, opens it in this window (SillyTavern's branch auto-open). It
 * resolves once the branch is the window's chat, whole in the cache.
 */
async function createBranch(call: Call, cache: ChatCache, chatId: string, index: number, options?: BranchOptions): Promise<ChatSummary> {
  const summary = (await call('chat.createBranch', chatId, index, options)) as ChatSummary;
  if (options?.open !== false) await cache.select(summary.chatId);
  return summary;
}

/**
 * updateMessage refuses a reasoning.duration that is a non-finite number
 * before sending: JSON makes NaN and Infinity null, which the host reads
 * as "clear the duration" (HOST-ABI §0: a wrong value is an error, and a
 * failed call changes nothing).
 */
async function updateMessage(call: Call, args: Parameters<ChatApi['updateMessage']>): Promise<void> {
  const patch: unknown = args[2];
  if (typeof patch === 'object' && patch !== null) {
    const reasoning = (patch as { reasoning?: unknown }).reasoning;
    if (typeof reasoning === 'object' && reasoning !== null) {
      const duration = (reasoning as { duration?: unknown }).duration;
      if (typeof duration === 'number' && !Number.isFinite(duration)) {
        throw new HostError('validation.invalid_argument', `reasoning.duration must be a finite number, got ${String(duration)}`, {
          field: 'reasoning.duration',
        });
      }
    }
  }
  return call('chat.updateMessage', ...args) as Promise<void>;
}

/** createChatApi returns the frozen api.chat over the host and this window's cache. */
export function createChatApi(call: Call, cache: ChatCache): ChatApi {
  return Object.freeze({
    ...bind<ChatApi>(call, 'chat')(CHAT_METHODS),
    updateMessage: (...args: Parameters<ChatApi['updateMessage']>) => updateMessage(call, args),
    createBranch: (chatId: string, index: number, options?: BranchOptions) => createBranch(call, cache, chatId, index, options),
    select: (chatId: string | null, options?: SelectOptions) => cache.select(chatId, options),
    current: () => cache.current(),
    uploadMedia: (file: MediaUpload) => uploadMedia(call, file),
    loaded: () => cache.loaded(),
  });
}
