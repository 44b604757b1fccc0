// Lorebooks (World Info) for the lorebook screen: the library, the
// settings and global selection, and the calls behind its buttons. Most
// failures become toasts and the call resolves null/false; the calls whose
// errors belong next to a field (save, create, rename, saveSettings)
// resolve with the error instead. Once started, the list and settings
// follow WORLDINFO_* events, so other windows' and scripts' changes show.
import { get, writable, type Readable } from 'svelte/store';
import type { HearthAbi, WorldInfoActivation, WorldInfoBook } from '../../abi/types';
import type { ActivationLike, ChatLore } from '../lib/lorebook-activation';
import { chatTitle } from '../lib/chatname';
import { eventType } from '../lib/events';
import { createListStore } from './list-store';
import type { ToastStore } from './toasts';

/** BookSummary is one row of worldinfo.list. */
export interface BookSummary {
  name: string;
  entries: number;
  createdAt: number;
  updatedAt: number;
}

/** WorldInfoSettings are getSettings' answer: world_info_* values and the global selection. */
export type WorldInfoSettings = Record<string, unknown> & { globalSelect: string[] };

/** Outcome is a call whose error the caller shows itself (next to the field it names). */
export type Outcome = { ok: true } | { ok: false; error: unknown };

/** ChatInfo is the open chat as the lorebook screen shows it. */
export interface ChatInfo extends ChatLore {
  chatId: string;
  /** chatName is the chat's title as the chat list shows it (chatTitle), not its file name. */
  chatName: string;
}

/** BookChange is a WORLDINFO_UPDATED payload. */
export interface BookChange {
  name: string;
  oldName?: string | undefined;
  op: 'save' | 'delete' | 'rename' | string;
}

export interface LorebookStore {
  list: Readable<BookSummary[]>;
  settings: Readable<WorldInfoSettings | null>;
  loading: Readable<boolean>;
  /** lastScan is the newest WORLDINFO_SCAN_DONE seen: a real generation's activation. */
  lastScan: Readable<{ chatId: string; activation: WorldInfoActivation } | null>;
  /** lastChange is the newest WORLDINFO_UPDATED seen (a save, rename or delete made anywhere). */
  lastChange: Readable<BookChange | null>;
  /** load reads the list and the settings. */
  load(): Promise<void>;
  get(name: string): Promise<WorldInfoBook | null>;
  save(name: string, book: WorldInfoBook): Promise<Outcome>;
  /** create stores an empty book; a name in use is refused before the host is asked. */
  create(name: string): Promise<Outcome>;
  rename(from: string, to: string): Promise<Outcome>;
  remove(name: string): Promise<boolean>;
  /** importFile stores a SillyTavern world file; 'name_taken' when a book has its name and replace is not set. */
  importFile(fileName: string, text: string, replace?: boolean): Promise<{ name: string; entries: number } | 'name_taken' | null>;
  exportBook(name: string): Promise<{ fileName: string; text: string } | null>;
  /** saveBook writes the book file through the desktop's Save dialog: the path, or null when cancelled or failed (toasted). */
  saveBook(name: string): Promise<string | null>;
  /** setGlobal adds the book to the global selection or takes it out. */
  setGlobal(name: string, on: boolean): Promise<boolean>;
  saveSettings(patch: Record<string, unknown>): Promise<Outcome>;
  /** chatInfo reads what attaches books to the chat (null when it cannot be read; a toast says why). */
  chatInfo(chatId: string, avatar: string | null): Promise<ChatInfo | null>;
  bindToChat(chatId: string, name: string | null): Promise<boolean>;
  /** dryRun is the activation the chat's next generation would have. */
  dryRun(chatId: string): Promise<ActivationLike | null>;
  lastActivation(chatId: string): Promise<WorldInfoActivation | null>;
  /** start follows the WORLDINFO_* events; returns the unsubscribe. */
  start(): () => void;
}

/** sortBooks orders books by name, as the host lists them but any case. */
export function sortBooks(list: BookSummary[]): BookSummary[] {
  return [...list].sort((a, b) => a.name.localeCompare(b.name, undefined, { sensitivity: 'base', numeric: true }) || (a.name < b.name ? -1 : 1));
}

/** matchesBook says whether a book's name contains query (any case). */
export function matchesBook(b: Pick<BookSummary, 'name'>, query: string): boolean {
  const q = query.trim().toLowerCase();
  return !q || b.name.toLowerCase().includes(q);
}

function nameTaken(name: string): unknown {
  return { code: 'worldinfo.name_taken', message: `a lorebook named “${name}” exists already`, details: { field: 'name', name } };
}

function codeOf(err: unknown): string {
  return typeof err === 'object' && err !== null && typeof (err as { code?: unknown }).code === 'string' ? (err as { code: string }).code : '';
}

export function createLorebookStore(hearth: HearthAbi, toasts: ToastStore): LorebookStore {
  const api = hearth.api.worldinfo;
  const settings = writable<WorldInfoSettings | null>(null);
  const lastScan = writable<{ chatId: string; activation: WorldInfoActivation } | null>(null);
  const lastChange = writable<BookChange | null>(null);
  const store = createListStore<BookSummary>({
    toasts,
    keyOf: (b) => b.name,
    sort: sortBooks,
    readFailure: 'Could not list the lorebooks',
    read: async () => sortBooks(await api.list()),
  });
  const { list } = store;

  /** upsert puts a book's row in the list (a save or import seen here, before its event). */
  function upsert(name: string, entries: number): void {
    const now = Date.now();
    const old = get(list).find((b) => b.name === name);
    store.put({ name, entries, createdAt: old?.createdAt ?? now, updatedAt: now });
  }

  /** outcome runs a call whose error the caller shows itself. */
  async function outcome(call: () => Promise<unknown>): Promise<Outcome> {
    try {
      await call();
      return { ok: true };
    } catch (error) {
      return { ok: false, error };
    }
  }

  async function refreshSettings(): Promise<void> {
    const s = await store.attempt('Could not read the World Info settings', () => api.getSettings());
    if (s) settings.set(s);
  }

  return {
    list,
    settings,
    loading: store.loading,
    lastScan,
    lastChange,
    async load() {
      await store.whileLoading(Promise.all([store.refresh(), refreshSettings()]));
    },
    get: (name) => store.attempt(`Could not open “${name}”`, () => api.get(name)),
    save: (name, book) =>
      outcome(async () => {
        await api.save(name, book);
        upsert(name, Object.keys(book.entries).length);
      }),
    async create(name) {
      if (get(list).some((b) => b.name === name)) return { ok: false, error: nameTaken(name) };
      return outcome(async () => {
        await api.save(name, { entries: {} });
        upsert(name, 0);
      });
    },
    async rename(from, to) {
      if (from === to) return { ok: true };
      if (get(list).some((b) => b.name === to)) return { ok: false, error: nameTaken(to) };
      return outcome(async () => {
        await api.rename(from, to);
        list.update((all) => sortBooks(all.map((b) => (b.name === from ? { ...b, name: to } : b))));
        settings.update((s) => (s ? { ...s, globalSelect: s.globalSelect.map((n) => (n === from ? to : n)) } : s));
      });
    },
    remove: (name) =>
      store.succeeds(`Could not delete “${name}”`, async () => {
        await api.delete(name);
        store.drop(name);
      }),
    async importFile(fileName, text, replace = false) {
      try {
        const res = await api.importBook({ fileName, text, replace });
        upsert(res.name, res.entries);
        return res;
      } catch (err) {
        if (codeOf(err) === 'worldinfo.name_taken' && !replace) return 'name_taken';
        toasts.error(err, `Could not import ${fileName}`);
        return null;
      }
    },
    async saveBook(name) {
      const r = await store.attempt(`Could not export “${name}”`, () => api.saveBook(name));
      return r?.saved ? r.path : null;
    },
    exportBook: (name) => store.attempt(`Could not export “${name}”`, () => api.exportBook(name)),
    async setGlobal(name, on) {
      const cur = get(settings)?.globalSelect ?? [];
      const next = on ? [...cur.filter((n) => n !== name), name] : cur.filter((n) => n !== name);
      return store.succeeds('Could not change the global lorebooks', async () => settings.set(await api.saveSettings({ globalSelect: next })));
    },
    saveSettings: (patch) => outcome(async () => settings.set(await api.saveSettings(patch))),
    chatInfo: (chatId, avatar) =>
      store.attempt('Could not read the chat’s lorebooks', async () => {
        const [chat, character, persona] = await Promise.all([
          hearth.api.chat.get(chatId),
          avatar ? hearth.api.characters.get(avatar).catch(() => null) : Promise.resolve(null),
          hearth.api.personas.effective(chatId).catch(() => null),
        ]);
        const world = character?.extensions?.world;
        const bound = chat.metadata?.world_info;
        return {
          chatId,
          chatName: chatTitle(chat.fileName, character?.name),
          characterWorld: typeof world === 'string' ? world : '',
          chatWorld: typeof bound === 'string' ? bound : '',
          personaWorld: typeof persona?.lorebook === 'string' ? persona.lorebook : '',
          globalSelect: get(settings)?.globalSelect ?? [],
        };
      }),
    bindToChat: (chatId, name) =>
      store.succeeds(name ? `Could not bind “${name}” to the chat` : 'Could not unbind the chat’s lorebook', () => api.bindToChat(chatId, name)),
    dryRun: async (chatId) => (await store.attempt('Could not check what would activate', () => hearth.api.generate.dryRun({ chatId })))?.worldInfoActivation ?? null,
    lastActivation: (chatId) => store.attempt('Could not read the last activation', () => api.lastActivation(chatId)),
    start() {
      const stops = [
        hearth.api.events.on(eventType(hearth, 'WORLDINFO_UPDATED'), (p) => {
          if (typeof p.name === 'string') lastChange.set({ name: p.name, oldName: typeof p.oldName === 'string' ? p.oldName : undefined, op: String(p.op ?? '') });
          void store.refresh();
          if (p.op === 'rename') void refreshSettings();
        }),
        hearth.api.events.on(eventType(hearth, 'WORLDINFO_SETTINGS_UPDATED'), () => void refreshSettings()),
        hearth.api.events.on(eventType(hearth, 'WORLDINFO_SCAN_DONE'), (p) => {
          const act = p.activation as WorldInfoActivation | undefined;
          if (typeof p.chatId === 'string' && act && Array.isArray(act.entries)) lastScan.set({ chatId: p.chatId, activation: act });
        }),
      ];
      return () => stops.forEach((stop) => stop());
    },
  };
}
