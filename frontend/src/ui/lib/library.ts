// The SillyTavern library screen's words and arithmetic (API.md "SillyTavern
// library"): phase names, how far a run is, what an import or export did,
// and what a refused path means for the person who typed it.
import type { LibraryCounts, LibraryExportSummary, LibraryImportSummary, LibraryItemKind, LibraryProgress } from '../../abi/types-library';

/** LibraryOp is which way a run goes. */
export type LibraryOp = 'import' | 'export';

/**
 * PHASES lists each op's phases in the order the host runs them. An
 * import's personas run inside its settings phase, so settings comes first.
 */
export const PHASES: Readonly<Record<LibraryOp, readonly string[]>> = {
  import: ['lorebooks', 'characters', 'chats', 'groups', 'group chats', 'group files', 'settings', 'personas', 'presets', 'extensions'],
  export: ['lorebooks', 'characters', 'personas', 'presets', 'groups'],
};

const PHASE_LABELS: Record<string, string> = {
  lorebooks: 'Lorebooks',
  characters: 'Characters',
  chats: 'Chats',
  groups: 'Groups',
  'group chats': 'Group chats',
  'group files': 'Group files kept as they were',
  settings: 'Settings',
  personas: 'Personas',
  presets: 'Presets',
  extensions: 'Extensions',
};

/** phaseLabel names a phase in words; an unknown one is capitalized. */
export function phaseLabel(phase: string): string {
  return PHASE_LABELS[phase] ?? (phase ? phase[0]!.toUpperCase() + phase.slice(1) : 'Working');
}

/** PhaseState is one phase as the progress list shows it. */
export interface PhaseState {
  phase: string;
  label: string;
  done: number;
  total: number;
  /** pending: not reached; active: running; done: finished; none: passed without reporting (nothing to do). */
  state: 'pending' | 'active' | 'done' | 'none';
}

/** initialPhases is an op's phase list before the first progress event. */
export function initialPhases(op: LibraryOp): PhaseState[] {
  return PHASES[op].map((phase) => ({ phase, label: phaseLabel(phase), done: 0, total: 0, state: 'pending' }));
}

/**
 * applyProgress folds one LIBRARY_PROGRESS event into the phase list: the
 * phase takes its counts (done once done reaches total), and earlier phases
 * that never reported are marked none. A phase not listed is added.
 */
export function applyProgress(phases: readonly PhaseState[], p: Pick<LibraryProgress, 'phase' | 'done' | 'total'>): PhaseState[] {
  let at = phases.findIndex((s) => s.phase === p.phase);
  const next = phases.map((s) => ({ ...s }));
  if (at < 0) {
    next.push({ phase: p.phase, label: phaseLabel(p.phase), done: 0, total: 0, state: 'pending' });
    at = next.length - 1;
  }
  for (let i = 0; i < at; i++) {
    if (next[i]!.state === 'pending') next[i]!.state = 'none';
  }
  const total = Math.max(0, p.total);
  const done = Math.min(Math.max(0, p.done), total);
  next[at] = { ...next[at]!, done, total, state: done >= total ? 'done' : 'active' };
  return next;
}

/** finishPhases marks what is left of the list once the run has ended. */
export function finishPhases(phases: readonly PhaseState[]): PhaseState[] {
  return phases.map((s) => (s.state === 'pending' ? { ...s, state: 'none' } : s.state === 'active' ? { ...s, state: 'done' } : s));
}

/** progressPercent is how far a phase is, 0–100 (a phase with nothing to do is whole). */
export function progressPercent(p: { done: number; total: number }): number {
  if (p.total <= 0) return 100;
  return Math.round((Math.min(Math.max(p.done, 0), p.total) / p.total) * 100);
}

const NUMBER = new Intl.NumberFormat('en-US');

/** count writes "1 chat" or "53 chats" (with thousands separators). */
export function count(n: number, one: string, many = `${one}s`): string {
  return `${NUMBER.format(n)} ${n === 1 ? one : many}`;
}

/**
 * countsText lists what was stored or written, kinds with none left out:
 * "22 characters, 53 chats, 4 group chats (61,234 messages), 5 lorebooks,
 * 3 personas, 2 presets, 2 groups, 1 group file kept as it was" (the
 * messages are every chat's, group chats' included). Nothing at all is "".
 * Extensions have their own line (extensionsLine).
 */
export function countsText(c: LibraryCounts, messages: number): string {
  const parts: string[] = [];
  if (c.characters) parts.push(count(c.characters, 'character'));
  const chats = [c.chats ? count(c.chats, 'chat') : '', c.groupChats ? count(c.groupChats, 'group chat') : ''].filter(Boolean).join(', ');
  if (chats) parts.push(messages ? `${chats} (${count(messages, 'message')})` : chats);
  if (c.lorebooks) parts.push(count(c.lorebooks, 'lorebook'));
  if (c.personas) parts.push(count(c.personas, 'persona'));
  if (c.presets) parts.push(count(c.presets, 'preset'));
  if (c.groups) parts.push(count(c.groups, 'group'));
  if (c.groupFiles) parts.push(`${count(c.groupFiles, 'group file')} kept as ${c.groupFiles === 1 ? 'it was' : 'they were'}`);
  return parts.join(', ');
}

/** importHeadline is the first line of an import's summary. */
export function importHeadline(s: LibraryImportSummary): string {
  const what = countsText(s.imported, s.messages);
  if (what) return `Imported ${what}.`;
  if (s.imported.extensions) return `Imported ${count(s.imported.extensions, 'extension')}.`;
  if (s.failed.length > 0) return 'Nothing was imported.';
  return s.skipped.length > 0 ? 'Nothing new: everything in this folder is in Hearth already, or was left out.' : 'The folder holds nothing to import.';
}

/**
 * extensionsLine says what an import did with the library's third-party
 * extensions, and where to turn the added ones on: "Extensions: 3 added,
 * turned off — turn them on in Extensions…" ("1 skipped", "1 failed"
 * after the added). "" when the library held none.
 */
export function extensionsLine(s: LibraryImportSummary): string {
  const added = s.imported.extensions ?? 0;
  const skipped = s.skipped.filter((i) => i.kind === 'extension').length;
  const failed = s.failed.filter((i) => i.kind === 'extension').length;
  const parts: string[] = [];
  if (added) parts.push(`${NUMBER.format(added)} added, turned off`);
  if (skipped) parts.push(`${NUMBER.format(skipped)} skipped`);
  if (failed) parts.push(`${NUMBER.format(failed)} failed`);
  if (parts.length === 0) return '';
  const where = added === 1 ? ' — turn it on in Extensions…' : added ? ' — turn them on in Extensions…' : '.';
  return `Extensions: ${parts.join(', ')}${where}`;
}

/** exportHeadline is the first line of an export's summary. */
export function exportHeadline(s: LibraryExportSummary): string {
  const what = countsText(s.exported, s.messages);
  return what ? `Exported ${what}.` : 'Hearth has nothing to export yet; the folder holds an empty SillyTavern user.';
}

const KIND_LABELS: Record<LibraryItemKind, string> = {
  lorebook: 'Lorebook',
  character: 'Character',
  chat: 'Chat',
  group: 'Group',
  persona: 'Persona',
  preset: 'Preset',
  settings: 'Settings',
  extension: 'Extension',
};

/** kindLabel names an item's kind. */
export function kindLabel(kind: string): string {
  return KIND_LABELS[kind as LibraryItemKind] ?? phaseLabel(kind);
}

/** FieldError is a refused run, shown next to the path field. */
export interface FieldError {
  code: string;
  message: string;
  /** suggestions are user folders to pick instead (an install with several users). */
  suggestions: { user: string; path: string }[];
}

/** userFolder guesses where a user of the install at path lives: path/data/user, or path/user for a data/ folder. */
export function userFolder(path: string, user: string): string {
  const trimmed = path.replace(/[\\/]+$/, '');
  const sep = trimmed.includes('\\') && !trimmed.includes('/') ? '\\' : '/';
  const last = trimmed.split(/[\\/]/).pop() ?? '';
  return last === 'data' ? `${trimmed}${sep}${user}` : `${trimmed}${sep}data${sep}${user}`;
}

/**
 * fieldError turns what importST or exportST rejected with into the words
 * next to the path field. path is what was typed (for several users'
 * folders).
 */
export function fieldError(err: unknown, op: LibraryOp, path: string): FieldError {
  const e = (typeof err === 'object' && err !== null ? err : {}) as { code?: unknown; message?: unknown; details?: unknown };
  const code = typeof e.code === 'string' ? e.code : 'internal';
  const hostMessage = typeof e.message === 'string' && e.message ? e.message : String(err);
  const details = (typeof e.details === 'object' && e.details !== null ? e.details : {}) as { users?: unknown };
  const none: FieldError['suggestions'] = [];
  switch (code) {
    case 'library.not_found':
      return {
        code,
        message:
          op === 'import'
            ? 'There is no folder at this path on the machine Hearth runs on.'
            : 'The folder above this one does not exist: an export creates only its own folder, inside one that exists.',
        suggestions: none,
      };
    case 'library.not_sillytavern':
      return {
        code,
        message: 'This is not a SillyTavern folder. Pick a user folder (SillyTavern/data/<user>, the one with characters/, chats/ and worlds/) or the SillyTavern folder itself.',
        suggestions: none,
      };
    case 'library.several_users': {
      const users = Array.isArray(details.users) ? details.users.filter((u): u is string => typeof u === 'string') : [];
      return {
        code,
        message: `This SillyTavern has ${users.length > 1 ? `${users.length} users` : 'several users'} and no default-user. Pick one user’s folder, data/<user>:`,
        suggestions: users.map((user) => ({ user, path: userFolder(path, user) })),
      };
    }
    case 'library.target_not_empty':
      return { code, message: 'This folder is not empty. An export writes a whole SillyTavern user folder: pick an empty or new folder.', suggestions: none };
    case 'library.path_not_allowed': {
      const roots = Array.isArray((details as { roots?: unknown }).roots)
        ? ((details as { roots: unknown[] }).roots.filter((r): r is string => typeof r === 'string'))
        : [];
      const message = hostMessage.includes('data folder')
        ? 'This is Hearth’s own data folder (or holds it). Pick another folder.'
        : roots.length === 0
          ? 'This server does not let browsers read or write its folders; whoever runs it can allow one with hearth serve --library-root DIR.'
          : `This server may use only folders under ${roots.join(', ')}. Pick a folder there.`;
      return { code, message, suggestions: none };
    }
    case 'library.busy':
      return { code, message: 'Another library import or export is running. Try again when it has ended.', suggestions: none };
    case 'validation.invalid_argument':
      return { code, message: path.trim() ? hostMessage : 'Type the path of a folder first.', suggestions: none };
    default:
      return { code, message: hostMessage, suggestions: none };
  }
}

/** ellipsizeStart keeps a path's end, where its file name is: "…/chats/Seraphina/x.jsonl". */
export function ellipsizeStart(text: string, max: number): string {
  if (text.length <= max) return text;
  return `…${text.slice(text.length - Math.max(1, max - 1))}`;
}
