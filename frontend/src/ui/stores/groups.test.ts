import { get } from 'svelte/store';
import { describe, expect, it, vi } from 'vitest';
import type { EventPayload, Group, HearthAbi } from '../../abi/types';
import { createGroupStore } from './groups';
import type { ToastStore } from './toasts';

function group(id: string, name: string, fields: Partial<Group> = {}): Group {
  return {
    id,
    name,
    members: ['a.png'],
    disabled_members: [],
    activation_strategy: 0,
    generation_mode: 0,
    allow_self_responses: false,
    auto_mode_delay: 5,
    generation_mode_join_prefix: '',
    generation_mode_join_suffix: '',
    avatar_url: 'img/ai4.png',
    fav: false,
    chat_id: id,
    chats: [id],
    date_added: 1,
    date_last_chat: 0,
    chat_size: 0,
    updatedAt: 1,
    ...fields,
  };
}

function setup() {
  let stored = [group('2', 'tavern'), group('1', 'Band')];
  const api = {
    list: vi.fn(async () => stored),
    get: vi.fn(),
    create: vi.fn(async (fields: Partial<Group>) => group('3', fields.name ?? 'Group: A', fields)),
    update: vi.fn(async (id: string, patch: Partial<Group>) => group(id, patch.name ?? 'x', patch)),
    delete: vi.fn(async () => {}),
  };
  const handlers = new Map<string, Set<(p: EventPayload) => void>>();
  const hearth = {
    api: {
      groups: api,
      events: {
        types: { GROUP_CREATED: 'group_created', GROUP_UPDATED: 'group_updated', GROUP_DELETED: 'group_deleted' },
        on(type: string, h: (p: EventPayload) => void) {
          let set = handlers.get(type);
          if (!set) handlers.set(type, (set = new Set()));
          set.add(h);
          return () => set.delete(h);
        },
      },
    },
  } as unknown as HearthAbi;
  const toasts = { error: vi.fn(), info: vi.fn() } as unknown as ToastStore;
  const store = createGroupStore(hearth, toasts);
  return {
    api,
    toasts,
    store,
    emit: (type: string, payload: EventPayload) => handlers.get(type)?.forEach((h) => h(payload)),
    listeners: () => [...handlers.values()].reduce((n, s) => n + s.size, 0),
    setStored: (next: Group[]) => (stored = next),
  };
}

const flush = () => new Promise((r) => setTimeout(r, 0));
const names = (list: Group[]) => list.map((g) => g.name);

describe('group store', () => {
  it('reads the list by name on start; loaded turns true with the list set, not before, and not on a failed read', async () => {
    const { store, api } = setup();
    expect(get(store.loaded)).toBe(false);
    const seen: [boolean, number][] = [];
    const off = store.loaded.subscribe((l) => seen.push([l, get(store.list).length]));
    api.list.mockRejectedValueOnce(new Error('down'));
    await store.load();
    expect(get(store.loaded)).toBe(false);
    const stop = store.start();
    await flush();
    expect(names(get(store.list))).toEqual(['Band', 'tavern']);
    expect(seen).toEqual([
      [false, 0],
      [true, 2],
    ]);
    off();
    stop();
  });

  it('follows GROUP_CREATED, GROUP_UPDATED (the group in the payload) and GROUP_DELETED without reading again', async () => {
    const { store, emit, api, listeners } = setup();
    const stop = store.start();
    await flush();
    emit('group_created', { groupId: '9', group: group('9', 'Attic') });
    emit('group_updated', { groupId: '2', group: group('2', 'Zoo', { members: ['a.png', 'b.png'] }) });
    expect(names(get(store.list))).toEqual(['Attic', 'Band', 'Zoo']);
    expect(get(store.list).find((g) => g.id === '2')?.members).toEqual(['a.png', 'b.png']);
    emit('group_deleted', { groupId: '1', deleteChats: false });
    expect(names(get(store.list))).toEqual(['Attic', 'Zoo']);
    expect(api.list).toHaveBeenCalledTimes(1);
    stop();
    expect(listeners()).toBe(0);
  });

  it('reads the list again for an update without its group', async () => {
    const { store, emit, api, setStored } = setup();
    const stop = store.start();
    await flush();
    setStored([group('1', 'Band')]);
    emit('group_updated', { groupId: '2' });
    await flush();
    expect(api.list).toHaveBeenCalledTimes(2);
    expect(names(get(store.list))).toEqual(['Band']);
    stop();
  });

  it('create, update and remove change the list; a refusal rejects and changes nothing, with no toast', async () => {
    const { store, api, toasts } = setup();
    await store.load();
    const made = await store.create({ name: 'Crew', members: ['a.png'] });
    expect(made.id).toBe('3');
    await store.update('1', { name: 'Alpha' });
    expect(names(get(store.list))).toEqual(['Alpha', 'Crew', 'tavern']);
    const refusal = Object.assign(new Error('members: at least one'), { code: 'validation.invalid_argument', details: { field: 'members' } });
    api.update.mockRejectedValueOnce(refusal);
    await expect(store.update('2', { members: [] })).rejects.toBe(refusal);
    expect(names(get(store.list))).toEqual(['Alpha', 'Crew', 'tavern']);
    await store.remove('3', { deleteChats: true });
    expect(api.delete).toHaveBeenCalledWith('3', { deleteChats: true });
    expect(names(get(store.list))).toEqual(['Alpha', 'tavern']);
    expect(toasts.error).not.toHaveBeenCalled();
  });

  it('toasts a failed read and keeps the list', async () => {
    const { store, api, toasts } = setup();
    await store.load();
    api.list.mockRejectedValueOnce(new Error('down'));
    await store.load();
    expect(names(get(store.list))).toEqual(['Band', 'tavern']);
    expect(toasts.error).toHaveBeenCalledWith(expect.any(Error), 'Could not load the groups');
  });
});
