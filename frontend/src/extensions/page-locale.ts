// A page extension's translations (manifest i18n, EXTENSIONS.md §1 and §5),
// read as SillyTavern reads them before it loads an extension's js: the
// file its manifest names for the window's locale (else for 'default'),
// a JSON object of key → text, added to the window's table. A file that
// is missing, too large, not JSON or not an object costs the extension
// its translations, never its start: the caller warns and goes on.

/** MAX_LOCALE_BYTES bounds one translation file (SillyTavern's own largest locale is under 300 KiB). */
export const MAX_LOCALE_BYTES = 1 << 20;

/** readLocaleFile fetches url and returns its JSON object's string values, reading at most max bytes. */
export async function readLocaleFile(url: string, fetcher: typeof fetch = fetch, max = MAX_LOCALE_BYTES): Promise<Record<string, string>> {
  const res = await fetcher(url, { credentials: 'same-origin' });
  if (!res.ok) throw new Error(`HTTP ${res.status}`);
  const declared = Number(res.headers.get('Content-Length'));
  if (declared > max) throw new Error(`it is ${declared} bytes; at most ${max} are read`);
  const text = await boundedText(res, max);
  let data: unknown;
  try {
    data = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch {
    throw new Error('it is not JSON');
  }
  if (!data || typeof data !== 'object' || Array.isArray(data)) throw new Error('it is not a JSON object of key → text');
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(data)) if (typeof v === 'string') out[k] = v;
  return out;
}

/** boundedText reads a body as text, refusing one past max bytes without reading on. */
async function boundedText(res: Response, max: number): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => undefined);
      throw new Error(`it is larger than ${max} bytes`);
    }
    chunks.push(value);
  }
  const all = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    all.set(c, at);
    at += c.byteLength;
  }
  return new TextDecoder().decode(all);
}
