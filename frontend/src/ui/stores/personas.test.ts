import { get } from 'svelte/store';
import { describe, expect, it, vi } from 'vitest';
import type { EventPayload, HearthAbi, Persona } from '../../abi/types';
import { createPersonaStore } from './personas';
import type { ToastStore } from './toasts';

function persona(id: string, name: string, flags: Partial<Persona> = {}): Persona {
  return { id, name, description: '', avatarUrl: null, position: 0, depth: 2, role: 0, lorebook: '', isDefault: false, isActive: false, createdAt: 1, updatedAt: 1, ...flags };
}

function setup() {
  let stored = [persona('w', 'Wren', { isActive: true }), persona('a', 'ash', { isDefault: true })];
  const api = {
    list: vi.fn(async () => stored),
    save: vi.fn(async (input: { id?: string; name?: string }) => persona(input.id ?? 'new', input.name ?? '')),
    delete: vi.fn(async () => {}),
    setActive: vi.fn(async (id: string | null) => (id ? persona(id, id, { isActive: true }) : null)),
    setDefault: vi.fn(async (id: string | null) => (id ? persona(id, id, { isDefault: true }) : null)),
    lockToChat: vi.fn(async () => ({ revision: 1, persona: null })),
  };
  const handlers = new Map<string, Set<(p: EventPayload) => void>>();
  let metadata: Record<string, unknown> = {};
  const hearth = {
    api: {
      personas: api,
      chat: { current: () => ({ chatId: 'c1', avatar: 'S.png', groupId: null }) },
      events: {
        types: { PERSONA_CHANGED: 'persona_changed', CHAT_CHANGED: 'chat_id_changed', CHAT_METADATA_UPDATED: 'chat_metadata_updated' },
        on(type: string, h: (p: EventPayload) => void) {
          let set = handlers.get(type);
          if (!set) handlers.set(type, (set = new Set()));
          set.add(h);
          return () => set.delete(h);
        },
      },
    },
    getContext: () => ({ chatMetadata: metadata }),
  } as unknown as HearthAbi;
  const toasts = { error: vi.fn(), info: vi.fn(), dismiss: vi.fn(), subscribe: vi.fn() } as unknown as ToastStore;
  const store = createPersonaStore(hearth, toasts);
  return {
    api,
    toasts,
    store,
    emit: (type: string, payload: EventPayload) => handlers.get(type)?.forEach((h) => h(payload)),
    listeners: () => [...handlers.values()].reduce((n, s) => n + s.size, 0),
    setStored: (next: Persona[]) => (stored = next),
    setMetadata: (next: Record<string, unknown>) => (metadata = next),
  };
}

const flush = () => new Promise((r) => setTimeout(r, 0));

describe('persona store', () => {
  it('loads the list by name with the active and default ones; current is the active one', async () => {
    const { store } = setup();
    await store.load();
    expect(get(store.list).map((p) => p.name)).toEqual(['ash', 'Wren']);
    expect([get(store.activeId), get(store.defaultId), get(store.current)?.name]).toEqual(['w', 'a', 'Wren']);
  });

  it('follows the open chat lock, a lock of a missing persona being none', async () => {
    const { store, emit, setMetadata, listeners } = setup();
    setMetadata({ persona: 'a' });
    const stop = store.start();
    await flush();
    expect([get(store.lockedId), get(store.current)?.name]).toEqual(['a', 'ash']);
    // Another chat opens.
    setMetadata({});
    emit('chat_id_changed', { chatId: 'c2' });
    expect([get(store.lockedId), get(store.current)?.name]).toEqual([null, 'Wren']);
    // The open chat's metadata changes (the payload carries it); another chat's does not count.
    emit('chat_metadata_updated', { chatId: 'c1', revision: 2, metadata: { persona: 'a' } });
    expect(get(store.current)?.name).toBe('ash');
    emit('chat_metadata_updated', { chatId: 'other', revision: 5, metadata: { persona: 'w' } });
    expect(get(store.current)?.name).toBe('ash');
    emit('chat_metadata_updated', { chatId: 'c1', revision: 3, metadata: { persona: 'user-default.png' } });
    expect([get(store.lockedId), get(store.current)?.name]).toEqual([null, 'Wren']);
    stop();
    expect(listeners()).toBe(0);
  });

  it('re-reads the list on PERSONA_CHANGED', async () => {
    const { store, api, emit, setStored } = setup();
    const stop = store.start();
    await flush();
    setStored([persona('w', 'Wren'), persona('a', 'ash', { isDefault: true })]);
    emit('persona_changed', { personaId: null, change: 'active', activeId: null, defaultId: 'a' });
    await flush();
    expect(api.list).toHaveBeenCalledTimes(2);
    expect([get(store.activeId), get(store.current)?.name]).toEqual([null, 'ash']);
    stop();
  });

  it('saves in name order, deletes, switches, and says why a call failed', async () => {
    const { store, api, toasts } = setup();
    await store.load();
    await store.save({ name: 'Birch' });
    await store.save({ id: 'w', name: 'Aspen' });
    expect(get(store.list).map((p) => p.name)).toEqual(['ash', 'Aspen', 'Birch']);

    expect(await store.setActive('a')).toBe(true);
    expect(get(store.activeId)).toBe('a');
    expect(await store.setDefault(null)).toBe(true);
    expect(get(store.defaultId)).toBeNull();
    expect(await store.remove('a')).toBe(true);
    expect([get(store.activeId), get(store.list).map((p) => p.id)]).toEqual([null, ['w', 'new']]);
    expect(await store.lock('c1', 'w')).toBe(true);
    expect(api.lockToChat).toHaveBeenCalledWith('c1', 'w');

    api.setActive.mockRejectedValueOnce({ code: 'persona.not_found', message: 'no persona "x"' });
    expect(await store.setActive('x')).toBe(false);
    expect(get(store.activeId)).toBeNull();
    expect(toasts.error).toHaveBeenLastCalledWith(expect.objectContaining({ code: 'persona.not_found' }), 'Could not switch the persona');
    api.save.mockRejectedValueOnce({ code: 'validation.invalid_argument', message: 'name is required' });
    expect(await store.save({ name: '' })).toBeNull();
    api.lockToChat.mockRejectedValueOnce({ code: 'chat.not_found', message: 'no chat' });
    expect(await store.lock('gone', null)).toBe(false);
    expect(toasts.error).toHaveBeenLastCalledWith(expect.objectContaining({ code: 'chat.not_found' }), 'Could not unlock the chat');
  });
});
