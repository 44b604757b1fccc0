// The character editor's form: a card as editable values and back to the
// smallest patch that makes the change (characters.update merges shallowly,
// extensions deeply, so a field left alone is never sent and keys the editor
// does not know survive untouched), the checks made before saving (each
// naming its field, as the host's refusals are matched to theirs), and the
// list edits of alternate greetings and tags.
import type { Character } from '../../abi/types';

/** The string fields of a V2 card the editor shows, each in its own box. */
export const TEXT_FIELDS = [
  'name',
  'description',
  'personality',
  'scenario',
  'first_mes',
  'mes_example',
  'system_prompt',
  'post_history_instructions',
  'creator_notes',
  'creator',
  'character_version',
] as const;

export type TextField = (typeof TEXT_FIELDS)[number];

/** The extension keys edited by their own controls; the Advanced tab shows the rest. */
export const MANAGED_EXTENSIONS = ['talkativeness', 'depth_prompt', 'world'] as const;

/** A place in the form an error can point at. */
export type FieldKey = TextField | 'alternate_greetings' | 'tags' | 'image' | 'talkativeness' | 'depth_prompt' | 'depth_prompt.depth' | 'world' | 'extensions';

/** The editor's tabs, in order. */
export const TABS = ['basics', 'greetings', 'prompting', 'metadata', 'advanced'] as const;
export type Tab = (typeof TABS)[number];

/** TAB_OF says which tab shows a field, so an error can bring it into view. */
export const TAB_OF: Record<FieldKey, Tab> = {
  name: 'basics',
  image: 'basics',
  tags: 'basics',
  description: 'basics',
  first_mes: 'basics',
  alternate_greetings: 'greetings',
  personality: 'prompting',
  scenario: 'prompting',
  mes_example: 'prompting',
  system_prompt: 'prompting',
  post_history_instructions: 'prompting',
  depth_prompt: 'prompting',
  'depth_prompt.depth': 'prompting',
  world: 'prompting',
  creator_notes: 'metadata',
  creator: 'metadata',
  character_version: 'metadata',
  talkativeness: 'metadata',
  extensions: 'advanced',
};

export type DepthRole = 'system' | 'user' | 'assistant';

/** A greeting as the list edits it: key keeps its textarea when the list is reordered. */
export interface Greeting {
  key: number;
  text: string;
}

/** CharacterForm is a card as the editor edits it: numbers as the strings typed. */
export interface CharacterForm {
  text: Record<TextField, string>;
  greetings: Greeting[];
  tags: string[];
  /** talkativeness: 0–1 as typed. */
  talkativeness: string;
  depthPrompt: { prompt: string; depth: string; role: DepthRole };
  /** world: the bound lorebook's name, '' for none. */
  world: string;
  /** extensionsText: the other extensions as JSON. */
  extensionsText: string;
  /** image: a data: URL picked as the new avatar, or null to keep the one there is. */
  image: string | null;
}

/** A field the form or the host refused, and why. */
export interface FieldError {
  field: FieldKey | null;
  message: string;
}

/** The defaults SillyTavern gives a new card. */
export const DEFAULT_TALKATIVENESS = 0.5;
export const DEFAULT_DEPTH = 4;
export const MAX_DEPTH = 10_000;

let nextKey = 1;

/** greeting makes a list entry with a fresh key. */
export function greeting(text = ''): Greeting {
  return { key: nextKey++, text };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === 'string' ? v : v === null || v === undefined ? '' : String(v));
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.map(str) : []);

function extensionsOf(card: Partial<Character> | null): Record<string, unknown> {
  return isObject(card?.extensions) ? card.extensions : {};
}

/** otherExtensions is extensions without the keys the form edits itself. */
export function otherExtensions(card: Partial<Character> | null): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(extensionsOf(card))) {
    if (!(MANAGED_EXTENSIONS as readonly string[]).includes(k)) out[k] = v;
  }
  return out;
}

function roleOf(v: unknown): DepthRole {
  return v === 'user' || v === 'assistant' ? v : 'system';
}

/** toForm makes the form for card; null gives a new card's form. */
export function toForm(card: Partial<Character> | null): CharacterForm {
  const ext = extensionsOf(card);
  const dp = isObject(ext.depth_prompt) ? ext.depth_prompt : {};
  const talk = Number(ext.talkativeness);
  const text = {} as Record<TextField, string>;
  for (const k of TEXT_FIELDS) text[k] = str(card?.[k]);
  const depth = Number(dp.depth);
  const others = otherExtensions(card);
  return {
    text,
    greetings: strings(card?.alternate_greetings).map((t) => greeting(t)),
    tags: strings(card?.tags),
    talkativeness: ext.talkativeness === undefined || ext.talkativeness === '' || !Number.isFinite(talk) ? String(DEFAULT_TALKATIVENESS) : String(talk),
    depthPrompt: {
      prompt: str(dp.prompt),
      depth: dp.depth === undefined || !Number.isFinite(depth) ? String(DEFAULT_DEPTH) : String(depth),
      role: roleOf(dp.role),
    },
    world: str(ext.world),
    extensionsText: Object.keys(others).length === 0 ? '{}' : JSON.stringify(others, null, 2),
    image: null,
  };
}

/** sameForm reports whether two forms hold the same values (greeting keys aside). */
export function sameForm(a: CharacterForm, b: CharacterForm): boolean {
  const plain = (f: CharacterForm) => JSON.stringify({ ...f, greetings: f.greetings.map((g) => g.text) });
  return plain(a) === plain(b);
}

// ---- List edits ----

/** addGreeting appends an empty greeting. */
export function addGreeting(list: readonly Greeting[]): Greeting[] {
  return [...list, greeting()];
}

/** removeGreeting drops the greeting at index. */
export function removeGreeting(list: readonly Greeting[], index: number): Greeting[] {
  return list.filter((_, i) => i !== index);
}

/** moveGreeting moves the greeting at index by delta places (clamped to the list). */
export function moveGreeting(list: readonly Greeting[], index: number, delta: number): Greeting[] {
  const to = Math.max(0, Math.min(list.length - 1, index + delta));
  if (index < 0 || index >= list.length || to === index) return [...list];
  const out = [...list];
  out.splice(to, 0, ...out.splice(index, 1));
  return out;
}

/**
 * addTags adds the comma-separated tags in text, trimmed, leaving out empty
 * ones and any the list has already (case aside).
 */
export function addTags(tags: readonly string[], text: string): string[] {
  const out = [...tags];
  for (const raw of text.split(',')) {
    const t = raw.trim().replace(/\s+/g, ' ');
    if (t && !out.some((x) => x.toLowerCase() === t.toLowerCase())) out.push(t);
  }
  return out;
}

/** removeTag drops the tag at index. */
export function removeTag(tags: readonly string[], index: number): string[] {
  return tags.filter((_, i) => i !== index);
}

// ---- Checking and diffing ----

/** deepEqual compares JSON values. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((v, i) => deepEqual(v, b[i]));
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && deepEqual(a[k], b[k]));
  }
  return false;
}

/**
 * mergePatch returns the patch that a deep merge (objects merged key by key,
 * anything else replaced) turns from into to, or the paths of keys to
 * dropped, which no merge can remove.
 */
export function mergePatch(from: Record<string, unknown>, to: Record<string, unknown>, path = ''): { patch: Record<string, unknown>; removed: string[] } {
  const patch: Record<string, unknown> = {};
  const removed: string[] = [];
  for (const k of Object.keys(from)) if (!Object.hasOwn(to, k)) removed.push(path + k);
  for (const [k, v] of Object.entries(to)) {
    if (!Object.hasOwn(from, k)) {
      patch[k] = v;
      continue;
    }
    const old = from[k];
    if (isObject(old) && isObject(v)) {
      const sub = mergePatch(old, v, `${path}${k}.`);
      removed.push(...sub.removed);
      if (Object.keys(sub.patch).length > 0) patch[k] = sub.patch;
    } else if (!deepEqual(old, v)) {
      patch[k] = v;
    }
  }
  return { patch, removed };
}

/** parseExtensions reads the Advanced tab's JSON: an object, or why not. */
export function parseExtensions(text: string): { value: Record<string, unknown> } | { error: FieldError } {
  let v: unknown;
  try {
    v = JSON.parse(text.trim() === '' ? '{}' : text);
  } catch (err) {
    return { error: { field: 'extensions', message: `Extensions are not valid JSON: ${err instanceof Error ? err.message : String(err)}` } };
  }
  if (!isObject(v)) return { error: { field: 'extensions', message: 'Extensions must be a JSON object ({ … }).' } };
  const managed = Object.keys(v).filter((k) => (MANAGED_EXTENSIONS as readonly string[]).includes(k));
  if (managed.length > 0) {
    return { error: { field: 'extensions', message: `Set ${managed.join(', ')} on the other tabs, not here.` } };
  }
  return { value: v };
}

/** The host call a saved form makes: create's fields and image, or update's patch. */
export type SaveCall =
  | { kind: 'create'; fields: Partial<Character> & { name: string }; image: string | null }
  | { kind: 'update'; patch: Partial<Character> & { image?: string } };

function numberIn(text: string, min: number, max: number, integer: boolean): number | null {
  const t = text.trim();
  const v = Number(t);
  if (t === '' || !Number.isFinite(v) || v < min || v > max || (integer && !Number.isInteger(v))) return null;
  return v;
}

/**
 * validate checks the form as the host would and a little more (a blank
 * name, numbers out of range, extensions that are no object); an empty list
 * means it can be saved.
 */
export function validate(form: CharacterForm, base: Partial<Character> | null): FieldError[] {
  const errors: FieldError[] = [];
  if (form.text.name.trim() === '') errors.push({ field: 'name', message: 'A character needs a name.' });
  if (numberIn(form.talkativeness, 0, 1, false) === null) errors.push({ field: 'talkativeness', message: 'Talkativeness is a number from 0 to 1.' });
  if (numberIn(form.depthPrompt.depth, 0, MAX_DEPTH, true) === null) {
    errors.push({ field: 'depth_prompt.depth', message: `Depth is a whole number from 0 to ${MAX_DEPTH.toLocaleString('en-US')}.` });
  }
  const ext = parseExtensions(form.extensionsText);
  if ('error' in ext) {
    errors.push(ext.error);
  } else {
    const { removed } = mergePatch(otherExtensions(base), ext.value);
    if (removed.length > 0) {
      errors.push({
        field: 'extensions',
        message: `Saving merges extensions into the card, so a key cannot be taken out: ${removed.join(', ')}. Set ${removed.length === 1 ? 'it' : 'them'} to null instead.`,
      });
    }
  }
  return errors;
}

/**
 * toSave turns a checked form into the host call: for a new card (base
 * null) the fields that differ from an empty card; for an existing one only
 * what changed, extensions as the smallest deep-merge patch (the depth
 * prompt's three keys together; talkativeness keeping the type it had).
 * Call validate first: toSave assumes the form is valid.
 */
export function toSave(form: CharacterForm, base: Partial<Character> | null): SaveCall {
  const before = toForm(base);
  const fields: Record<string, unknown> = {};
  for (const k of TEXT_FIELDS) {
    const v = k === 'name' ? form.text.name.trim() : form.text[k];
    if (v !== before.text[k]) fields[k] = v;
  }
  const greetings = form.greetings.map((g) => g.text);
  if (!deepEqual(greetings, before.greetings.map((g) => g.text))) fields.alternate_greetings = greetings;
  if (!deepEqual(form.tags, before.tags)) fields.tags = [...form.tags];

  const ext: Record<string, unknown> = {};
  const oldExt = extensionsOf(base);
  if (form.talkativeness.trim() !== before.talkativeness || (!base && form.talkativeness.trim() !== '')) {
    const n = Number(form.talkativeness);
    ext.talkativeness = typeof oldExt.talkativeness === 'string' ? String(n) : n;
  }
  const dp = form.depthPrompt;
  if (!base || dp.prompt !== before.depthPrompt.prompt || dp.depth.trim() !== before.depthPrompt.depth || dp.role !== before.depthPrompt.role) {
    ext.depth_prompt = { prompt: dp.prompt, depth: Number(dp.depth), role: dp.role };
  }
  if (form.world !== before.world) ext.world = form.world;
  const parsed = parseExtensions(form.extensionsText);
  if ('value' in parsed) Object.assign(ext, mergePatch(otherExtensions(base), parsed.value).patch);
  if (Object.keys(ext).length > 0) fields.extensions = ext;

  if (!base) {
    return { kind: 'create', fields: { ...fields, name: form.text.name.trim() }, image: form.image };
  }
  if (form.image) fields.image = form.image;
  return { kind: 'update', patch: fields as Partial<Character> & { image?: string } };
}

const FIELD_WORDS: [RegExp, FieldKey][] = [
  [/^alternate_greetings\b/, 'alternate_greetings'],
  [/^depth_prompt\b/, 'depth_prompt'],
  [/^(extensions|the card)\b/, 'extensions'],
  [/^image\b/, 'image'],
  [/^tags\b/, 'tags'],
  ...TEXT_FIELDS.map((k): [RegExp, FieldKey] => [new RegExp(`^${k}\\b`), k]),
];

/**
 * fieldOfError finds the field a host error is about: details.field or
 * details.path when the host names one, else the field its message starts
 * with ("name must not be empty", "image must be PNG, …").
 */
export function fieldOfError(err: unknown): FieldKey | null {
  if (!isObject(err) && !(err instanceof Error)) return null;
  const e = err as { message?: unknown; details?: unknown };
  const details = isObject(e.details) ? e.details : {};
  for (const hint of [details.field, details.path]) {
    if (typeof hint !== 'string') continue;
    const key = hint.replace(/^\/?(data[./])?/, '').split(/[./[]/)[0] ?? '';
    const hit = FIELD_WORDS.find(([re]) => re.test(key));
    if (hit) return hit[1];
  }
  const message = typeof e.message === 'string' ? e.message : '';
  return FIELD_WORDS.find(([re]) => re.test(message))?.[1] ?? null;
}

/** tabsChanged lists the tabs whose values differ between two forms (the changed-dot on a tab). */
export function tabsChanged(a: CharacterForm, b: CharacterForm): Set<Tab> {
  const out = new Set<Tab>();
  for (const k of TEXT_FIELDS) if (a.text[k] !== b.text[k]) out.add(TAB_OF[k]);
  if (!deepEqual(a.tags, b.tags) || a.image !== b.image) out.add('basics');
  if (!deepEqual(a.greetings.map((g) => g.text), b.greetings.map((g) => g.text))) out.add('greetings');
  if (a.talkativeness !== b.talkativeness) out.add('metadata');
  if (!deepEqual(a.depthPrompt, b.depthPrompt) || a.world !== b.world) out.add('prompting');
  if (a.extensionsText !== b.extensionsText) out.add('advanced');
  return out;
}
