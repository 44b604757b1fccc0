// The browser transport for `hearth serve`: push events arrive on the
// WebSocket /api/events, and while it is open calls go over it too
// ({id, method, args} → {id, result} | {id, error}, answered in the order
// they end). A browser opens at most six HTTP/1.1 connections to a host
// across all its tabs, so calls that wait on one another (updateChatState
// rounds queued behind a lease) must not each hold one: over the socket no
// call waits for a connection slot. Without the socket, and for arguments
// larger than maxFrameBytes, calls are POST /api/invoke ({method, args} →
// {result} | {error}); so are the bulk reads (streamedReads), which the
// server writes out while it reads them rather than build a socket frame
// of a whole chat in its memory — they wait on no other call, so the
// connection one holds is never one another call waits for. Every call needs a session, which lives in an
// HttpOnly cookie: the address `hearth serve` prints (?token=…) gives one,
// and so does POST /api/login with the server's password or its launch
// token. A dropped event
// socket is reopened after reconnectMs for as long as anyone is subscribed;
// events sent while it was down are lost, so onReconnect tells the ABI to
// re-fetch what it caches.
import { decodeError, HostError, TransportCodes } from './errors';
import { isHostEvent, type EventHandler, type Transport } from './transport';

/** Session is the server's answer to /api/session and /api/login. */
export interface Session {
  authenticated: boolean;
  /** The server has a password: the login form asks for it. */
  passwordRequired: boolean;
  /** The server has no password: its launch token (the access key hearth serve printed) is the way in. */
  tokenRequired: boolean;
}

/** HttpTransport is the browser-mode Transport plus the session calls the login form needs. */
export interface HttpTransport extends Transport {
  onReconnect(handler: () => void): () => void;
  session(): Promise<Session>;
  login(password: string): Promise<Session>;
  loginWithToken(token: string): Promise<Session>;
}

type SocketLike = Pick<WebSocket, 'close' | 'send'> & {
  onopen: (() => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  onclose: (() => void) | null;
};

/** HttpOptions configure createHttpTransport; fetch and openSocket are replaceable for tests. */
export interface HttpOptions {
  /** base is the server's origin, e.g. "http://127.0.0.1:8000". */
  base: string;
  fetch?: typeof fetch;
  openSocket?: (url: string) => SocketLike;
  /** reconnectMs is the pause before reopening a dropped event socket. */
  reconnectMs?: number;
  /** maxFrameBytes: calls whose JSON is longer go by POST (default 1 MiB). */
  maxFrameBytes?: number;
}

/** streamedReads are the methods whose results the server streams over POST. */
const streamedReads = new Set(['chat.getStMessages']);

/** A call sent on the socket and not answered yet. */
interface Pending {
  resolve(v: unknown): void;
  reject(e: unknown): void;
}

/**
 * postJSON POSTs body as JSON to url and decodes the answer; a failure to
 * reach the server or a non-JSON answer is TransportCodes.unavailable, an
 * {error} answer its HostError. The desktop transport's bulk reads use it
 * too, with the token header.
 */
export async function postJSON(doFetch: typeof fetch, url: string, body: unknown, headers: Record<string, string> = {}): Promise<unknown> {
  let res: Response;
  try {
    res = await doFetch(url, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { ...headers, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
  } catch (err) {
    throw new HostError(TransportCodes.unavailable, `cannot reach Hearth: ${String(err)}`);
  }
  return readJSON(res);
}

/**
 * readJSON decodes an answer with res.json(), which parses the body where
 * it arrived instead of first copying it into a page string: a chat page
 * is megabytes of garbage less for the page's collector.
 */
async function readJSON(res: Response): Promise<unknown> {
  let parsed: unknown;
  try {
    parsed = await res.json();
  } catch (err) {
    const why = err instanceof SyntaxError ? 'response is not JSON' : `cannot read the response: ${String(err)}`;
    throw new HostError(TransportCodes.unavailable, `HTTP ${res.status}: ${why}`);
  }
  if (!res.ok) throw decodeError(parsed);
  return parsed;
}

function asSession(v: unknown): Session {
  const s = v as Partial<Session> | null;
  return { authenticated: s?.authenticated === true, passwordRequired: s?.passwordRequired === true, tokenRequired: s?.tokenRequired === true };
}

/** createHttpTransport returns a transport for the `hearth serve` origin in opts.base. */
export function createHttpTransport(opts: HttpOptions): HttpTransport {
  const doFetch = opts.fetch ?? globalThis.fetch.bind(globalThis);
  const base = opts.base.replace(/\/+$/, '');
  const wsURL = base.replace(/^http/, 'ws') + '/api/events';
  const openSocket = opts.openSocket ?? ((url: string) => new WebSocket(url) as SocketLike);
  const reconnectMs = opts.reconnectMs ?? 1000;
  const maxFrameBytes = opts.maxFrameBytes ?? 1 << 20;
  const handlers = new Set<EventHandler>();
  const reconnectHandlers = new Set<() => void>();
  let socket: SocketLike | null = null;
  // open: socket is open (calls may be sent on it).
  let open = false;
  let retry: ReturnType<typeof setTimeout> | null = null;
  // dropped: an open socket closed without us asking, so events were missed.
  let dropped = false;
  let nextId = 1;
  const pending = new Map<number, Pending>();

  /** failPending rejects the calls a closed socket will never answer. */
  function failPending(): void {
    const lost = [...pending.values()];
    pending.clear();
    for (const p of lost) {
      p.reject(new HostError(TransportCodes.unavailable, 'the connection to Hearth closed before the answer came; the call may or may not have run'));
    }
  }

  /** answer settles the call an {id, result|error} frame answers; false when it is no answer. */
  function answer(msg: unknown): boolean {
    if (typeof msg !== 'object' || msg === null || !('id' in msg)) return false;
    const m = msg as { id: unknown; result?: unknown; error?: unknown };
    const p = typeof m.id === 'number' ? pending.get(m.id) : undefined;
    if (!p) return true;
    pending.delete(m.id as number);
    if ('error' in m && m.error !== undefined) p.reject(decodeError(m));
    else p.resolve(m.result ?? null);
    return true;
  }

  function connect(): void {
    if (socket || handlers.size === 0) return;
    const s = openSocket(wsURL);
    socket = s;
    let opened = false;
    s.onopen = () => {
      if (socket !== s) return;
      opened = true;
      open = true;
      if (!dropped) return;
      dropped = false;
      for (const h of [...reconnectHandlers]) h();
    };
    s.onmessage = (ev) => {
      let msg: unknown;
      try {
        msg = JSON.parse(String(ev.data));
      } catch {
        return;
      }
      if (answer(msg)) return;
      if (isHostEvent(msg)) for (const h of [...handlers]) h(msg);
    };
    s.onclose = () => {
      if (socket !== s) return;
      socket = null;
      open = false;
      failPending();
      if (opened) dropped = true;
      if (handlers.size > 0 && retry === null) {
        retry = setTimeout(() => {
          retry = null;
          connect();
        }, reconnectMs);
      }
    };
  }

  function disconnect(): void {
    if (retry !== null) clearTimeout(retry);
    retry = null;
    const s = socket;
    socket = null;
    open = false;
    failPending();
    s?.close();
  }

  /**
   * viaSocket sends a call on the socket when it is open; null when it is
   * not (closed, or still opening: the call then goes by POST rather than
   * wait for a socket that may never open).
   */
  async function viaSocket(method: string, args: readonly unknown[]): Promise<{ result: unknown } | null> {
    const s = socket;
    if (!s || !open || streamedReads.has(method)) return null;
    const id = nextId++;
    const frame = JSON.stringify({ id, method, args });
    if (frame.length > maxFrameBytes) return null;
    const result = new Promise<unknown>((resolve, reject) => pending.set(id, { resolve, reject }));
    try {
      s.send(frame);
    } catch (err) {
      pending.delete(id);
      throw new HostError(TransportCodes.unavailable, `cannot reach Hearth: ${String(err)}`);
    }
    return { result: await result };
  }

  return {
    mode: 'browser',
    async invoke(method, args) {
      const sent = await viaSocket(method, args);
      if (sent) return sent.result;
      const body = await postJSON(doFetch, `${base}/api/invoke`, { method, args });
      return (body as { result?: unknown } | null)?.result ?? null;
    },
    subscribe(handler) {
      const h: EventHandler = (e) => handler(e);
      handlers.add(h);
      connect();
      return () => {
        if (!handlers.delete(h)) return;
        if (handlers.size === 0) disconnect();
      };
    },
    onReconnect(handler) {
      const h = () => handler();
      reconnectHandlers.add(h);
      return () => void reconnectHandlers.delete(h);
    },
    async session() {
      let res: Response;
      try {
        res = await doFetch(`${base}/api/session`, { credentials: 'same-origin' });
      } catch (err) {
        throw new HostError(TransportCodes.unavailable, `cannot reach Hearth: ${String(err)}`);
      }
      return asSession(await readJSON(res));
    },
    async login(password) {
      return asSession(await postJSON(doFetch, `${base}/api/login`, { password }));
    },
    async loginWithToken(token) {
      return asSession(await postJSON(doFetch, `${base}/api/login`, { token }));
    },
  };
}
