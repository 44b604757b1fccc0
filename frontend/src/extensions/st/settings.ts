// extension_settings for page extensions (EXTENSIONS.md §5): SillyTavern
// keeps one object every extension writes its own key into, then calls
// saveSettingsDebounced(). Hearth persists it per extension, not as one
// shared blob: each top-level key belongs to the extension that made it,
// and lives in that extension's storage under ST_SETTINGS_KEY (so it goes
// with the extension when it is removed with its data, and counts against
// its quota). A key read back at start belongs to the extension it was
// stored with; a new key belongs to the extension whose module was loading
// (or whose activate hook was running) when it appeared — SillyTavern
// extensions make their key while they load — and otherwise to the
// extension whose id it names ("third-party/Foo", "foo"; failing that, the
// one extension whose id contains it or is contained in it, so "objective"
// finds "Extension-Objective"). A key no extension can be found for stays
// in memory and is reported once.
//
// The object starts with SillyTavern's own containers (objective: {},
// variables: { global: {} }, …) because extensions write into them
// without making them first. Such a key is saved only once it differs
// from how it started, and a stored one replaces its start value.

/** ST_SETTINGS_KEY is the storage key of an extension's share (the library import writes it too). */
export const ST_SETTINGS_KEY = 'st.extension_settings';

/** SAVE_DEBOUNCE_MS is SillyTavern's saveSettingsDebounced delay. */
export const SAVE_DEBOUNCE_MS = 1000;

/** SettingsStorage reads and writes one extension's share. */
export interface SettingsStorage {
  get(id: string): Promise<unknown>;
  set(id: string, value: Record<string, unknown>): Promise<void>;
}

export interface ExtensionSettings {
  /** object is extension_settings itself: extensions read and mutate it. */
  readonly object: Record<string, unknown>;
  /** load reads each extension's share into the object (before any extension runs). */
  load(ids: readonly string[]): Promise<void>;
  /** keys is a snapshot of the object's keys, for claim. */
  keys(): Set<string>;
  /** claim gives id every key that appeared since before and has no owner. */
  claim(id: string, before: Set<string>): void;
  /** owner is who a key belongs to, or null. */
  owner(key: string): string | null;
  /** saveDebounced is saveSettingsDebounced: a flush SAVE_DEBOUNCE_MS after the last call. */
  saveDebounced(): void;
  /** flush writes every share that changed since it was last read or written. */
  flush(): Promise<void>;
}

function normalize(s: string): string {
  return s.replace(/^third-party\//i, '').toLowerCase().replace(/[^a-z0-9]/g, '');
}

export function createExtensionSettings(
  storage: SettingsStorage,
  opts: { debounceMs?: number; warn?: (message: string) => void; defaults?: Readonly<Record<string, unknown>> } = {},
): ExtensionSettings {
  const object: Record<string, unknown> = {};
  /** defaults are the start values' JSON, by key, while they are not owned. */
  const defaults = new Map<string, string>();
  for (const [key, value] of Object.entries(opts.defaults ?? {})) {
    object[key] = structuredClone(value);
    defaults.set(key, JSON.stringify(value));
  }
  const owners = new Map<string, string>();
  const written = new Map<string, string>();
  const ids: string[] = [];
  const warned = new Set<string>();
  const warn = opts.warn ?? ((m: string) => console.warn(`Hearth: ${m}`));
  let timer: ReturnType<typeof setTimeout> | null = null;
  let flushing: Promise<void> = Promise.resolve();

  function guess(key: string): string | null {
    const k = normalize(key);
    if (!k) return null;
    const exact = ids.find((id) => normalize(id) === k);
    if (exact) return exact;
    const near = ids.filter((id) => normalize(id).includes(k) || k.includes(normalize(id)));
    return near.length === 1 ? near[0]! : null;
  }

  /** untouched says whether key still holds the start value no one owns. */
  function untouched(key: string): boolean {
    const start = defaults.get(key);
    if (start === undefined || owners.has(key)) return false;
    try {
      return JSON.stringify(object[key]) === start;
    } catch {
      return false;
    }
  }

  async function writeAll(): Promise<void> {
    const shares = new Map<string, Record<string, unknown>>(ids.map((id) => [id, {}]));
    for (const key of Object.keys(object)) {
      if (untouched(key)) continue;
      let id = owners.get(key) ?? guess(key);
      if (id) owners.set(key, id);
      else {
        if (!warned.has(key)) warn(`extension_settings["${key}"] belongs to no page extension Hearth loaded; it is not saved`);
        warned.add(key);
        continue;
      }
      shares.get(id)![key] = object[key];
    }
    for (const [id, share] of shares) {
      let text: string;
      try {
        text = JSON.stringify(share);
      } catch (err) {
        warn(`the settings of ${id} cannot be saved: ${(err as Error).message}`);
        continue;
      }
      if (written.get(id) === text) continue;
      try {
        await storage.set(id, JSON.parse(text) as Record<string, unknown>);
        written.set(id, text);
      } catch (err) {
        warn(`the settings of ${id} were not saved: ${(err as Error).message}`);
      }
    }
  }

  return {
    object,
    async load(list) {
      for (const id of list) if (!ids.includes(id)) ids.push(id);
      const shares = await Promise.all(list.map(async (id) => [id, await storage.get(id).catch(() => null)] as const));
      for (const [id, share] of shares) {
        if (!share || typeof share !== 'object' || Array.isArray(share)) {
          written.set(id, '{}');
          continue;
        }
        for (const [key, value] of Object.entries(share as Record<string, unknown>)) {
          if (Object.hasOwn(object, key) && !untouched(key)) continue;
          object[key] = value;
          owners.set(key, id);
        }
        written.set(id, JSON.stringify(share));
      }
    },
    keys: () => new Set(Object.keys(object)),
    claim(id, before) {
      if (!ids.includes(id)) ids.push(id);
      for (const key of Object.keys(object)) if (!before.has(key) && !owners.has(key)) owners.set(key, id);
    },
    owner: (key) => owners.get(key) ?? guess(key),
    saveDebounced() {
      if (timer) clearTimeout(timer);
      timer = setTimeout(() => {
        timer = null;
        flushing = flushing.then(writeAll);
      }, opts.debounceMs ?? SAVE_DEBOUNCE_MS);
    },
    flush() {
      if (timer) {
        clearTimeout(timer);
        timer = null;
      }
      flushing = flushing.then(writeAll);
      return flushing;
    },
  };
}
