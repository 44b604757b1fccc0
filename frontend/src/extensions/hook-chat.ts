// What a frame's prompt hook answers is hostile input: structured clone
// hands the window whatever the frame built. readHookChat checks it is a
// prompt the backend would take (generate.promptHookReply's rules: roles
// system, user or assistant; content a string, or text parts and image
// parts the prompt already held; a bounded count) and rebuilds it from the
// fields it knows, so nothing else the frame put there goes on. The walk is
// bounded first (bounded.ts), so its cost does not depend on the input.
import { checkArgs } from './bounded';
import type { HookMessage, HookPart } from './protocol';

/** HOOK_NAME_MAX is the longest name a prompt message may carry, in characters (the backend's 1,024 bytes, at most). */
export const HOOK_NAME_MAX = 1024;

const ROLES = new Set(['system', 'user', 'assistant']);

/** HookChatResult is a checked prompt, or why the value is not one. */
export type HookChatResult = { ok: true; chat: HookMessage[] } | { ok: false; why: string };

/** imagesOf lists the image URLs a prompt holds: the only ones an answer may carry. */
export function imagesOf(chat: readonly { content: unknown }[]): Set<string> {
  const urls = new Set<string>();
  for (const m of chat) {
    if (!Array.isArray(m.content)) continue;
    for (const p of m.content as unknown[]) {
      const url = isPlain(p) && p.type === 'image_url' && isPlain(p.image_url) ? p.image_url.url : undefined;
      if (typeof url === 'string') urls.add(url);
    }
  }
  return urls;
}

function isPlain(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function readPart(p: unknown, images: ReadonlySet<string> | null): HookPart | null {
  if (!isPlain(p)) return null;
  if (p.type === 'text' && typeof p.text === 'string') return { type: 'text', text: p.text };
  const img = p.image_url;
  if (p.type === 'image_url' && isPlain(img) && typeof img.url === 'string' && (images === null || images.has(img.url))) {
    return { type: 'image_url', image_url: { url: img.url } };
  }
  return null;
}

/**
 * readHookChat checks value as a prompt of at most maxMessages messages,
 * whose image parts are among images (null: any, for the prompt the
 * window itself hands on), and returns it rebuilt, or why not (naming the
 * message at fault, as chat[3].role).
 */
export function readHookChat(value: unknown, maxMessages: number, images: ReadonlySet<string> | null): HookChatResult {
  const bounds = checkArgs([value]);
  if (bounds) return { ok: false, why: bounds.replace('the arguments', 'the prompt') };
  if (!Array.isArray(value)) return { ok: false, why: 'it is not a list of messages ({ role, content })' };
  if (value.length > maxMessages) return { ok: false, why: `it has ${value.length} messages, more than the ${maxMessages} allowed` };
  const chat: HookMessage[] = [];
  for (let i = 0; i < value.length; i++) {
    const m: unknown = value[i];
    const at = `chat[${i}]`;
    if (!isPlain(m)) return { ok: false, why: `${at} is not a message ({ role, content })` };
    if (typeof m.role !== 'string' || !ROLES.has(m.role)) return { ok: false, why: `${at}.role must be system, user or assistant` };
    let content: HookMessage['content'];
    if (typeof m.content === 'string') content = m.content;
    else if (Array.isArray(m.content)) {
      content = [];
      for (let j = 0; j < m.content.length; j++) {
        const part = readPart(m.content[j], images);
        if (!part) return { ok: false, why: `${at}.content[${j}] must be a text part or an image part the prompt already held` };
        content.push(part);
      }
    } else return { ok: false, why: `${at}.content must be a string (or a list of text and image parts)` };
    const msg: HookMessage = { role: m.role as HookMessage['role'], content };
    if (m.name !== undefined && m.name !== null) {
      if (typeof m.name !== 'string' || m.name.length > HOOK_NAME_MAX) return { ok: false, why: `${at}.name must be text of at most ${HOOK_NAME_MAX} characters` };
      msg.name = m.name;
    }
    chat.push(msg);
  }
  return { ok: true, chat };
}
