// Personas for the persona manager and for who "you" are in the open
// chat: the list with the active and default ones, the open chat's lock,
// and the calls behind the dialog's buttons. Failures become toasts; the
// calls resolve null/false then. PERSONA_CHANGED (another window, a
// script) re-reads the list; a lock follows the open chat's metadata.
import { derived, writable, type Readable } from 'svelte/store';
import type { HearthAbi, Persona, PersonaInput } from '../../abi/types';
import { eventType } from '../lib/events';
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
  const list = writable<Persona[]>([]);
  const activeId = writable<string | null>(null);
  const defaultId = writable<string | null>(null);
  const lockValue = writable<unknown>(undefined);
  const chatId = writable<string | null>(null);
  const loading = writable(false);
  const api = hearth.api.personas;

  const lockedId = derived([list, lockValue], ([$list, $lock]) => (typeof $lock === 'string' && $list.some((p) => p.id === $lock) ? $lock : null));
  const current = derived([list, activeId, defaultId, lockedId], ([$list, $active, $default, $locked]) => {
    const find = (id: string | null) => (id === null ? undefined : $list.find((p) => p.id === id));
    return find($locked) ?? find($active) ?? find($default) ?? null;
  });

  function apply(all: Persona[]): void {
    list.set(sortPersonas(all));
    activeId.set(all.find((p) => p.isActive)?.id ?? null);
    defaultId.set(all.find((p) => p.isDefault)?.id ?? null);
  }

  async function load(): Promise<void> {
    loading.set(true);
    try {
      apply(await api.list());
    } catch (err) {
      toasts.error(err, 'Could not load the personas');
    } finally {
      loading.set(false);
    }
  }

  /** readLock reads the open chat and its lock from the ABI. */
  function readLock(): void {
    chatId.set(hearth.api.chat.current()?.chatId ?? null);
    lockValue.set(hearth.getContext().chatMetadata?.persona);
  }

  async function attempt(what: string, fn: () => Promise<unknown>): Promise<boolean> {
    try {
      await fn();
      return true;
    } catch (err) {
      toasts.error(err, what);
      return false;
    }
  }

  return {
    list,
    activeId,
    defaultId,
    chatId,
    lockedId,
    current,
    loading,
    load,
    async save(input) {
      try {
        const saved = await api.save(input);
        list.update((all) => sortPersonas([...all.filter((p) => p.id !== saved.id), saved]));
        return saved;
      } catch (err) {
        toasts.error(err, 'Could not save the persona');
        return null;
      }
    },
    async remove(id) {
      const ok = await attempt('Could not delete the persona', () => api.delete(id));
      if (ok) {
        list.update((all) => all.filter((p) => p.id !== id));
        activeId.update((cur) => (cur === id ? null : cur));
        defaultId.update((cur) => (cur === id ? null : cur));
        readLock();
      }
      return ok;
    },
    async setActive(id) {
      const ok = await attempt('Could not switch the persona', () => api.setActive(id));
      if (ok) activeId.set(id);
      return ok;
    },
    async setDefault(id) {
      const ok = await attempt('Could not set the default persona', () => api.setDefault(id));
      if (ok) defaultId.set(id);
      return ok;
    },
    async lock(chatId, id) {
      const ok = await attempt(id === null ? 'Could not unlock the chat' : 'Could not lock the persona to this chat', () => api.lockToChat(chatId, id));
      if (ok) readLock();
      return ok;
    },
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
