// api.worldinfo: the worldinfo.* host methods (HOST-ABI §5): the lorebook
// library in SillyTavern's worlds/*.json format, the World Info settings and
// global selection, a chat's bound book and its last activation.
import { bind } from './bind';
import type { Call } from './host';
import type { WorldInfoApi } from './types';

const WORLDINFO_METHODS = [
  'list',
  'get',
  'save',
  'delete',
  'rename',
  'importBook',
  'exportBook',
  'saveBook',
  'bindToChat',
  'lastActivation',
  'getSettings',
  'saveSettings',
] as const;

/** createWorldInfoApi returns the frozen api.worldinfo. */
export function createWorldInfoApi(call: Call): WorldInfoApi {
  return Object.freeze(bind<WorldInfoApi>(call, 'worldinfo')(WORLDINFO_METHODS));
}
