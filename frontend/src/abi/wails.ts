// The desktop transport: every call goes through the single bound Go method
// Bridge.Invoke(token, method, argsJSON), and push events arrive as the
// Wails event "hearth:event". The capability token lives only in this
// closure; it is never put on window or in the DOM.
import { decodeError } from './errors';
import { isHostEvent, type EventHandler, type Transport } from './transport';

/** The Wails event name the Go side emits bus events under. */
export const WAILS_EVENT = 'hearth:event';

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

export function createWailsTransport(token: string, wails: WailsRuntime): Transport {
  const { invoke: bridge, eventsOn } = wails;
  return {
    mode: 'desktop',
    async invoke(method, args) {
      let out: string;
      try {
        out = await bridge(token, method, JSON.stringify(args));
      } catch (err) {
        throw decodeError(err);
      }
      return out === '' ? null : (JSON.parse(out) as unknown);
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
