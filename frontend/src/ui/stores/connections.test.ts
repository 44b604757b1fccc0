import { get } from 'svelte/store';
import { describe, expect, it, vi } from 'vitest';
import type { Connection, HearthAbi } from '../../abi/types';
import { connectionsAction, createConnectionStore } from './connections';
import type { ToastStore } from './toasts';

function conn(id: string, name: string): Connection {
  return { id, name, provider: 'openai-compatible', baseUrl: 'http://127.0.0.1:8080/v1', model: '', headers: {}, apiKeySet: false, createdAt: 1, updatedAt: 1 };
}

function setup() {
  const api = {
    list: vi.fn(async () => [conn('b', 'Beta'), conn('z', 'zeta')]),
    active: vi.fn(async () => conn('b', 'Beta')),
    save: vi.fn(async (input: { id?: string; name?: string }) => conn(input.id ?? 'new', input.name ?? '')),
    delete: vi.fn(async () => {}),
    select: vi.fn(async (id: string | null) => (id ? conn(id, id) : null)),
    test: vi.fn(async () => ({ ok: true, models: 2 })),
    models: vi.fn(async () => ['m1']),
    probe: vi.fn(async () => ({ ok: true, models: ['m1', 'm2'] })),
    get: vi.fn(),
  };
  const toasts = { error: vi.fn(), info: vi.fn(), dismiss: vi.fn(), subscribe: vi.fn() } as unknown as ToastStore;
  const store = createConnectionStore({ api: { connections: api } } as unknown as HearthAbi, toasts);
  return { api, toasts, store };
}

describe('connection store', () => {
  it('loads the list and the one in use', async () => {
    const { store } = setup();
    await store.load();
    expect(get(store.list).map((c) => c.id)).toEqual(['b', 'z']);
    expect(get(store.activeId)).toBe('b');
    expect(get(store.loading)).toBe(false);
  });

  it('puts a saved connection in name order, replacing its old entry', async () => {
    const { store } = setup();
    await store.load();
    await store.save({ name: 'alpha', provider: 'anthropic' });
    await store.save({ id: 'z', name: 'Aardvark' });
    expect(get(store.list).map((c) => c.name)).toEqual(['Aardvark', 'alpha', 'Beta']);
  });

  it('clears the one in use when it is deleted, and says why a call failed', async () => {
    const { store, api, toasts } = setup();
    await store.load();
    expect(await store.remove('b')).toBe(true);
    expect(get(store.activeId)).toBeNull();
    expect(get(store.list).map((c) => c.id)).toEqual(['z']);

    api.delete.mockRejectedValueOnce({ code: 'connection.not_found', message: 'no connection "z"' });
    expect(await store.remove('z')).toBe(false);
    expect(get(store.list).map((c) => c.id)).toEqual(['z']);
    expect(toasts.error).toHaveBeenCalledWith(expect.objectContaining({ code: 'connection.not_found' }), 'Could not delete the connection');

    api.save.mockRejectedValueOnce({ code: 'validation.invalid_argument', message: 'name is required' });
    expect(await store.save({ name: '' })).toBeNull();

    api.models.mockRejectedValueOnce({ code: 'model.unreachable', message: 'cannot reach the provider' });
    expect(await store.models('z')).toEqual([]);
    expect(toasts.error).toHaveBeenLastCalledWith(expect.objectContaining({ code: 'model.unreachable' }), 'Could not list the models');
  });

  it('reports a test that could not be made as a failed test', async () => {
    const { store, api } = setup();
    expect(await store.test('b')).toEqual({ ok: true, models: 2 });
    api.test.mockRejectedValueOnce({ code: 'connection.not_found', message: 'no connection "b"' });
    expect(await store.test('b')).toEqual({ ok: false, error: { code: 'connection.not_found', message: 'no connection "b"' } });
  });

  it('reports a probe that could not be made as a failed probe, and passes the settings as given', async () => {
    const { store, api } = setup();
    const settings = { provider: 'openai-compatible' as const, baseUrl: 'http://127.0.0.1:8080/v1' };
    expect(await store.probe(settings)).toEqual({ ok: true, models: ['m1', 'm2'] });
    expect(api.probe).toHaveBeenCalledWith(settings);
    api.probe.mockRejectedValueOnce({ code: 'validation.invalid_argument', message: 'baseUrl "ftp://x" is not an http:// or https:// URL' });
    expect(await store.probe({ provider: 'openai-compatible', baseUrl: 'ftp://x' })).toEqual({
      ok: false,
      models: [],
      error: { code: 'validation.invalid_argument', message: 'baseUrl "ftp://x" is not an http:// or https:// URL' },
    });
  });

  it('selects and unselects', async () => {
    const { store } = setup();
    await store.select('z');
    expect(get(store.activeId)).toBe('z');
    await store.select(null);
    expect(get(store.activeId)).toBeNull();
  });
});

describe('connectionsAction', () => {
  it('offers Connections for failures fixed there, an agent run’s model.request_failed by its cause', () => {
    const open = vi.fn();
    expect(connectionsAction('model.auth_failed', open)?.label).toBe('Open Connections');
    expect(connectionsAction('model.request_failed', open, { cause: 'model.auth_failed', status: 401 })?.label).toBe('Open Connections');
    expect(connectionsAction('model.request_failed', open, { cause: 'model.unreachable' })?.label).toBe('Open Connections');
    expect(connectionsAction('model.request_failed', open, { cause: 'model.rate_limited' })).toBeUndefined();
    // A generation's refused request has no cause: nothing in Connections fixes it.
    expect(connectionsAction('model.request_failed', open, { status: 400 })).toBeUndefined();
    expect(connectionsAction('model.request_failed', open)).toBeUndefined();
    // Only model.request_failed defers to its cause.
    expect(connectionsAction('agent.busy', open, { cause: 'model.auth_failed' })).toBeUndefined();
    expect(connectionsAction('model.request_failed', undefined, { cause: 'model.auth_failed' })).toBeUndefined();
  });
});
