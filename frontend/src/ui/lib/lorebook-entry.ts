// Lorebook entries as the editor sees them: SillyTavern's worlds/*.json
// entry objects, read with the values a missing field has (as the backend
// reads them) and written field by field, so fields nobody edited (and
// fields Hearth does not know) go back to the host exactly as they came.
import type { WorldInfoBook } from '../../abi/types';

/** LoreEntry is one member of a book's entries object. */
export type LoreEntry = WorldInfoBook['entries'][string];

/** Where an activated entry's content goes (SillyTavern's world_info_position). */
export const POSITIONS: readonly { value: number; label: string; short: string }[] = [
  { value: 0, label: 'Before the character definitions', short: '↑Char' },
  { value: 1, label: 'After the character definitions', short: '↓Char' },
  { value: 5, label: 'Before the example messages', short: '↑EM' },
  { value: 6, label: 'After the example messages', short: '↓EM' },
  { value: 2, label: 'Top of the Author’s Note', short: '↑AN' },
  { value: 3, label: 'Bottom of the Author’s Note', short: '↓AN' },
  { value: 4, label: 'In the chat at a depth (@D)', short: '@D' },
  { value: 7, label: 'Outlet ({{outlet::name}})', short: 'Outlet' },
];

/** POSITION_AT_DEPTH and POSITION_OUTLET are the positions with their own settings. */
export const POSITION_AT_DEPTH = 4;
export const POSITION_OUTLET = 7;
/** POSITION_NONE is what a missing position reads as: activates, placed nowhere. */
export const POSITION_NONE = -1;

/** How secondary keys combine with a matched primary key (world_info_logic). */
export const LOGICS: readonly { value: number; label: string; hint: string }[] = [
  { value: 0, label: 'AND ANY', hint: 'and any secondary key matches too' },
  { value: 3, label: 'AND ALL', hint: 'and every secondary key matches too' },
  { value: 2, label: 'NOT ANY', hint: 'and no secondary key matches' },
  { value: 1, label: 'NOT ALL', hint: 'and some secondary key does not match' },
];

/** Roles of an at-depth entry (extension_prompt_roles). */
export const ROLES: readonly { value: number; label: string }[] = [
  { value: 0, label: 'System' },
  { value: 1, label: 'User' },
  { value: 2, label: 'Assistant' },
];

/** The generation types an entry can be limited to (its triggers). */
export const TRIGGERS: readonly { value: string; label: string }[] = [
  { value: 'normal', label: 'Normal' },
  { value: 'continue', label: 'Continue' },
  { value: 'impersonate', label: 'Impersonate' },
  { value: 'swipe', label: 'Swipe' },
  { value: 'regenerate', label: 'Regenerate' },
  { value: 'quiet', label: 'Quiet' },
];

/** The chat-independent texts an entry can opt into scanning (its match* flags). */
export const MATCH_SOURCES: readonly { field: string; label: string }[] = [
  { field: 'matchPersonaDescription', label: 'Persona description' },
  { field: 'matchCharacterDescription', label: 'Character description' },
  { field: 'matchCharacterPersonality', label: 'Character personality' },
  { field: 'matchCharacterDepthPrompt', label: 'Character’s note (depth prompt)' },
  { field: 'matchScenario', label: 'Scenario' },
  { field: 'matchCreatorNotes', label: 'Creator’s notes' },
];

/** Strategy is how an entry activates: by its keys, always, or by the vector extension. */
export type Strategy = 'normal' | 'constant' | 'vectorized';

/** What numeric fields read as when a file lacks them (or has null), as the backend reads them. */
const NUMBER_ABSENT: Record<string, number> = { position: POSITION_NONE, depth: 4, groupWeight: 100 };

/** str reads a string field ('' when missing). */
export function str(e: LoreEntry, field: string): string {
  const v = e[field];
  return typeof v === 'string' ? v : '';
}

/** num reads a numeric field with the value a missing one has. */
export function num(e: LoreEntry, field: string): number {
  const v = e[field];
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'boolean') return v ? 1 : 0; // delayUntilRecursion: true reads as level 1
  return NUMBER_ABSENT[field] ?? 0;
}

/** bool reads a boolean field (false when missing). */
export function bool(e: LoreEntry, field: string): boolean {
  return e[field] === true;
}

/** tri reads an override of a global setting: null (use the global), true or false. */
export function tri(e: LoreEntry, field: string): boolean | null {
  const v = e[field];
  return typeof v === 'boolean' ? v : null;
}

/** optNum reads a nullable number (scanDepth): null uses the global setting. */
export function optNum(e: LoreEntry, field: string): number | null {
  const v = e[field];
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

/** strs reads a list of strings (keys, triggers); non-strings are dropped. */
export function strs(e: LoreEntry, field: string): string[] {
  const v = e[field];
  return Array.isArray(v) ? v.filter((k): k is string => typeof k === 'string') : [];
}

/** strategyOf tells how the entry activates. */
export function strategyOf(e: LoreEntry): Strategy {
  if (bool(e, 'constant')) return 'constant';
  if (bool(e, 'vectorized')) return 'vectorized';
  return 'normal';
}

/** setStrategy writes constant and vectorized for strategy s. */
export function setStrategy(e: LoreEntry, s: Strategy): void {
  e.constant = s === 'constant';
  e.vectorized = s === 'vectorized';
}

/** entryTitle is what the entry list shows: the title, else the keys, else its uid. */
export function entryTitle(e: LoreEntry): string {
  const title = str(e, 'comment').trim();
  if (title) return title;
  const keys = strs(e, 'key');
  if (keys.length > 0) return keys.join(', ');
  return `Entry ${e.uid}`;
}

/** positionShort is a position's short label (↑Char, @D 4, …). */
export function positionShort(e: LoreEntry): string {
  const p = num(e, 'position');
  if (p === POSITION_AT_DEPTH) return `@D ${num(e, 'depth')}`;
  return POSITIONS.find((x) => x.value === p)?.short ?? 'None';
}

/** nextUid is one more than the book's largest uid (0 for an empty book). */
export function nextUid(book: WorldInfoBook): number {
  let max = -1;
  for (const [k, e] of Object.entries(book.entries)) {
    const uid = typeof e.uid === 'number' ? e.uid : Number(k);
    if (Number.isFinite(uid) && uid > max) max = uid;
  }
  return max + 1;
}

/**
 * newEntry is SillyTavern's template for a new entry (what its editor
 * creates): keys, selective AND ANY, order 100, before the character,
 * probability 100, depth 4, weight 100, the overrides on "use global".
 */
export function newEntry(uid: number, displayIndex = uid): LoreEntry {
  return {
    uid,
    key: [],
    keysecondary: [],
    comment: '',
    content: '',
    constant: false,
    vectorized: false,
    selective: true,
    selectiveLogic: 0,
    addMemo: true,
    order: 100,
    position: 0,
    disable: false,
    ignoreBudget: false,
    excludeRecursion: false,
    preventRecursion: false,
    matchPersonaDescription: false,
    matchCharacterDescription: false,
    matchCharacterPersonality: false,
    matchCharacterDepthPrompt: false,
    matchScenario: false,
    matchCreatorNotes: false,
    delayUntilRecursion: 0,
    probability: 100,
    useProbability: true,
    depth: 4,
    outletName: '',
    group: '',
    groupOverride: false,
    groupWeight: 100,
    scanDepth: null,
    caseSensitive: null,
    matchWholeWords: null,
    useGroupScoring: null,
    automationId: '',
    role: 0,
    sticky: 0,
    cooldown: 0,
    delay: 0,
    triggers: [],
    displayIndex,
  };
}

/** duplicateEntry copies e (every field, unknown ones too) under a new uid. */
export function duplicateEntry(e: LoreEntry, uid: number): LoreEntry {
  const copy = structuredClone(e) as LoreEntry;
  copy.uid = uid;
  if (typeof copy.displayIndex === 'number') copy.displayIndex = uid;
  const title = str(e, 'comment');
  if (title) copy.comment = `${title} (copy)`;
  return copy;
}

/** EntrySort names the entry list's orders. */
export type EntrySort = 'order-desc' | 'order-asc' | 'title' | 'uid' | 'display';

export const ENTRY_SORTS: readonly { value: EntrySort; label: string }[] = [
  { value: 'order-desc', label: 'Order, highest first' },
  { value: 'order-asc', label: 'Order, lowest first' },
  { value: 'title', label: 'Title A–Z' },
  { value: 'uid', label: 'Oldest first (uid)' },
  { value: 'display', label: 'As SillyTavern lists them' },
];

/** sortEntries returns the book's entry keys in the order sort names; ties go by uid. */
export function sortEntries(book: WorldInfoBook, sort: EntrySort): string[] {
  const keys = Object.keys(book.entries);
  const e = (k: string) => book.entries[k]!;
  const byUid = (a: string, b: string) => e(a).uid - e(b).uid;
  const cmp: Record<EntrySort, (a: string, b: string) => number> = {
    'order-desc': (a, b) => num(e(b), 'order') - num(e(a), 'order') || byUid(a, b),
    'order-asc': (a, b) => num(e(a), 'order') - num(e(b), 'order') || byUid(a, b),
    title: (a, b) => entryTitle(e(a)).localeCompare(entryTitle(e(b)), undefined, { sensitivity: 'base', numeric: true }) || byUid(a, b),
    uid: byUid,
    display: (a, b) => num(e(a), 'displayIndex') - num(e(b), 'displayIndex') || byUid(a, b),
  };
  return keys.sort(cmp[sort]);
}

/** matchesEntry says whether the entry's keys, secondary keys, title or content contain query (any case). */
export function matchesEntry(e: LoreEntry, query: string): boolean {
  const q = query.trim().toLowerCase();
  if (!q) return true;
  const hay = [...strs(e, 'key'), ...strs(e, 'keysecondary'), str(e, 'comment'), str(e, 'content'), String(e.uid)];
  return hay.some((s) => s.toLowerCase().includes(q));
}

/** isRegexKey says whether a key is a /pattern/flags regex key. */
export function isRegexKey(key: string): boolean {
  return /^\/(.+)\/([a-z]*)$/s.test(key);
}

/**
 * regexKeyProblem explains why a /regex/ key will not work as a regex, or
 * returns null: a pattern JavaScript cannot read (SillyTavern, and the
 * host, then match the key as plain text). Lookaround and backreferences
 * run on the host as in JavaScript.
 */
export function regexKeyProblem(key: string): string | null {
  const m = /^\/(.+)\/([a-z]*)$/s.exec(key);
  if (!m) return null;
  const [, pattern = '', flags = ''] = m;
  try {
    new RegExp(pattern, flags);
  } catch (err) {
    return `not a valid regular expression: ${err instanceof Error ? err.message : String(err)}`;
  }
  return null;
}

/**
 * splitKeys turns typed or pasted text into keys: split at commas and
 * line breaks, except inside a /regex/ key (which may hold commas);
 * blanks dropped.
 */
export function splitKeys(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    const t = line.trim();
    if (!t) continue;
    if (t.startsWith('/') && isRegexKey(t)) {
      out.push(t);
      continue;
    }
    for (const part of t.split(',')) {
      const k = part.trim();
      if (k) out.push(k);
    }
  }
  return out;
}
