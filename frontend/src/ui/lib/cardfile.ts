// Character card files in the UI: a picked or dropped card (PNG, JSON or
// CHARX) stored as a new character, what a batch of them came to, and a
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
  failed: { fileName: string; message: string; code: string }[];
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

/**
 * importCardFile stores one picked card file as a new character. A file
 * too large to send is refused here; anything the host cannot read
 * rejects as the host reported it (card.invalid, details.reason).
 */
export async function importCardFile(api: CardFiles, file: PickedCard): Promise<ImportedCard> {
  if (file.size > MAX_CARD_BYTES) {
    throw failure('validation.invalid_argument', `${file.name} is ${(file.size / 1048576).toFixed(1)} MB; Hearth takes card files up to 48 MB`);
  }
  const base64 = toBase64(new Uint8Array(await file.arrayBuffer()));
  return api.importCard({ fileName: file.name, base64 });
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
 * by name, or how many made it and how many did not, each failure with
 * its file's name; the cards' import warnings folded away as notes.
 */
export function summarize(result: CardImportResult): ImportSummary {
  const { imported, failed } = result;
  const total = imported.length + failed.length;
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
  const first = imported[0];
  const made = imported.length === 1 && first ? `“${first.card.name}”` : plural(imported.length, 'character', 'characters');
  let message: string;
  if (failed.length === 0) message = `Imported ${made}`;
  else if (imported.length === 0) message = `Could not import ${plural(failed.length, 'file', 'files')}`;
  else message = `Imported ${made}; ${plural(failed.length, 'file', 'files')} failed`;
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
