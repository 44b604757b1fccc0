// api.extensions: the extensions.* host methods (EXTENSIONS.md §3) —
// the registry, and each extension's storage under api.extensions.storage.
import { bind } from './bind';
import type { Call } from './host';
import type { ExtensionsApi, ExtensionStorageApi } from './types-extensions';

/** createExtensionsApi returns the frozen api.extensions. */
export function createExtensionsApi(call: Call): ExtensionsApi {
  const storage = bind<ExtensionStorageApi>(call, 'extensions.storage')(['get', 'set', 'delete', 'list']);
  return Object.freeze({
    ...bind<ExtensionsApi>(call, 'extensions')(['list', 'install', 'remove', 'update', 'enable', 'disable', 'grant', 'revoke', 'compatReport', 'reportFailure', 'safeMode', 'setSafeMode']),
    storage: Object.freeze(storage),
  });
}
