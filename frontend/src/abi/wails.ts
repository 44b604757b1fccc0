// The desktop transport: calls go through the single bound Go method
// Bridge.Invoke(token, method, argsJSON), and push events arrive as the
// Wails event "hearth:event". Reads that can answer with megabytes (chat
// pages) go instead to the asset handler's POST /api/invoke with the token
// in a header: Wails IPC hands a result to the page as a string literal in
// a script it evaluates, and a streamed answer arrives sooner and stalls the
// page less (measured in docs/DEVELOPING.md). The capability token lives
// only in this closure; it is never put on window or in the DOM.
import { decodeError, HostError, TransportCodes } from './errors';
import { postJSON } from './http';
import { isHostEvent, type EventHandler, type Transport } from './transport';

/** The Wails event name the Go side emits bus events under. */
export const WAILS_EVENT = 'hearth:event';

/** STREAM_PATH and TOKEN_HEADER are the asset handler's invoke route (backend/wailsbridge/invoke.go). */
export const STREAM_PATH = '/api/invoke';
export const TOKEN_HEADER = 'X-Hearth-Token';
/**
 * STREAMED are the methods sent through STREAM_PATH: the chat reads, and
 * the JSONL export and import, whose answer or argument is a whole chat
 * file. (Should the route fail and an import be retried over IPC after
 * all, the retry finds its name taken: nothing is stored twice.)
 */
export const STREAMED: ReadonlySet<string> = new Set(['chat.getStMessages', 'chat.getMessages', 'chat.exportJsonl', 'chat.importJsonl']);

export type BridgeInvoke = (token: string, method: string, argsJSON: string) => Promise<string>;
export type EventsOn = (name: string, callback: (...data: unknown[]) => void) => () => void;

interface WailsGlobals {
  go?: { wailsbridge?: { Bridge?: { Invoke?: unknown } } };
  runtime?: { EventsOn?: unknown };
}

/** WailsRuntime is what the Wails runtime scripts put on window. */
export interface WailsRuntime {
  invoke: BridgeInvoke;
  eventsOn: EventsOn;
}

/** findWails returns the Wails bridge and event hook, or null outside the desktop window. */
export function findWails(w: unknown): WailsRuntime | null {
  const g = w as WailsGlobals;
  const invoke = g.go?.wailsbridge?.Bridge?.Invoke;
  const eventsOn = g.runtime?.EventsOn;
  if (typeof invoke !== 'function' || typeof eventsOn !== 'function') return null;
  return { invoke: invoke as BridgeInvoke, eventsOn: eventsOn as EventsOn };
}

/** WailsOptions tune createWailsTransport; fetch: null sends everything through IPC. */
export interface WailsOptions {
  fetch?: typeof fetch | null;
}

export function createWailsTransport(token: string, wails: WailsRuntime, opts: WailsOptions = {}): Transport {
  const { invoke: bridge, eventsOn } = wails;
  let doFetch = opts.fetch === undefined ? globalThis.fetch?.bind(globalThis) : opts.fetch;
  const headers = { [TOKEN_HEADER]: token };

  async function viaBridge(method: string, args: readonly unknown[]): Promise<unknown> {
    let out: string;
    try {
      out = await bridge(token, method, JSON.stringify(args));
    } catch (err) {
      throw decodeError(err);
    }
    return out === '' ? null : (JSON.parse(out) as unknown);
  }

  /**
   * viaStream runs a read on the asset handler. A window whose asset
   * server cannot take it (no answer, or not JSON) keeps working over IPC
   * from then on; a host error is the answer and is thrown as it is.
   */
  async function viaStream(f: typeof fetch, method: string, args: readonly unknown[]): Promise<unknown> {
    try {
      const body = await postJSON(f, STREAM_PATH, { method, args }, headers);
      return (body as { result?: unknown } | null)?.result ?? null;
    } catch (err) {
      if (!(err instanceof HostError) || err.code !== TransportCodes.unavailable) throw err;
      console.warn('Hearth: bulk reads fall back to Wails IPC:', err.message);
      doFetch = null;
      return viaBridge(method, args);
    }
  }

  return {
    mode: 'desktop',
    invoke(method, args) {
      return doFetch && STREAMED.has(method) ? viaStream(doFetch, method, args) : viaBridge(method, args);
    },
    subscribe(handler: EventHandler) {
      let active = true;
      const off = eventsOn(WAILS_EVENT, (event) => {
        if (active && isHostEvent(event)) handler(event);
      });
      return () => {
        if (!active) return;
        active = false;
        off();
      };
    },
  };
}
