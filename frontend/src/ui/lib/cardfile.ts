// Character card files in the UI: a picked or dropped card (PNG, JSON or
// CHARX) stored as a new character (or, when it matches one, replacing it:
// stores/card-import), what a batch of them came to, and a
// character written out as a card file. Everything goes through the public
// api.characters calls importCard and exportCard.
import type { Character, CharactersApi } from '../../abi/types';
import type { ExportOutcome } from './chatfile';
import { describeError } from './errors';
import { downloadBlob } from './download';

/** CARD_ACCEPT is what the file picker offers: the card formats the host reads. */
export const CARD_ACCEPT = '.png,.json,.charx,image/png,application/json';

/**
 * MAX_CARD_BYTES is the largest card file the UI sends. The host reads
 * cards of up to 64 MB, but the file travels base64-encoded (4/3 of its
 * size) inside one request of at most 64 MB (httpapi.MaxInvokeBody), so
 * 48 MB is what fits.
 */
export const MAX_CARD_BYTES = 48 * 1024 * 1024;

/** CardFiles is the slice of api.characters these helpers use. */
export type CardFiles = Pick<CharactersApi, 'importCard' | 'exportCard' | 'saveCard'>;

/** The part of a File importCardFile reads. */
export interface PickedCard {
  name: string;
  size: number;
  arrayBuffer(): Promise<ArrayBuffer>;
}

/** A character as importCard returns it: with what was repaired on the way in. */
export type ImportedCard = Character & { importWarnings: string[] };

/** What importing a batch of card files came to, in the order they were read. */
export interface CardImportResult {
  imported: { fileName: string; card: ImportedCard }[];
  /** replaced: files that matched a character the person chose to replace (its card now the file's). */
  replaced: { fileName: string; card: Character }[];
  /** skipped: files that matched a character the person chose not to import (Cancel). */
  skipped: { fileName: string; name: string }[];
  failed: { fileName: string; message: string; code: string }[];
}

/** emptyResult is a CardImportResult of nothing yet. */
export function emptyResult(): CardImportResult {
  return { imported: [], replaced: [], skipped: [], failed: [] };
}

/** A labelled run of lines: a file and what went wrong with it, or what was repaired. */
export interface FileLines {
  label: string;
  lines: string[];
}

/** How the UI tells what a batch of imports came to (a toast). */
export interface ImportSummary {
  kind: 'info' | 'error';
  message: string;
  code: string | null;
  /** groups: each failed file and why. */
  groups: FileLines[];
  /** notes: the warnings of the cards that made it in, folded away under summary. */
  notes: { summary: string; groups: FileLines[] } | null;
  /** sticky: the summary lists failures to read, so it stays until dismissed. */
  sticky: boolean;
}

/** A failure shaped like a HostError ({ code, message }), for checks made before calling the host. */
function failure(code: string, message: string): Error & { code: string } {
  return Object.assign(new Error(message), { code });
}

/** toBase64 encodes bytes as standard base64 (in slices, so a large file does not overflow the call stack). */
export function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

/** fromBase64 decodes standard base64 into bytes. */
export function fromBase64(base64: string): Uint8Array<ArrayBuffer> {
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** readCardBytes reads a picked card file, refusing one too large to send. */
export async function readCardBytes(file: PickedCard): Promise<Uint8Array> {
  if (file.size > MAX_CARD_BYTES) {
    throw failure('validation.invalid_argument', `${file.name} is ${(file.size / 1048576).toFixed(1)} MB; Hearth takes card files up to 48 MB`);
  }
  return new Uint8Array(await file.arrayBuffer());
}

/**
 * importCardFile stores one picked card file as a new character. A file
 * too large to send is refused here; anything the host cannot read
 * rejects as the host reported it (card.invalid, details.reason).
 */
export async function importCardFile(api: CardFiles, file: PickedCard): Promise<ImportedCard> {
  return importCardBytes(api, file.name, await readCardBytes(file));
}

/** importCardBytes stores a card file already read as a new character. */
export function importCardBytes(api: CardFiles, fileName: string, bytes: Uint8Array): Promise<ImportedCard> {
  return api.importCard({ fileName, base64: toBase64(bytes) });
}

/**
 * failureOf is a failed file's entry in a CardImportResult. The host's
 * card.invalid message starts with the file's name, which the UI shows
 * next to it anyway, so that prefix is left out.
 */
export function failureOf(fileName: string, err: unknown): CardImportResult['failed'][number] {
  const { message, code } = describeError(err);
  const prefix = `${fileName}: `;
  return { fileName, code, message: message.startsWith(prefix) ? message.slice(prefix.length) : message };
}

const plural = (n: number, one: string, many: string) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

/**
 * summarize says what a batch of imports came to: the one card imported
 * or replaced by name, or how many were imported, replaced, skipped and
 * failed, each failure with its file's name; the cards' import warnings
 * folded away as notes.
 */
export function summarize(result: CardImportResult): ImportSummary {
  const { imported, replaced, skipped, failed } = result;
  const total = imported.length + replaced.length + skipped.length + failed.length;
  const withNotes = imported.filter((i) => i.card.importWarnings.length > 0);
  const noteCount = withNotes.reduce((n, i) => n + i.card.importWarnings.length, 0);
  const notes =
    noteCount === 0
      ? null
      : {
          summary: plural(noteCount, 'import note', 'import notes'),
          groups: withNotes.map((i) => ({ label: i.fileName, lines: i.card.importWarnings })),
        };
  const only = failed[0];
  if (total === 1 && only) {
    return { kind: 'error', message: `Could not import ${only.fileName}: ${only.message}`, code: only.code, groups: [], notes: null, sticky: false };
  }
  const groups = failed.map((f) => ({ label: f.fileName, lines: [f.message] }));
  /** named is the one card by name when it is the only one of its kind and of the other, else a count. */
  const named = (list: { card: { name: string } }[], other: unknown[]) => {
    const one = list[0];
    return list.length === 1 && other.length === 0 && one ? `“${one.card.name}”` : plural(list.length, 'character', 'characters');
  };
  const done: string[] = [];
  if (imported.length > 0) done.push(`imported ${named(imported, replaced)}`);
  if (replaced.length > 0) done.push(`replaced ${named(replaced, imported)}`);
  if (done.length === 0 && failed.length > 0) done.push(`could not import ${plural(failed.length, 'file', 'files')}`);
  else if (failed.length > 0) done.push(`${plural(failed.length, 'file', 'files')} failed`);
  if (skipped.length > 0) done.push(`skipped ${plural(skipped.length, 'duplicate', 'duplicates')}`);
  const text = done.join('; ') || 'Nothing imported';
  const message = text.charAt(0).toUpperCase() + text.slice(1);
  return {
    kind: failed.length > 0 ? 'error' : 'info',
    message,
    code: null, // each failure says what went wrong with its file
    groups,
    notes,
    sticky: failed.length > 0,
  };
}

/**
 * exportCardFile writes a character out as a card file (PNG with the card
 * inside, or JSON). In the desktop window the host shows the system's Save
 * dialog and writes the file there (WebKitGTK, as Wails leaves it, drops a
 * page's downloads silently into the downloads folder, overwriting a file
 * of the same name); in a browser the file is handed to download (by
 * default a browser download).
 */
export async function exportCardFile(
  api: CardFiles,
  avatar: string,
  format: 'png' | 'json',
  opts: { desktop: boolean; download?: (fileName: string, blob: Blob) => void },
): Promise<ExportOutcome> {
  if (opts.desktop) {
    const r = await api.saveCard(avatar, { format });
    return r.saved && r.path ? { kind: 'saved', path: r.path } : { kind: 'cancelled' };
  }
  const file = await api.exportCard(avatar, { format });
  const type = format === 'png' ? 'image/png' : 'application/json';
  (opts.download ?? downloadBlob)(file.fileName, new Blob([fromBase64(file.base64)], { type }));
  return { kind: 'downloaded', fileName: file.fileName };
}

/** isFileDrag says whether a drag carries files (not text or a link dragged from the page). */
export function isFileDrag(data: Pick<DataTransfer, 'types'> | null): boolean {
  return data !== null && Array.from(data.types).includes('Files');
}
