// How one live event changes the cached chat. Each function checks the
// event against the cache first and changes nothing when it does not fit
// (returning false), so the cache can resync instead of guessing.
import { T } from './event-types';
import { applyPatch, PatchError } from './json-patch';
import { deepFreeze } from './readonly';
import type { ChatDetails, JsonPatchOp, StMessage } from './types';

/** CachedChat is the part of the cache an event may change. */
export interface CachedChat {
  details: ChatDetails;
  msgs: StMessage[];
}

function isIndex(v: unknown, limit: number): v is number {
  return Number.isInteger(v) && (v as number) >= 0 && (v as number) < limit;
}

function asMessage(v: unknown): StMessage | null {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as StMessage) : null;
}

function insert(c: CachedChat, p: Record<string, unknown>): boolean {
  const msg = asMessage(p.stMessage);
  if (!msg || !isIndex(p.index, c.msgs.length + 1)) return false;
  c.msgs.splice(p.index, 0, msg);
  return true;
}

function replace(c: CachedChat, p: Record<string, unknown>): boolean {
  const msg = asMessage(p.stMessage);
  const index = p.index ?? p.messageId;
  if (!msg || !isIndex(index, c.msgs.length)) return false;
  if (msg.id !== undefined && c.msgs[index]?.id !== msg.id) return false;
  c.msgs[index] = msg;
  return true;
}

function remove(c: CachedChat, p: Record<string, unknown>): boolean {
  const deleted = p.deleted;
  if (!Array.isArray(deleted) || !Number.isInteger(p.length)) return false;
  const indexes: number[] = [];
  for (const d of deleted as ({ index?: unknown; id?: unknown } | null)[]) {
    const index = d?.index;
    if (!isIndex(index, c.msgs.length) || c.msgs[index]?.id !== d?.id) return false;
    indexes.push(index);
  }
  if (new Set(indexes).size !== indexes.length || c.msgs.length - indexes.length !== p.length) return false;
  indexes.sort((a, b) => b - a);
  for (const i of indexes) c.msgs.splice(i, 1);
  return true;
}

function patch(c: CachedChat, p: Record<string, unknown>): boolean {
  if (!Array.isArray(p.ops)) return false;
  let next: { metadata: unknown; messages: unknown };
  try {
    next = applyPatch({ metadata: c.details.metadata, messages: c.msgs }, p.ops as JsonPatchOp[]);
  } catch (err) {
    if (err instanceof PatchError) return false;
    throw err;
  }
  const msgs = next.messages;
  const meta = next.metadata;
  if (!Array.isArray(msgs) || !msgs.every((m) => asMessage(m)) || typeof meta !== 'object' || meta === null || Array.isArray(meta)) return false;
  if (Number.isInteger(p.length) && msgs.length !== p.length) return false;
  for (const m of msgs) deepFreeze(m);
  if (msgs !== c.msgs) c.msgs = msgs as StMessage[];
  if (meta !== c.details.metadata) c.details = deepFreeze({ ...c.details, metadata: meta as Record<string, unknown> });
  return true;
}

function metadata(c: CachedChat, p: Record<string, unknown>): boolean {
  const meta = p.metadata;
  if (typeof meta !== 'object' || meta === null || Array.isArray(meta)) return false;
  c.details = deepFreeze({ ...c.details, metadata: meta as Record<string, unknown> });
  return true;
}

/**
 * applyEvent applies one chat-revision event (event-types CHAT_REVISION_EVENTS)
 * to c, reporting false (and changing nothing) when it does not fit.
 */
export function applyEvent(c: CachedChat, type: string, p: Record<string, unknown>): boolean {
  switch (type) {
    case T.MESSAGE_SENT:
    case T.MESSAGE_RECEIVED:
      return insert(c, p);
    case T.MESSAGE_EDITED:
    case T.MESSAGE_UPDATED:
    case T.MESSAGE_SWIPED:
    case T.MESSAGE_SWIPE_DELETED:
    case T.SWIPE_EDITED:
      return replace(c, p);
    case T.MESSAGE_DELETED:
      return remove(c, p);
    case T.CHAT_PATCHED:
      return patch(c, p);
    case T.CHAT_METADATA_UPDATED:
      return metadata(c, p);
    default:
      return false;
  }
}
