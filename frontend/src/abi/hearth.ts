// window.__HEARTH__: the one public surface of the webview (HOST-ABI §0).
// This is the minimal core the full ABI grows from: a version, a readiness
// promise, host calls and push events, all over whichever transport boot
// chose.
import { decodeError } from './errors';
import type { EventHandler, Mode, Transport } from './transport';

export interface Hearth {
  readonly abiVersion: 1;
  readonly mode: Mode;
  /** ready resolves once the backend is reachable (after login in browser mode). */
  readonly ready: Promise<void>;
  /** invoke calls a host method ("characters.list") with positional arguments. */
  invoke(method: string, ...args: unknown[]): Promise<unknown>;
  /** on delivers every backend push event; the returned function is an idempotent unsubscribe. */
  on(handler: EventHandler): () => void;
}

export function createHearth(transport: Transport, connected: Promise<void>): Hearth {
  return Object.freeze({
    abiVersion: 1 as const,
    mode: transport.mode,
    ready: connected,
    async invoke(method: string, ...args: unknown[]) {
      if (typeof method !== 'string' || method === '') {
        throw decodeError({ code: 'validation.invalid_argument', message: 'method must be a non-empty string' });
      }
      return transport.invoke(method, args);
    },
    on(handler: EventHandler) {
      let off: (() => void) | null = transport.subscribe(handler);
      return () => {
        off?.();
        off = null;
      };
    },
  });
}
