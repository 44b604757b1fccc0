// Test doubles for the extension host: a page api with a scripted
// extensions.list, frame windows that record what the bridge posts (through
// the real structuredClone, so uncloneable answers fail as in a browser),
// and a wire joining a real frame client to a real bridge.
import { vi } from 'vitest';
import { HostError } from '../../abi/errors';
import { mergeEventTypes } from '../../abi/event-types';
import type { EventPayload, HearthAbi } from '../../abi/types';
import type { ExtensionEntry, ExtensionPermission } from '../../abi/types-extensions';
import type { Bridge } from '../bridge';
import type { FrameGlobal } from '../frame/client';
import { tag, type FrameMessage, type PageMessage, type Tagged } from '../protocol';

/** entry builds an active sandboxed extension's list entry. */
export function entry(id: string, granted: ExtensionPermission[], fields: Partial<ExtensionEntry> = {}): ExtensionEntry {
  return {
    id,
    displayName: id,
    version: '1.0.0',
    author: '',
    mode: 'sandboxed',
    enabled: true,
    permissions: [...granted],
    granted: [...granted],
    status: 'active',
    loadingOrder: 0,
    dependencies: [],
    entry: 'index.html',
    network: [],
    source: { kind: 'path', value: `/pkgs/${id}` },
    installedAt: 1,
    updatedAt: 1,
    ...fields,
  };
}

/** FakePage is a page api: what extensions.list answers, the calls made, and an event emitter. */
export interface FakePage {
  api: HearthAbi['api'];
  hearth: Pick<HearthAbi, 'ready' | 'api' | 'capabilities'>;
  /** extensions is what extensions.list answers (change it to grant or revoke). */
  extensions: ExtensionEntry[];
  /** calls lists every api call as [path, args]. */
  calls: [string, unknown[]][];
  emit(type: string, payload: EventPayload): void;
  /** pageSubs counts the live api.events.on subscriptions per type. */
  pageSubs(type: string): number;
  listCount(): number;
}

/** fakePage makes a FakePage; its methods answer plain data unless a test replaces them. */
export function fakePage(extensions: ExtensionEntry[] = []): FakePage {
  const calls: [string, unknown[]][] = [];
  const handlers = new Map<string, Set<(p: EventPayload) => void>>();
  let lists = 0;
  const page: FakePage = {
    extensions,
    calls,
    api: null as unknown as HearthAbi['api'],
    hearth: null as unknown as FakePage['hearth'],
    emit(type, payload) {
      for (const h of [...(handlers.get(type) ?? [])]) h(payload);
    },
    pageSubs: (type) => handlers.get(type)?.size ?? 0,
    listCount: () => lists,
  };
  const rec =
    (path: string, answer: (...args: unknown[]) => unknown = () => undefined) =>
    (...args: unknown[]) => {
      calls.push([path, args]);
      return answer(...args);
    };
  const asyncRec =
    (path: string, answer: (...args: unknown[]) => unknown = () => undefined) =>
    async (...args: unknown[]) => {
      calls.push([path, args]);
      return answer(...args);
    };
  const api = {
    chat: {
      getMessages: asyncRec('chat.getMessages', (chatId) => [{ id: 'm1', chatId, content: 'hi' }]),
      addMessages: asyncRec('chat.addMessages', () => 3),
      delete: asyncRec('chat.delete'),
      select: asyncRec('chat.select'),
      current: rec('chat.current', () => ({ chatId: 'c1', avatar: 'a.png', groupId: null })),
      get: asyncRec('chat.get', (chatId) => {
        throw new HostError('chat.not_found', `no chat ${String(chatId)}`, { chatId });
      }),
    },
    state: {
      getChatState: asyncRec('state.getChatState', () => ({ value: { fn: () => 1 }, revision: 1 })),
      updateChatState: asyncRec('state.updateChatState'),
    },
    generate: { run: asyncRec('generate.run', () => ({ text: 'ok' })) },
    connections: { list: asyncRec('connections.list', () => []) },
    extensions: {
      list: async () => {
        lists++;
        return page.extensions.map((e) => structuredClone(e));
      },
      install: asyncRec('extensions.install'),
      grant: asyncRec('extensions.grant'),
      reportFailure: vi.fn(async () => undefined),
      storage: {
        get: asyncRec('extensions.storage.get', () => 'stored'),
        set: asyncRec('extensions.storage.set'),
        delete: asyncRec('extensions.storage.delete'),
        list: asyncRec('extensions.storage.list', () => ['a']),
      },
    },
    events: {
      types: mergeEventTypes(undefined),
      on(type: string, h: (p: EventPayload) => void) {
        let set = handlers.get(type);
        if (!set) handlers.set(type, (set = new Set()));
        const own = (p: EventPayload) => h(p);
        set.add(own);
        return () => void set.delete(own);
      },
      once: () => () => {},
      off: () => {},
    },
  };
  page.api = api as unknown as HearthAbi['api'];
  page.hearth = {
    ready: Promise.resolve(),
    api: page.api,
    capabilities: () => ({ abiVersion: 1, namespaces: { chat: 1 }, methods: [], features: ['chat.revision'], eventTypes: {}, stCompat: '1.18.0' }),
  };
  return page;
}

/** FakeFrame is a frame's contentWindow as the bridge posts to it. */
export class FakeFrame {
  readonly posted: Tagged<PageMessage>[] = [];
  postMessage(message: unknown, targetOrigin: string): void {
    if (targetOrigin !== '*') throw new Error(`posted to ${targetOrigin}`);
    this.posted.push(structuredClone(message) as Tagged<PageMessage>);
  }
  /** of lists what was posted of one kind. */
  of<K extends PageMessage['kind']>(kind: K): Extract<Tagged<PageMessage>, { kind: K }>[] {
    return this.posted.filter((m) => m.kind === kind) as Extract<Tagged<PageMessage>, { kind: K }>[];
  }
  /** result finds the answer to call id. */
  result(id: number): Extract<PageMessage, { kind: 'result' }> | undefined {
    return this.of('result').find((m) => m.id === id);
  }
}

/** send hands the bridge a message from frame as a browser would. */
export function send(bridge: Bridge, frame: unknown, message: FrameMessage | Record<string, unknown>, origin = 'null'): void {
  const data = 'protocol' in message ? message : tag(message as FrameMessage);
  bridge.onMessage({ source: frame as MessageEventSource, origin, data: structuredClone(data) });
}

/** flush lets queued promise callbacks and zero timers run. */
export async function flush(n = 10): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((r) => setTimeout(r, 0));
}

/** FakeFrameGlobal is a frame's window for a real frame client, joined to a bridge by wire(). */
export interface FakeFrameGlobal extends FrameGlobal {
  /** contentWindow is the object the bridge knows the frame by. */
  readonly contentWindow: { postMessage(message: unknown, targetOrigin: string): void };
  /** fire dispatches a window event ('error', 'unhandledrejection') in the frame. */
  fire(type: string, event: unknown): void;
  /** loaded fires DOMContentLoaded. */
  loaded(): void;
  /** sent lists what the frame posted to its parent. */
  readonly sent: Tagged<FrameMessage>[];
  [name: string]: unknown;
}

/**
 * wire makes a frame window whose posts reach bridge (as from an opaque
 * origin) and whose contentWindow, once attached, hands the bridge's posts to
 * the frame's listeners (from the page's origin), each on a later task.
 */
export function wire(bridge: Bridge | null, pathname = '/ext/demo/index.html'): FakeFrameGlobal {
  const listeners = new Map<string, Set<(e: never) => void>>();
  const domListeners: (() => void)[] = [];
  const sent: Tagged<FrameMessage>[] = [];
  const parent = {
    postMessage(message: unknown) {
      sent.push(structuredClone(message) as Tagged<FrameMessage>);
      const data = structuredClone(message);
      setTimeout(() => bridge?.onMessage({ source: contentWindow as unknown as MessageEventSource, origin: 'null', data }), 0);
    },
  };
  const contentWindow = {
    postMessage(message: unknown) {
      const data = structuredClone(message);
      setTimeout(() => fire('message', { source: parent, origin: 'http://127.0.0.1:8080', data }), 0);
    },
  };
  function fire(type: string, event: unknown): void {
    for (const fn of [...(listeners.get(type) ?? [])]) (fn as (e: unknown) => void)(event);
  }
  const g: FakeFrameGlobal = {
    parent,
    contentWindow,
    sent,
    location: { pathname },
    document: {
      readyState: 'loading',
      documentElement: { style: { colorScheme: '' }, dataset: {} },
      addEventListener(type: string, fn: () => void) {
        if (type === 'DOMContentLoaded') domListeners.push(fn);
      },
    },
    addEventListener(type, fn) {
      let set = listeners.get(type);
      if (!set) listeners.set(type, (set = new Set()));
      set.add(fn);
    },
    removeEventListener(type, fn) {
      listeners.get(type)?.delete(fn);
    },
    fire,
    loaded() {
      (g.document as { readyState: string }).readyState = 'interactive';
      for (const fn of domListeners.splice(0)) fn();
    },
  };
  return g;
}
