// getContext().eventSource: SillyTavern's event emitter semantics, so
// extensions written for SillyTavern or Luker work unchanged. emit() awaits
// each listener in turn; listeners of "auto-fire" events (APP_READY) that
// register after the event fired are called at once with its arguments.
import type { EventSource } from './types';

type Listener = (...args: unknown[]) => unknown;

function report(event: string, err: unknown): void {
  console.error(`Hearth: an eventSource listener for "${event}" threw`, err);
}

/** Listeners Hearth registers itself (the compat runtime's live bindings): no extension's. */
const internal = new WeakSet<Listener>();

/** Each eventSource's listener table, for hasListeners. */
const tables = new WeakMap<EventSource, Map<string, Listener[]>>();

/** markInternal marks a listener as Hearth's own, so hasListeners does not count it. */
export function markInternal<F extends Listener>(listener: F): F {
  internal.add(listener);
  return listener;
}

/**
 * hasListeners says whether anything but Hearth itself listens for event
 * on source: the prompt hook asks the backend for a round trip only then.
 */
export function hasListeners(source: EventSource, event: string): boolean {
  return (tables.get(source)?.get(event) ?? []).some((l) => !internal.has(l));
}

/**
 * createEventSource returns an emitter whose autoFire events replay to late
 * listeners; onEmit, when given, sees every emit before the listeners do.
 */
export function createEventSource(autoFire: readonly string[], onEmit?: (event: string, args: unknown[]) => void): EventSource {
  const listeners = new Map<string, Listener[]>();
  // once() wrappers, so off(event, original) removes a pending once-listener.
  const onceWrappers = new Map<Listener, Listener>();
  const autoFireEvents = new Set(autoFire);
  const lastArgs = new Map<string, unknown[]>();

  function list(event: string): Listener[] {
    let l = listeners.get(event);
    if (!l) listeners.set(event, (l = []));
    return l;
  }

  function fireLate(event: string, listener: Listener): void {
    const args = lastArgs.get(event);
    if (!autoFireEvents.has(event) || !args) return;
    try {
      const r = listener.apply(source, args);
      if (r instanceof Promise) r.catch((err: unknown) => report(event, err));
    } catch (err) {
      report(event, err);
    }
  }

  function remove(event: string, listener: Listener): void {
    const l = listeners.get(event);
    if (!l) return;
    const target = onceWrappers.get(listener) ?? listener;
    const i = l.indexOf(target);
    if (i >= 0) l.splice(i, 1);
  }

  function place(event: string, listener: Listener, where: 'first' | 'last'): void {
    const l = list(event);
    const i = l.indexOf(listener);
    if (i >= 0) l.splice(i, 1);
    if (where === 'first') l.unshift(listener);
    else l.push(listener);
    fireLate(event, listener);
  }

  const source: EventSource = {
    on(event, listener) {
      if (event === undefined || typeof listener !== 'function') return;
      list(event).push(listener);
      fireLate(event, listener);
    },
    once(event, listener) {
      if (event === undefined || typeof listener !== 'function') return;
      const wrapper: Listener = function (this: unknown, ...args) {
        remove(event, wrapper);
        onceWrappers.delete(listener);
        return listener.apply(this, args);
      };
      onceWrappers.set(listener, wrapper);
      source.on(event, wrapper);
    },
    off: remove,
    removeListener: remove,
    makeFirst(event, listener) {
      place(event, listener, 'first');
    },
    makeLast(event, listener) {
      place(event, listener, 'last');
    },
    async emit(event, ...args) {
      onEmit?.(event, args);
      for (const l of (listeners.get(event) ?? []).slice()) {
        try {
          await l.apply(source, args);
        } catch (err) {
          report(event, err);
        }
      }
      if (autoFireEvents.has(event)) lastArgs.set(event, args);
    },
    emitAndWait(event, ...args) {
      onEmit?.(event, args);
      for (const l of (listeners.get(event) ?? []).slice()) {
        try {
          l.apply(source, args);
        } catch (err) {
          report(event, err);
        }
      }
      if (autoFireEvents.has(event)) lastArgs.set(event, args);
    },
  };
  const frozen = Object.freeze(source);
  tables.set(frozen, listeners);
  return frozen;
}

/**
 * EmitQueue feeds an eventSource in order: an event's emit starts only after
 * the previous event's listeners have all finished, however long they take.
 * Callers never wait on the queue (a listener that writes to the chat would
 * otherwise wait for itself).
 */
export interface EmitQueue {
  push(event: string, args: unknown[]): void;
  /** run queues any task (e.g. an emit that also notifies api.events) in the same order. */
  run(label: string, task: () => unknown): void;
  /** idle resolves once everything queued so far has run. */
  idle(): Promise<void>;
}

/** createEmitQueue returns an empty queue emitting on source. */
export function createEmitQueue(source: Pick<EventSource, 'emit'>): EmitQueue {
  let tail: Promise<void> = Promise.resolve();
  const run = (label: string, task: () => unknown): void => {
    tail = tail.then(task).then(
      () => undefined,
      (err: unknown) => report(label, err),
    );
  };
  return {
    push: (event, args) => run(event, () => source.emit(event, ...args)),
    run,
    idle: () => tail,
  };
}
