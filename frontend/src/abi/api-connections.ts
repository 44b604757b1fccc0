// api.connections: the connections.* host methods (HOST-ABI §6). The API
// key is write-only: save() takes apiKey, nothing ever returns it, only
// apiKeySet.
import { bind } from './bind';
import type { Call } from './host';
import type { ConnectionsApi } from './types';

const CONNECTION_METHODS = ['save', 'list', 'get', 'delete', 'select', 'active', 'test', 'models', 'probe'] as const;

/** createConnectionsApi returns the frozen api.connections. */
export function createConnectionsApi(call: Call): ConnectionsApi {
  return Object.freeze(bind<ConnectionsApi>(call, 'connections')(CONNECTION_METHODS));
}
