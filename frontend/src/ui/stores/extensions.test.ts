import { get } from 'svelte/store';
import { describe, expect, it, vi } from 'vitest';
import type { EventPayload, ExtensionEntry, ExtensionPermission, ExtensionSafeMode, HearthAbi } from '../../abi/types';
import { createExtensionStore } from './extensions';
import type { ToastStore } from './toasts';

function entry(id: string, fields: Partial<ExtensionEntry> = {}): ExtensionEntry {
  return {
    id,
    displayName: id,
    version: '1.0.0',
    author: '',
    mode: 'sandboxed',
    enabled: false,
    permissions: ['chat.read', 'state'],
    granted: ['chat.read', 'state'],
    status: 'disabled',
    loadingOrder: 0,
    dependencies: [],
    network: [],
    source: { kind: 'zip', value: `${id}.zip` },
    installedAt: 1,
    updatedAt: 1,
    ...fields,
  };
}

/** A fake api.extensions over an in-memory registry, and an event bus. */
function setup(opts: { safeMode?: 'missing' | 'broken' } = {}) {
  const rows = new Map<string, ExtensionEntry>([['mood', entry('mood', { enabled: true, status: 'active' })]]);
  let safe: ExtensionSafeMode = { active: false, atStart: false, flag: false };
  const handlers = new Map<string, Set<(p: EventPayload) => void>>();
  const emit = (type: string, payload: EventPayload) => handlers.get(type)?.forEach((h) => h(payload));
  const set = (id: string, fields: Partial<ExtensionEntry>) => {
    const cur = rows.get(id);
    if (!cur) throw Object.assign(new Error(`no extension "${id}" is installed`), { code: 'extension.not_found' });
    const next = { ...cur, ...fields };
    rows.set(id, next);
    return next;
  };
  const api = {
    list: vi.fn(async () => [...rows.values()]),
    install: vi.fn(async (source: { fileName?: string }) => {
      if (source.fileName === 'bad.zip') {
        throw Object.assign(new Error('bad.zip: is not a zip archive: zip: not a valid zip file'), { code: 'extension.invalid_package', details: { file: 'bad.zip' } });
      }
      const e = entry('new');
      rows.set('new', e);
      return e;
    }),
    remove: vi.fn(async (id: string) => {
      if (!rows.delete(id)) throw Object.assign(new Error(`no extension "${id}" is installed`), { code: 'extension.not_found' });
    }),
    update: vi.fn(async (id: string) => set(id, { updatedAt: 2 })),
    enable: vi.fn(async (id: string) => set(id, { enabled: true, status: 'active' })),
    disable: vi.fn(async (id: string) => set(id, { enabled: false, status: 'disabled' })),
    grant: vi.fn(async (id: string, p: ExtensionPermission[]) => set(id, { granted: [...(rows.get(id)?.granted ?? []), ...p] })),
    revoke: vi.fn(async (id: string, p: ExtensionPermission[]) => set(id, { granted: (rows.get(id)?.granted ?? []).filter((g) => !p.includes(g)) })),
    safeMode: vi.fn(async () => {
      if (opts.safeMode === 'missing') throw Object.assign(new Error('no method extensions.safeMode'), { code: 'host.unknown_method' });
      if (opts.safeMode === 'broken') throw Object.assign(new Error('database is locked'), { code: 'internal' });
      return safe;
    }),
    setSafeMode: vi.fn(async (o: { active?: boolean; atStart?: boolean }) => (safe = { ...safe, ...o })),
    compatReport: vi.fn(async (id: string) => {
      if (rows.get(id)?.mode !== 'page') {
        throw Object.assign(new Error(`${id} is a sandboxed extension: it has no compatibility report`), { code: 'extension.not_page', details: { id } });
      }
      return { verdict: 'works', unsupported: 0 };
    }),
  };
  const hearth = {
    api: {
      extensions: api,
      events: {
        types: { EXTENSION_INSTALLED: 'extension_installed', EXTENSION_REMOVED: 'extension_removed' } as Record<string, string>,
        on(type: string, h: (p: EventPayload) => void) {
          let s = handlers.get(type);
          if (!s) handlers.set(type, (s = new Set()));
          s.add(h);
          return () => s.delete(h);
        },
      },
    },
  } as unknown as HearthAbi;
  const toasts = { error: vi.fn(), info: vi.fn() } as unknown as ToastStore;
  const store = createExtensionStore(hearth, toasts);
  return { api, rows, store, toasts, emit, handlers };
}

const settle = () => new Promise((r) => setTimeout(r, 0));

describe('extension store', () => {
  it('loads the list and safe mode', async () => {
    const { store } = setup();
    await store.load();
    expect(get(store.list).map((e) => e.id)).toEqual(['mood']);
    expect(get(store.safeMode)).toEqual({ active: false, atStart: false, flag: false });
    expect(get(store.loading)).toBe(false);
  });

  it('leaves safe mode out, quietly, where the host has none', async () => {
    const { store, toasts } = setup({ safeMode: 'missing' });
    await store.load();
    expect(get(store.safeMode)).toBeNull();
    expect(get(store.list)).toHaveLength(1);
    expect(toasts.error).not.toHaveBeenCalled();
  });

  it('says so when safe mode cannot be read for another reason', async () => {
    const { store, toasts } = setup({ safeMode: 'broken' });
    await store.load();
    expect(get(store.safeMode)).toBeNull();
    expect(toasts.error).toHaveBeenCalledWith(expect.objectContaining({ code: 'internal' }), 'Could not read safe mode');
  });

  it('installs off, and answers a refusal as a sentence', async () => {
    const { store, api } = setup();
    await store.load();
    const ok = await store.install({ fileName: 'new.zip', base64: 'UEsFBg==' });
    expect(ok).toEqual({ entry: expect.objectContaining({ id: 'new' }) });
    expect(api.install).toHaveBeenCalledWith({ fileName: 'new.zip', base64: 'UEsFBg==' }, { enable: false });
    expect(get(store.list).map((e) => e.id)).toEqual(['mood', 'new']);

    const bad = await store.install({ fileName: 'bad.zip', base64: 'eA==' });
    expect(await store.install({ fileName: 'bad.zip', base64: 'eA==' }, 'bad.zip')).toMatchObject({ failure: { sentence: 'It is not a zip archive: zip: not a valid zip file.' } });
    expect(bad).toEqual({
      failure: {
        sentence: 'The file bad.zip is not a zip archive: zip: not a valid zip file.',
        code: 'extension.invalid_package',
        details: { file: 'bad.zip' },
      },
    });
    expect(get(store.list)).toHaveLength(2);
  });

  it('turns on and off, revokes and grants back, showing what is under way', async () => {
    const { store, api } = setup();
    await store.load();
    const off = store.setEnabled('mood', false);
    expect(get(store.pending)).toEqual({ mood: 'disable' });
    expect(await off).toBe(true);
    expect(get(store.pending)).toEqual({});
    expect(get(store.list)[0]).toMatchObject({ enabled: false, status: 'disabled' });

    expect(await store.revoke('mood', 'chat.read')).toBe(true);
    expect(api.revoke).toHaveBeenCalledWith('mood', ['chat.read']);
    expect(get(store.list)[0]?.granted).toEqual(['state']);
    expect(await store.grant('mood', 'chat.read')).toBe(true);
    expect(api.grant).toHaveBeenCalledWith('mood', ['chat.read']);
    expect(get(store.list)[0]?.granted).toEqual(['state', 'chat.read']);
  });

  it('keeps a refused call by its extension until one about it works', async () => {
    const { store, api } = setup();
    await store.load();
    api.update.mockRejectedValueOnce(Object.assign(new Error('mood was installed from an uploaded zip; upload the new version after removing it'), { code: 'extension.not_updatable' }));
    expect(await store.update('mood')).toBe(false);
    expect(get(store.failures).mood).toEqual({
      action: 'Could not update it',
      sentence: 'Mood was installed from an uploaded zip; upload the new version after removing it.',
      code: 'extension.not_updatable',
      details: null,
    });
    expect(await store.setEnabled('mood', false)).toBe(true);
    expect(get(store.failures)).toEqual({});

    api.enable.mockRejectedValueOnce(Object.assign(new Error('boom'), { code: 'internal' }));
    await store.setEnabled('mood', true);
    expect(Object.keys(get(store.failures))).toEqual(['mood']);
    store.dismiss('mood');
    expect(get(store.failures)).toEqual({});
  });

  it('removes, with or without its storage, and says why it could not', async () => {
    const { store, api } = setup();
    await store.load();
    expect(await store.remove('mood', true)).toBeNull();
    expect(api.remove).toHaveBeenCalledWith('mood', { clean: true });
    expect(get(store.list)).toEqual([]);
    const failure = await store.remove('mood', false);
    expect(failure).toMatchObject({ code: 'extension.not_found', sentence: 'No extension "mood" is installed.' });
  });

  it('sets safe mode now and for later starts', async () => {
    const { store, api } = setup();
    await store.load();
    expect(await store.setSafeMode({ atStart: true })).toBeNull();
    expect(get(store.safeMode)).toEqual({ active: false, atStart: true, flag: false });
    expect(await store.setSafeMode({ active: true })).toBeNull();
    expect(api.setSafeMode).toHaveBeenLastCalledWith({ active: true });
    expect(get(store.safeMode)?.active).toBe(true);
    api.setSafeMode.mockRejectedValueOnce(Object.assign(new Error('no method extensions.setSafeMode'), { code: 'host.unknown_method' }));
    expect(await store.setSafeMode({ active: false })).toMatchObject({ code: 'host.unknown_method' });
  });

  it('follows the extension events once started, and stops when told', async () => {
    const { store, rows, emit, api } = setup();
    await store.load();
    const stop = store.start();
    rows.set('other', entry('other'));
    emit('extension_installed', { id: 'other' });
    await settle();
    expect(get(store.list).map((e) => e.id)).toEqual(['mood', 'other']);

    // A burst of events reads the list at most twice.
    const before = api.list.mock.calls.length;
    rows.delete('other');
    emit('extension_removed', { id: 'other' });
    emit('extension_disabled', { id: 'mood' });
    emit('extension_failed', { id: 'mood', error: 'x' });
    await settle();
    await settle();
    expect(api.list.mock.calls.length - before).toBeLessThanOrEqual(2);
    expect(get(store.list).map((e) => e.id)).toEqual(['mood']);

    // A grant changed elsewhere shows too.
    rows.set('mood', { ...rows.get('mood')!, granted: [] });
    emit('extension_granted', { id: 'mood', granted: [] });
    await settle();
    expect(get(store.list).find((e) => e.id === 'mood')?.granted).toEqual([]);

    emit('extension_safe_mode', { active: true, atStart: false });
    expect(get(store.safeMode)).toEqual({ active: true, atStart: false, flag: false });

    stop();
    rows.set('late', entry('late'));
    emit('extension_installed', { id: 'late' });
    await settle();
    expect(get(store.list).map((e) => e.id)).toEqual(['mood']);
  });

  it('reads a compatibility report, and says why there is none', async () => {
    const { rows, store } = setup();
    rows.set('page', entry('page', { mode: 'page' }));
    expect(await store.compatReport('page')).toEqual({ report: { verdict: 'works', unsupported: 0 } });
    const out = await store.compatReport('mood');
    expect('failure' in out && out.failure.code).toBe('extension.not_page');
    expect('failure' in out && out.failure.sentence).toContain('sandboxed');
  });
});
