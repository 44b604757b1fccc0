// A Transport carries host calls and push events between the ABI and one
// backend: the Wails bridge in the desktop window, HTTP + WebSocket in a
// browser. Nothing above this interface knows which one it has.

/** One backend push event, as published on the Go event bus. */
export interface HostEvent {
  type: string;
  payload: Record<string, unknown>;
}

export type EventHandler = (event: HostEvent) => void;

export type Mode = 'desktop' | 'browser';

export interface Transport {
  readonly mode: Mode;
  /** invoke runs one host method with positional arguments; rejects with a HostError. */
  invoke(method: string, args: readonly unknown[]): Promise<unknown>;
  /** subscribe delivers every push event to handler until the returned function is called. */
  subscribe(handler: EventHandler): () => void;
  /**
   * onReconnect, where push events can be lost (a dropped WebSocket),
   * calls handler each time the event stream is back after a drop, so the
   * ABI can re-fetch what it caches. Returns an idempotent unsubscribe.
   */
  onReconnect?(handler: () => void): () => void;
}

/** isHostEvent guards values arriving from the wire before handlers see them. */
export function isHostEvent(v: unknown): v is HostEvent {
  if (typeof v !== 'object' || v === null) return false;
  const e = v as Record<string, unknown>;
  return typeof e.type === 'string' && typeof e.payload === 'object' && e.payload !== null;
}
