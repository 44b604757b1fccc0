import { get } from 'svelte/store';
import { describe, expect, it, vi } from 'vitest';
import type { HearthAbi } from '../../abi/types';
import type { ImportedCard } from '../lib/cardfile';
import { createCardImport, type ImportProgress } from './card-import';
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
    await expect(store.importFiles([])).resolves.toEqual({ imported: [], failed: [] });
    expect(importCard).not.toHaveBeenCalled();
    const done = store.importFiles([file('bad.png')]);
    await release('bad.png');
    await done;
    expect(characters.refresh).not.toHaveBeenCalled();
    expect(get(toasts)).toMatchObject([{ kind: 'error', message: 'Could not import bad.png: not a card', code: 'card.invalid' }]);
  });
});
