// Event names the UI listens to or emits, read from the public constant map
// (api.events.types), with the values of the backend's registry and the
// window's own events (abi/event-types) as the fallback.
import { T } from '../../abi/event-types';
import type { HearthAbi } from '../../abi/types';

/** A SillyTavern-style constant name: the registry's or the window's own. */
export type EventName = keyof typeof T;

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
  return hearth.api.events.types[name] ?? T[name];
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
