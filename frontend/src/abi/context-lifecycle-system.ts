// getContext().sendSystemMessage(type, text?, extra?): SillyTavern's
// system messages (public/scripts/system-messages.js), stored like any
// other message so every window shows them.
//
// The types and their shape follow SillyTavern: a message from the system
// user, excluded from the prompt (is_system), not swipeable, with
// extra.type naming its kind and the caller's extra merged in. The texts
// are Hearth's own (SillyTavern renders HTML templates about itself).
// NARRATOR, COMMENT and ASSISTANT_MESSAGE have no template in SillyTavern —
// its /sys and /comment commands and welcome assistant make them — so they
// take their shape from those and need a text. force_avatar keeps
// SillyTavern's image paths, so a chat exported to SillyTavern shows them
// as it would its own.
import { HostError } from './errors';
import type { StMessage } from './types';

/** SillyTavern's system_message_types: constant names and their values. */
export const SYSTEM_MESSAGE_TYPES = Object.freeze({
  HELP: 'help',
  WELCOME: 'welcome',
  GROUP: 'group',
  EMPTY: 'empty',
  GENERIC: 'generic',
  NARRATOR: 'narrator',
  COMMENT: 'comment',
  SLASH_COMMANDS: 'slash_commands',
  FORMATTING: 'formatting',
  HOTKEYS: 'hotkeys',
  MACROS: 'macros',
  WELCOME_PROMPT: 'welcome_prompt',
  ASSISTANT_NOTE: 'assistant_note',
  ASSISTANT_MESSAGE: 'assistant_message',
} as const);

/** The system user's name (SillyTavern's systemUserName is "SillyTavern System"). */
export const SYSTEM_USER_NAME = 'Hearth System';
/** SillyTavern's system_avatar and comment_avatar. */
const SYSTEM_AVATAR = 'img/five.png';
const COMMENT_AVATAR = 'img/quill.png';
/** SillyTavern's NARRATOR_NAME_DEFAULT, overridden by chat_metadata.narrator_name, and COMMENT_NAME_DEFAULT. */
const NARRATOR_NAME = 'System';
const COMMENT_NAME = 'Note';
/** The longest text a system message takes (the backend bounds the message too). */
const MAX_TEXT = 100_000;

interface Template {
  mes: string;
  extra?: Record<string, unknown>;
  fields?: Record<string, unknown>;
}

/** TEMPLATES are the types SillyTavern's system_messages table holds. */
const TEMPLATES: Readonly<Record<string, Template>> = Object.freeze({
  help: { mes: 'Write below to talk with the character. Each message has actions to edit, swipe, branch, exclude it from the prompt or hide it from retrieval.' },
  slash_commands: { mes: 'Slash commands are not available in Hearth.' },
  hotkeys: { mes: 'Enter sends, Shift+Enter starts a new line, ↑ in an empty message box edits your last message, Escape cancels an edit.' },
  formatting: { mes: 'Messages are Markdown: *italics*, **bold**, `code`, > quotes, lists and tables.' },
  macros: { mes: 'In greetings, `{{char}}` is the character’s name and `{{user}}` is yours.' },
  welcome: { mes: 'Welcome to Hearth.', extra: { uses_system_ui: true } },
  group: { mes: 'Group chat created. Say “Hi” to lovely people!', fields: { is_group: true } },
  empty: { mes: 'No one hears you. **Hint:** add more members to the group!' },
  generic: { mes: 'Generic system message. Use the `text` parameter to override the contents.' },
  welcome_prompt: { mes: 'Type a message to begin.', extra: { uses_system_ui: true, isSmallSys: true } },
  assistant_note: { mes: 'Note: this is a note from the assistant.', extra: { uses_system_ui: true, isSmallSys: true } },
});

/** SystemContext is what a system message takes from the chat it goes to. */
export interface SystemContext {
  /** The chat's metadata (narrator_name names the narrator). */
  metadata: Readonly<Record<string, unknown>>;
  /** The character's name, for ASSISTANT_MESSAGE ("Assistant" without one). */
  characterName: string;
}

/** systemType turns SillyTavern's constant name ("GENERIC") or value ("generic") into the value; null if unknown. */
export function systemType(type: unknown): string | null {
  if (typeof type !== 'string') return null;
  const names: Readonly<Record<string, string>> = SYSTEM_MESSAGE_TYPES;
  if (Object.hasOwn(names, type)) return names[type]!;
  return Object.values(names).includes(type) ? type : null;
}

function textArg(text: unknown): string | null {
  if (text === undefined || text === null || text === '') return null;
  if (typeof text !== 'string') throw new HostError('validation.invalid_argument', 'sendSystemMessage: text must be a string');
  if (text.length > MAX_TEXT) throw new HostError('validation.invalid_argument', `sendSystemMessage: text is longer than ${MAX_TEXT} characters`);
  return text;
}

function extraArg(extra: unknown): Record<string, unknown> {
  if (extra === undefined || extra === null) return {};
  if (typeof extra !== 'object' || Array.isArray(extra)) {
    throw new HostError('validation.invalid_argument', 'sendSystemMessage: extra must be an object');
  }
  return extra as Record<string, unknown>;
}

/**
 * systemMessage builds the message sendSystemMessage stores, or returns
 * null when there is nothing to send (unknown type, or a type without a
 * template and no text), which SillyTavern ignores too. Malformed text or
 * extra is a HostError.
 */
export function systemMessage(type: unknown, text: unknown, extra: unknown, ctx: SystemContext): Partial<StMessage> | null {
  const value = systemType(type);
  const mes = textArg(text);
  const callerExtra = extraArg(extra);
  if (value === null) return null;
  const template = TEMPLATES[value];
  let base: Partial<StMessage>;
  if (template) {
    base = {
      name: SYSTEM_USER_NAME,
      force_avatar: SYSTEM_AVATAR,
      is_user: false,
      is_system: true,
      ...template.fields,
      mes: mes ?? template.mes,
      extra: { swipeable: false, ...template.extra },
    };
  } else if (mes === null) {
    return null;
  } else if (value === SYSTEM_MESSAGE_TYPES.NARRATOR) {
    const name = ctx.metadata.narrator_name;
    base = { name: typeof name === 'string' && name !== '' ? name : NARRATOR_NAME, force_avatar: SYSTEM_AVATAR, is_user: false, is_system: false, mes, extra: {} };
  } else if (value === SYSTEM_MESSAGE_TYPES.COMMENT) {
    base = { name: COMMENT_NAME, force_avatar: COMMENT_AVATAR, is_user: false, is_system: true, mes, extra: {} };
  } else {
    base = { name: ctx.characterName || 'Assistant', is_user: false, is_system: false, mes, extra: { swipeable: false } };
  }
  return { ...base, extra: { ...base.extra, ...callerExtra, type: value } };
}
