// The group list for the character list and the group editor: every group,
// by name, kept fresh by GROUP_CREATED / GROUP_UPDATED (their payloads carry
// the whole group, so nothing is read again) and GROUP_DELETED. The
// editor's calls reject with the host's error, which the dialog shows beside
// its fields; only reading the list toasts.
import { writable, type Readable } from 'svelte/store';
import type { Group, GroupFields, HearthAbi } from '../../abi/types';
import { listen } from '../lib/events';
import { createListStore } from './list-store';
import type { ToastStore } from './toasts';

export interface GroupStore {
  /** list is every group, by name (as groups.list answers). */
  list: Readable<Group[]>;
  loading: Readable<boolean>;
  /** loaded turns true once the list has been read, so a group missing from it is really gone. */
  loaded: Readable<boolean>;
  load(): Promise<void>;
  /** create makes a group; rejects with the host's error (validation, character.not_found). */
  create(fields: GroupFields): Promise<Group>;
  /** update patches a group (shallow, as groups.update); rejects with the host's error, changing nothing. */
  update(id: string, patch: Partial<GroupFields>): Promise<Group>;
  /** remove deletes a group, and its chats when deleteChats; rejects with the host's error. */
  remove(id: string, options: { deleteChats: boolean }): Promise<void>;
  /** start reads the list and follows group events; returns the unsubscribe. */
  start(): () => void;
}

/** sortGroups orders groups by name, as groups.list does. */
export function sortGroups(list: Group[]): Group[] {
  return [...list].sort((a, b) => a.name.localeCompare(b.name, undefined, { sensitivity: 'base' }) || a.id.localeCompare(b.id));
}

export function createGroupStore(hearth: HearthAbi, toasts: ToastStore): GroupStore {
  const loaded = writable(false);
  const store = createListStore<Group>({
    toasts,
    keyOf: (g) => g.id,
    sort: sortGroups,
    readFailure: 'Could not load the groups',
    read: async () => sortGroups(await hearth.api.groups.list()),
  });
  const { list, put, drop } = store;

  /** load reads the list; loaded turns true once a read has set it (a failed read proves nothing gone). */
  async function load(): Promise<void> {
    if (await store.whileLoading(store.refresh())) loaded.set(true);
  }

  return {
    list: { subscribe: list.subscribe },
    loading: store.loading,
    loaded: { subscribe: loaded.subscribe },
    load,
    async create(fields) {
      const group = await hearth.api.groups.create(fields);
      put(group);
      return group;
    },
    async update(id, patch) {
      const group = await hearth.api.groups.update(id, patch);
      put(group);
      return group;
    },
    async remove(id, options) {
      await hearth.api.groups.delete(id, options);
      drop(id);
    },
    start() {
      void load();
      return listen(hearth, ['GROUP_CREATED', 'GROUP_UPDATED', 'GROUP_DELETED'], (p, name) => {
        const id = typeof p.groupId === 'string' ? p.groupId : null;
        const group = p.group as Group | undefined;
        if (name === 'GROUP_DELETED') {
          if (id) drop(id);
        } else if (group && typeof group === 'object' && typeof group.id === 'string') {
          put(group);
        } else {
          void store.refresh();
        }
      });
    },
  };
}
