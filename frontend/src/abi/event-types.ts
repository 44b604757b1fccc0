// Event type constants and how each event is handed to SillyTavern-style
// listeners. The backend's registry (backend/events, generated into
// event-registry.gen.ts) is the source of truth for backend events; the
// constants are usable before ready resolves, when host.capabilities'
// eventTypes is merged in.
import { EVENT_TYPES } from './event-registry.gen';

/** Backend event types as published by backend/events (merged with host.capabilities at ready). */
export const BACKEND_EVENT_TYPES = EVENT_TYPES;

/**
 * Events this window produces itself (never sent by the backend). The
 * registry lists APP_READY (and CHAT_CHANGED) as window events too; the
 * others are the window's alone.
 */
export const FRONTEND_EVENT_TYPES = Object.freeze({
  APP_READY: EVENT_TYPES.APP_READY,
  CHAT_LOAD_PROGRESS: 'chat_load_progress',
  USER_MESSAGE_RENDERED: 'user_message_rendered',
  CHARACTER_MESSAGE_RENDERED: 'character_message_rendered',
  /** getContext().swipe.show/hide/refresh asked the UI to redraw its swipe controls. */
  SWIPE_UI_CHANGED: 'swipe_ui_changed',
} as const);

/** The event type strings the ABI itself relies on. */
export const T = Object.freeze({ ...BACKEND_EVENT_TYPES, ...FRONTEND_EVENT_TYPES });

/** mergeEventTypes builds the public constant map: backend types plus the frontend's. */
export function mergeEventTypes(backend: unknown): Readonly<Record<string, string>> {
  const out: Record<string, string> = { ...BACKEND_EVENT_TYPES };
  if (typeof backend === 'object' && backend !== null) {
    for (const [k, v] of Object.entries(backend)) if (typeof v === 'string') out[k] = v;
  }
  return Object.freeze({ ...out, ...FRONTEND_EVENT_TYPES });
}

/**
 * Events that change a chat's messages or metadata: each carries the chat
 * revision after the change, so the current-chat cache applies them in
 * revision order. One write can send several with the same revision
 * (MESSAGE_EDITED + MESSAGE_UPDATED, one MESSAGE_RECEIVED per added message).
 */
export const CHAT_REVISION_EVENTS: ReadonlySet<string> = new Set<string>([
  T.MESSAGE_SENT,
  T.MESSAGE_RECEIVED,
  T.MESSAGE_EDITED,
  T.MESSAGE_UPDATED,
  T.MESSAGE_DELETED,
  T.MESSAGE_SWIPED,
  T.MESSAGE_SWIPE_DELETED,
  T.SWIPE_EDITED,
  T.CHAT_PATCHED,
  T.CHAT_METADATA_UPDATED,
]);

/** Chat lifecycle events every window's eventSource hears, whichever chat they concern. */
export const CHAT_LIST_EVENTS: ReadonlySet<string> = new Set<string>([
  T.CHAT_CREATED,
  T.CHAT_DELETED,
  T.CHAT_RENAMED,
  T.CHAT_BRANCH_CREATED,
  T.GROUP_CHAT_CREATED,
  T.GROUP_CHAT_DELETED,
]);

/**
 * stArgs returns the positional arguments SillyTavern passes to eventSource
 * listeners for an event (MESSAGE_SENT(index), MESSAGE_DELETED(length), …);
 * events SillyTavern does not know get the structured payload.
 * characterIndex maps an avatar key onto its index in
 * getContext().characters (-1 when absent), for GROUP_MEMBER_DRAFTED.
 */
export function stArgs(type: string, p: Record<string, unknown>, characterIndex: (avatar: string) => number = () => -1): unknown[] {
  switch (type) {
    // SillyTavern passes the drafted member's index in its characters list.
    case T.GROUP_MEMBER_DRAFTED:
      return [characterIndex(String(p.avatar))];
    // { selected_group, type }, as SillyTavern's group wrapper sends them.
    case T.GROUP_WRAPPER_STARTED:
    case T.GROUP_WRAPPER_FINISHED:
      return [{ selected_group: p.selected_group, type: p.type }];
    case T.MESSAGE_SENT:
    case T.MESSAGE_EDITED:
    case T.MESSAGE_UPDATED:
    case T.MESSAGE_SWIPED:
    case T.USER_MESSAGE_RENDERED:
      return [p.index];
    case T.MESSAGE_RECEIVED:
    case T.CHARACTER_MESSAGE_RENDERED:
      return [p.index, p.type];
    case T.MESSAGE_DELETED:
      return [p.length];
    case T.MESSAGE_SWIPE_DELETED:
      return [{ messageId: p.messageId, swipeId: p.swipeId, newSwipeId: p.newSwipeId }];
    case T.CHAT_CHANGED:
      return [p.chatId ?? undefined];
    // SillyTavern emits GROUP_UPDATED and GROUP_CHAT_CREATED with no
    // argument (its listeners take their own, as the expressions and
    // quick-reply extensions' do), and knows a group chat by its file name.
    case T.GROUP_UPDATED:
    case T.GROUP_CHAT_CREATED:
      return [];
    case T.GROUP_CHAT_DELETED:
      return [p.fileName];
    default:
      return [p];
  }
}
