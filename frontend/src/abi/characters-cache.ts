// The character list getContext() exposes (SillyTavern's `characters`,
// which characterId indexes): full cards, loaded during ready and kept live
// from CHARACTER_* events.
import { T } from './event-types';
import type { Call } from './host';
import { deepFreeze } from './readonly';
import type { HostEvent } from './transport';
import type { Character, CharacterSummary } from './types';

/** How many characters.get calls run at once while loading the list. */
const CONCURRENCY = 8;

/** CharactersCache holds the full cards, in characters.list order plus later additions. */
export interface CharactersCache {
  /** load (re)reads every card; events that arrive meanwhile trigger one more pass. */
  load(): Promise<void>;
  list(): readonly Character[];
  ingest(event: HostEvent): void;
}

function isCard(v: unknown): v is Character {
  return typeof v === 'object' && v !== null && typeof (v as { avatar?: unknown }).avatar === 'string';
}

/** createCharactersCache returns an empty cache; call load() to fill it. */
export function createCharactersCache(call: Call): CharactersCache {
  let cards: readonly Character[] = Object.freeze([]);
  let loading: Promise<void> | null = null;
  let changedWhileLoading = false;

  async function readAll(): Promise<Character[]> {
    const summaries = (await call('characters.list')) as CharacterSummary[];
    const out: (Character | null)[] = new Array<Character | null>(summaries.length).fill(null);
    let next = 0;
    const worker = async () => {
      while (next < summaries.length) {
        const i = next++;
        const avatar = summaries[i]!.avatar;
        try {
          const card = await call('characters.get', avatar);
          if (isCard(card)) out[i] = deepFreeze(card);
        } catch (err) {
          // Deleted between list and get: its CHARACTER_DELETED follows.
          // Anything else is one unreadable card, which must not keep the
          // window (and every other card) from starting: it is left out of
          // getContext().characters and reported.
          if ((err as { code?: unknown }).code !== 'character.not_found') {
            console.warn(`Hearth: could not read the character ${JSON.stringify(avatar)}; it is left out of getContext().characters`, err);
          }
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(CONCURRENCY, summaries.length) }, worker));
    return out.filter((c): c is Character => c !== null);
  }

  async function loadLoop(): Promise<void> {
    for (let pass = 0; pass < 3; pass++) {
      changedWhileLoading = false;
      const next = await readAll();
      cards = Object.freeze(next);
      if (!changedWhileLoading) return;
    }
  }

  function set(next: Character[]): void {
    cards = Object.freeze(next);
  }

  return {
    load() {
      loading ??= loadLoop().finally(() => (loading = null));
      return loading;
    },
    list: () => cards,
    ingest(ev) {
      const p = ev.payload;
      if (ev.type !== T.CHARACTER_CREATED && ev.type !== T.CHARACTER_EDITED && ev.type !== T.CHARACTER_DELETED) return;
      if (loading) changedWhileLoading = true;
      const avatar = p.avatar;
      if (typeof avatar !== 'string') return;
      const i = cards.findIndex((c) => c.avatar === avatar);
      if (ev.type === T.CHARACTER_DELETED) {
        if (i >= 0) set(cards.filter((_, j) => j !== i));
        return;
      }
      if (!isCard(p.character)) return;
      const card = deepFreeze(p.character);
      if (i >= 0) set(cards.map((c, j) => (j === i ? card : c)));
      else set([...cards, card]);
    },
  };
}
