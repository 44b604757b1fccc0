// The character list and the selected character.
import { derived, get, writable, type Readable } from 'svelte/store';
import type { Character, CharacterSummary, HearthAbi } from '../../abi/types';
import { listen } from '../lib/events';
import type { ToastStore } from './toasts';

export interface NewCharacter {
  name: string;
  description: string;
  first_mes: string;
  tags: string[];
  /** image is a data: URL (or base64) of the avatar picture. */
  image: string | null;
}

export interface CharacterStore {
  list: Readable<CharacterSummary[]>;
  loading: Readable<boolean>;
  /** selected is the avatar key of the chosen character. */
  selected: Readable<string | null>;
  selectedCharacter: Readable<CharacterSummary | null>;
  /** revision bumps when a character's image may have changed (cache busting). */
  imageRevision: Readable<number>;
  refresh(): Promise<void>;
  /** select chooses a character; automatic marks a choice the UI made on its own, not the user. */
  select(avatar: string | null, options?: { automatic?: boolean }): void;
  /**
   * selectedAutomatically reports whether the current selection was made by
   * the UI on its own (remembered from last time, the first character, or
   * following a chat a script opened) rather than by the user.
   */
  selectedAutomatically(): boolean;
  create(input: NewCharacter): Promise<Character | null>;
  /** start subscribes to character events; returns the unsubscribe. */
  start(): () => void;
}

const SELECTED_KEY = 'hearth.selectedCharacter';

function remembered(): string | null {
  try {
    return globalThis.localStorage?.getItem(SELECTED_KEY) ?? null;
  } catch {
    return null;
  }
}

function remember(avatar: string | null): void {
  try {
    if (avatar) globalThis.localStorage?.setItem(SELECTED_KEY, avatar);
    else globalThis.localStorage?.removeItem(SELECTED_KEY);
  } catch {
    // Not remembered; harmless.
  }
}

export function createCharacterStore(hearth: HearthAbi, toasts: ToastStore): CharacterStore {
  const list = writable<CharacterSummary[]>([]);
  const loading = writable(false);
  const selected = writable<string | null>(remembered());
  const imageRevision = writable(0);
  let seq = 0;
  let automatic = true;

  async function refresh(): Promise<void> {
    const mine = ++seq;
    loading.set(true);
    try {
      const chars = await hearth.api.characters.list();
      if (mine !== seq) return;
      chars.sort((a, b) => (b.lastChatAt ?? b.createdAt) - (a.lastChatAt ?? a.createdAt) || a.name.localeCompare(b.name));
      list.set(chars);
      const sel = get(selected);
      if (sel && !chars.some((c) => c.avatar === sel)) select(null, { automatic: true });
      if (!get(selected) && chars[0]) select(chars[0].avatar, { automatic: true });
    } catch (err) {
      toasts.error(err, 'Could not load characters');
    } finally {
      if (mine === seq) loading.set(false);
    }
  }

  function select(avatar: string | null, options: { automatic?: boolean } = {}): void {
    automatic = options.automatic === true;
    selected.set(avatar);
    remember(avatar);
  }

  async function create(input: NewCharacter): Promise<Character | null> {
    try {
      const fields = {
        name: input.name.trim(),
        description: input.description,
        first_mes: input.first_mes,
        tags: input.tags,
      };
      const card = await hearth.api.characters.create(fields, input.image ? { image: input.image } : {});
      await refresh();
      select(card.avatar);
      return card;
    } catch (err) {
      toasts.error(err, 'Could not create the character');
      return null;
    }
  }

  let timer: ReturnType<typeof setTimeout> | null = null;
  function refreshSoon(): void {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = null;
      void refresh();
    }, 150);
  }

  return {
    list,
    loading,
    selected,
    selectedCharacter: derived([list, selected], ([$list, $sel]) => $list.find((c) => c.avatar === $sel) ?? null),
    imageRevision,
    refresh,
    select,
    selectedAutomatically: () => automatic,
    create,
    start() {
      void refresh();
      // Chat events move lastChatAt/chatCount, which order the list.
      const off = listen(hearth, ['CHARACTER_CREATED', 'CHARACTER_EDITED', 'CHARACTER_DELETED', 'CHAT_CREATED', 'CHAT_DELETED'], (_p, name) => {
        if (name === 'CHARACTER_EDITED') imageRevision.update((n) => n + 1);
        refreshSoon();
      });
      return () => {
        off();
        if (timer) clearTimeout(timer);
      };
    },
  };
}

/** matchesQuery filters characters by name or tag, case- and accent-insensitively. */
export function matchesQuery(c: Pick<CharacterSummary, 'name' | 'tags'>, query: string): boolean {
  const norm = (s: string) => s.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();
  const words = norm(query).split(/\s+/).filter(Boolean);
  if (words.length === 0) return true;
  const hay = [c.name, ...(c.tags ?? [])].map(norm);
  return words.every((w) => hay.some((h) => h.includes(w)));
}
