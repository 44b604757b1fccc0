// api.state: chat state, floor states and character state (HOST-ABI §4).
// Reads and writes are host calls; updateChatState's read-modify-write loop
// runs here because the updater is the caller's function. Each round takes
// its turn in the backend's per-namespace queue (state.beginUpdate), so
// updaters in many windows do not starve one another with conflicts, and
// still writes with ifRevision, so a plain setChatState in between is never
// overwritten.
import { HostError } from './errors';
import { createFloorState, type FloorStateOptions } from './floor-state';
import type { Call } from './host';
import type { FloorStateInstance, StateApi, StateEntry, UpdateResult } from './types';

interface Round {
  value: unknown;
  revision: number;
  lease: string;
}

/** DEFAULT_MAX_RETRIES is updateChatState's retry budget after a conflict. */
export const DEFAULT_MAX_RETRIES = 8;

function retries(options: unknown): number {
  if (options === undefined || options === null) return DEFAULT_MAX_RETRIES;
  if (typeof options !== 'object') throw new HostError('validation.invalid_argument', 'options must be an object');
  const n = (options as { maxRetries?: unknown }).maxRetries;
  if (n === undefined) return DEFAULT_MAX_RETRIES;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0 || n > 1000) {
    throw new HostError('validation.invalid_argument', 'maxRetries must be an integer from 0 to 1000');
  }
  return n;
}

/**
 * updateChatState runs updater against the namespace until its write lands
 * or the retries are spent. updater gets a copy of the value ({} when the
 * namespace does not exist); returning undefined writes nothing.
 */
export async function updateChatState(
  call: Call,
  chatId: string,
  namespace: string,
  updater: (current: unknown) => unknown,
  options?: { maxRetries?: number },
): Promise<UpdateResult> {
  if (typeof updater !== 'function') throw new HostError('validation.invalid_argument', 'updater must be a function');
  const budget = retries(options);
  for (let attempt = 0; attempt <= budget; attempt++) {
    const round = (await call('state.beginUpdate', chatId, namespace)) as Round;
    let next: unknown;
    try {
      next = await updater(structuredClone(round.value ?? {}));
    } catch (err) {
      await call('state.endUpdate', chatId, namespace, round.lease).catch(() => undefined);
      throw err;
    }
    if (next === undefined) {
      await call('state.endUpdate', chatId, namespace, round.lease);
      return { ok: true };
    }
    try {
      await call('state.setChatState', chatId, namespace, next, { ifRevision: round.revision, lease: round.lease });
      return { ok: true, value: next };
    } catch (err) {
      if (!(err instanceof HostError) || err.code !== 'state.conflict') throw err;
    }
  }
  return { ok: false, reason: 'conflict' };
}

/** createStateApi returns the frozen api.state; currentChatId backs createFloorState without a chatId. */
export function createStateApi(call: Call, currentChatId: () => string | null): StateApi {
  return Object.freeze({
    getChatState: (chatId: string, namespace: string) => call('state.getChatState', chatId, namespace) as Promise<StateEntry | null>,
    getChatStateBatch: (chatId: string, namespaces: string[]) =>
      call('state.getChatStateBatch', chatId, namespaces) as Promise<Record<string, StateEntry | null>>,
    setChatState: (chatId: string, namespace: string, value: unknown, options?: { ifRevision?: number }) =>
      call('state.setChatState', chatId, namespace, value, options) as Promise<{ ok: true; revision: number }>,
    deleteChatState: (chatId: string, namespace: string, options?: { ifRevision?: number }) =>
      call('state.deleteChatState', chatId, namespace, options) as Promise<{ ok: boolean }>,
    updateChatState: (chatId: string, namespace: string, updater: (current: unknown) => unknown, options?: { maxRetries?: number }) =>
      updateChatState(call, chatId, namespace, updater, options),
    createFloorState: (options: FloorStateOptions): FloorStateInstance => createFloorState(call, currentChatId, options),
    getCharacterState: (avatar: string, namespace: string) => call('state.getCharacterState', avatar, namespace),
    setCharacterState: async (avatar: string, namespace: string, data: unknown) => {
      await call('state.setCharacterState', avatar, namespace, data === undefined ? null : data);
    },
  });
}
