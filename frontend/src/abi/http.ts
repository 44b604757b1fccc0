// The browser transport for `hearth serve`: calls are POST /api/invoke
// ({method, args} → {result} | {error}), push events arrive on the
// WebSocket /api/events. Every call needs a session, which lives in an
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

type SocketLike = Pick<WebSocket, 'close'> & {
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
  const handlers = new Set<EventHandler>();
  const reconnectHandlers = new Set<() => void>();
  let socket: SocketLike | null = null;
  let retry: ReturnType<typeof setTimeout> | null = null;
  // dropped: an open socket closed without us asking, so events were missed.
  let dropped = false;

  function connect(): void {
    if (socket || handlers.size === 0) return;
    const s = openSocket(wsURL);
    socket = s;
    let opened = false;
    s.onopen = () => {
      if (socket !== s) return;
      opened = true;
      if (!dropped) return;
      dropped = false;
      for (const h of [...reconnectHandlers]) h();
    };
    s.onmessage = (ev) => {
      let event: unknown;
      try {
        event = JSON.parse(String(ev.data));
      } catch {
        return;
      }
      if (isHostEvent(event)) for (const h of [...handlers]) h(event);
    };
    s.onclose = () => {
      if (socket !== s) return;
      socket = null;
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
    s?.close();
  }

  return {
    mode: 'browser',
    async invoke(method, args) {
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
