// api.events inside a frame: the same on/once/off/types as the page's, over
// the bridge. The window is told when a type gets its first handler and
// loses its last (subscribe/unsubscribe), so it sends only what someone in
// the frame listens to. APP_READY is the frame's own: it fires once the
// handshake is done, and again for handlers added later (as in the page).
// A prompt hook (protocol.ts HOOK_EVENTS) runs the same handlers through
// run, which awaits each in turn, as SillyTavern's eventSource does.
import { HostError } from '../../abi/errors';
import { T } from '../../abi/event-types';
import type { EventPayload, EventsApi, Unsubscribe } from '../../abi/types';

type Handler = (payload: EventPayload) => void;

interface Entry {
  fn: Handler;
  original: Handler;
}

/** FrameEvents is the frame's api.events and the side the client feeds. */
export interface FrameEvents {
  readonly api: EventsApi;
  /** emit runs type's handlers with payload. */
  emit(type: string, payload: EventPayload): void;
  /**
   * run calls type's handlers in order with payload (a hook's, theirs to
   * change), awaiting what each returns; the first that throws or
   * rejects ends it with that error.
   */
  run(type: string, payload: object): Promise<void>;
  /** ready fires APP_READY (sticky) and sends the subscriptions made so far. */
  ready(): void;
}

/**
 * createFrameEvents returns the frame's events; send tells the window of a
 * type's first and last handler (after ready; before it, ready sends them),
 * types gives the event constants.
 */
export function createFrameEvents(send: (kind: 'subscribe' | 'unsubscribe', type: string) => void, types: () => Readonly<Record<string, string>>): FrameEvents {
  const handlers = new Map<string, Entry[]>();
  let isReady = false;

  function invalid(message: string): HostError {
    return new HostError('validation.invalid_argument', message);
  }

  function check(type: unknown, handler: unknown): asserts handler is Handler {
    if (typeof type !== 'string' || type === '') throw invalid('event type must be a non-empty string');
    if (typeof handler !== 'function') throw invalid('handler must be a function');
  }

  function report(type: string, err: unknown): void {
    console.error(`Hearth: an api.events handler for "${type}" threw`, err);
  }

  function remove(type: string, entry: Entry): void {
    const list = handlers.get(type);
    const i = list?.indexOf(entry) ?? -1;
    if (!list || i < 0) return;
    list.splice(i, 1);
    if (list.length > 0) return;
    handlers.delete(type);
    if (isReady && type !== T.APP_READY) send('unsubscribe', type);
  }

  function add(type: string, fn: Handler, once: boolean): Unsubscribe {
    const entry: Entry = {
      fn: once
        ? (p) => {
            remove(type, entry);
            fn(p);
          }
        : fn,
      original: fn,
    };
    let list = handlers.get(type);
    if (!list) {
      handlers.set(type, (list = []));
      if (isReady && type !== T.APP_READY) send('subscribe', type);
    }
    list.push(entry);
    if (isReady && type === T.APP_READY) {
      try {
        entry.fn(Object.freeze({}));
      } catch (err) {
        report(type, err);
      }
    }
    return () => remove(type, entry);
  }

  function emit(type: string, payload: EventPayload): void {
    for (const entry of [...(handlers.get(type) ?? [])]) {
      try {
        entry.fn(payload);
      } catch (err) {
        report(type, err);
      }
    }
  }

  async function run(type: string, payload: object): Promise<void> {
    for (const entry of [...(handlers.get(type) ?? [])]) {
      await (entry.fn as (p: object) => unknown)(payload);
    }
  }

  const api: EventsApi = Object.freeze({
    on(type: string, handler: Handler): Unsubscribe {
      check(type, handler);
      return add(type, handler, false);
    },
    once(type: string, handler: Handler): Unsubscribe {
      check(type, handler);
      return add(type, handler, true);
    },
    off(type: string, handler: Handler): void {
      const entry = handlers.get(type)?.find((e) => e.original === handler);
      if (entry) remove(type, entry);
    },
    get types() {
      return types();
    },
  });

  return {
    api,
    emit,
    run,
    ready() {
      if (isReady) return;
      isReady = true;
      for (const type of handlers.keys()) if (type !== T.APP_READY) send('subscribe', type);
      emit(T.APP_READY, Object.freeze({}));
    },
  };
}
