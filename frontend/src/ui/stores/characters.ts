// The character list and the selection: a character or a group, whose
// chats the chat list shows. The selection is remembered across reloads
// (a character by its avatar key, a group by its id).
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

/** Selection is what the character list has chosen: a character, a group, or nothing. */
export type Selection = { kind: 'character'; avatar: string } | { kind: 'group'; id: string } | null;

export interface CharacterStore {
  list: Readable<CharacterSummary[]>;
  loading: Readable<boolean>;
  /** loaded resolves once a read of the list has ended, shown or failed (the page tier waits for the UI). */
  loaded: Promise<void>;
  /** selection is the chosen character or group. */
  selection: Readable<Selection>;
  /** selected is the avatar key of the chosen character (null when a group, or nothing, is chosen). */
  selected: Readable<string | null>;
  /** selectedGroupId is the id of the chosen group (null when a character, or nothing, is chosen). */
  selectedGroupId: Readable<string | null>;
  selectedCharacter: Readable<CharacterSummary | null>;
  /** revision bumps when a character's image may have changed (cache busting). */
  imageRevision: Readable<number>;
  refresh(): Promise<void>;
  /** select chooses a character; automatic marks a choice the UI made on its own, not the user. */
  select(avatar: string | null, options?: { automatic?: boolean }): void;
  /** selectGroup chooses a group, as select does a character. */
  selectGroup(id: string, options?: { automatic?: boolean }): void;
  /** forgetGroup moves a selection of a group that is gone to the first character (automatically). */
  forgetGroup(id: string): void;
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
const SELECTED_GROUP_KEY = 'hearth.selectedGroup';

/** remembered reads the last selection: a group's id, else a character's avatar key (one of the two is kept). */
function remembered(): Selection {
  try {
    const group = globalThis.localStorage?.getItem(SELECTED_GROUP_KEY);
    if (group) return { kind: 'group', id: group };
    const avatar = globalThis.localStorage?.getItem(SELECTED_KEY);
    return avatar ? { kind: 'character', avatar } : null;
  } catch {
    return null;
  }
}

function remember(sel: Selection): void {
  try {
    const storage = globalThis.localStorage;
    if (!storage) return;
    if (sel?.kind === 'character') storage.setItem(SELECTED_KEY, sel.avatar);
    else storage.removeItem(SELECTED_KEY);
    if (sel?.kind === 'group') storage.setItem(SELECTED_GROUP_KEY, sel.id);
    else storage.removeItem(SELECTED_GROUP_KEY);
  } catch {
    // Not remembered; harmless.
  }
}

function sameSelection(a: Selection, b: Selection): boolean {
  if (a === null || b === null) return a === b;
  if (a.kind === 'character' && b.kind === 'character') return a.avatar === b.avatar;
  if (a.kind === 'group' && b.kind === 'group') return a.id === b.id;
  return false;
}

export function createCharacterStore(hearth: HearthAbi, toasts: ToastStore): CharacterStore {
  const list = writable<CharacterSummary[]>([]);
  const loading = writable(false);
  const selection = writable<Selection>(remembered());
  const selected = derived(selection, ($s) => ($s?.kind === 'character' ? $s.avatar : null));
  const selectedGroupId = derived(selection, ($s) => ($s?.kind === 'group' ? $s.id : null));
  const imageRevision = writable(0);
  let seq = 0;
  let automatic = true;
  let firstDone: () => void = () => {};
  const loaded = new Promise<void>((resolve) => (firstDone = resolve));

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
      if (!get(selection) && chars[0]) select(chars[0].avatar, { automatic: true });
    } catch (err) {
      toasts.error(err, 'Could not load characters');
    } finally {
      if (mine === seq) {
        loading.set(false);
        firstDone();
      }
    }
  }

  /** choose sets the selection; the same one again notifies no one (the chat list is not reloaded). */
  function choose(next: Selection, options: { automatic?: boolean }): void {
    automatic = options.automatic === true;
    if (!sameSelection(get(selection), next)) selection.set(next);
    remember(next);
  }

  function select(avatar: string | null, options: { automatic?: boolean } = {}): void {
    choose(avatar ? { kind: 'character', avatar } : null, options);
  }

  function forgetGroup(id: string): void {
    if (get(selectedGroupId) !== id) return;
    const first = get(list)[0];
    choose(first ? { kind: 'character', avatar: first.avatar } : null, { automatic: true });
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
    loaded,
    selection: { subscribe: selection.subscribe },
    selected,
    selectedGroupId,
    selectedCharacter: derived([list, selected], ([$list, $sel]) => $list.find((c) => c.avatar === $sel) ?? null),
    imageRevision,
    refresh,
    select,
    selectGroup: (id, options = {}) => choose({ kind: 'group', id }, options),
    forgetGroup,
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
