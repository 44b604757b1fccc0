// api.events: the structured fan-out of every event this window sees (all
// chats, backend and frontend events alike). Handlers run synchronously in
// registration order, right after the current-chat cache has taken the
// event in, so a handler that reads api.chat.loaded() sees the change
// (unless select() is still loading that chat: then CHAT_CHANGED follows).
import { HostError } from './errors';
import type { EventPayload, EventsApi, Unsubscribe } from './types';

type Handler = (payload: EventPayload) => void;

interface Entry {
  /** fn is what runs: the handler itself, or its once-wrapper. */
  fn: Handler;
  original: Handler;
}

/** Emitter is the writable side of api.events, kept inside the ABI. */
export interface Emitter {
  readonly api: EventsApi;
  emit(type: string, payload: EventPayload): void;
  /** sticky marks type as replayed to handlers registered after it fired (APP_READY). */
  sticky(type: string): void;
}

function invalid(message: string): HostError {
  return new HostError('validation.invalid_argument', message);
}

function report(type: string, err: unknown): void {
  console.error(`Hearth: an api.events handler for "${type}" threw`, err);
}

/** createEmitter returns api.events (with types read from types()) and its emit side. */
export function createEmitter(types: () => Readonly<Record<string, string>>): Emitter {
  // Each registration is its own entry, so the same function registered
  // twice runs twice and off() removes one registration at a time.
  const handlers = new Map<string, Entry[]>();
  const stickyTypes = new Set<string>();
  const lastPayload = new Map<string, EventPayload>();

  function check(type: unknown, handler: unknown): asserts handler is Handler {
    if (typeof type !== 'string' || type === '') throw invalid('event type must be a non-empty string');
    if (typeof handler !== 'function') throw invalid('handler must be a function');
  }

  function add(type: string, fn: Handler, once: boolean): Unsubscribe {
    const list = handlers.get(type) ?? [];
    handlers.set(type, list);
    const off = (): void => {
      const i = list.indexOf(entry);
      if (i >= 0) list.splice(i, 1);
    };
    const entry: Entry = {
      fn: once
        ? (p) => {
            off();
            fn(p);
          }
        : fn,
      original: fn,
    };
    list.push(entry);
    const last = lastPayload.get(type);
    if (last !== undefined) {
      try {
        entry.fn(last);
      } catch (err) {
        report(type, err);
      }
    }
    return off;
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
      const list = handlers.get(type);
      if (!list) return;
      const i = list.findIndex((e) => e.original === handler);
      if (i >= 0) list.splice(i, 1);
    },
    get types() {
      return types();
    },
  });

  return {
    api,
    emit(type, payload) {
      if (stickyTypes.has(type)) lastPayload.set(type, payload);
      const list = handlers.get(type);
      if (!list) return;
      for (const entry of list.slice()) {
        try {
          entry.fn(payload);
        } catch (err) {
          report(type, err);
        }
      }
    },
    sticky(type) {
      stickyTypes.add(type);
    },
  };
}
