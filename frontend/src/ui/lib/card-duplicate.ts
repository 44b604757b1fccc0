// A card file that is a character Hearth already has: the rule that tells
// (findDuplicate), and the one characters.update call that replaces that
// character's card with the file's in place (replacementPatch), so its
// avatar key, and with it its chats, stay. The rule, as docs/API.md's
// import notes say it: the same name (case, accents' composition and
// surrounding space aside) and the same description or the same first
// message (line endings and surrounding space aside). A card exported and
// imported again matches; so does a newer version of a card that changed
// one of the two; two characters that only share a name do not.
import type { Character, CharacterSummary, CharactersApi } from '../../abi/types';
import { deepEqual } from './character-edit';

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A character a card file matches. */
export interface Duplicate {
  /** character is the stored card, as characters.get returns it. */
  character: Character;
  summary: CharacterSummary;
  /** same says which of the two texts the file shares with it (one at least). */
  same: Sameness;
}

/** Which of description and first message two cards share. */
export interface Sameness {
  description: boolean;
  firstMessage: boolean;
}

const nameKey = (s: string): string => s.normalize('NFC').trim().replace(/\s+/g, ' ').toLowerCase();
const textKey = (v: unknown): string => (typeof v === 'string' ? v.replace(/\r\n?/g, '\n').trim() : '');

/** likeness says which texts a and b share when they are the same character by the rule, else null. */
export function likeness(a: Obj, b: Obj): Sameness | null {
  if (typeof a.name !== 'string' || typeof b.name !== 'string' || nameKey(a.name) !== nameKey(b.name)) return null;
  const same = { description: textKey(a.description) === textKey(b.description), firstMessage: textKey(a.first_mes) === textKey(b.first_mes) };
  return same.description || same.firstMessage ? same : null;
}

/**
 * findDuplicate finds the character a card's data matches, or null. Of
 * several, the one sharing both texts wins, then the one used last.
 */
export async function findDuplicate(api: Pick<CharactersApi, 'list' | 'get'>, data: Obj): Promise<Duplicate | null> {
  if (typeof data.name !== 'string') return null;
  const named = (await api.list()).filter((c) => nameKey(c.name) === nameKey(data.name as string));
  let best: { found: Duplicate; score: number } | null = null;
  for (const summary of named) {
    let character: Character;
    try {
      character = await api.get(summary.avatar);
    } catch {
      continue; // deleted meanwhile
    }
    const same = likeness(data, character);
    if (!same) continue;
    const score = (Number(same.description) + Number(same.firstMessage)) * 1e15 + (summary.lastChatAt ?? summary.createdAt);
    if (!best || score > best.score) best = { found: { character, summary, same }, score };
  }
  return best?.found ?? null;
}

/** The keys of a Character that are the host's, not the card's. */
const HOST_KEYS = new Set(['avatar', 'createdAt', 'updatedAt', 'hasImage', 'image']);

/**
 * replaceObject is the deep-merge patch that turns from into to: changed
 * values, objects patched key by key, and null for each key to lacks
 * (a merge cannot remove a key; null is the nearest it comes).
 */
function replaceObject(from: Obj, to: Obj): Obj {
  const patch: Obj = {};
  for (const k of Object.keys(from)) if (!Object.hasOwn(to, k) && from[k] !== null) patch[k] = null;
  for (const [k, v] of Object.entries(to)) {
    const old = from[k];
    if (isObject(old) && isObject(v)) {
      const sub = replaceObject(old, v);
      if (Object.keys(sub).length > 0) patch[k] = sub;
    } else if (!Object.hasOwn(from, k) || !deepEqual(old, v)) {
      patch[k] = v;
    }
  }
  return patch;
}

/**
 * replacementPatch is the characters.update patch that makes existing's
 * card the file's: every field that differs, a field the file lacks set to
 * null (update merges), extensions patched key by key (update merges them
 * deeply), and image (base64) when the file has a picture — without one,
 * the character keeps its own.
 */
export function replacementPatch(existing: Character, data: Obj, image: string | null): Obj {
  const patch: Obj = {};
  for (const k of Object.keys(existing)) {
    if (!HOST_KEYS.has(k) && !Object.hasOwn(data, k) && existing[k] !== null) patch[k] = null;
  }
  for (const [k, v] of Object.entries(data)) {
    if (HOST_KEYS.has(k)) continue;
    if (k === 'extensions' && isObject(v)) {
      const sub = replaceObject(isObject(existing.extensions) ? existing.extensions : {}, v);
      if (Object.keys(sub).length > 0) patch.extensions = sub;
    } else if (!deepEqual(existing[k], v)) {
      patch[k] = v;
    }
  }
  if (image) patch.image = image;
  return patch;
}
