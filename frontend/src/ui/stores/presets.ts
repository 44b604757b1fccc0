// Generation presets for the presets dialog: the list, which one is in
// use, and the calls behind its buttons. Failures become toasts; the
// calls resolve null/false then. Once started, the active preset follows
// OAI_PRESET_CHANGED_AFTER, so another window's choice shows here too.
import { get, writable, type Readable } from 'svelte/store';
import type { HearthAbi, Preset, PresetExport, PresetImportResult, PresetInput, PresetSummary } from '../../abi/types';
import { eventType } from '../lib/events';
import { createListStore } from './list-store';
import type { ToastStore } from './toasts';

/** DEFAULT_PRESET is the built-in preset's id; it is always listed first. */
export const DEFAULT_PRESET = 'default';

export interface PresetStore {
  list: Readable<PresetSummary[]>;
  /** activeId is the id of the preset generation uses ('default' when none was chosen). */
  activeId: Readable<string>;
  loading: Readable<boolean>;
  /** load reads the list (which marks the active preset). */
  load(): Promise<void>;
  get(id: string): Promise<Preset | null>;
  /** save creates (no id) or replaces a preset; null when it failed (a toast says why). */
  save(input: PresetInput): Promise<Preset | null>;
  remove(id: string): Promise<boolean>;
  /** select makes id the preset in use. */
  select(id: string): Promise<boolean>;
  /** importFile stores a SillyTavern preset file's text as a new preset. */
  importFile(fileName: string, text: string): Promise<PresetImportResult | null>;
  exportPreset(id: string): Promise<PresetExport | null>;
  /** savePreset writes the preset file through the desktop's Save dialog: the path, or null when cancelled or failed (toasted). */
  savePreset(id: string): Promise<string | null>;
  /** start follows preset events; returns the unsubscribe. */
  start(): () => void;
}

/** sortSummaries keeps the built-in preset first, the rest by name. */
export function sortSummaries(list: PresetSummary[]): PresetSummary[] {
  return [...list].sort((a, b) => {
    if (a.builtin !== b.builtin) return a.builtin ? -1 : 1;
    return a.name.localeCompare(b.name, undefined, { sensitivity: 'base' }) || a.createdAt - b.createdAt;
  });
}

function summaryOf(p: Preset, active: boolean, old?: PresetSummary): PresetSummary {
  const now = Date.now();
  return { id: p.id, name: p.name, builtin: p.id === DEFAULT_PRESET, active, createdAt: old?.createdAt ?? now, updatedAt: now };
}

export function createPresetStore(hearth: HearthAbi, toasts: ToastStore): PresetStore {
  const activeId = writable<string>(DEFAULT_PRESET);
  const api = hearth.api.presets;
  let active = DEFAULT_PRESET;
  const store = createListStore<PresetSummary>({
    toasts,
    keyOf: (s) => s.id,
    sort: sortSummaries,
    readFailure: 'Could not load the presets',
    async read() {
      const all = await api.list();
      active = all.find((s) => s.active)?.id ?? DEFAULT_PRESET;
      activeId.set(active);
      return sortSummaries(all).map((s) => (s.active === (s.id === active) ? s : { ...s, active: s.id === active }));
    },
  });
  const { list } = store;

  function setActive(id: string): void {
    active = id;
    activeId.set(id);
    list.update((all) => all.map((s) => (s.active === (s.id === id) ? s : { ...s, active: s.id === id })));
  }

  return {
    list,
    activeId,
    loading: store.loading,
    load: store.load,
    get: (id) => store.attempt('Could not read the preset', () => api.get(id)),
    save: (input) =>
      store.attempt('Could not save the preset', async () => {
        const saved = await api.save(input);
        store.put(summaryOf(saved, saved.id === active, get(list).find((s) => s.id === saved.id)));
        return saved;
      }),
    remove: (id) =>
      store.succeeds('Could not delete the preset', async () => {
        await api.delete(id);
        store.drop(id);
        if (active === id) setActive(DEFAULT_PRESET);
      }),
    select: (id) =>
      store.succeeds('Could not switch the preset', async () => {
        const p = await api.select(id);
        setActive(p.id);
      }),
    importFile: (fileName, text) =>
      store.attempt(`Could not import ${fileName}`, async () => {
        const res = await api.import({ fileName, json: text });
        store.put(summaryOf(res.preset, false));
        return res;
      }),
    savePreset: async (id) => {
      const r = await store.attempt('Could not export the preset', () => api.saveFile(id));
      return r?.saved ? r.path : null;
    },
    exportPreset: (id) => store.attempt('Could not export the preset', () => api.export(id)),
    start() {
      const type = eventType(hearth, 'OAI_PRESET_CHANGED_AFTER');
      return hearth.api.events.on(type, (payload) => {
        if (typeof payload.presetId === 'string') setActive(payload.presetId);
      });
    },
  };
}
