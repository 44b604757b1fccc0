import { get } from 'svelte/store';
import { describe, expect, it, vi } from 'vitest';
import type { EventPayload, HearthAbi, Preset, PresetSummary } from '../../abi/types';
import { createPresetStore } from './presets';
import type { ToastStore } from './toasts';

function summary(id: string, name: string, active = false): PresetSummary {
  return { id, name, builtin: id === 'default', active, createdAt: 1, updatedAt: 1 };
}

function preset(id: string, name: string): Preset {
  return {
    id,
    name,
    sampling: { temperature: null, topP: null, topK: null, minP: null, frequencyPenalty: null, presencePenalty: null, repetitionPenalty: null, maxTokens: 512, stop: [], seed: null, reasoningEffort: '' },
    maxContext: 8192,
    prompts: [],
    mergeConsecutive: false,
    namesInHistory: false,
    continuePrefill: false,
    continueNudge: '',
    impersonationPrompt: '',
    newChatPrompt: '',
    exampleSeparator: '',
  };
}

function setup() {
  const handlers: Record<string, (p: EventPayload) => void> = {};
  const api = {
    list: vi.fn(async () => [summary('default', 'Default'), summary('z', 'zeta', true), summary('b', 'Beta')]),
    get: vi.fn(async (id: string) => preset(id, id)),
    save: vi.fn(async (input: { id?: string; name: string }) => preset(input.id ?? 'new', input.name)),
    delete: vi.fn(async () => {}),
    select: vi.fn(async (id: string | null) => preset(id ?? 'default', id ?? 'Default')),
    active: vi.fn(),
    import: vi.fn(async ({ fileName }: { fileName?: string }) => ({ preset: preset('imp', fileName ?? ''), warnings: ['w'] })),
    export: vi.fn(async (id: string) => ({ fileName: `${id}.json`, json: { temperature: 1 } })),
    saveFile: vi.fn(async (id: string): Promise<{ saved: boolean; path: string | null }> => ({ saved: true, path: `/home/u/${id}.json` })),
  };
  const events = {
    types: { OAI_PRESET_CHANGED_AFTER: 'oai_preset_changed_after' },
    on: vi.fn((type: string, h: (p: EventPayload) => void) => {
      handlers[type] = h;
      return () => delete handlers[type];
    }),
  };
  const toasts = { error: vi.fn(), info: vi.fn(), dismiss: vi.fn(), subscribe: vi.fn() } as unknown as ToastStore;
  const store = createPresetStore({ api: { presets: api, events } } as unknown as HearthAbi, toasts);
  return { api, toasts, store, handlers };
}

describe('preset store', () => {
  it('loads the list, built-in first, and the one in use', async () => {
    const { store } = setup();
    await store.load();
    expect(get(store.list).map((p) => p.id)).toEqual(['default', 'b', 'z']);
    expect(get(store.activeId)).toBe('z');
    expect(get(store.loading)).toBe(false);
  });

  it('puts a saved preset in name order, replacing its old entry', async () => {
    const { store } = setup();
    await store.load();
    await store.save({ name: 'alpha' });
    await store.save({ id: 'z', name: 'Aardvark' });
    expect(get(store.list).map((p) => p.name)).toEqual(['Default', 'Aardvark', 'alpha', 'Beta']);
    expect(get(store.list).find((p) => p.id === 'z')?.active).toBe(true);
  });

  it('falls back to the default when the one in use is deleted, and says why a call failed', async () => {
    const { store, api, toasts } = setup();
    await store.load();
    expect(await store.remove('z')).toBe(true);
    expect(get(store.activeId)).toBe('default');
    expect(get(store.list).find((p) => p.id === 'default')?.active).toBe(true);

    api.delete.mockRejectedValueOnce({ code: 'preset.builtin', message: 'the built-in preset "default" cannot be deleted' });
    expect(await store.remove('default')).toBe(false);
    expect(get(store.list).map((p) => p.id)).toEqual(['default', 'b']);
    expect(toasts.error).toHaveBeenCalledWith(expect.objectContaining({ code: 'preset.builtin' }), 'Could not delete the preset');

    api.save.mockRejectedValueOnce({ code: 'validation.invalid_argument', message: 'name must be 1 to 200 characters' });
    expect(await store.save({ name: '' })).toBeNull();
    api.import.mockRejectedValueOnce({ code: 'validation.invalid_argument', message: 'the file is not valid JSON' });
    expect(await store.importFile('bad.json', '{')).toBeNull();
    expect(toasts.error).toHaveBeenLastCalledWith(expect.objectContaining({ message: 'the file is not valid JSON' }), 'Could not import bad.json');
  });

  it('selects, imports, exports, and follows another window’s choice', async () => {
    const { store, api, handlers } = setup();
    const stop = store.start();
    await store.load();
    expect(await store.select('b')).toBe(true);
    expect(get(store.activeId)).toBe('b');
    const res = await store.importFile('RP.json', '{"temperature": 1}');
    expect(api.import).toHaveBeenCalledWith({ fileName: 'RP.json', json: '{"temperature": 1}' });
    expect(res?.warnings).toEqual(['w']);
    expect(get(store.list).map((p) => p.id)).toContain('imp');
    expect(await store.exportPreset('b')).toEqual({ fileName: 'b.json', json: { temperature: 1 } });
    expect(await store.savePreset('b')).toBe('/home/u/b.json');
    api.saveFile.mockResolvedValueOnce({ saved: false, path: null });
    expect(await store.savePreset('b')).toBeNull();

    handlers.oai_preset_changed_after?.({ presetId: 'imp' });
    expect(get(store.activeId)).toBe('imp');
    expect(get(store.list).filter((p) => p.active).map((p) => p.id)).toEqual(['imp']);
    stop();
    expect(handlers.oai_preset_changed_after).toBeUndefined();
  });
});
