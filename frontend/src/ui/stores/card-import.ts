// Importing character card files: one after another, with progress, then
// one toast saying what came of them all. Files picked or dropped while an
// import runs join it (and its count).
import { writable, type Readable } from 'svelte/store';
import type { HearthAbi } from '../../abi/types';
import { failureOf, importCardFile, summarize, type CardImportResult, type PickedCard } from '../lib/cardfile';
import type { CharacterStore } from './characters';
import type { ToastStore } from './toasts';

/** Which file of how many is being imported. */
export interface ImportProgress {
  /** index counts from 1: "Importing 3 of 12". */
  index: number;
  total: number;
  fileName: string;
}

export interface CardImportStore {
  /** progress is the import under way, or null. */
  progress: Readable<ImportProgress | null>;
  /**
   * importFiles imports card files and resolves, once every file queued
   * meanwhile is done too, with what they all came to. When exactly one
   * card made it in, it is the selected character.
   */
  importFiles(files: PickedCard[]): Promise<CardImportResult>;
}

export function createCardImport(deps: { hearth: HearthAbi; characters: CharacterStore; toasts: ToastStore }): CardImportStore {
  const { hearth, characters, toasts } = deps;
  const progress = writable<ImportProgress | null>(null);
  const queue: PickedCard[] = [];
  let running: Promise<CardImportResult> | null = null;

  async function run(): Promise<CardImportResult> {
    const result: CardImportResult = { imported: [], failed: [] };
    let done = 0;
    for (let file = queue.shift(); file; file = queue.shift()) {
      done++;
      progress.set({ index: done, total: done + queue.length, fileName: file.name });
      try {
        result.imported.push({ fileName: file.name, card: await importCardFile(hearth.api.characters, file) });
      } catch (err) {
        result.failed.push(failureOf(file.name, err));
      }
    }
    // Files that come from here on start an import of their own.
    running = null;
    progress.set(null);
    if (result.imported.length > 0) await characters.refresh();
    const only = result.imported.length === 1 ? result.imported[0] : undefined;
    if (only) characters.select(only.card.avatar);
    toasts.show(summarize(result));
    return result;
  }

  return {
    progress,
    importFiles(files) {
      if (files.length === 0 && !running) return Promise.resolve({ imported: [], failed: [] });
      queue.push(...files);
      running ??= run();
      return running;
    },
  };
}
