import { describe, expect, it, vi } from 'vitest';
import { HostError } from './errors';
import { createWailsTransport, findWails, STREAM_PATH, STREAMED, TOKEN_HEADER, WAILS_EVENT, type EventsOn } from './wails';

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

describe('wails transport bulk reads', () => {
  const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

  it('sends the streamed reads to the asset handler with the token header, everything else over IPC', async () => {
    const bridge = vi.fn(async () => '{"chatId":"c"}');
    const fetch = vi.fn(async (_url: string | URL | Request, _init?: RequestInit) => json(200, { result: [{ mes: 'hi' }] }));
    const t = createWailsTransport('tok', { invoke: bridge, eventsOn: fakeEvents().eventsOn }, { fetch });
    expect(STREAMED.has('chat.getStMessages')).toBe(true);
    await expect(t.invoke('chat.getStMessages', ['c', { tail: 1 }])).resolves.toEqual([{ mes: 'hi' }]);
    await expect(t.invoke('chat.get', ['c'])).resolves.toEqual({ chatId: 'c' });
    expect(fetch).toHaveBeenCalledTimes(1);
    const [url, init] = fetch.mock.calls[0]!;
    expect(url).toBe(STREAM_PATH);
    expect(init?.method).toBe('POST');
    expect(init?.headers).toMatchObject({ [TOKEN_HEADER]: 'tok', 'Content-Type': 'application/json' });
    expect(JSON.parse(String(init?.body))).toEqual({ method: 'chat.getStMessages', args: ['c', { tail: 1 }] });
    expect(bridge).toHaveBeenCalledTimes(1);
    expect(bridge).toHaveBeenCalledWith('tok', 'chat.get', '["c"]');
  });

  it('throws a host error from the stream as it is, without retrying over IPC', async () => {
    const bridge = vi.fn(async () => '[]');
    const fetch = vi.fn(async () => json(404, { error: { code: 'chat.not_found', message: 'no such chat', details: { chatId: 'c' } } }));
    const t = createWailsTransport('tok', { invoke: bridge, eventsOn: fakeEvents().eventsOn }, { fetch });
    const err = await t.invoke('chat.getStMessages', ['c']).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HostError);
    expect(err).toMatchObject({ code: 'chat.not_found', details: { chatId: 'c' } });
    expect(bridge).not.toHaveBeenCalled();
  });

  it('falls back to IPC for good when the asset handler cannot answer', async () => {
    const bridge = vi.fn(async () => '[{"mes":"over ipc"}]');
    const fetch = vi.fn(async () => new Response('<html>not here</html>', { status: 404 }));
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const t = createWailsTransport('tok', { invoke: bridge, eventsOn: fakeEvents().eventsOn }, { fetch });
    await expect(t.invoke('chat.getStMessages', ['c'])).resolves.toEqual([{ mes: 'over ipc' }]);
    await expect(t.invoke('chat.getStMessages', ['c'])).resolves.toEqual([{ mes: 'over ipc' }]);
    expect(fetch).toHaveBeenCalledTimes(1);
    expect(bridge).toHaveBeenCalledTimes(2);
    expect(warn).toHaveBeenCalledTimes(1);
    warn.mockRestore();
  });

  it('sends everything over IPC when told not to fetch', async () => {
    const bridge = vi.fn(async () => '[]');
    const t = createWailsTransport('tok', { invoke: bridge, eventsOn: fakeEvents().eventsOn }, { fetch: null });
    await t.invoke('chat.getStMessages', ['c']);
    expect(bridge).toHaveBeenCalledWith('tok', 'chat.getStMessages', '["c"]');
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
