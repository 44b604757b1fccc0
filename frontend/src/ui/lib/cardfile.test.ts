import { describe, expect, it, vi } from 'vitest';
import {
  emptyResult,
  exportCardFile,
  failureOf,
  fromBase64,
  importCardFile,
  isFileDrag,
  MAX_CARD_BYTES,
  summarize,
  toBase64,
  type CardFiles,
  type CardImportResult,
  type ImportedCard,
} from './cardfile';

function hostError(code: string, message = code): Error & { code: string } {
  return Object.assign(new Error(message), { code });
}

function picked(name: string, bytes: Uint8Array, size = bytes.length) {
  return { name, size, arrayBuffer: vi.fn(async () => bytes.slice().buffer) };
}

function card(name: string, importWarnings: string[] = []): ImportedCard {
  return { name, avatar: `${name}.png`, importWarnings } as unknown as ImportedCard;
}

function fakeApi() {
  const api = {
    importCard: vi.fn(async (file: { fileName: string; base64: string }) => card(file.fileName.replace(/\..*$/, ''))),
    exportCard: vi.fn(async (avatar: string, opts?: { format?: 'png' | 'json' }) => ({
      fileName: avatar.replace(/\.png$/, `.${opts?.format ?? 'png'}`),
      base64: btoa('\x89PNG\r\n\x1a\n\x00\xff'),
    })),
    saveCard: vi.fn(async (avatar: string, opts?: { format?: 'png' | 'json' }) => ({
      saved: true,
      path: `/home/u/${avatar.replace(/\.png$/, `.${opts?.format ?? 'png'}`)}`,
    })),
  };
  return api as unknown as CardFiles & typeof api;
}

describe('base64', () => {
  it('round-trips every byte value, and more bytes than one slice', () => {
    const all = Uint8Array.from({ length: 256 }, (_, i) => i);
    expect(fromBase64(toBase64(all))).toEqual(all);
    const big = Uint8Array.from({ length: 0x8000 * 2 + 5 }, (_, i) => (i * 7) & 0xff);
    expect(fromBase64(toBase64(big))).toEqual(big);
    expect(toBase64(new TextEncoder().encode('Seraphina'))).toBe(btoa('Seraphina'));
  });
});

describe('importCardFile', () => {
  it('sends the file as base64 under its name', async () => {
    const api = fakeApi();
    const bytes = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 255]);
    const got = await importCardFile(api, picked('Kestrel.png', bytes));
    expect(got.name).toBe('Kestrel');
    expect(api.importCard).toHaveBeenCalledWith({ fileName: 'Kestrel.png', base64: toBase64(bytes) });
  });

  it('refuses a file too large to send without reading it', async () => {
    const api = fakeApi();
    const file = picked('huge.png', new Uint8Array(1), MAX_CARD_BYTES + 1);
    await expect(importCardFile(api, file)).rejects.toMatchObject({ code: 'validation.invalid_argument', message: /huge\.png is 48\.0 MB/ });
    expect(file.arrayBuffer).not.toHaveBeenCalled();
    expect(api.importCard).not.toHaveBeenCalled();
  });

  it('rejects as the host did', async () => {
    const api = fakeApi();
    api.importCard.mockRejectedValueOnce(hostError('card.invalid', 'trunc.png: the PNG is truncated'));
    await expect(importCardFile(api, picked('trunc.png', new Uint8Array(3)))).rejects.toMatchObject({ code: 'card.invalid' });
  });
});

describe('failureOf', () => {
  it('leaves out the file name the host put first', () => {
    expect(failureOf('trunc.png', hostError('card.invalid', 'trunc.png: the PNG is truncated'))).toEqual({
      fileName: 'trunc.png',
      code: 'card.invalid',
      message: 'the PNG is truncated',
    });
    expect(failureOf('a.png', new Error('network down'))).toEqual({ fileName: 'a.png', code: 'internal', message: 'network down' });
  });
});

describe('summarize', () => {
  const ok = (fileName: string, warnings: string[] = []) => ({ fileName, card: card(fileName.replace(/\..*$/, ''), warnings) });
  const bad = (fileName: string, message = 'not a card', code = 'card.invalid') => ({ fileName, message, code });

  it('names the one card imported, its warnings folded away', () => {
    expect(summarize({ ...emptyResult(), imported: [ok('Kestrel.png')], failed: [] })).toEqual({
      kind: 'info',
      message: 'Imported “Kestrel”',
      code: null,
      groups: [],
      notes: null,
      sticky: false,
    });
    const s = summarize({ ...emptyResult(), imported: [ok('Messy.json', ['tags was a string', 'creator was a boolean'])], failed: [] });
    expect(s.notes).toEqual({ summary: '2 import notes', groups: [{ label: 'Messy.json', lines: ['tags was a string', 'creator was a boolean'] }] });
    expect(s.sticky).toBe(false);
  });

  it('says why one file failed, with its code', () => {
    expect(summarize({ ...emptyResult(), imported: [], failed: [bad('trunc.png', 'the PNG is truncated')] })).toEqual({
      kind: 'error',
      message: 'Could not import trunc.png: the PNG is truncated',
      code: 'card.invalid',
      groups: [],
      notes: null,
      sticky: false,
    });
  });

  it('counts a batch and lists each failure by file name until dismissed', () => {
    const result: CardImportResult = {
      ...emptyResult(),
      imported: [ok('a.png'), ok('b.json', ['read as Pygmalion']), ok('c.charx')],
      failed: [bad('d.png', 'the PNG is truncated'), bad('e.txt', 'none of them')],
    };
    const s = summarize(result);
    expect(s).toMatchObject({ kind: 'error', message: 'Imported 3 characters; 2 files failed', code: null, sticky: true });
    expect(s.groups).toEqual([
      { label: 'd.png', lines: ['the PNG is truncated'] },
      { label: 'e.txt', lines: ['none of them'] },
    ]);
    expect(s.notes).toEqual({ summary: '1 import note', groups: [{ label: 'b.json', lines: ['read as Pygmalion'] }] });
  });

  it('names a replaced card, and counts replaced and skipped ones in a batch', () => {
    const kestrel = { fileName: 'k.png', card: card('Kestrel') };
    expect(summarize({ ...emptyResult(), replaced: [kestrel] })).toMatchObject({ kind: 'info', message: 'Replaced “Kestrel”', sticky: false });
    expect(summarize({ ...emptyResult(), imported: [ok('a.png')], replaced: [kestrel] })).toMatchObject({
      message: 'Imported 1 character; replaced 1 character',
    });
    const s = summarize({ ...emptyResult(), replaced: [kestrel, kestrel], skipped: [{ fileName: 'x.png', name: 'X' }], failed: [bad('d.png')] });
    expect(s).toMatchObject({ kind: 'error', message: 'Replaced 2 characters; 1 file failed; skipped 1 duplicate', sticky: true });
    expect(summarize({ ...emptyResult(), skipped: [{ fileName: 'x.png', name: 'X' }, { fileName: 'y.png', name: 'Y' }] })).toMatchObject({
      kind: 'info',
      message: 'Skipped 2 duplicates',
    });
  });

  it('says so when nothing made it in', () => {
    const s = summarize({ ...emptyResult(), imported: [], failed: [bad('a.png'), bad('b.png', 'too big', 'validation.invalid_argument')] });
    expect(s).toMatchObject({ kind: 'error', message: 'Could not import 2 files', code: null, sticky: true });
    expect(summarize({ ...emptyResult(), imported: [ok('a.png'), ok('b.png')], failed: [] })).toMatchObject({ kind: 'info', message: 'Imported 2 characters', sticky: false });
    expect(summarize({ ...emptyResult(), imported: [ok('Messy.json')], failed: [bad('c.png')] })).toMatchObject({ kind: 'error', message: 'Imported “Messy”; 1 file failed', sticky: true });
  });
});

describe('exportCardFile', () => {
  it('downloads the decoded bytes under the host’s file name', async () => {
    const api = fakeApi();
    const download = vi.fn();
    await expect(exportCardFile(api, 'Kestrel.png', 'png', { desktop: false, download })).resolves.toEqual({ kind: 'downloaded', fileName: 'Kestrel.png' });
    expect(api.saveCard).not.toHaveBeenCalled();
    expect(api.exportCard).toHaveBeenCalledWith('Kestrel.png', { format: 'png' });
    const [name, blob] = download.mock.calls[0] as [string, Blob];
    expect(name).toBe('Kestrel.png');
    expect(blob.type).toBe('image/png');
    expect(new Uint8Array(await blob.arrayBuffer())).toEqual(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff]));
    await exportCardFile(api, 'Kestrel.png', 'json', { desktop: false, download });
    expect((download.mock.calls[1] as [string, Blob])[1].type).toBe('application/json');
  });

  it('asks the desktop host to save through its Save dialog, and tells a cancel', async () => {
    const api = fakeApi();
    const download = vi.fn();
    await expect(exportCardFile(api, 'Kestrel.png', 'json', { desktop: true, download })).resolves.toEqual({ kind: 'saved', path: '/home/u/Kestrel.json' });
    expect(api.saveCard).toHaveBeenCalledWith('Kestrel.png', { format: 'json' });
    expect(api.exportCard).not.toHaveBeenCalled();
    expect(download).not.toHaveBeenCalled();
    api.saveCard.mockResolvedValueOnce({ saved: false, path: null } as never);
    await expect(exportCardFile(api, 'Kestrel.png', 'png', { desktop: true })).resolves.toEqual({ kind: 'cancelled' });
  });
});

describe('isFileDrag', () => {
  it('tells a drag of files from one of text', () => {
    expect(isFileDrag({ types: ['Files'] })).toBe(true);
    expect(isFileDrag({ types: ['text/plain', 'text/uri-list'] })).toBe(false);
    expect(isFileDrag(null)).toBe(false);
  });
});
