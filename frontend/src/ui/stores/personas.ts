// Personas for the persona manager and for who "you" are in the open
// chat: the list with the active and default ones, the open chat's lock,
// and the calls behind the dialog's buttons. Failures become toasts; the
// calls resolve null/false then. PERSONA_CHANGED (another window, a
// script) re-reads the list; a lock follows the open chat's metadata.
import { derived, writable, type Readable } from 'svelte/store';
import type { HearthAbi, Persona, PersonaInput } from '../../abi/types';
import { eventType } from '../lib/events';
import { createListStore } from './list-store';
import type { ToastStore } from './toasts';

export interface PersonaStore {
  /** list is every persona, by name. */
  list: Readable<Persona[]>;
  activeId: Readable<string | null>;
  defaultId: Readable<string | null>;
  /** chatId is the chat open in this window (what "lock to this chat" locks), or null. */
  chatId: Readable<string | null>;
  /** lockedId is the persona the open chat is locked to (null: none, or one that does not exist). */
  lockedId: Readable<string | null>;
  /** current is the persona in effect in the open chat: its lock, else the active one, else the default. */
  current: Readable<Persona | null>;
  loading: Readable<boolean>;
  load(): Promise<void>;
  /** save creates or updates a persona; null when it failed (a toast says why). */
  save(input: PersonaInput): Promise<Persona | null>;
  remove(id: string): Promise<boolean>;
  setActive(id: string | null): Promise<boolean>;
  setDefault(id: string | null): Promise<boolean>;
  /** lock locks the chat to a persona, or unlocks it with null. */
  lock(chatId: string, id: string | null): Promise<boolean>;
  /** start follows persona and chat events; returns the unsubscribe. */
  start(): () => void;
}

/** sortPersonas orders personas by name, as personas.list does. */
export function sortPersonas(list: Persona[]): Persona[] {
  return [...list].sort((a, b) => a.name.localeCompare(b.name, undefined, { sensitivity: 'base' }) || a.createdAt - b.createdAt);
}

export function createPersonaStore(hearth: HearthAbi, toasts: ToastStore): PersonaStore {
  const activeId = writable<string | null>(null);
  const defaultId = writable<string | null>(null);
  const lockValue = writable<unknown>(undefined);
  const chatId = writable<string | null>(null);
  const api = hearth.api.personas;
  const store = createListStore<Persona>({
    toasts,
    keyOf: (p) => p.id,
    sort: sortPersonas,
    readFailure: 'Could not load the personas',
    async read() {
      const all = await api.list();
      activeId.set(all.find((p) => p.isActive)?.id ?? null);
      defaultId.set(all.find((p) => p.isDefault)?.id ?? null);
      return sortPersonas(all);
    },
  });
  const { list, load } = store;

  const lockedId = derived([list, lockValue], ([$list, $lock]) => (typeof $lock === 'string' && $list.some((p) => p.id === $lock) ? $lock : null));
  const current = derived([list, activeId, defaultId, lockedId], ([$list, $active, $default, $locked]) => {
    const find = (id: string | null) => (id === null ? undefined : $list.find((p) => p.id === id));
    return find($locked) ?? find($active) ?? find($default) ?? null;
  });

  /** readLock reads the open chat and its lock from the ABI. */
  function readLock(): void {
    chatId.set(hearth.api.chat.current()?.chatId ?? null);
    lockValue.set(hearth.getContext().chatMetadata?.persona);
  }

  return {
    list,
    activeId,
    defaultId,
    chatId,
    lockedId,
    current,
    loading: store.loading,
    load,
    save: (input) =>
      store.attempt('Could not save the persona', async () => {
        const saved = await api.save(input);
        store.put(saved);
        return saved;
      }),
    remove: (id) =>
      store.succeeds('Could not delete the persona', async () => {
        await api.delete(id);
        store.drop(id);
        activeId.update((cur) => (cur === id ? null : cur));
        defaultId.update((cur) => (cur === id ? null : cur));
        readLock();
      }),
    setActive: (id) =>
      store.succeeds('Could not switch the persona', async () => {
        await api.setActive(id);
        activeId.set(id);
      }),
    setDefault: (id) =>
      store.succeeds('Could not set the default persona', async () => {
        await api.setDefault(id);
        defaultId.set(id);
      }),
    lock: (chatId, id) =>
      store.succeeds(id === null ? 'Could not unlock the chat' : 'Could not lock the persona to this chat', async () => {
        await api.lockToChat(chatId, id);
        readLock();
      }),
    start() {
      void load();
      readLock();
      const offs = [
        hearth.api.events.on(eventType(hearth, 'PERSONA_CHANGED'), () => void load()),
        hearth.api.events.on(eventType(hearth, 'CHAT_CHANGED'), readLock),
        hearth.api.events.on(eventType(hearth, 'CHAT_METADATA_UPDATED'), (p) => {
          if (p.chatId !== hearth.api.chat.current()?.chatId) return;
          // The payload carries the whole new metadata; the context may still be catching up.
          const meta = p.metadata;
          if (typeof meta === 'object' && meta !== null) lockValue.set((meta as Record<string, unknown>).persona);
          else readLock();
        }),
      ];
      return () => offs.forEach((off) => off());
    },
  };
}
