// What a World Info scan activated, as the lorebook screen shows it, where
// a book is attached to a chat, and which field a host error names.

/** DisabledKeyLike is a regex key a scan did not run (a dry run's uids may be strings). */
export interface DisabledKeyLike {
  world: string;
  uid: string | number;
  key: string;
  reason: string;
}

/** ActivationLike is a dry run's or the last generation's activation (a dry run's uids may be strings). */
export interface ActivationLike {
  timestampMs: number;
  trigger: string;
  entries: { world: string; uid: string | number; displayName: string; constant: boolean; content: string; position?: string }[];
  /** warnings say in words what the scan could not do. */
  warnings?: readonly string[] | undefined;
  /** disabledKeys are the regex keys the scan did not run. */
  disabledKeys?: readonly DisabledKeyLike[] | undefined;
}

/** Attachment is how a book reaches a chat's generations. */
export type Attachment = 'global' | 'character' | 'chat' | 'persona';

/** ChatLore is what attaches books to a chat: the global selection, the card's, the chat's and the persona's book. */
export interface ChatLore {
  globalSelect: readonly string[];
  characterWorld: string;
  chatWorld: string;
  /** personaWorld is the lorebook of the persona in effect in the chat ('' for none). */
  personaWorld?: string | undefined;
}

/** attachmentsOf lists how the book name is attached to the chat (empty: not used by it). */
export function attachmentsOf(name: string, lore: ChatLore): Attachment[] {
  const out: Attachment[] = [];
  if (lore.globalSelect.includes(name)) out.push('global');
  if (lore.characterWorld === name) out.push('character');
  if (lore.chatWorld === name) out.push('chat');
  if (lore.personaWorld === name) out.push('persona');
  return out;
}

/** ATTACHMENT_LABELS name the attachments in a sentence. */
export const ATTACHMENT_LABELS: Record<Attachment, string> = {
  global: 'selected globally',
  character: 'the character’s book',
  chat: 'bound to this chat',
  persona: 'your persona’s book',
};

/** activeUids is the set of uids of the book world that the activation lists. */
export function activeUids(act: ActivationLike | null, world: string): Set<number> {
  const out = new Set<number>();
  for (const e of act?.entries ?? []) {
    if (e.world === world) out.add(Number(e.uid));
  }
  return out;
}

/** disabledKeyWords says, after the key and a colon, why the scan did not run it. */
export function disabledKeyWords(reason: string): string {
  switch (reason) {
    case 'timeout':
      return 'took too long to check against the chat, so it was turned off. It will not activate this entry until you save the lorebook again; a simpler pattern avoids this.';
    case 'tooMany':
      return 'is not used: this lorebook has more than 200 keys with lookahead, lookbehind or backreferences, and only the first 200 run.';
    default:
      return 'is not used.';
  }
}

/** keyNotes maps each entry of the book world to its keys the activation did not run, with why in words. */
export function keyNotes(act: ActivationLike | null, world: string): Map<number, Record<string, string>> {
  const out = new Map<number, Record<string, string>>();
  for (const d of act?.disabledKeys ?? []) {
    if (d.world !== world) continue;
    const uid = Number(d.uid);
    let notes = out.get(uid);
    if (!notes) out.set(uid, (notes = {}));
    notes[d.key] = disabledKeyWords(d.reason);
  }
  return out;
}

/** byWorld groups an activation's entries by book, in the order books first appear. */
export function byWorld(act: ActivationLike | null): { world: string; entries: ActivationLike['entries'] }[] {
  const groups = new Map<string, ActivationLike['entries']>();
  for (const e of act?.entries ?? []) {
    let g = groups.get(e.world);
    if (!g) groups.set(e.world, (g = []));
    g.push(e);
  }
  return [...groups].map(([world, entries]) => ({ world, entries }));
}

/** POSITION_NAMES turn an activation's position names into words. */
const POSITION_NAMES: Record<string, string> = {
  before: 'before the character',
  after: 'after the character',
  ANTop: 'top of the Author’s Note',
  ANBottom: 'bottom of the Author’s Note',
  atDepth: 'in the chat at depth',
  EMTop: 'before the examples',
  EMBottom: 'after the examples',
  outlet: 'in an outlet',
};

/** positionWords says where an activated entry went. */
export function positionWords(position: string | undefined): string {
  return (position && POSITION_NAMES[position]) || 'placed nowhere';
}

/** FieldRef is what a worldinfo.invalid error's details.field points at. */
export interface FieldRef {
  /** entryKey is the entries-object key the error names, null for the book or a setting. */
  entryKey: string | null;
  /** field is the entry field ("content", "key"), the setting, or "name"/"book". */
  field: string;
}

/**
 * fieldOfError reads details.field of a host error: `entries["12"].key[3]`
 * names entry "12"'s key field, `world_info_depth` a setting. Null when
 * the error names no field.
 */
export function fieldOfError(err: unknown): FieldRef | null {
  if (typeof err !== 'object' || err === null) return null;
  const details = (err as { details?: unknown }).details;
  const raw = typeof details === 'object' && details !== null ? (details as { field?: unknown }).field : undefined;
  if (typeof raw !== 'string' || raw === '') return null;
  const m = /^entries\["((?:[^"\\]|\\.)*)"\](?:\.([A-Za-z_][\w]*))?/.exec(raw);
  if (m) {
    let key = m[1] ?? '';
    try {
      key = JSON.parse(`"${key}"`) as string;
    } catch {
      // keep the key as written
    }
    return { entryKey: key, field: m[2] ?? 'entry' };
  }
  return { entryKey: null, field: raw.replace(/[[.].*$/, '') };
}

/** fieldMessage is a host error's message without the entry path it starts with ("entries[\"3\"].key[0] is …" → "key[0] is …"). */
export function fieldMessage(message: string): string {
  return message.replace(/^entries\["(?:[^"\\]|\\.)*"\]\./, '');
}

/** LoreRef is one lorebook entry a reply's prompt carried (extra.hearth.worldInfo). */
export interface LoreRef {
  world: string;
  uid: number;
  displayName: string;
  position: string;
}

/** REPLY_LORE_MAX bounds the entries a reply lists: the field comes from the chat file, which anyone may have written. */
const REPLY_LORE_MAX = 200;

/**
 * replyLore reads the lorebook entries a reply's prompt carried from its
 * extra (extra.hearth.worldInfo, written by the host with the reply), in
 * order; anything malformed is left out.
 */
export function replyLore(extra: unknown): LoreRef[] {
  const hearth = extra && typeof extra === 'object' ? (extra as { hearth?: unknown }).hearth : undefined;
  const list = hearth && typeof hearth === 'object' ? (hearth as { worldInfo?: unknown }).worldInfo : undefined;
  if (!Array.isArray(list)) return [];
  const out: LoreRef[] = [];
  for (const item of list.slice(0, REPLY_LORE_MAX)) {
    if (!item || typeof item !== 'object') continue;
    const { world, uid, displayName, position } = item as Record<string, unknown>;
    if (typeof world !== 'string' || typeof uid !== 'number') continue;
    out.push({ world, uid, displayName: typeof displayName === 'string' && displayName ? displayName : `Entry ${uid}`, position: typeof position === 'string' ? position : '' });
  }
  return out;
}
