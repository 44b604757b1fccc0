// api.groups: the groups.* host methods (HOST-ABI §5.1) — group chats'
// groups, SillyTavern's group objects with their members by avatar key.
import { bind } from './bind';
import type { Call } from './host';
import type { GroupsApi } from './types';

const GROUP_METHODS = ['list', 'get', 'create', 'update', 'delete', 'setAutoMode', 'autoMode'] as const;

/** createGroupsApi returns the frozen api.groups. */
export function createGroupsApi(call: Call): GroupsApi {
  return Object.freeze(bind<GroupsApi>(call, 'groups')(GROUP_METHODS));
}
