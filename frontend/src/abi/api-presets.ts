// api.presets: the presets.* host methods (HOST-ABI §6): samplers, context
// size, reply budget and prompt order, plus SillyTavern preset import and
// export. The built-in preset 'default' is always there and read-only.
import { bind } from './bind';
import type { Call } from './host';
import type { PresetsApi } from './types';

const PRESET_METHODS = ['list', 'get', 'save', 'delete', 'import', 'export', 'saveFile', 'select', 'active'] as const;

/** createPresetsApi returns the frozen api.presets. */
export function createPresetsApi(call: Call): PresetsApi {
  return Object.freeze(bind<PresetsApi>(call, 'presets')(PRESET_METHODS));
}
