// The extension manager's install checks, made before anything is sent
// (a .zip small enough for one call, an https address), and a refused
// install said as a sentence. Pure, so each message is tested.
import { describeError } from './errors';

/**
 * MAX_UPLOAD_BYTES is the largest .zip the manager uploads: the host's
 * extensions.MaxUploadBytes (46 MiB), so that its base64 fits one call.
 */
export const MAX_UPLOAD_BYTES = 46 * 1024 * 1024;

/** ZIP_ACCEPT is what the file picker offers. */
export const ZIP_ACCEPT = '.zip,application/zip,application/x-zip-compressed';

const MiB = 1024 * 1024;

/** sizeWords is a byte count as a person reads it ("3.4 MiB", "812 KiB"). */
export function sizeWords(bytes: number): string {
  if (bytes >= MiB) return `${(bytes / MiB).toFixed(1)} MiB`;
  if (bytes >= 1024) return `${Math.round(bytes / 1024)} KiB`;
  return `${bytes} ${bytes === 1 ? 'byte' : 'bytes'}`;
}

/** zipProblem says why a picked or dropped file cannot be uploaded as a package, or null when it can. */
export function zipProblem(file: { name: string; size: number }): string | null {
  if (!file.name.toLowerCase().endsWith('.zip')) {
    return `${file.name} is not a .zip file. An extension comes as a .zip of its folder (with manifest.json inside).`;
  }
  if (file.size === 0) return `${file.name} is empty.`;
  if (file.size > MAX_UPLOAD_BYTES) {
    return `${file.name} is ${sizeWords(file.size)}; an uploaded package can be at most 46 MiB. Put it online and install it by its https address instead.`;
  }
  return null;
}

/** pickZip takes the one file of a drop or a pick: the file, or why it cannot be used. */
export function pickZip<F extends { name: string; size: number }>(files: readonly F[]): { file: F } | { problem: string } {
  const [first] = files;
  if (!first) return { problem: 'Nothing was dropped. Drop one .zip file.' };
  if (files.length > 1) return { problem: `${files.length} files were dropped; install one .zip at a time.` };
  const problem = zipProblem(first);
  return problem ? { problem } : { file: first };
}

/**
 * checkInstallUrl reads what was typed as a package's address: an https
 * URL of a repository or a .zip. Anything else is said plainly; the host
 * checks it again (and refuses private addresses).
 */
export function checkInstallUrl(text: string): { url: string } | { problem: string } {
  const typed = text.trim();
  if (typed === '') return { problem: 'Enter the https address of a repository or a .zip file.' };
  let u: URL;
  try {
    u = new URL(typed);
  } catch {
    return { problem: `“${typed}” is not a web address. It should start with https://` };
  }
  if (u.protocol === 'http:') return { problem: 'Only https:// addresses can be installed: an http:// download could be changed on its way.' };
  if (u.protocol !== 'https:') return { problem: `Only https:// addresses can be installed, not ${u.protocol}` };
  if (u.hostname === '') return { problem: 'The address names no site.' };
  if (u.username !== '' || u.password !== '') return { problem: 'Leave the user name and password out of the address.' };
  const parts = u.pathname.split('/').filter((p) => p !== '');
  if (!u.pathname.toLowerCase().endsWith('.zip') && parts.length < 2) {
    return { problem: 'The address should name a repository (https://site/owner/name) or a .zip file.' };
  }
  return { url: u.href };
}

/** A refused install as the manager shows it: a sentence, and the code and details for the fold under it. */
export interface ExplainedFailure {
  sentence: string;
  code: string;
  details: Record<string, unknown> | null;
}

/** asSentence starts text with a capital and ends it with a full stop. */
export function asSentence(text: string): string {
  const t = text.trim();
  if (t === '') return t;
  const capital = t.charAt(0).toUpperCase() + t.slice(1);
  return /[.!?…]$/.test(capital) ? capital : `${capital}.`;
}

/**
 * failureSentence says why a call about an extension was refused, as a
 * sentence. The host's messages name the file or field at fault
 * ("manifest.json: hearth.permissions[0]: unknown permission …"); this
 * puts that in a sentence and keeps the code for the details fold.
 * subject is the package's name as the manager already said it ("mood.zip"):
 * a message about that file says "It" instead.
 */
export function failureSentence(err: unknown, subject = ''): ExplainedFailure {
  const { message, code } = describeError(err);
  const raw = typeof err === 'object' && err !== null ? (err as { details?: unknown }).details : undefined;
  const details = typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? (raw as Record<string, unknown>) : null;
  const str = (k: string) => (typeof details?.[k] === 'string' ? (details[k] as string) : '');
  let sentence = asSentence(message);
  if (code === 'extension.invalid_manifest') {
    // "manifest.json: <field>: <what is wrong>", where the field may be the file itself.
    const field = str('field');
    const rest = message.replace(/^manifest\.json: /, '');
    const what = field !== '' && rest.startsWith(`${field}: `) ? rest.slice(field.length + 2) : null;
    if (what === null) sentence = asSentence(`The package’s manifest.json is not valid: ${rest}`);
    else if (field === 'manifest.json') sentence = asSentence(`The package’s manifest.json ${what}`);
    else sentence = asSentence(`The package’s manifest.json has a problem with ${field}: ${what}`);
  } else if (code === 'extension.invalid_package') {
    // "<file>: <what is wrong with it>".
    const file = str('file');
    if (file !== '' && message.startsWith(`${file}: `)) {
      const what = message.slice(file.length + 2);
      sentence = asSentence(`${file === subject ? 'It' : `The file ${file}`} ${what.startsWith('not ') ? `is ${what}` : what}`);
    }
  } else if (code === 'extension.fetch_failed') {
    sentence = asSentence(message.replace(/^fetch /, 'Could not download '));
  } else if (code === 'library.path_not_allowed') {
    // The library's rule for paths (EXTENSIONS.md §4), said for an extension's folder, not a SillyTavern library.
    const roots = Array.isArray(details?.roots) ? details.roots.filter((r): r is string => typeof r === 'string') : [];
    if (roots.length > 0) sentence = `This server reads folders only under ${roots.join(', ')} (its --library-root).`;
    else if (/ off on this server/.test(message)) sentence = 'Installing folders by path is off on this server: start hearth serve with --library-root DIR to allow the folders under DIR.';
  } else if (code === 'transport.unavailable') {
    sentence = asSentence(`Hearth could not be reached: ${message}`);
  }
  return { sentence, code, details };
}
