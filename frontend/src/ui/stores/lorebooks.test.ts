import { get } from 'svelte/store';
import { describe, expect, it, vi } from 'vitest';
import type { EventPayload, HearthAbi } from '../../abi/types';
import { createLorebookStore, matchesBook, sortBooks } from './lorebooks';
import type { ToastStore } from './toasts';

function row(name: string, entries = 1) {
  return { name, entries, createdAt: 1, updatedAt: 1 };
}

function setup() {
  const handlers: Record<string, (p: EventPayload) => void> = {};
  let globalSelect = ['Common'];
  const worldinfo = {
    list: vi.fn(async () => [row('eldoria', 3), row('Common', 2)]),
    get: vi.fn(async () => ({ entries: {} })),
    save: vi.fn(async () => {}),
    delete: vi.fn(async () => {}),
    rename: vi.fn(async () => {}),
    importBook: vi.fn(async ({ fileName }: { fileName: string }) => ({ name: fileName.replace(/\.json$/, ''), entries: 4 })),
    exportBook: vi.fn(async (name: string) => ({ fileName: `${name}.json`, text: '{"entries":{}}' })),
    saveBook: vi.fn(async (name: string): Promise<{ saved: boolean; path: string | null }> => ({ saved: true, path: `/home/u/${name}.json` })),
    bindToChat: vi.fn(async (chatId: string) => ({ chatId, revision: 2 })),
    lastActivation: vi.fn(async () => null),
    getSettings: vi.fn(async () => ({ world_info_depth: 2, globalSelect })),
    saveSettings: vi.fn(async (patch: Record<string, unknown>) => {
      if (Array.isArray(patch.globalSelect)) globalSelect = patch.globalSelect as string[];
      return { world_info_depth: 2, ...patch, globalSelect };
    }),
  };
  const events = {
    types: { WORLDINFO_UPDATED: 'worldinfo_updated', WORLDINFO_SETTINGS_UPDATED: 'worldinfo_settings_updated', WORLDINFO_SCAN_DONE: 'worldinfo_scan_done' },
    on: vi.fn((type: string, h: (p: EventPayload) => void) => {
      handlers[type] = h;
      return () => delete handlers[type];
    }),
  };
  const act = { timestampMs: 5, trigger: 'normal', entries: [{ world: 'eldoria', uid: 1, displayName: 'Gate', constant: false, content: 'x', position: 'before' }] };
  const api = {
    worldinfo,
    events,
    chat: { get: vi.fn(async (chatId: string) => ({ chatId, fileName: 'Ann - 1', metadata: { world_info: 'eldoria' } })) },
    characters: { get: vi.fn(async () => ({ extensions: { world: 'Common' } })) },
    personas: { effective: vi.fn(async () => ({ lorebook: 'Mine' })) },
    generate: { dryRun: vi.fn(async () => ({ worldInfoActivation: act })) },
  };
  const toasts = { error: vi.fn(), info: vi.fn(), dismiss: vi.fn(), subscribe: vi.fn() } as unknown as ToastStore;
  const store = createLorebookStore({ api } as unknown as HearthAbi, toasts);
  return { api, worldinfo, toasts, store, handlers, act };
}

describe('lorebook helpers', () => {
  it('sorts by name in any case and matches a search', () => {
    expect(sortBooks([row('b'), row('A'), row('a')]).map((b) => b.name)).toEqual(['A', 'a', 'b']);
    expect(matchesBook({ name: 'Eldoria' }, 'DOR')).toBe(true);
    expect(matchesBook({ name: 'Eldoria' }, 'x')).toBe(false);
  });
});

describe('lorebook store', () => {
  it('exports through the desktop Save dialog, telling a cancel from a failure', async () => {
    const { store, worldinfo, toasts } = setup();
    expect(await store.saveBook('eldoria')).toBe('/home/u/eldoria.json');
    worldinfo.saveBook.mockResolvedValueOnce({ saved: false, path: null });
    expect(await store.saveBook('eldoria')).toBeNull();
    expect(toasts.error).not.toHaveBeenCalled();
    worldinfo.saveBook.mockRejectedValueOnce({ code: 'desktop.dialog_open', message: 'a Save dialog is already open' });
    expect(await store.saveBook('eldoria')).toBeNull();
    expect(toasts.error).toHaveBeenCalledWith(expect.objectContaining({ code: 'desktop.dialog_open' }), 'Could not export “eldoria”');
  });

  it('loads the library and the settings', async () => {
    const { store } = setup();
    await store.load();
    expect(get(store.list).map((b) => b.name)).toEqual(['Common', 'eldoria']);
    expect(get(store.settings)?.globalSelect).toEqual(['Common']);
    expect(get(store.loading)).toBe(false);
  });

  it('creates an empty book, refusing a name in use without asking the host', async () => {
    const { store, worldinfo } = setup();
    await store.load();
    expect(await store.create('Notes')).toEqual({ ok: true });
    expect(worldinfo.save).toHaveBeenCalledWith('Notes', { entries: {} });
    expect(get(store.list).find((b) => b.name === 'Notes')?.entries).toBe(0);
    const taken = await store.create('Notes');
    expect(taken.ok).toBe(false);
    expect(!taken.ok && (taken.error as { code: string }).code).toBe('worldinfo.name_taken');
    expect(worldinfo.save).toHaveBeenCalledTimes(1);
  });

  it('hands a save’s error back instead of toasting it', async () => {
    const { store, worldinfo, toasts } = setup();
    const err = { code: 'worldinfo.invalid', message: 'bad', details: { field: 'entries["0"].uid' } };
    worldinfo.save.mockRejectedValueOnce(err);
    expect(await store.save('eldoria', { entries: {} })).toEqual({ ok: false, error: err });
    expect(toasts.error).not.toHaveBeenCalled();
  });

  it('renames a book and its place in the global selection', async () => {
    const { store } = setup();
    await store.load();
    expect(await store.rename('Common', 'Shared')).toEqual({ ok: true });
    expect(get(store.list).map((b) => b.name)).toEqual(['eldoria', 'Shared']);
    expect(get(store.settings)?.globalSelect).toEqual(['Shared']);
    expect((await store.rename('Shared', 'eldoria')).ok).toBe(false);
  });

  it('toggles the global selection', async () => {
    const { store, worldinfo } = setup();
    await store.load();
    await store.setGlobal('eldoria', true);
    expect(worldinfo.saveSettings).toHaveBeenLastCalledWith({ globalSelect: ['Common', 'eldoria'] });
    await store.setGlobal('Common', false);
    expect(get(store.settings)?.globalSelect).toEqual(['eldoria']);
  });

  it('reports a taken name on import, and replaces when asked', async () => {
    const { store, worldinfo, toasts } = setup();
    worldinfo.importBook.mockRejectedValueOnce({ code: 'worldinfo.name_taken', message: 'taken' });
    expect(await store.importFile('eldoria.json', '{}')).toBe('name_taken');
    expect(toasts.error).not.toHaveBeenCalled();
    expect(await store.importFile('eldoria.json', '{}', true)).toEqual({ name: 'eldoria', entries: 4 });
    expect(worldinfo.importBook).toHaveBeenLastCalledWith({ fileName: 'eldoria.json', text: '{}', replace: true });
    worldinfo.importBook.mockRejectedValueOnce({ code: 'worldinfo.invalid', message: 'entries is missing' });
    expect(await store.importFile('x.json', '{}')).toBeNull();
    expect(toasts.error).toHaveBeenCalledWith(expect.objectContaining({ code: 'worldinfo.invalid' }), 'Could not import x.json');
  });

  it('reads what attaches books to a chat, and dry-runs it', async () => {
    const { store, act, api } = setup();
    await store.load();
    expect(await store.chatInfo('c1', 'Ann.png')).toEqual({
      chatId: 'c1', chatName: 'Ann - 1', characterWorld: 'Common', chatWorld: 'eldoria', personaWorld: 'Mine', globalSelect: ['Common'],
    });
    expect(await store.dryRun('c1')).toEqual(act);
    expect(api.generate.dryRun).toHaveBeenCalledWith({ chatId: 'c1' });
    expect(await store.bindToChat('c1', null)).toBe(true);
    expect(api.worldinfo.bindToChat).toHaveBeenCalledWith('c1', null);
  });

  it('follows the WORLDINFO events', async () => {
    const { store, handlers, worldinfo, act } = setup();
    const stop = store.start();
    worldinfo.list.mockResolvedValueOnce([row('fresh')]);
    handlers.worldinfo_updated?.({ name: 'fresh', op: 'save' });
    await vi.waitFor(() => expect(get(store.list).map((b) => b.name)).toEqual(['fresh']));
    expect(get(store.lastChange)).toEqual({ name: 'fresh', oldName: undefined, op: 'save' });
    handlers.worldinfo_scan_done?.({ chatId: 'c1', activation: act });
    expect(get(store.lastScan)).toEqual({ chatId: 'c1', activation: act });
    handlers.worldinfo_settings_updated?.({});
    await vi.waitFor(() => expect(worldinfo.getSettings).toHaveBeenCalled());
    stop();
    expect(Object.keys(handlers)).toEqual([]);
  });
});
