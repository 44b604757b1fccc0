import { describe, expect, it, vi } from 'vitest';
import { HostError } from './errors';
import { createHttpTransport } from './http';

function respond(status: number, body: string): typeof fetch {
  return vi.fn(async () => new Response(body, { status, headers: { 'Content-Type': 'application/json' } }));
}

interface FakeSocket {
  url: string;
  close: () => void;
  send: (data: string) => void;
  onopen: (() => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  onclose: (() => void) | null;
}

describe('http transport', () => {
  it('posts {method, args} and unwraps {result}', async () => {
    const f = respond(200, '{"result":[1,2]}');
    const t = createHttpTransport({ base: 'http://127.0.0.1:9/', fetch: f });
    await expect(t.invoke('chat.count', ['c1'])).resolves.toEqual([1, 2]);
    const [url, init] = vi.mocked(f).mock.calls[0]!;
    expect(url).toBe('http://127.0.0.1:9/api/invoke');
    expect(JSON.parse(String(init?.body))).toEqual({ method: 'chat.count', args: ['c1'] });
  });

  it('decodes {"error": shape} into a HostError', async () => {
    const t = createHttpTransport({
      base: 'http://h',
      fetch: respond(409, '{"error":{"code":"chat.conflict","message":"stale","details":{"currentRevision":2}}}'),
    });
    const err = await t.invoke('chat.patch', []).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HostError);
    expect(err).toMatchObject({ code: 'chat.conflict', details: { currentRevision: 2 } });
  });

  it('reports a non-JSON answer or a network failure as transport.unavailable', async () => {
    const bad = createHttpTransport({ base: 'http://h', fetch: respond(502, '<html>bad gateway</html>') });
    await expect(bad.invoke('x.y', [])).rejects.toMatchObject({ code: 'transport.unavailable' });
    const down = createHttpTransport({
      base: 'http://h',
      fetch: vi.fn(async () => {
        throw new TypeError('Failed to fetch');
      }),
    });
    await expect(down.invoke('x.y', [])).rejects.toMatchObject({ code: 'transport.unavailable' });
  });

  it('reads the session and logs in', async () => {
    const t = createHttpTransport({ base: 'http://h', fetch: respond(200, '{"authenticated":false,"passwordRequired":true}') });
    await expect(t.session()).resolves.toEqual({ authenticated: false, passwordRequired: true, tokenRequired: false });
    const wrong = createHttpTransport({ base: 'http://h', fetch: respond(401, '{"error":{"code":"auth.denied","message":"wrong password"}}') });
    await expect(wrong.login('nope')).rejects.toMatchObject({ code: 'auth.denied' });
  });

  it('logs in with the launch token', async () => {
    const fetch = respond(200, '{"authenticated":true,"passwordRequired":false,"tokenRequired":true}');
    const t = createHttpTransport({ base: 'http://h', fetch });
    await expect(t.loginWithToken('k3y')).resolves.toEqual({ authenticated: true, passwordRequired: false, tokenRequired: true });
    expect(fetch).toHaveBeenCalledWith('http://h/api/login', expect.objectContaining({ method: 'POST', body: '{"token":"k3y"}' }));
  });

  it('opens one event socket while subscribed and closes it after the last unsubscribe', () => {
    const sockets: FakeSocket[] = [];
    const t = createHttpTransport({
      base: 'https://h:8',
      fetch: respond(200, '{}'),
      openSocket: (url) => {
        const s: FakeSocket = { url, close: vi.fn(), send: vi.fn(), onopen: null, onmessage: null, onclose: null };
        sockets.push(s);
        return s;
      },
    });
    const a: string[] = [];
    const offA = t.subscribe((e) => a.push(e.type));
    const offB = t.subscribe(() => {});
    expect(sockets).toHaveLength(1);
    expect(sockets[0]!.url).toBe('wss://h:8/api/events');
    sockets[0]!.onmessage?.({ data: '{"type":"chat_created","payload":{}}' });
    sockets[0]!.onmessage?.({ data: 'not json' });
    offA();
    offA();
    expect(sockets[0]!.close).not.toHaveBeenCalled();
    offB();
    expect(sockets[0]!.close).toHaveBeenCalledOnce();
    expect(a).toEqual(['chat_created']);
  });
  it('sends calls on the open socket, matches answers by id in any order, and falls back to POST', async () => {
    const sockets: FakeSocket[] = [];
    const sent: { id: number; method: string; args: unknown[] }[] = [];
    const fetch = respond(200, '{"result":"by post"}');
    const t = createHttpTransport({
      base: 'http://h',
      fetch,
      maxFrameBytes: 200,
      openSocket: (url) => {
        const s: FakeSocket = { url, close: vi.fn(), send: vi.fn((d: string) => void sent.push(JSON.parse(d))), onopen: null, onmessage: null, onclose: null };
        sockets.push(s);
        return s;
      },
    });
    t.subscribe(() => {});
    // Still opening: the call goes by POST instead of waiting.
    await expect(t.invoke('a.b', [1])).resolves.toBe('by post');
    sockets[0]!.onopen?.();
    const first = t.invoke('x.first', [1]);
    const second = t.invoke('x.second', [2]);
    const failing = t.invoke('x.fail', []);
    expect(sent.map((c) => c.method)).toEqual(['x.first', 'x.second', 'x.fail']);
    expect(new Set(sent.map((c) => c.id)).size).toBe(3);
    const [a, b, c] = sent;
    sockets[0]!.onmessage?.({ data: JSON.stringify({ id: b!.id, result: 'two' }) });
    sockets[0]!.onmessage?.({ data: JSON.stringify({ id: c!.id, error: { code: 'state.conflict', message: 'moved on' } }) });
    sockets[0]!.onmessage?.({ data: JSON.stringify({ id: a!.id, result: null }) });
    await expect(second).resolves.toBe('two');
    await expect(first).resolves.toBeNull();
    await expect(failing).rejects.toMatchObject({ code: 'state.conflict', message: 'moved on' });
    // Too large for a frame: by POST.
    await expect(t.invoke('big.one', ['x'.repeat(300)])).resolves.toBe('by post');
    // A whole-chat read: by POST, where the server streams it.
    await expect(t.invoke('chat.getStMessages', ['c1'])).resolves.toBe('by post');
    expect(sent).toHaveLength(3);
    expect(fetch).toHaveBeenCalledTimes(3);
    // The socket closes with a call unanswered: it fails, and later calls go by POST.
    const lost = t.invoke('x.lost', []);
    sockets[0]!.onclose?.();
    await expect(lost).rejects.toMatchObject({ code: 'transport.unavailable' });
    await expect(t.invoke('a.b', [])).resolves.toBe('by post');
  });
});
