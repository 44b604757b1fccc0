// Reading a character card file in the window, before it is imported: the
// card's fields (to tell whether it is a character Hearth already has) and
// its picture (to replace that character's card in place with one
// characters.update). The host reads cards with backend/cards; this mirrors
// what it stores — the same formats, the same choice of chunk, the same
// repairs of the V2 fields (backend/cards/card_normalize.go) — and the
// vitest beside it checks the result against that package's golden files.
// Two things differ: a number where a string belongs is spelled as
// JavaScript prints it (1.0 reads "1"), and the size and depth limits are
// left to the host, which applies them to whatever the window sends.
// A file this cannot read gives null: the host's import then decides, and
// reports what is wrong with it, as it did before.

/** A card as the window read it: the V2 data fields, and the picture Hearth would keep. */
export interface ReadCard {
  data: Record<string, unknown>;
  /** image is the avatar picture's bytes (a PNG card without its card chunks, a CHARX icon), null for none. */
  image: Uint8Array | null;
}

const STRING_FIELDS = [
  'name',
  'description',
  'personality',
  'scenario',
  'first_mes',
  'mes_example',
  'creator_notes',
  'system_prompt',
  'post_history_instructions',
  'creator',
  'character_version',
] as const;
const CORE_FIELDS = ['name', 'description', 'personality', 'scenario', 'first_mes', 'mes_example'];
const V1_FIELDS = [
  'name',
  'description',
  'personality',
  'scenario',
  'first_mes',
  'mes_example',
  'creator',
  'tags',
  'system_prompt',
  'post_history_instructions',
  'character_version',
  'alternate_greetings',
];
const LIST_FIELDS = ['alternate_greetings', 'group_only_greetings', 'tags'];
const NOTES_PLACEHOLDER = "Creator's notes go here.";
const SPEC_V2 = 'chara_card_v2';
const SPEC_V3 = 'chara_card_v3';
/** The most a CHARX may unpack to, all entries together (backend/cards: zipTotal). */
const MAX_UNPACKED = 128 * 1024 * 1024;

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const absent = (v: unknown): boolean => v === undefined || v === null;

/** NotACard marks a card the window cannot read (readCard answers null), saying why for tests and debugging. */
class NotACard extends Error {}

/** readCard reads a card file's fields and picture, or null when it cannot. */
export async function readCard(fileName: string, bytes: Uint8Array): Promise<ReadCard | null> {
  try {
    switch (sniff(fileName, bytes)) {
      case 'png':
        return readPNG(bytes);
      case 'charx':
        return await readCHARX(bytes);
      case 'json':
        return { data: parseCard(bytes, true), image: null };
      default:
        return null;
    }
  } catch {
    // Anything unexpected too (a malformed zip the checks missed): the host reads it, or says why not.
    return null;
  }
}

const startsWith = (b: Uint8Array, prefix: readonly number[]): boolean => prefix.every((c, i) => b[i] === c);
const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const ZIP_LOCAL = [0x50, 0x4b, 0x03, 0x04];
const ZIP_END = [0x50, 0x4b, 0x05, 0x06];

/** sniff tells the format as the host does: the content first, then the file's extension. */
function sniff(fileName: string, b: Uint8Array): 'png' | 'charx' | 'json' | null {
  if (startsWith(b, PNG_SIGNATURE)) return 'png';
  if (startsWith(b, ZIP_LOCAL) || startsWith(b, ZIP_END)) return 'charx';
  const ext = /\.([^./\\]+)$/.exec(fileName)?.[1]?.toLowerCase();
  if (ext === 'png' || ext === 'charx' || ext === 'json') return ext;
  let i = startsWith(b, [0xef, 0xbb, 0xbf]) ? 3 : 0;
  while (i < b.length && (b[i] === 0x20 || b[i] === 0x09 || b[i] === 0x0a || b[i] === 0x0d)) i++;
  return b[i] === 0x7b || b[i] === 0x5b ? 'json' : null;
}

// ---- PNG ----

interface Chunk {
  type: string;
  data: Uint8Array;
  /** raw: length, type, data and CRC, what a writer copies. */
  raw: Uint8Array;
}

let crcTable: Uint32Array | null = null;

function crc32(b: Uint8Array): number {
  if (!crcTable) {
    crcTable = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      crcTable[n] = c >>> 0;
    }
  }
  let c = 0xffffffff;
  for (const x of b) c = crcTable[(c ^ x) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** pngChunks splits a PNG into its chunks through IEND, checking lengths and CRCs as the host does. */
function pngChunks(b: Uint8Array): Chunk[] {
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const chunks: Chunk[] = [];
  let pos = PNG_SIGNATURE.length;
  for (;;) {
    if (b.length - pos < 12) throw new NotACard('truncated');
    const n = view.getUint32(pos);
    const type = String.fromCharCode(...b.subarray(pos + 4, pos + 8));
    if (!/^[A-Za-z]{4}$/.test(type) || n > b.length - pos - 12) throw new NotACard('chunk');
    const end = pos + 12 + n;
    if (crc32(b.subarray(pos + 4, end - 4)) !== view.getUint32(end - 4)) throw new NotACard('crc');
    if (chunks.length === 0 && type !== 'IHDR') throw new NotACard('no IHDR');
    chunks.push({ type, data: b.subarray(pos + 8, end - 4), raw: b.subarray(pos, end) });
    pos = end;
    if (type === 'IEND') return chunks;
  }
}

/** textChunk is a tEXt chunk's keyword (lower-cased) and text, null for another chunk. */
function textChunk(c: Chunk): { keyword: string; text: Uint8Array } | null {
  if (c.type !== 'tEXt') return null;
  const nul = c.data.indexOf(0);
  if (nul < 0) return null;
  return { keyword: latin1(c.data.subarray(0, nul)).toLowerCase(), text: c.data.subarray(nul + 1) };
}

const isCardChunk = (c: Chunk): boolean => {
  const kw = textChunk(c)?.keyword;
  return kw === 'chara' || kw === 'ccv3' || (kw?.startsWith('chara-ext-asset_') ?? false);
};

/** readPNG reads the ccv3 chunk (the chara one when ccv3 cannot be read); the picture is the PNG without card chunks. */
function readPNG(b: Uint8Array): ReadCard {
  const chunks = pngChunks(b);
  let v2: Uint8Array | null = null;
  let v3: Uint8Array | null = null;
  for (const c of chunks) {
    const t = textChunk(c);
    if (t?.keyword === 'ccv3') v3 ??= t.text;
    else if (t?.keyword === 'chara') v2 ??= t.text;
  }
  const fromText = (text: Uint8Array) => parseCard(decodeBase64(text), true);
  let data: Obj;
  if (v3) {
    try {
      data = fromText(v3);
    } catch (err) {
      if (!v2) throw err;
      data = fromText(v2);
    }
  } else if (v2) {
    data = fromText(v2);
  } else {
    throw new NotACard('no card chunk');
  }
  const kept = chunks.filter((c) => !isCardChunk(c));
  const image = new Uint8Array(PNG_SIGNATURE.length + kept.reduce((n, c) => n + c.raw.length, 0));
  image.set(PNG_SIGNATURE);
  let at = PNG_SIGNATURE.length;
  for (const c of kept) {
    image.set(c.raw, at);
    at += c.raw.length;
  }
  return { data, image };
}

/** latin1 reads bytes one character each (keywords and base64 text are ASCII), at any length. */
function latin1(b: Uint8Array): string {
  return new TextDecoder('latin1').decode(b);
}

/** decodeBase64 decodes as leniently as the host: whitespace and padding optional, the URL-safe alphabet too. */
function decodeBase64(text: Uint8Array): Uint8Array {
  let s = latin1(text).replace(/[ \t\r\n]+/g, '');
  s = s.replace(/=+$/, '').replace(/-/g, '+').replace(/_/g, '/');
  if (s.length % 4 === 1) throw new NotACard('base64');
  s += '='.repeat((4 - (s.length % 4)) % 4);
  let binary: string;
  try {
    binary = atob(s);
  } catch {
    throw new NotACard('base64');
  }
  return Uint8Array.from(binary, (ch) => ch.charCodeAt(0));
}

// ---- CHARX (a zip with card.json and its assets) ----

/** zipEntries maps each entry's cleaned path (the first of each) to where its data starts and how it is stored. */
function zipEntries(b: Uint8Array): Map<string, { method: number; offset: number; size: number; unpacked: number }> {
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  let end = -1;
  for (let i = b.length - 22; i >= Math.max(0, b.length - 22 - 0xffff); i--) {
    if (view.getUint32(i, true) === 0x06054b50) {
      end = i;
      break;
    }
  }
  if (end < 0) throw new NotACard('zip');
  const count = view.getUint16(end + 10, true);
  let pos = view.getUint32(end + 16, true);
  const out = new Map<string, { method: number; offset: number; size: number; unpacked: number }>();
  for (let i = 0; i < count; i++) {
    if (pos + 46 > b.length || view.getUint32(pos, true) !== 0x02014b50) throw new NotACard('zip');
    const method = view.getUint16(pos + 10, true);
    const size = view.getUint32(pos + 20, true);
    const unpacked = view.getUint32(pos + 24, true);
    const nameLen = view.getUint16(pos + 28, true);
    const skip = nameLen + view.getUint16(pos + 30, true) + view.getUint16(pos + 32, true);
    const local = view.getUint32(pos + 42, true);
    const name = cleanPath(new TextDecoder().decode(b.subarray(pos + 46, pos + 46 + nameLen)));
    pos += 46 + skip;
    if (!name || out.has(name)) continue;
    if (local + 30 > b.length || view.getUint32(local, true) !== 0x04034b50) throw new NotACard('zip');
    const offset = local + 30 + view.getUint16(local + 26, true) + view.getUint16(local + 28, true);
    if (offset + size > b.length) throw new NotACard('zip');
    out.set(name, { method, offset, size, unpacked });
  }
  return out;
}

/** cleanPath makes an archive path plain: forward slashes, no leading slash or dot segments; '' when it escapes. */
function cleanPath(p: string): string {
  const parts: string[] = [];
  for (const seg of p.replace(/\\/g, '/').split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') parts.pop();
    else parts.push(seg);
  }
  return parts.join('/');
}

/** unpack inflates one entry, refusing to go past budget bytes. */
async function unpack(b: Uint8Array, e: { method: number; offset: number; size: number }, budget: number): Promise<Uint8Array> {
  const packed = b.subarray(e.offset, e.offset + e.size);
  if (e.method === 0) {
    if (packed.length > budget) throw new NotACard('too large');
    return packed;
  }
  if (e.method !== 8) throw new NotACard('zip method');
  const stream = new Blob([packed as Uint8Array<ArrayBuffer>]).stream().pipeThrough(new DecompressionStream('deflate-raw'));
  const parts: Uint8Array[] = [];
  let total = 0;
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.length;
      if (total > budget) throw new NotACard('too large');
      parts.push(value);
    }
  } catch (err) {
    throw err instanceof NotACard ? err : new NotACard('zip data');
  } finally {
    void reader.cancel().catch(() => {});
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

const EMBEDDED = ['embeded://', 'embedded://', '__asset:'];

/** imageType is the picture type Hearth keeps bytes as, or null (the host's avatarTypes). */
function imageType(b: Uint8Array): string | null {
  if (startsWith(b, PNG_SIGNATURE)) return 'image/png';
  if (startsWith(b, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (startsWith(b, [0x47, 0x49, 0x46, 0x38]) && (b[4] === 0x37 || b[4] === 0x39) && b[5] === 0x61) return 'image/gif';
  if (startsWith(b, [0x52, 0x49, 0x46, 0x46]) && String.fromCharCode(...b.subarray(8, 14)) === 'WEBPVP') return 'image/webp';
  return null;
}

/** readCHARX reads card.json (V2 or V3) and, as the picture, the icon named main, else the first icon. */
async function readCHARX(b: Uint8Array): Promise<ReadCard> {
  const files = zipEntries(b);
  let budget = MAX_UNPACKED;
  const cardEntry = files.get('card.json');
  if (!cardEntry) throw new NotACard('no card.json');
  const cardBytes = await unpack(b, cardEntry, budget);
  budget -= cardBytes.length;
  const data = parseCard(cardBytes, false);
  let first: Uint8Array | null = null;
  let main: Uint8Array | null = null;
  const read = new Set<string>();
  for (const a of Array.isArray(data.assets) ? data.assets : []) {
    if (!isObject(a) || typeof a.type !== 'string' || a.type.toLowerCase() !== 'icon' || typeof a.uri !== 'string') continue;
    const uri = a.uri.trim();
    const prefix = EMBEDDED.find((p) => uri.slice(0, p.length).toLowerCase() === p);
    const path = prefix ? cleanPath(uri.slice(prefix.length)) : '';
    const entry = path ? files.get(path) : undefined;
    if (!entry || read.has(path)) continue;
    read.add(path);
    const content = await unpack(b, entry, budget);
    budget -= content.length;
    if (!imageType(content)) continue;
    first ??= content;
    if (typeof a.name === 'string' && a.name.toLowerCase() === 'main') {
      main = content;
      break;
    }
  }
  return { data, image: main ?? first };
}

// ---- The card's JSON, and what the host repairs in it ----

/** parseCard reads a card's JSON text into normalized V2 data; v1 says whether a flat V1 card is allowed. */
function parseCard(bytes: Uint8Array, v1: boolean): Obj {
  const top: unknown = JSON.parse(new TextDecoder().decode(bytes));
  if (!isObject(top)) throw new NotACard('not an object');
  let data: Obj;
  if (!absent(top.spec)) {
    if (top.spec !== SPEC_V2 && top.spec !== SPEC_V3) throw new NotACard('spec');
    if (!isObject(top.data)) throw new NotACard('no data');
    data = { ...top.data };
    for (const k of CORE_FIELDS) if (!Object.hasOwn(data, k) && Object.hasOwn(top, k)) data[k] = top[k];
  } else if (isObject(top.data)) {
    data = { ...top.data };
  } else if (!v1) {
    throw new NotACard('no spec');
  } else if (!absent(top.name)) {
    data = fromV1(top);
  } else if (!absent(top.char_name)) {
    data = fromV1(fromPygmalion(top));
  } else {
    throw new NotACard('no name');
  }
  normalize(data);
  if (typeof data.name !== 'string' || data.name.trim() === '') throw new NotACard('no name');
  return data;
}

/** fromV1 converts a flat V1 card as SillyTavern does, with the extension defaults it writes. */
function fromV1(top: Obj): Obj {
  const data: Obj = {};
  for (const k of V1_FIELDS) if (Object.hasOwn(top, k)) data[k] = top[k];
  if (!absent(top.creatorcomment)) data.creator_notes = top.creatorcomment;
  else if (Object.hasOwn(top, 'creator_notes')) {
    const notes = top.creator_notes;
    data.creator_notes = typeof notes === 'string' ? notes.replace(NOTES_PLACEHOLDER, '') : notes;
  }
  data.extensions = {
    talkativeness: absent(top.talkativeness) ? 0.5 : top.talkativeness,
    fav: false,
    world: '',
    depth_prompt: { prompt: '', depth: 4, role: 'system' },
  };
  return data;
}

/** fromPygmalion renames a Pygmalion card's fields (char_name, char_persona, …) to V1's. */
function fromPygmalion(top: Obj): Obj {
  const names: Record<string, string> = {
    char_name: 'name',
    char_persona: 'description',
    char_greeting: 'first_mes',
    example_dialogue: 'mes_example',
    world_scenario: 'scenario',
    creatorcomment: 'creatorcomment',
    creator_notes: 'creator_notes',
    talkativeness: 'talkativeness',
    creator: 'creator',
    tags: 'tags',
  };
  const v1: Obj = { personality: '' };
  for (const [from, to] of Object.entries(names)) if (Object.hasOwn(top, from)) v1[to] = top[from];
  return v1;
}

/** normalize repairs data as the host does: strings, lists of strings, extensions an object, no stray character_book. */
function normalize(data: Obj): void {
  for (const k of STRING_FIELDS) {
    const v = data[k];
    if (absent(v)) data[k] = '';
    else if (typeof v === 'number' || typeof v === 'boolean') data[k] = String(v);
    else if (typeof v !== 'string') throw new NotACard(`${k} is no string`);
  }
  for (const k of LIST_FIELDS) {
    const v = data[k];
    if (absent(v)) data[k] = [];
    else if (Array.isArray(v)) {
      data[k] = v.filter((x) => x !== null).map((x) => {
        if (typeof x === 'string') return x;
        if (typeof x === 'number' || typeof x === 'boolean') return String(x);
        throw new NotACard(`${k} holds no strings`);
      });
    } else if (typeof v === 'string') {
      data[k] = k === 'tags' ? v.split(',').map((t) => t.trim()).filter(Boolean) : v === '' ? [] : [v];
    } else {
      throw new NotACard(`${k} is no list`);
    }
  }
  if (!isObject(data.extensions)) data.extensions = {};
  if (Object.hasOwn(data, 'character_book') && !isObject(data.character_book)) delete data.character_book;
}
