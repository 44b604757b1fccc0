import { describe, expect, it } from 'vitest';
import { readLocaleFile } from './page-locale';

/** serve answers every fetch with body (a string, or chunks streamed without a length) and init. */
function serve(body: string | string[], init: ResponseInit = {}): typeof fetch {
  return (async () => {
    if (typeof body === 'string') return new Response(body, init);
    const enc = new TextEncoder();
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        for (const part of body) c.enqueue(enc.encode(part));
        c.close();
      },
    });
    return new Response(stream, init);
  }) as typeof fetch;
}

describe('reading a translation file', () => {
  it('answers its JSON object, strings only, a BOM ignored', async () => {
    const data = await readLocaleFile('/x.json', serve('\uFEFF{"Notes":"Notizen","n":1,"o":{"a":"b"},"Empty":""}'));
    expect(data).toEqual({ Notes: 'Notizen', Empty: '' });
  });

  it('refuses what is not a JSON object of texts, and what could not be read', async () => {
    await expect(readLocaleFile('/x.json', serve('{"Notes":'))).rejects.toThrow('it is not JSON');
    await expect(readLocaleFile('/x.json', serve('["Notes"]'))).rejects.toThrow('it is not a JSON object');
    await expect(readLocaleFile('/x.json', serve('null'))).rejects.toThrow('it is not a JSON object');
    await expect(readLocaleFile('/x.json', serve('nope', { status: 404 }))).rejects.toThrow('HTTP 404');
  });

  it('reads at most max bytes, whether or not the length is declared', async () => {
    const big = `{"k":"${'x'.repeat(100)}"}`;
    await expect(readLocaleFile('/x.json', serve(big, { headers: { 'Content-Length': String(big.length) } }), 50)).rejects.toThrow(
      `it is ${big.length} bytes; at most 50 are read`,
    );
    await expect(readLocaleFile('/x.json', serve([big.slice(0, 40), big.slice(40)]), 50)).rejects.toThrow('it is larger than 50 bytes');
    expect(await readLocaleFile('/x.json', serve(['{"k":', '"ü"}']), 50)).toEqual({ k: 'ü' });
  });
});
