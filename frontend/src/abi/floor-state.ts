// createFloorState: the JS instance over a backend floor state (HOST-ABI
// §4.2). The backend keeps the log and the materialized value and settles
// both inside every structural chat change; an instance only reads, runs
// reducers and sends commits, one at a time.
import { HostError } from './errors';
import type { Call } from './host';
import type { FloorStateInstance } from './types';

/** FloorStateOptions name the namespace and, optionally, a chat other than the current one. */
export interface FloorStateOptions {
  namespace: string;
  chatId?: string;
}

interface FloorRead {
  value: unknown;
  revision: number;
}

const NAMESPACE = /^[A-Za-z0-9_.:-]{1,128}$/;
const RESERVED = /(__floor_log|__orphans)$/;
/** Attempts of one update when another writer moved the state in between. */
const UPDATE_ATTEMPTS = 8;

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}

/** isIndex accepts what the contract calls a valid floor or swipe id: an integer >= 0. */
function isIndex(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0;
}

/**
 * target validates update/patch options: undefined or an object whose
 * floor and swipeId, when given, are integers >= 0. null means invalid.
 */
function target(options: unknown): { floor?: number; swipeId?: number } | null {
  if (options === undefined) return {};
  if (!isPlainObject(options)) return null;
  const out: { floor?: number; swipeId?: number } = {};
  if ('floor' in options && options.floor !== undefined) {
    if (!isIndex(options.floor)) return null;
    out.floor = options.floor;
  }
  if ('swipeId' in options && options.swipeId !== undefined) {
    if (!isIndex(options.swipeId)) return null;
    out.swipeId = options.swipeId;
  }
  return out;
}

/**
 * createFloorState returns a frozen instance. Without options.chatId it
 * follows the window's current chat (as Luker's instances do across chat
 * switches); with it, it stays on that chat.
 */
export function createFloorState(call: Call, currentChatId: () => string | null, options: FloorStateOptions): FloorStateInstance {
  if (!isPlainObject(options)) throw new HostError('validation.invalid_argument', 'createFloorState takes { namespace, chatId? }');
  const { namespace, chatId } = options;
  if (typeof namespace !== 'string' || !NAMESPACE.test(namespace)) {
    throw new HostError('validation.invalid_argument', 'namespace must be 1-128 characters of A-Z a-z 0-9 _ . : -');
  }
  if (RESERVED.test(namespace)) {
    throw new HostError('state.reserved_namespace', `namespace "${namespace}" is reserved for floor-state logs`);
  }
  if (chatId !== undefined && typeof chatId !== 'string') throw new HostError('validation.invalid_argument', 'chatId must be a string');

  let destroyed = false;
  let tail: Promise<unknown> = Promise.resolve();
  const chat = () => chatId ?? currentChatId();

  /** serial runs fn after every earlier write of this instance. */
  function serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = tail.then(fn, fn);
    tail = run.catch(() => undefined);
    return run;
  }

  async function read(id: string): Promise<FloorRead> {
    return (await call('state.floorGet', id, namespace)) as FloorRead;
  }

  function update(reducer: (current: Record<string, unknown>) => unknown, opts?: { floor?: number; swipeId?: number }): Promise<boolean> {
    return serial(async () => {
      const pin = target(opts);
      const id = chat();
      if (destroyed || pin === null || id === null || typeof reducer !== 'function') return false;
      for (let attempt = 0; attempt < UPDATE_ATTEMPTS; attempt++) {
        const cur = await read(id);
        const next = await reducer(structuredClone((cur.value ?? {}) as Record<string, unknown>));
        if (!isPlainObject(next)) return true;
        try {
          await call('state.floorUpdate', id, namespace, next, { ...pin, ifRevision: cur.revision });
          return true;
        } catch (err) {
          if (err instanceof HostError && err.code === 'state.conflict') continue;
          if (err instanceof HostError) return false;
          throw err;
        }
      }
      return false;
    });
  }

  function patch(ops: unknown, opts?: { floor?: number; swipeId?: number }): Promise<boolean> {
    return serial(async () => {
      const pin = target(opts);
      const id = chat();
      if (destroyed || pin === null || id === null || !Array.isArray(ops)) return false;
      try {
        await call('state.floorPatch', id, namespace, ops, pin);
        return true;
      } catch (err) {
        if (err instanceof HostError) return false;
        throw err;
      }
    });
  }

  async function get(): Promise<unknown> {
    const id = chat();
    if (destroyed || id === null) return null;
    return (await read(id)).value ?? null;
  }

  return Object.freeze({
    namespace,
    update,
    patch,
    get,
    ready: () => tail.then(() => undefined),
    destroy: () => {
      destroyed = true;
    },
  });
}
