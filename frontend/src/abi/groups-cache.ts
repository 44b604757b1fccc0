// The group list getContext() exposes (SillyTavern's `groups`): every
// group, loaded during ready and kept live from GROUP_* events, as the
// character list is (characters-cache.ts). GROUP_CREATED and GROUP_UPDATED
// carry the whole group after the change, so an event never costs a call.
import { T } from './event-types';
import type { Call } from './host';
import { deepFreeze } from './readonly';
import type { HostEvent } from './transport';
import type { Group } from './types';

/** GroupsCache holds the groups, in groups.list order plus later additions. */
export interface GroupsCache {
  /** load (re)reads the list; events that arrive meanwhile trigger one more read. */
  load(): Promise<void>;
  list(): readonly Group[];
  ingest(event: HostEvent): void;
}

function isGroup(v: unknown): v is Group {
  return typeof v === 'object' && v !== null && typeof (v as { id?: unknown }).id === 'string';
}

/** createGroupsCache returns an empty cache; call load() to fill it. */
export function createGroupsCache(call: Call): GroupsCache {
  let groups: readonly Group[] = Object.freeze([]);
  let loading: Promise<void> | null = null;
  let changedWhileLoading = false;

  async function loadLoop(): Promise<void> {
    for (let pass = 0; pass < 3; pass++) {
      changedWhileLoading = false;
      const next = (await call('groups.list')) as unknown[];
      groups = Object.freeze(next.filter(isGroup).map((g) => deepFreeze(g)));
      if (!changedWhileLoading) return;
    }
  }

  return {
    load() {
      loading ??= loadLoop().finally(() => (loading = null));
      return loading;
    },
    list: () => groups,
    ingest(ev) {
      if (ev.type !== T.GROUP_CREATED && ev.type !== T.GROUP_UPDATED && ev.type !== T.GROUP_DELETED) return;
      if (loading) changedWhileLoading = true;
      const id = ev.payload.groupId;
      if (typeof id !== 'string') return;
      const i = groups.findIndex((g) => g.id === id);
      if (ev.type === T.GROUP_DELETED) {
        if (i >= 0) groups = Object.freeze(groups.filter((_, j) => j !== i));
        return;
      }
      const group = ev.payload.group;
      if (!isGroup(group)) return;
      const frozen = deepFreeze(group);
      groups = Object.freeze(i >= 0 ? groups.map((g, j) => (j === i ? frozen : g)) : [...groups, frozen]);
    },
  };
}
