// The browser transport over a dropped and reopened event socket, with the
// ABI on top: handlers stay subscribed, and the current chat is re-fetched
// because events sent while the socket was down are lost.
import { describe, expect, it, vi } from 'vitest';
import { createHearthAbi } from './abi';
import { createHttpTransport } from './http';
import { FakeHost, tick } from './testing/fake-host';

interface FakeSocket {
  url: string;
  open: boolean;
  close: () => void;
  send: (data: string) => void;
  onopen: (() => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  onclose: (() => void) | null;
}

/** server wires a FakeHost behind fetch (/api/invoke) and fake WebSockets (/api/events), which take calls too. */
function server(host: FakeHost) {
  const sockets: FakeSocket[] = [];
  const shapeOf = (err: unknown) => (typeof err === 'string' ? (JSON.parse(err) as unknown) : { code: (err as { code: string }).code, message: String(err) });
  host.subscribe((e) => {
    for (const s of sockets) if (s.open) s.onmessage?.({ data: JSON.stringify(e) });
  });
  const fetch = vi.fn(async (_url: string | URL | Request, init?: RequestInit) => {
    const { method, args } = JSON.parse(String(init?.body)) as { method: string; args: unknown[] };
    try {
      const result = await host.invoke(method, args);
      return new Response(JSON.stringify({ result }), { status: 200 });
    } catch (err) {
      return new Response(JSON.stringify({ error: shapeOf(err) }), { status: 400 });
    }
  });
  const openSocket = (url: string) => {
    const s: FakeSocket = {
      url,
      open: false,
      close: vi.fn(() => void (s.open = false)),
      send: vi.fn((data: string) => {
        const { id, method, args } = JSON.parse(data) as { id: number; method: string; args: unknown[] };
        host.invoke(method, args).then(
          (result) => s.open && s.onmessage?.({ data: JSON.stringify({ id, result }) }),
          (err: unknown) => s.open && s.onmessage?.({ data: JSON.stringify({ id, error: shapeOf(err) }) }),
        );
      }),
      onopen: null,
      onmessage: null,
      onclose: null,
    };
    sockets.push(s);
    return s;
  };
  const accept = (s: FakeSocket) => {
    s.open = true;
    s.onopen?.();
  };
  const drop = (s: FakeSocket) => {
    s.open = false;
    s.onclose?.();
  };
  return { sockets, fetch: fetch as unknown as typeof globalThis.fetch, openSocket, accept, drop };
}

describe('http transport reconnect', () => {
  it('reopens a dropped socket, keeps handlers and reports the reconnect (not the first open)', async () => {
    const srv = server(new FakeHost());
    const t = createHttpTransport({ base: 'http://h', fetch: srv.fetch, openSocket: srv.openSocket, reconnectMs: 5 });
    const reconnected = vi.fn();
    const offReconnect = t.onReconnect(reconnected);
    const seen: string[] = [];
    t.subscribe((e) => seen.push(e.type));
    srv.accept(srv.sockets[0]!);
    expect(reconnected).not.toHaveBeenCalled();
    srv.drop(srv.sockets[0]!);
    await new Promise((r) => setTimeout(r, 20));
    expect(srv.sockets).toHaveLength(2);
    srv.sockets[1]!.onclose?.();
    await new Promise((r) => setTimeout(r, 20));
    expect(srv.sockets).toHaveLength(3);
    srv.accept(srv.sockets[2]!);
    expect(reconnected).toHaveBeenCalledOnce();
    srv.sockets[2]!.onmessage?.({ data: '{"type":"after","payload":{}}' });
    expect(seen).toEqual(['after']);
    offReconnect();
    offReconnect();
  });

  it('resubscribes the ABI and resyncs the current chat after a drop', async () => {
    const host = new FakeHost();
    host.addChat('c1', 12);
    const srv = server(host);
    const t = createHttpTransport({ base: 'http://h', fetch: srv.fetch, openSocket: srv.openSocket, reconnectMs: 5 });
    const h = createHearthAbi(t, { connected: Promise.resolve(), load: { tailSize: 5, pageSize: 4 } });
    await h.ready;
    srv.accept(srv.sockets[0]!);
    await h.api.chat.select('c1');
    const received: unknown[] = [];
    h.api.events.on('message_received', (p) => received.push(p.index));

    srv.drop(srv.sockets[0]!);
    await h.api.chat.addMessages('c1', { mes: 'while down' });
    await h.api.chat.deleteMessages('c1', 0);
    await tick();
    expect(h.getContext().chat).toHaveLength(12);
    expect(received).toEqual([]);

    await new Promise((r) => setTimeout(r, 20));
    srv.accept(srv.sockets[1]!);
    await vi.waitFor(() => expect(h.getContext().chat.map((m) => m.mes)).toEqual(host.chat('c1').messages.map((m) => m.mes)));
    expect(h.getContext().chat.at(-1)?.mes).toBe('while down');

    await h.api.chat.addMessages('c1', { mes: 'after' });
    await vi.waitFor(() => expect(received).toEqual([12]));
    expect(h.getContext().chat.at(-1)?.mes).toBe('after');
  });
});
