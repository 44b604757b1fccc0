// Generation presets for the presets dialog: the list, which one is in
// use, and the calls behind its buttons. Failures become toasts; the
// calls resolve null/false then. Once started, the active preset follows
// OAI_PRESET_CHANGED_AFTER, so another window's choice shows here too.
import { writable, type Readable } from 'svelte/store';
import type { HearthAbi, Preset, PresetExport, PresetImportResult, PresetInput, PresetSummary } from '../../abi/types';
import { eventType } from '../lib/events';
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
  const list = writable<PresetSummary[]>([]);
  const activeId = writable<string>(DEFAULT_PRESET);
  const loading = writable(false);
  const api = hearth.api.presets;
  let active = DEFAULT_PRESET;

  function setActive(id: string): void {
    active = id;
    activeId.set(id);
    list.update((all) => all.map((s) => (s.active === (s.id === id) ? s : { ...s, active: s.id === id })));
  }

  async function load(): Promise<void> {
    loading.set(true);
    try {
      const all = await api.list();
      list.set(sortSummaries(all));
      setActive(all.find((s) => s.active)?.id ?? DEFAULT_PRESET);
    } catch (err) {
      toasts.error(err, 'Could not load the presets');
    } finally {
      loading.set(false);
    }
  }

  return {
    list,
    activeId,
    loading,
    load,
    async get(id) {
      try {
        return await api.get(id);
      } catch (err) {
        toasts.error(err, 'Could not read the preset');
        return null;
      }
    },
    async save(input) {
      try {
        const saved = await api.save(input);
        list.update((all) => {
          const old = all.find((s) => s.id === saved.id);
          return sortSummaries([...all.filter((s) => s.id !== saved.id), summaryOf(saved, saved.id === active, old)]);
        });
        return saved;
      } catch (err) {
        toasts.error(err, 'Could not save the preset');
        return null;
      }
    },
    async remove(id) {
      try {
        await api.delete(id);
        list.update((all) => all.filter((s) => s.id !== id));
        if (active === id) setActive(DEFAULT_PRESET);
        return true;
      } catch (err) {
        toasts.error(err, 'Could not delete the preset');
        return false;
      }
    },
    async select(id) {
      try {
        const p = await api.select(id);
        setActive(p.id);
        return true;
      } catch (err) {
        toasts.error(err, 'Could not switch the preset');
        return false;
      }
    },
    async importFile(fileName, text) {
      try {
        const res = await api.import({ fileName, json: text });
        list.update((all) => sortSummaries([...all, summaryOf(res.preset, false)]));
        return res;
      } catch (err) {
        toasts.error(err, `Could not import ${fileName}`);
        return null;
      }
    },
    async savePreset(id) {
      try {
        const r = await api.saveFile(id);
        return r.saved ? r.path : null;
      } catch (err) {
        toasts.error(err, 'Could not export the preset');
        return null;
      }
    },
    async exportPreset(id) {
      try {
        return await api.export(id);
      } catch (err) {
        toasts.error(err, 'Could not export the preset');
        return null;
      }
    },
    start() {
      const type = eventType(hearth, 'OAI_PRESET_CHANGED_AFTER');
      return hearth.api.events.on(type, (payload) => {
        if (typeof payload.presetId === 'string') setActive(payload.presetId);
      });
    },
  };
}
