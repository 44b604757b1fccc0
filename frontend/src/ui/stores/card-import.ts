// Importing character card files: one after another, with progress, then
// one toast saying what came of them all. Files picked or dropped while an
// import runs join it (and its count). A file that is a character Hearth
// already has (lib/card-duplicate's rule) is not added silently: the
// person is asked whether to replace that character's card in place (one
// characters.update, its chats kept), keep both, or skip the file, once
// per such file or once for all of them.
import { writable, type Readable } from 'svelte/store';
import type { CharacterSummary, HearthAbi } from '../../abi/types';
import { findDuplicate, replacementPatch, type Sameness } from '../lib/card-duplicate';
import { readCard } from '../lib/card-read';
import { emptyResult, failureOf, importCardBytes, readCardBytes, summarize, toBase64, type CardImportResult, type PickedCard } from '../lib/cardfile';
import type { CharacterStore } from './characters';
import type { ToastStore } from './toasts';

/** Which file of how many is being imported. */
export interface ImportProgress {
  /** index counts from 1: "Importing 3 of 12". */
  index: number;
  total: number;
  fileName: string;
}

/** What to do with a card file that matches a character: replace its card, import a second one, or skip the file. */
export type DuplicateAction = 'replace' | 'keep' | 'cancel';

/** The question asked about a card file that matches a character. */
export interface DuplicateQuestion {
  fileName: string;
  /** name is the card's name, as the file has it. */
  name: string;
  /** existing is the character it matches. */
  existing: CharacterSummary;
  /** same: which of description and first message the file shares with it. */
  same: Sameness;
  /** more counts the files still to import after this one, for which the answer could stand too. */
  more: number;
}

/** The answer: what to do, and whether to do the same for every later match of this import. */
export interface DuplicateAnswer {
  action: DuplicateAction;
  all: boolean;
}

export interface CardImportStore {
  /** progress is the import under way, or null. */
  progress: Readable<ImportProgress | null>;
  /**
   * importFiles imports card files and resolves, once every file queued
   * meanwhile is done too, with what they all came to. When exactly one
   * card made it in (imported or replaced), it is the selected character.
   */
  importFiles(files: PickedCard[]): Promise<CardImportResult>;
}

export interface CardImportDeps {
  hearth: HearthAbi;
  characters: CharacterStore;
  toasts: ToastStore;
  /** ask asks about a file that matches a character; without it every file is imported as a new character. */
  ask?: (question: DuplicateQuestion) => Promise<DuplicateAnswer>;
}

export function createCardImport(deps: CardImportDeps): CardImportStore {
  const { hearth, characters, toasts, ask } = deps;
  const progress = writable<ImportProgress | null>(null);
  const queue: PickedCard[] = [];
  let running: Promise<CardImportResult> | null = null;

  async function run(): Promise<CardImportResult> {
    const result = emptyResult();
    /** always is the answer given "for all" in this import. */
    let always: DuplicateAction | null = null;

    /** importOne imports, replaces or skips one file, recording which in result. */
    async function importOne(file: PickedCard): Promise<void> {
      const bytes = await readCardBytes(file);
      const card = ask ? await readCard(file.name, bytes) : null;
      const match = card ? await findDuplicate(hearth.api.characters, card.data) : null;
      if (card && match && ask) {
        let action = always;
        if (!action) {
          const answer = await ask({ fileName: file.name, name: String(card.data.name), existing: match.summary, same: match.same, more: queue.length });
          action = answer.action;
          if (answer.all) always = action;
        }
        if (action === 'cancel') {
          result.skipped.push({ fileName: file.name, name: String(card.data.name) });
          return;
        }
        if (action === 'replace') {
          const patch = replacementPatch(match.character, card.data, card.image ? toBase64(card.image) : null);
          result.replaced.push({ fileName: file.name, card: await hearth.api.characters.update(match.character.avatar, patch) });
          return;
        }
      }
      result.imported.push({ fileName: file.name, card: await importCardBytes(hearth.api.characters, file.name, bytes) });
    }

    let done = 0;
    for (let file = queue.shift(); file; file = queue.shift()) {
      done++;
      progress.set({ index: done, total: done + queue.length, fileName: file.name });
      try {
        await importOne(file);
      } catch (err) {
        result.failed.push(failureOf(file.name, err));
      }
    }
    // Files that come from here on start an import of their own.
    running = null;
    progress.set(null);
    const made = [...result.imported, ...result.replaced];
    if (made.length > 0) await characters.refresh();
    const only = made.length === 1 ? made[0] : undefined;
    if (only) characters.select(only.card.avatar);
    // One file the person chose to skip needs no word; anything more does.
    if (made.length + result.failed.length > 0 || result.skipped.length > 1) toasts.show(summarize(result));
    return result;
  }

  return {
    progress,
    importFiles(files) {
      if (files.length === 0 && !running) return Promise.resolve(emptyResult());
      queue.push(...files);
      running ??= run();
      return running;
    },
  };
}
