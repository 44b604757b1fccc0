// The ABI's single way to call the backend: positional arguments are made
// JSON-safe without shifting, and every failure becomes a HostError.
import { decodeError } from './errors';
import type { Transport } from './transport';

/**
 * encodeArgs prepares positional arguments for the wire. JSON turns an
 * undefined array element into null but callers of optional-argument
 * methods write `f(a, undefined, c)`, so undefined is sent as an explicit
 * null (the backend treats null as "not given") and trailing undefined are
 * dropped, which keeps every later argument at its position.
 */
export function encodeArgs(args: readonly unknown[]): unknown[] {
  let end = args.length;
  while (end > 0 && args[end - 1] === undefined) end--;
  const out = new Array<unknown>(end);
  for (let i = 0; i < end; i++) out[i] = args[i] === undefined ? null : args[i];
  return out;
}

/** Call runs one host method ("chat.get") and resolves with its decoded result. */
export type Call = (method: string, ...args: unknown[]) => Promise<unknown>;

/** createCall binds Call to a transport. */
export function createCall(transport: Transport): Call {
  return async (method, ...args) => {
    try {
      return await transport.invoke(method, encodeArgs(args));
    } catch (err) {
      throw decodeError(err);
    }
  };
}
