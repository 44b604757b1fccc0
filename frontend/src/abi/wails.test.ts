import { describe, expect, it, vi } from 'vitest';
import { HostError } from './errors';
import { createWailsTransport, findWails, WAILS_EVENT, type EventsOn } from './wails';

function fakeEvents() {
  const listeners = new Map<string, Set<(...data: unknown[]) => void>>();
  const eventsOn: EventsOn = (name, cb) => {
    const set = listeners.get(name) ?? new Set();
    listeners.set(name, set);
    set.add(cb);
    return () => set.delete(cb);
  };
  const emit = (name: string, ...data: unknown[]) => listeners.get(name)?.forEach((cb) => cb(...data));
  return { eventsOn, emit };
}

describe('wails transport', () => {
  it('passes the token, method and JSON args, and parses the result', async () => {
    const bridge = vi.fn(async () => '[{"avatar":"a.png"}]');
    const t = createWailsTransport('tok', { invoke: bridge, eventsOn: fakeEvents().eventsOn });
    await expect(t.invoke('characters.list', [1, 'x'])).resolves.toEqual([{ avatar: 'a.png' }]);
    expect(bridge).toHaveBeenCalledWith('tok', 'characters.list', '[1,"x"]');
  });

  it('turns a rejected call into a HostError with code and details', async () => {
    const bridge = vi.fn(async () => {
      throw '{"code":"chat.conflict","message":"revision moved","details":{"currentRevision":3}}';
    });
    const t = createWailsTransport('tok', { invoke: bridge, eventsOn: fakeEvents().eventsOn });
    const err = await t.invoke('chat.addMessages', []).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HostError);
    expect(err).toMatchObject({ code: 'chat.conflict', details: { currentRevision: 3 } });
  });

  it('delivers well-formed events until unsubscribed', () => {
    const ev = fakeEvents();
    const t = createWailsTransport('tok', { invoke: vi.fn(), eventsOn: ev.eventsOn });
    const seen: string[] = [];
    const off = t.subscribe((e) => seen.push(e.type));
    ev.emit(WAILS_EVENT, { type: 'chat_created', payload: { chatId: 'c' } });
    ev.emit(WAILS_EVENT, 'garbage');
    off();
    off();
    ev.emit(WAILS_EVENT, { type: 'chat_deleted', payload: {} });
    expect(seen).toEqual(['chat_created']);
  });
});

describe('findWails', () => {
  it('finds the bound bridge and the runtime', () => {
    const w = { go: { wailsbridge: { Bridge: { Invoke: () => {} } } }, runtime: { EventsOn: () => {} } };
    expect(findWails(w)).not.toBeNull();
  });
  it('returns null in a plain browser', () => {
    expect(findWails({})).toBeNull();
    expect(findWails({ go: { wailsbridge: {} }, runtime: { EventsOn: () => {} } })).toBeNull();
  });
});
