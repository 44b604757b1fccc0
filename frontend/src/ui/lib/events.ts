// Event names the UI listens to or emits, read from the public constant map
// (api.events.types), with SillyTavern's values as the fallback.
import type { HearthAbi } from '../../abi/types';

const FALLBACK = {
  MESSAGE_SENT: 'message_sent',
  MESSAGE_RECEIVED: 'message_received',
  MESSAGE_EDITED: 'message_edited',
  MESSAGE_UPDATED: 'message_updated',
  MESSAGE_DELETED: 'message_deleted',
  MESSAGE_SWIPED: 'message_swiped',
  MESSAGE_SWIPE_DELETED: 'message_swipe_deleted',
  SWIPE_EDITED: 'swipe_edited',
  CHAT_PATCHED: 'chat_patched',
  CHAT_CHANGED: 'chat_id_changed',
  CHAT_CREATED: 'chat_created',
  CHAT_DELETED: 'chat_deleted',
  CHAT_RENAMED: 'chat_renamed',
  CHAT_LOAD_PROGRESS: 'chat_load_progress',
  CHARACTER_CREATED: 'character_created',
  CHARACTER_EDITED: 'character_edited',
  CHARACTER_DELETED: 'characterDeleted',
  USER_MESSAGE_RENDERED: 'user_message_rendered',
  CHARACTER_MESSAGE_RENDERED: 'character_message_rendered',
} as const;

export type EventName = keyof typeof FALLBACK;

/** Events that change the messages of a chat (payloads carry chatId). */
export const MESSAGE_EVENTS: readonly EventName[] = [
  'MESSAGE_SENT',
  'MESSAGE_RECEIVED',
  'MESSAGE_EDITED',
  'MESSAGE_UPDATED',
  'MESSAGE_DELETED',
  'MESSAGE_SWIPED',
  'MESSAGE_SWIPE_DELETED',
  'SWIPE_EDITED',
  'CHAT_PATCHED',
];

/** eventType is the string value of a SillyTavern-style event constant. */
export function eventType(hearth: Pick<HearthAbi, 'api'>, name: EventName): string {
  return hearth.api.events.types[name] ?? FALLBACK[name];
}

/** Every handler registered through listen is removed by the returned function. */
export function listen(
  hearth: Pick<HearthAbi, 'api'>,
  names: readonly EventName[],
  handler: (payload: Record<string, unknown> & { chatId?: string }, name: EventName) => void,
): () => void {
  const offs = names.map((name) => hearth.api.events.on(eventType(hearth, name), (p) => handler(p, name)));
  return () => offs.forEach((off) => off());
}
