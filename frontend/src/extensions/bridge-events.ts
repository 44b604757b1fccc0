// Events for frames: the window subscribes once per event type that some
// frame wants (api.events.on), and hands each event to the frames that both
// subscribed to its type and hold the permission the event registry puts it
// under (EVENT_PERMISSIONS: 'any' is everyone, 'none' no frame). Recipients
// are computed per type when a subscription or a grant changes, not per
// event, so a stream event for twenty frames costs twenty postMessage calls.
//
// An event is delivered under the registry's current grant: when the copy
// is stale (an EXTENSION_GRANTED or other EXTENSION_* event invalidated it,
// or it is older than MAX_AGE_MS) the list is read again first, with events
// queued meanwhile in order.
import type { EventsApi, Unsubscribe } from '../abi/types';
import { T } from '../abi/event-types';
import { eventPermission } from './permissions';
import type { ExtensionRegistry } from './registry';

/** Listener is a frame as the router sees it. */
export interface Listener {
  readonly id: string;
  /** deliver posts one event to the frame. */
  deliver(type: string, payload: unknown): void;
}

/** EventRouter keeps each frame's subscriptions and the window's. */
export interface EventRouter {
  subscribe(frame: Listener, type: string): void;
  unsubscribe(frame: Listener, type: string): void;
  /** types is how many types frame is subscribed to. */
  types(frame: Listener): number;
  /** subscribers lists the frames subscribed to type, whatever their grant (the prompt hooks check theirs). */
  subscribers(type: string): Listener[];
  /** drop forgets every subscription of frame (it went away or reloaded). */
  drop(frame: Listener): void;
  /** regrant recomputes every type's recipients (the registry changed). */
  regrant(): void;
  /** close drops every subscription, the window's included. */
  close(): void;
}

/** createEventRouter routes events from events (the page's api.events) under registry's grants. */
export function createEventRouter(events: Pick<EventsApi, 'on'>, registry: ExtensionRegistry): EventRouter {
  /** Who subscribed to each type (whatever their grant). */
  const subscribers = new Map<string, Set<Listener>>();
  /** Per type, the subscribers whose grant covers it; computed on demand, cleared on change. */
  const recipients = new Map<string, readonly Listener[]>();
  const pageSubs = new Map<string, Unsubscribe>();
  const queue: [string, unknown][] = [];
  let flushing = false;

  function allowed(frame: Listener, type: string): boolean {
    const perm = eventPermission(type);
    if (perm === 'none') return false;
    const entry = registry.get(frame.id);
    if (!entry || entry.status !== 'active') return false;
    return perm === 'any' || (entry.granted as string[]).includes(perm);
  }

  function recipientsOf(type: string): readonly Listener[] {
    let list = recipients.get(type);
    if (!list) {
      list = Object.freeze([...(subscribers.get(type) ?? [])].filter((f) => allowed(f, type)));
      recipients.set(type, list);
    }
    return list;
  }

  function deliver(type: string, payload: unknown): void {
    for (const frame of recipientsOf(type)) {
      try {
        frame.deliver(type, payload);
      } catch (err) {
        console.error(`Hearth: could not post "${type}" to the extension ${frame.id}`, err);
      }
    }
  }

  async function flush(): Promise<void> {
    flushing = true;
    try {
      // Invalidated again while reading: the read may predate that change.
      do await registry.fresh();
      while (registry.stale());
    } catch (err) {
      // Without a grant to check them against, the queued events are not delivered.
      console.warn('Hearth: could not read the extensions to deliver events to frames', err);
      queue.length = 0;
      flushing = false;
      return;
    }
    for (const [type, payload] of queue.splice(0)) deliver(type, payload);
    flushing = false;
  }

  function onPageEvent(type: string, payload: unknown): void {
    const stale = registry.stale();
    // Nobody under a current grant: nothing to send. Under a stale one, a
    // frame granted the permission since may be due it.
    if (!stale && !flushing && queue.length === 0 && recipientsOf(type).length === 0) return;
    if (stale || flushing || queue.length > 0) {
      queue.push([type, payload]);
      if (!flushing) void flush();
      return;
    }
    deliver(type, payload);
  }

  function syncPage(type: string): void {
    const wanted = (subscribers.get(type)?.size ?? 0) > 0 && eventPermission(type) !== 'none';
    const has = pageSubs.get(type);
    if (wanted && !has) pageSubs.set(type, events.on(type, (payload) => onPageEvent(type, payload)));
    if (!wanted && has) {
      has();
      pageSubs.delete(type);
    }
  }

  function types(frame: Listener): number {
    let n = 0;
    for (const set of subscribers.values()) if (set.has(frame)) n++;
    return n;
  }

  return {
    subscribe(frame, type) {
      // The frame client fires APP_READY itself after the handshake; the
      // page's is sticky and would arrive a second time.
      if (type === T.APP_READY) return;
      let set = subscribers.get(type);
      if (!set) subscribers.set(type, (set = new Set()));
      set.add(frame);
      recipients.delete(type);
      syncPage(type);
    },
    unsubscribe(frame, type) {
      const set = subscribers.get(type);
      if (!set?.delete(frame)) return;
      if (set.size === 0) subscribers.delete(type);
      recipients.delete(type);
      syncPage(type);
    },
    types,
    subscribers: (type) => [...(subscribers.get(type) ?? [])],
    drop(frame) {
      for (const [type, set] of [...subscribers]) {
        if (!set.delete(frame)) continue;
        if (set.size === 0) subscribers.delete(type);
        recipients.delete(type);
        syncPage(type);
      }
    },
    regrant() {
      recipients.clear();
    },
    close() {
      for (const off of pageSubs.values()) off();
      pageSubs.clear();
      subscribers.clear();
      recipients.clear();
      queue.length = 0;
    },
  };
}
