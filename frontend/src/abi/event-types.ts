// Event type constants and how each event is handed to SillyTavern-style
// listeners. The backend's map (host.capabilities eventTypes) is the source
// of truth for backend events; BACKEND_EVENT_TYPES mirrors it so the
// constants are usable before ready resolves.

/** Backend event types as published by backend/events (merged with host.capabilities at ready). */
export const BACKEND_EVENT_TYPES = Object.freeze({
  APP_READY: 'app_ready',
  MESSAGE_SENT: 'message_sent',
  MESSAGE_RECEIVED: 'message_received',
  MESSAGE_EDITED: 'message_edited',
  MESSAGE_UPDATED: 'message_updated',
  MESSAGE_DELETED: 'message_deleted',
  MESSAGE_SWIPED: 'message_swiped',
  MESSAGE_SWIPE_DELETED: 'message_swipe_deleted',
  CHAT_CHANGED: 'chat_id_changed',
  CHAT_CREATED: 'chat_created',
  CHAT_DELETED: 'chat_deleted',
  CHARACTER_EDITED: 'character_edited',
  CHARACTER_DELETED: 'characterDeleted',
  SWIPE_EDITED: 'swipe_edited',
  CHAT_RENAMED: 'chat_renamed',
  CHAT_METADATA_UPDATED: 'chat_metadata_updated',
  CHAT_PATCHED: 'chat_patched',
  CHARACTER_CREATED: 'character_created',
  CHAT_BRANCH_CREATED: 'chat_branch_created',
  CHAT_STATE_CHANGED: 'chat_state_changed',
  AGENT_RUN_EVENT: 'agent_run_event',
  WORKSPACE_FILE_CHANGED: 'workspace_file_changed',
  AGENT_PROFILES_CHANGED: 'agent_profiles_changed',
  GENERATION_STARTED: 'generation_started',
  STREAM_TOKEN_RECEIVED: 'stream_token_received',
  GENERATION_ENDED: 'generation_ended',
  GENERATION_STOPPED: 'generation_stopped',
  CHAT_COMPLETION_PROMPT_READY: 'chat_completion_prompt_ready',
  GENERATE_AFTER_DATA: 'generate_after_data',
  PERSONA_CHANGED: 'persona_changed',
  OAI_PRESET_CHANGED_AFTER: 'oai_preset_changed_after',
  CONNECTIONS_CHANGED: 'connections_changed',
  LIBRARY_PROGRESS: 'library_progress',
} as const);

/** Events this window produces itself (never sent by the backend). */
export const FRONTEND_EVENT_TYPES = Object.freeze({
  APP_READY: 'app_ready',
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
]);

/**
 * stArgs returns the positional arguments SillyTavern passes to eventSource
 * listeners for an event (MESSAGE_SENT(index), MESSAGE_DELETED(length), …);
 * events SillyTavern does not know get the structured payload.
 */
export function stArgs(type: string, p: Record<string, unknown>): unknown[] {
  switch (type) {
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
    default:
      return [p];
  }
}
