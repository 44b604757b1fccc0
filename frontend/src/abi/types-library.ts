// The SillyTavern library types (api.library, docs/API.md "SillyTavern
// library"): a whole user folder in and out. types.ts re-exports them.
import type { LibraryProgressPayload } from './event-registry.gen';

/** How many items of each kind an import stored or an export wrote. */
export interface LibraryCounts {
  characters: number;
  chats: number;
  lorebooks: number;
  personas: number;
  presets: number;
  /** SillyTavern groups stored as Hearth groups. */
  groups: number;
  /** Group chats stored as chats of those groups. */
  groupChats: number;
  /** Group and group chat files kept as they were (not importable), written back by an export. */
  groupFiles: number;
  /** Third-party extensions an import installed, each turned off; an export writes none (0). */
  extensions: number;
}

/** Kinds of library items. */
export type LibraryItemKind = 'lorebook' | 'character' | 'chat' | 'group' | 'persona' | 'preset' | 'settings' | 'extension';

/** library.importST's answer; paths are relative to folder (the install's global extensions': to install). */
export interface LibraryImportSummary {
  /** The SillyTavern user folder read (absolute, on the host's machine). */
  folder: string;
  /** The SillyTavern install the import was pointed at, whose global extensions came too; absent for a user folder alone. */
  install?: string;
  imported: LibraryCounts;
  /** Items left alone on purpose: imported before, not SillyTavern's, no owner… */
  skipped: { kind: LibraryItemKind; path: string; reason: string }[];
  /** Items that could not be stored; nothing of them was kept. */
  failed: { kind: LibraryItemKind; path: string; error: string }[];
  /** Chat messages imported. */
  messages: number;
}

/** library.exportST's answer; paths are relative to folder. */
export interface LibraryExportSummary {
  folder: string;
  exported: LibraryCounts;
  failed: { kind: LibraryItemKind; path: string; error: string }[];
  messages: number;
}

/**
 * The LIBRARY_PROGRESS event's payload while an import or export runs:
 * `phase` is lorebooks, characters, chats, groups, settings, personas,
 * presets or extensions (an import's last); `current` the item being worked on, relative to the folder
 * ('' at a phase's end).
 */
export type LibraryProgress = LibraryProgressPayload;

/** A folder's absolute path on the host's machine, bare or as { path }. */
export type LibraryPath = string | { path: string };

/**
 * library.access's answer: which folders importST and exportST may use.
 * The desktop window is not confined (any absolute path outside Hearth's
 * data folder); `hearth serve` is, to its --library-root folders (none: off).
 */
export interface LibraryAccess {
  confined: boolean;
  roots: string[];
}

/** api.library: SillyTavern libraries in and out (paths on the host's machine). */
export interface LibraryApi {
  /** Imports a SillyTavern user folder (data/<user>) or install; importing it again duplicates nothing. */
  importST(path: LibraryPath): Promise<LibraryImportSummary>;
  /** Writes Hearth's library as a SillyTavern user folder into path, which must be empty or new (in a folder that exists). */
  exportST(path: LibraryPath): Promise<LibraryExportSummary>;
  /** Which folders importST and exportST may use here. */
  access(): Promise<LibraryAccess>;
  /** Desktop window only: the system's folder chooser; picked false when cancelled. */
  pickFolder(options?: { title?: string }): Promise<{ picked: boolean; path: string | null }>;
}
