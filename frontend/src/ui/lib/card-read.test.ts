import { describe, expect, it } from 'vitest';
import { nodeFs as fs, readText } from '../../testing/node-fs';
import { readCard } from './card-read';

const testdata = new URL('../../../../backend/cards/testdata/', import.meta.url);
const fixture = (name: string) => new Uint8Array(fs.readFileSync(new URL(`fixtures/${name}`, testdata)));

/** What backend/cards' golden import files hold (golden_test.go's goldenImport). */
interface GoldenImport {
  image: { type: string; bytes: number; sha256: string } | null;
  data: Record<string, unknown>;
}

async function sha256(b: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', b as Uint8Array<ArrayBuffer>));
  return [...digest].map((x) => x.toString(16).padStart(2, '0')).join('');
}

function b64(text: string): string {
  return btoa(String.fromCharCode(...new TextEncoder().encode(text)));
}

/** png builds a tiny PNG (a 1×1 IHDR, no pixel data needed by the reader) with tEXt chunks. */
function png(texts: [string, string][], breakCrc = false): Uint8Array {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (b: Uint8Array) => {
    let c = 0xffffffff;
    for (const x of b) c = crcTable[(c ^ x) & 0xff]! ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Uint8Array) => {
    const out = new Uint8Array(12 + data.length);
    const view = new DataView(out.buffer);
    view.setUint32(0, data.length);
    out.set(new TextEncoder().encode(type), 4);
    out.set(data, 8);
    view.setUint32(8 + data.length, crc(out.subarray(4, 8 + data.length)) ^ (breakCrc && type === 'tEXt' ? 1 : 0));
    return out;
  };
  const parts = [
    new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', new Uint8Array([0, 0, 0, 1, 0, 0, 0, 1, 8, 0, 0, 0, 0])),
    ...texts.map(([k, v]) => chunk('tEXt', new TextEncoder().encode(`${k}\0${v}`))),
    chunk('IEND', new Uint8Array()),
  ];
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

describe('readCard', () => {
  // Every fixture of backend/cards reads to the data and picture the host's
  // import stores (its golden files), so what the window compares and
  // replaces is what an import would have made.
  const names = fs.readdirSync(new URL('fixtures/', testdata));
  it('has the host fixtures to compare with', () => {
    expect(names).toEqual(expect.arrayContaining(['v1.json', 'v2_chara.png', 'v3_both.png', 'ccv3_broken.png', 'card.charx', 'messy.json', 'pygmalion.json']));
  });
  for (const name of names) {
    it(`reads ${name} as the host does`, async () => {
      const golden = JSON.parse(
        readText(new URL(`golden/import_${name.replace(/\./g, '_')}.json`, testdata)),
      ) as GoldenImport;
      const card = await readCard(name, fixture(name));
      expect(card).not.toBeNull();
      // The one known difference: a number where a string belongs is
      // spelled as JavaScript prints it (JSON.parse keeps no source text).
      const want = name === 'messy.json' ? { ...golden.data, character_version: '1' } : golden.data;
      expect(card!.data).toEqual(want);
      if (golden.image === null) {
        expect(card!.image).toBeNull();
      } else {
        expect(card!.image?.length).toBe(golden.image.bytes);
        expect(await sha256(card!.image!)).toBe(golden.image.sha256);
      }
    });
  }

  it('reads a renamed file by its content, and JSON by its first character', async () => {
    const v2 = fixture('v2_chara.png');
    expect((await readCard('card.bin', v2))?.data.name).toBe((await readCard('v2_chara.png', v2))?.data.name);
    const json = new TextEncoder().encode('\uFEFF  {"spec":"chara_card_v2","data":{"name":"Bom"}}');
    expect((await readCard('card.txt', json))?.data).toMatchObject({ name: 'Bom', tags: [], extensions: {} });
  });

  it('takes the chara chunk when ccv3 is missing, and URL-safe unpadded base64', async () => {
    const card = { spec: 'chara_card_v2', data: { name: 'Ünï ✓', description: '>?>' } };
    const urlSafe = b64(JSON.stringify(card)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
    const read = await readCard('x.png', png([['Chara', urlSafe]]));
    expect(read?.data).toMatchObject({ name: 'Ünï ✓', description: '>?>' });
    // The picture keeps the PNG's other chunks and drops the card's.
    expect(read?.image?.length).toBe(8 + 25 + 12);
  });

  it('answers null for what only the host can say is wrong', async () => {
    const ok = b64(JSON.stringify({ spec: 'chara_card_v2', data: { name: 'A' } }));
    for (const [name, bytes] of [
      ['plain.png', png([])],
      ['crc.png', png([['chara', ok]], true)],
      ['truncated.png', png([['chara', ok]]).subarray(0, 40)],
      ['nameless.json', new TextEncoder().encode('{"spec":"chara_card_v2","data":{"name":"  "}}')],
      ['lorebook.json', new TextEncoder().encode('{"spec":"lorebook_v3","data":{"name":"x"}}')],
      ['bad.json', new TextEncoder().encode('{"name": ')],
      ['list.json', new TextEncoder().encode('[1, 2]')],
      ['object-desc.json', new TextEncoder().encode('{"name":"A","description":{"x":1}}')],
      ['notes.txt', new TextEncoder().encode('hello')],
      ['broken.charx', new TextEncoder().encode('PK\x03\x04 not really a zip')],
    ] as const) {
      expect(await readCard(name, bytes), name).toBeNull();
    }
  });

  it('repairs fields as the host does', async () => {
    const v1 = { name: 'Old', tags: 'a, b,,c', creator_notes: "Creator's notes go here.", alternate_greetings: ['hi', null, 3], creator: true };
    const read = await readCard('old.json', new TextEncoder().encode(JSON.stringify(v1)));
    expect(read?.data).toMatchObject({
      name: 'Old',
      tags: ['a', 'b', 'c'],
      creator_notes: '',
      alternate_greetings: ['hi', '3'],
      creator: 'true',
      group_only_greetings: [],
      extensions: { talkativeness: 0.5, fav: false, world: '', depth_prompt: { prompt: '', depth: 4, role: 'system' } },
    });
    const v2 = { spec: 'chara_card_v2', name: 'Top', data: { extensions: 'no', character_book: [1] } };
    const back = await readCard('v2.json', new TextEncoder().encode(JSON.stringify(v2)));
    expect(back?.data.name).toBe('Top');
    expect(back?.data.extensions).toEqual({});
    expect(back?.data).not.toHaveProperty('character_book');
  });
});
