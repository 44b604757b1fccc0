import { get } from 'svelte/store';
import { describe, expect, it, vi } from 'vitest';
import type { Character, CharacterSummary, HearthAbi } from '../../abi/types';
import { emptyResult, type ImportedCard } from '../lib/cardfile';
import { createCardImport, type DuplicateAnswer, type DuplicateQuestion, type ImportProgress } from './card-import';
import type { CharacterStore } from './characters';
import { createToasts } from './toasts';

function hostError(code: string, message = code): Error & { code: string } {
  return Object.assign(new Error(message), { code });
}

function file(name: string) {
  return { name, size: 4, arrayBuffer: async () => new Uint8Array([1, 2, 3, 4]).buffer };
}

/** setup: importCard waits for release(fileName) and fails for files named bad*. */
function setup() {
  const waiting = new Map<string, () => void>();
  const importCard = vi.fn(
    (f: { fileName: string }) =>
      new Promise<ImportedCard>((resolve, reject) => {
        waiting.set(f.fileName, () => {
          if (f.fileName.startsWith('bad')) reject(hostError('card.invalid', `${f.fileName}: not a card`));
          else resolve({ name: f.fileName.replace(/\..*$/, ''), avatar: `${f.fileName}.png`, importWarnings: [] } as unknown as ImportedCard);
        });
      }),
  );
  const hearth = { api: { characters: { importCard } } } as unknown as HearthAbi;
  const characters = { refresh: vi.fn(async () => {}), select: vi.fn() } as unknown as CharacterStore & {
    refresh: ReturnType<typeof vi.fn>;
    select: ReturnType<typeof vi.fn>;
  };
  const toasts = createToasts(0);
  const store = createCardImport({ hearth, characters, toasts });
  const seen: (ImportProgress | null)[] = [];
  store.progress.subscribe((p) => seen.push(p));
  /** release lets the host answer for fileName once it was asked. */
  async function release(fileName: string): Promise<void> {
    await vi.waitFor(() => expect(waiting.has(fileName)).toBe(true));
    waiting.get(fileName)!();
  }
  return { store, characters, toasts, importCard, seen, release };
}

describe('card import', () => {
  it('imports files one after another, with progress, then one summary', async () => {
    const { store, characters, toasts, importCard, seen, release } = setup();
    const done = store.importFiles([file('a.png'), file('bad.png'), file('c.json')]);
    await release('a.png');
    await release('bad.png');
    await vi.waitFor(() => expect(get(store.progress)).toEqual({ index: 3, total: 3, fileName: 'c.json' }));
    await release('c.json');
    const result = await done;
    expect(importCard).toHaveBeenCalledTimes(3);
    expect(seen).toEqual([
      null,
      { index: 1, total: 3, fileName: 'a.png' },
      { index: 2, total: 3, fileName: 'bad.png' },
      { index: 3, total: 3, fileName: 'c.json' },
      null,
    ]);
    expect(result.imported.map((i) => i.fileName)).toEqual(['a.png', 'c.json']);
    expect(result.failed).toEqual([{ fileName: 'bad.png', code: 'card.invalid', message: 'not a card' }]);
    expect(characters.refresh).toHaveBeenCalledOnce();
    expect(characters.select).not.toHaveBeenCalled();
    expect(get(toasts)).toMatchObject([
      { kind: 'error', message: 'Imported 2 characters; 1 file failed', sticky: true, groups: [{ label: 'bad.png', lines: ['not a card'] }] },
    ]);
  });

  it('selects the one character imported', async () => {
    const { store, characters, toasts, release } = setup();
    const done = store.importFiles([file('Kestrel.png')]);
    await release('Kestrel.png');
    await done;
    expect(characters.select).toHaveBeenCalledWith('Kestrel.png.png');
    expect(get(toasts)).toMatchObject([{ kind: 'info', message: 'Imported “Kestrel”' }]);
  });

  it('adds files picked meanwhile to the import under way', async () => {
    const { store, toasts, seen, release } = setup();
    const first = store.importFiles([file('a.png')]);
    await vi.waitFor(() => expect(get(store.progress)).toMatchObject({ index: 1, total: 1 }));
    const second = store.importFiles([file('b.png'), file('c.png')]);
    expect(second).toBe(first);
    await release('a.png');
    await release('b.png');
    await release('c.png');
    expect((await first).imported).toHaveLength(3);
    expect(seen.filter(Boolean).map((p) => `${p!.index}/${p!.total}`)).toEqual(['1/1', '2/3', '3/3']);
    expect(get(toasts)).toHaveLength(1);
  });

  it('does nothing for no files, and refreshes nothing when every file failed', async () => {
    const { store, characters, toasts, importCard, release } = setup();
    await expect(store.importFiles([])).resolves.toEqual(emptyResult());
    expect(importCard).not.toHaveBeenCalled();
    const done = store.importFiles([file('bad.png')]);
    await release('bad.png');
    await done;
    expect(characters.refresh).not.toHaveBeenCalled();
    expect(get(toasts)).toMatchObject([{ kind: 'error', message: 'Could not import bad.png: not a card', code: 'card.invalid' }]);
  });
});

/** cardFile is a JSON card file of name with the given fields. */
function cardFile(fileName: string, data: Record<string, unknown>) {
  const bytes = new TextEncoder().encode(JSON.stringify({ spec: 'chara_card_v2', spec_version: '2.0', data }));
  return { name: fileName, size: bytes.length, arrayBuffer: async () => bytes.buffer };
}

/** stored is a character as characters.get returns it. */
function stored(avatar: string, fields: Partial<Character>): Character {
  return {
    avatar,
    name: '',
    description: '',
    personality: '',
    scenario: '',
    first_mes: '',
    mes_example: '',
    creator_notes: '',
    system_prompt: '',
    post_history_instructions: '',
    alternate_greetings: [],
    tags: [],
    creator: '',
    character_version: '',
    extensions: {},
    createdAt: 1,
    updatedAt: 1,
    hasImage: false,
    ...fields,
  };
}

/** duplicates: a host holding Kestrel (a hawk), and a person who answers every question with answers, in turn. */
function duplicates(answers: DuplicateAnswer[]) {
  const kestrel = stored('Kestrel.png', { name: 'Kestrel', description: 'A hawk.', first_mes: 'Hello.', extensions: { fav: true } });
  const summary: CharacterSummary = { avatar: 'Kestrel.png', name: 'Kestrel', tags: [], createdAt: 1, lastChatAt: 5, chatCount: 2, hasImage: false };
  const list = vi.fn(async () => [summary, { ...summary, avatar: 'Other.png', name: 'Other' }]);
  const get = vi.fn(async (avatar: string) => {
    if (avatar !== 'Kestrel.png') throw hostError('character.not_found');
    return kestrel;
  });
  const update = vi.fn(async (avatar: string, patch: Record<string, unknown>) => ({ ...kestrel, ...patch, avatar }));
  const importCard = vi.fn(async (f: { fileName: string }) => ({ ...kestrel, avatar: `new-${f.fileName}`, importWarnings: [] }));
  const hearth = { api: { characters: { list, get, update, importCard } } } as unknown as HearthAbi;
  const characters = { refresh: vi.fn(async () => {}), select: vi.fn() } as unknown as CharacterStore & { select: ReturnType<typeof vi.fn> };
  const toasts = createToasts(0);
  const asked: DuplicateQuestion[] = [];
  const ask = vi.fn(async (q: DuplicateQuestion) => {
    asked.push(q);
    const a = answers.shift();
    if (!a) throw new Error('asked once too often');
    return a;
  });
  const store = createCardImport({ hearth, characters, toasts, ask });
  return { store, update, importCard, characters, toasts, asked, ask };
}

describe('card import of a character Hearth has', () => {
  const newer = cardFile('Kestrel v2.json', { name: 'kestrel ', description: 'A hawk.\r\n', first_mes: 'Hi again.', tags: ['bird'] });

  it('asks, and Replace updates that character in place with one call', async () => {
    const { store, update, importCard, characters, toasts, asked } = duplicates([{ action: 'replace', all: false }]);
    const result = await store.importFiles([newer]);
    expect(asked).toEqual([
      {
        fileName: 'Kestrel v2.json',
        name: 'kestrel ',
        existing: expect.objectContaining({ avatar: 'Kestrel.png', chatCount: 2 }),
        same: { description: true, firstMessage: false },
        more: 0,
      },
    ]);
    expect(importCard).not.toHaveBeenCalled();
    expect(update).toHaveBeenCalledOnce();
    const [avatar, patch] = update.mock.calls[0]!;
    expect(avatar).toBe('Kestrel.png');
    // Only what differs; the JSON card brings no picture, so the character keeps its own.
    expect(patch).toEqual({ name: 'kestrel ', description: 'A hawk.\r\n', first_mes: 'Hi again.', tags: ['bird'], group_only_greetings: [], extensions: { fav: null } });
    expect(result.replaced.map((r) => r.card.avatar)).toEqual(['Kestrel.png']);
    expect(characters.select).toHaveBeenCalledWith('Kestrel.png');
    expect(get(toasts)).toMatchObject([{ kind: 'info', message: 'Replaced “kestrel ”' }]);
  });

  it('Keep both imports the file as a new character', async () => {
    const { store, update, importCard } = duplicates([{ action: 'keep', all: false }]);
    const result = await store.importFiles([newer]);
    expect(update).not.toHaveBeenCalled();
    expect(importCard).toHaveBeenCalledOnce();
    expect(result.imported).toHaveLength(1);
  });

  it('Cancel skips the file without a word', async () => {
    const { store, update, importCard, characters, toasts } = duplicates([{ action: 'cancel', all: false }]);
    const result = await store.importFiles([newer]);
    expect(update).not.toHaveBeenCalled();
    expect(importCard).not.toHaveBeenCalled();
    expect(result.skipped).toEqual([{ fileName: 'Kestrel v2.json', name: 'kestrel ' }]);
    expect(characters.select).not.toHaveBeenCalled();
    expect(get(toasts)).toEqual([]);
  });

  it('asks once for all matches when told to, and never about other cards', async () => {
    const { store, update, importCard, asked, toasts } = duplicates([{ action: 'cancel', all: true }]);
    const other = cardFile('Other.json', { name: 'Other', description: 'Not the same.', first_mes: 'Nor this.' });
    const same = cardFile('Kestrel.json', { name: 'Kestrel', description: 'A falcon.', first_mes: 'Hello.' });
    const result = await store.importFiles([newer, other, same, file('junk.png')]);
    expect(asked.map((q) => [q.fileName, q.more])).toEqual([['Kestrel v2.json', 3]]);
    expect(update).not.toHaveBeenCalled();
    expect(importCard.mock.calls.map(([f]) => f.fileName)).toEqual(['Other.json', 'junk.png']);
    expect(result.skipped.map((s) => s.fileName)).toEqual(['Kestrel v2.json', 'Kestrel.json']);
    expect(get(toasts)).toMatchObject([{ message: 'Imported 2 characters; skipped 2 duplicates' }]);
  });

  it('leaves a card alone that only shares the name', async () => {
    const { store, importCard, ask } = duplicates([]);
    await store.importFiles([cardFile('K.json', { name: 'Kestrel', description: 'Another bird.', first_mes: 'Caw.' })]);
    expect(ask).not.toHaveBeenCalled();
    expect(importCard).toHaveBeenCalledOnce();
  });

  it('counts a refused Replace as failed, and imports nothing instead', async () => {
    const { store, update, importCard, toasts } = duplicates([{ action: 'replace', all: false }]);
    update.mockRejectedValueOnce(hostError('validation.invalid_argument', 'image must be PNG, JPEG, WebP or GIF'));
    const result = await store.importFiles([newer]);
    expect(importCard).not.toHaveBeenCalled();
    expect(result.failed).toEqual([{ fileName: 'Kestrel v2.json', code: 'validation.invalid_argument', message: 'image must be PNG, JPEG, WebP or GIF' }]);
    expect(get(toasts)).toMatchObject([{ kind: 'error', message: 'Could not import Kestrel v2.json: image must be PNG, JPEG, WebP or GIF' }]);
  });
});
