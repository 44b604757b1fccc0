// The World Info types (api.worldinfo, docs/API.md "World Info"): lorebooks
// in SillyTavern's worlds/*.json format and what a scan activated. types.ts
// re-exports them.

/** A lorebook as SillyTavern's worlds/<name>.json: entries keyed by uid, every field kept. */
export interface WorldInfoBook {
  entries: Record<string, Record<string, unknown> & { uid: number; key: string[]; content: string }>;
  [key: string]: unknown;
}

/**
 * A regex key a scan did not run: `timeout` — a match took too long, and the key is off for
 * its entry until the book is saved again; `tooMany` — the book has more than 200 keys that
 * need lookaround or backreferences, and this one comes after them.
 */
export interface WorldInfoDisabledKey {
  world: string;
  uid: number;
  /** key is the key as the entry writes it (in `key` or `keysecondary`). */
  key: string;
  reason: 'timeout' | 'tooMany';
}

/** What a generation's World Info scan activated, and (when there is any) what it could not do. */
export interface WorldInfoActivation {
  timestampMs: number;
  trigger: string;
  entries: { world: string; uid: number; displayName: string; constant: boolean; content: string; position: string }[];
  /** warnings say in words what the scan could not do (a book not found, a key turned off, the scan cut short). */
  warnings?: string[];
  /** disabledKeys are the regex keys the scan did not run. */
  disabledKeys?: WorldInfoDisabledKey[];
}

/** api.worldinfo (HOST-ABI §5). */
export interface WorldInfoApi {
  list(): Promise<{ name: string; entries: number; createdAt: number; updatedAt: number }[]>;
  get(name: string): Promise<WorldInfoBook>;
  save(name: string, book: WorldInfoBook): Promise<void>;
  delete(name: string): Promise<void>;
  rename(oldName: string, newName: string): Promise<void>;
  /** Imports a SillyTavern World Info file; a taken name is worldinfo.name_taken unless replace. */
  importBook(file: { fileName: string; text: string; name?: string; replace?: boolean }): Promise<{ name: string; entries: number }>;
  exportBook(name: string): Promise<{ fileName: string; text: string }>;
  /** Desktop window only: the book file written where the person picks in the system's Save dialog. */
  saveBook(name: string): Promise<{ saved: boolean; path: string | null }>;
  /** Binds a book to the chat (metadata world_info); null unbinds. */
  bindToChat(chatId: string, name: string | null): Promise<{ chatId: string; revision: number }>;
  /** What the chat's last generation activated; null before its first. */
  lastActivation(chatId: string): Promise<WorldInfoActivation | null>;
  /** The activation settings under SillyTavern's world_info_* names, and the globally selected books. */
  getSettings(): Promise<Record<string, unknown> & { globalSelect: string[] }>;
  saveSettings(patch: Record<string, unknown>): Promise<Record<string, unknown> & { globalSelect: string[] }>;
}
