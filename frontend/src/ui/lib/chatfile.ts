// Chat files in the UI: a chat saved as SillyTavern JSONL, and a picked
// .jsonl file stored as a new chat. Everything goes through the public
// api.chat calls (exportJsonl, importJsonl, and on the desktop saveJsonl).
import type { ChatApi, ChatSummary } from '../../abi/types';
import { downloadBlob } from './download';

/**
 * MAX_IMPORT_BYTES is the largest request either transport accepts
 * (httpapi.MaxInvokeBody). The file travels inside it as a JSON string,
 * so a file a little under this size can still be refused by the host;
 * one over it never gets there.
 */
export const MAX_IMPORT_BYTES = 64 * 1024 * 1024;

/** NAME_TRIES bounds the " (2)", " (3)"… names an import tries when its file's name is taken. */
export const NAME_TRIES = 20;

/** What exporting a chat came to. */
export type ExportOutcome =
  | { kind: 'downloaded'; fileName: string }
  | { kind: 'saved'; path: string }
  | { kind: 'cancelled' };

/** ChatFiles is the slice of api.chat these helpers use. */
export type ChatFiles = Pick<ChatApi, 'exportJsonl' | 'importJsonl' | 'saveJsonl'>;

/** A failure shaped like a HostError ({ code, message }), for checks made before calling the host. */
function failure(code: string, message: string): Error & { code: string } {
  return Object.assign(new Error(message), { code });
}

/**
 * exportChat saves a chat as a .jsonl file. In the desktop window it asks
 * the host to show the system's Save dialog and write the file there
 * (WebKitGTK, as Wails leaves it, drops a page's downloads silently into
 * the downloads folder, overwriting a file of the same name); in a browser
 * it downloads the file the host exported.
 */
export async function exportChat(
  chat: ChatFiles,
  chatId: string,
  opts: { desktop: boolean; download?: (fileName: string, text: string) => void },
): Promise<ExportOutcome> {
  if (opts.desktop) {
    const r = await chat.saveJsonl(chatId);
    return r.saved && r.path ? { kind: 'saved', path: r.path } : { kind: 'cancelled' };
  }
  const file = await chat.exportJsonl(chatId);
  (opts.download ?? downloadText)(file.fileName, file.text);
  return { kind: 'downloaded', fileName: file.fileName };
}

/** downloadText hands text to the browser as a file download named fileName. */
export function downloadText(fileName: string, text: string, doc: Document = document): void {
  downloadBlob(fileName, new Blob([text], { type: 'application/jsonl;charset=utf-8' }), doc);
}

const UNSAFE = /[/\\:*?"<>|\u0000-\u001f]/g;
const NAME_BYTES = 180;

/**
 * chatName is the name a picked file is stored under: its name without
 * ".jsonl", characters the host refuses in chat names replaced by "_",
 * cut to fit, and from the second attempt on " (2)", " (3)"… appended.
 */
export function chatName(fileName: string, attempt = 1): string {
  let base = fileName.replace(/\.jsonl$/i, '').replace(UNSAFE, '_').trim();
  const bytes = new TextEncoder();
  while (bytes.encode(base).length > NAME_BYTES) base = Array.from(base).slice(0, -1).join('');
  base = base.trim() || 'Imported chat';
  return attempt > 1 ? `${base} (${attempt})` : base;
}

/** The part of a File importChatFile reads. */
export interface PickedFile {
  name: string;
  size: number;
  text(): Promise<string>;
}

/**
 * importChatFile stores a picked SillyTavern .jsonl file as a new chat of
 * the character. A file whose name is taken is stored as "name (2)" and so
 * on; any other failure (a malformed line: the HostError names it) is
 * thrown as the host reported it.
 */
export async function importChatFile(chat: ChatFiles, avatar: string, file: PickedFile): Promise<ChatSummary> {
  if (file.size > MAX_IMPORT_BYTES) {
    throw failure('validation.invalid_argument', `${file.name} is ${(file.size / 1048576).toFixed(1)} MB; Hearth takes chat files up to 64 MB`);
  }
  const text = await file.text();
  for (let attempt = 1; ; attempt++) {
    try {
      return await chat.importJsonl({ avatar }, { fileName: chatName(file.name, attempt), text });
    } catch (err) {
      if ((err as { code?: unknown } | null)?.code !== 'chat.name_taken' || attempt >= NAME_TRIES) throw err;
    }
  }
}
