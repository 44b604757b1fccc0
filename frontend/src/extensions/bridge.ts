// The bridge: the only code that answers a sandboxed extension's frame
// (DESIGN §1). One 'message' listener on the window takes a message only
// from the contentWindow of a frame the host attached, with the opaque
// origin a sandboxed frame has ('null'), in the protocol's shape and within
// its bounds; anything else is ignored and counted. Each call is checked
// against a rule (permissions.ts) and the extension's grant as read after
// the call arrived, then made on the page's own window.__HEARTH__.api, and
// its answer (or error) posted back. The frames granted prompt.hooks take
// part in the window's prompt hooks through it (bridge-hooks.ts).
import { decodeError, HostError, type HostErrorShape } from '../abi/errors';
import type { FramePromptHooks } from '../abi/prompt-hooks';
import type { Capabilities, HearthAbi } from '../abi/types';
import type { ExtensionEntry, ExtensionPermission } from '../abi/types-extensions';
import { checkArgs } from './bounded';
import { createEventRouter, type EventRouter, type Listener } from './bridge-events';
import { createHookRunner, type HookRunner } from './bridge-hooks';
import { METHOD_RULES, STORAGE_OPTS_AT, UI_RULES, type MethodRule } from './permissions';
import { isTagged, LIMITS, METHOD_PATH, tag, type FrameCapabilities, type FrameMessage, type FrameTheme, type PageMessage, type StartHook } from './protocol';
import { CALL_RATE, IN_FLIGHT, NOTIFY_RATE, QUEUED, TokenBucket } from './rate-limit';
import type { ExtensionRegistry } from './registry';

/** FrameWindow is what the bridge needs of a frame's contentWindow. */
export interface FrameWindow {
  postMessage(message: unknown, targetOrigin: string): void;
}

/** What the host hears of a frame's start (bridge.attach). */
export interface FrameHooks {
  /** activate is the global function hooks.activate names, sent in the welcome. */
  activate: string | null;
  /** startHook is the hook for why the frame started (install, update, enable), sent in the welcome; null or absent: none. */
  startHook?: StartHook | null;
  onHello(): void;
  onActivated(): void;
  onFailed(error: string): void;
}

/** BridgeDeps are what the bridge reaches: the page's ABI, the registry, the toasts. */
export interface BridgeDeps {
  api: HearthAbi['api'];
  capabilities: () => Capabilities;
  registry: ExtensionRegistry;
  /** theme is the window's colour theme, sent in the welcome (dark when absent). */
  theme?: () => FrameTheme;
  /** notify shows an extension's ui.notify message to the person. */
  notify(extension: ExtensionEntry, message: string): void;
  /** now is the clock of the rate limits and of the prompt hooks' deadlines (ms). */
  now?: () => number;
  /** hookTimeoutMs is the most one frame's prompt hook may take (bridge-hooks.ts FRAME_HOOK_TIMEOUT_MS). */
  hookTimeoutMs?: number;
}

/** BridgeStats count what the bridge ignored, by reason (for tests and diagnostics). */
export interface BridgeStats {
  ignored: number;
  reasons: Record<string, number>;
}

/** Bridge is the window's half of the protocol. */
export interface Bridge {
  /** onMessage is the window's 'message' listener. */
  onMessage(event: Pick<MessageEvent, 'source' | 'origin' | 'data'>): void;
  /** listen adds onMessage to target and returns its removal. */
  listen(target: Pick<Window, 'addEventListener' | 'removeEventListener'>): () => void;
  /** attach starts answering frame as extension id; detach forgets it (its calls in flight are dropped). */
  attach(id: string, frame: FrameWindow, hooks: FrameHooks): () => void;
  stats(): BridgeStats;
  /** setTheme tells every frame that said hello the window's new colour theme. */
  setTheme(theme: FrameTheme): void;
  /** promptHooks are the frames' prompt hooks, for the window's (abi/prompt-hooks.ts registerFrameHooks). */
  readonly promptHooks: FramePromptHooks;
  close(): void;
}

/** NOTIFY_MAX is the longest ui.notify message, in characters. */
export const NOTIFY_MAX = 500;

interface FrameState extends Listener {
  readonly window: FrameWindow;
  readonly hooks: FrameHooks;
  readonly calls: TokenBucket;
  readonly toasts: TokenBucket;
  hello: boolean;
  /** inFlight counts the calls under way on the page api; waiting, those queued for a place. */
  inFlight: number;
  waiting: (() => void)[];
  attached: boolean;
  /** granted is the grant last posted to the frame (to post changes only). */
  granted: string;
}

const MAX_WALK_DEPTH = 4;

/** apiMethods lists the dotted path of every function under api, nested objects to a bounded depth. */
export function apiMethods(api: object, prefix = '', depth = 1): string[] {
  const out: string[] = [];
  for (const [key, value] of Object.entries(api)) {
    const path = prefix + key;
    if (typeof value === 'function') out.push(path);
    else if (typeof value === 'object' && value !== null && !Array.isArray(value) && depth < MAX_WALK_DEPTH) {
      out.push(...apiMethods(value as object, `${path}.`, depth + 1));
    }
  }
  return out;
}

/** lookup finds the function at a dotted path of api, by own properties only. */
function lookup(api: object, path: string): ((...args: unknown[]) => unknown) | null {
  let at: unknown = api;
  for (const part of path.split('.')) {
    if (typeof at !== 'object' || at === null || !Object.hasOwn(at, part)) return null;
    at = (at as Record<string, unknown>)[part];
  }
  return typeof at === 'function' ? (at as (...args: unknown[]) => unknown) : null;
}

function denied(method: string, permission: MethodRule | null, message: string): HostError {
  return new HostError('auth.denied', message, { permission, method });
}

function shape(err: unknown): HostErrorShape {
  const e = decodeError(err);
  return e.details === undefined ? { code: e.code, message: e.message } : { code: e.code, message: e.message, details: e.details };
}

/** createBridge returns the bridge; listen() puts it on the window. */
export function createBridge(deps: BridgeDeps): Bridge {
  const now = deps.now ?? (() => performance.now());
  const frames = new Map<unknown, FrameState>();
  const stats: BridgeStats = { ignored: 0, reasons: {} };
  const router: EventRouter = createEventRouter(deps.api.events, deps.registry);
  const hooks: HookRunner = createHookRunner({
    registry: deps.registry,
    subscribers: (type) => router.subscribers(type),
    post: (frame, message) => post(frame as FrameState, message),
    now,
    ...(deps.hookTimeoutMs === undefined ? {} : { timeoutMs: deps.hookTimeoutMs }),
  });
  /** The api paths frames are offered, in the api's order. */
  const offered = apiMethods(deps.api).filter((m) => {
    const rule = METHOD_RULES.get(m);
    return rule !== undefined && rule !== 'not-bridged';
  });
  const unwatch = deps.registry.onChange(() => {
    router.regrant();
    for (const f of frames.values()) if (f.hello) postGrant(f);
  });

  /** forget stops answering frame: its waiting calls wake to find it gone. */
  function forget(frame: FrameState): void {
    frame.attached = false;
    router.drop(frame);
    hooks.drop(frame);
    for (const wake of frame.waiting.splice(0)) wake();
  }

  function ignore(reason: string): void {
    stats.ignored++;
    stats.reasons[reason] = (stats.reasons[reason] ?? 0) + 1;
  }

  function post(frame: FrameState, message: PageMessage): void {
    frame.window.postMessage(tag(message), '*');
  }

  function grantOf(id: string): ExtensionPermission[] {
    return [...(deps.registry.get(id)?.granted ?? [])];
  }

  function postGrant(frame: FrameState): void {
    const granted = grantOf(frame.id);
    const key = granted.join(' ');
    if (key === frame.granted) return;
    frame.granted = key;
    post(frame, { kind: 'grant', permissions: granted });
  }

  function welcome(frame: FrameState): void {
    const caps = deps.capabilities();
    const capabilities: FrameCapabilities = {
      abiVersion: 1,
      namespaces: { ...caps.namespaces },
      methods: [...offered],
      ui: [...UI_RULES.keys()],
      features: [...caps.features],
      eventTypes: { ...deps.api.events.types },
    };
    const granted = grantOf(frame.id);
    frame.granted = granted.join(' ');
    post(frame, { kind: 'welcome', extension: { id: frame.id, permissions: granted }, capabilities, activate: frame.hooks.activate, startHook: frame.hooks.startHook ?? null, theme: deps.theme?.() ?? 'dark' });
  }

  function answer(frame: FrameState, id: number, method: string, value: unknown): void {
    if (!frame.attached) return;
    try {
      post(frame, { kind: 'result', id, ok: true, value });
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      reject(frame, id, new HostError('extension.uncloneable', `the answer of ${method} cannot be sent to a frame: ${why}`, { method }));
    }
  }

  function reject(frame: FrameState, id: number, err: unknown): void {
    if (!frame.attached) return;
    try {
      post(frame, { kind: 'result', id, ok: false, error: shape(err) });
    } catch {
      // details that cannot be cloned: send the code and message alone.
      const e = decodeError(err);
      post(frame, { kind: 'result', id, ok: false, error: { code: e.code, message: e.message } });
    }
  }

  /** authorize resolves the rule of method for frame under its current grant (registry.current()), or throws auth.denied. */
  async function authorize(frame: FrameState, method: string, rule: MethodRule): Promise<ExtensionEntry> {
    await deps.registry.current();
    const entry = deps.registry.get(frame.id);
    if (!entry || entry.status !== 'active' || entry.mode !== 'sandboxed') {
      throw denied(method, rule, `the extension ${frame.id} is not running`);
    }
    if (rule !== 'own-storage' && !(entry.granted as string[]).includes(rule)) {
      throw denied(method, rule, `${method} needs the permission "${rule}", which ${entry.displayName || entry.id} was not granted`);
    }
    return entry;
  }

  async function uiCall(frame: FrameState, entry: ExtensionEntry, method: string, args: unknown[]): Promise<unknown> {
    if (method === 'ui.notify') {
      const text = args[0];
      if (typeof text !== 'string' || text.trim() === '') throw new HostError('validation.invalid_argument', 'ui.notify takes the message as a non-empty string');
      if (text.length > NOTIFY_MAX) throw new HostError('validation.invalid_argument', `ui.notify's message is longer than ${NOTIFY_MAX} characters`, { max: NOTIFY_MAX });
      if (!frame.toasts.take()) {
        throw new HostError('extension.rate_limited', `an extension may show at most ${NOTIFY_RATE.perSecond} message a second (bursts of ${NOTIFY_RATE.burst})`, {
          limit: NOTIFY_RATE.perSecond,
          burst: NOTIFY_RATE.burst,
        });
      }
      deps.notify(entry, text);
      return undefined;
    }
    throw new HostError('host.unknown_method', `no frame method ${method}`);
  }

  async function call(frame: FrameState, id: number, method: string, args: unknown[]): Promise<void> {
    const ui = UI_RULES.get(method);
    const rule = ui ?? METHOD_RULES.get(method);
    if (rule === undefined || rule === 'not-bridged') throw denied(method, null, `${method} is not a method a frame may call`);
    if (rule === 'never') throw denied(method, null, `no extension may call ${method}`);
    const entry = await authorize(frame, method, rule);
    if (!frame.attached) return;
    await slot(frame);
    try {
      if (!frame.attached) return;
      let value: unknown;
      if (ui) value = await uiCall(frame, entry, method, args);
      else {
        const fn = lookup(deps.api, method);
        if (!fn) throw new HostError('host.unknown_method', `no method ${method}`);
        let passed = args;
        if (rule === 'own-storage') {
          const at = STORAGE_OPTS_AT.get(method);
          if (at === undefined) throw denied(method, rule, `${method} has no place for the extension's own namespace`);
          passed = Array.from({ length: at }, (_, i) => args[i]);
          passed.push({ extensionId: frame.id });
        }
        value = await fn(...passed);
      }
      answer(frame, id, method, value);
    } finally {
      release(frame);
    }
  }

  /** slot waits for one of the frame's IN_FLIGHT places; past QUEUED waiting calls it refuses. */
  async function slot(frame: FrameState): Promise<void> {
    if (frame.inFlight < IN_FLIGHT) {
      frame.inFlight++;
      return;
    }
    if (frame.waiting.length >= QUEUED) {
      throw new HostError('extension.rate_limited', `an extension may have at most ${IN_FLIGHT} calls under way and ${QUEUED} waiting`, {
        inFlight: IN_FLIGHT,
        queued: QUEUED,
      });
    }
    await new Promise<void>((resolve) => frame.waiting.push(resolve));
  }

  /** release hands the place on to the next waiting call, if any. */
  function release(frame: FrameState): void {
    const next = frame.waiting.shift();
    if (next) next();
    else frame.inFlight--;
  }

  function onCall(frame: FrameState, data: Record<string, unknown>): void {
    const { id, method, args } = data;
    if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 0) return ignore('call-id');
    if (!frame.calls.take()) {
      reject(
        frame,
        id,
        new HostError('extension.rate_limited', `an extension may make at most ${CALL_RATE.perSecond} calls a second (bursts of ${CALL_RATE.burst})`, {
          limit: CALL_RATE.perSecond,
          burst: CALL_RATE.burst,
        }),
      );
      return;
    }
    if (typeof method !== 'string' || method.length > LIMITS.methodLength || !METHOD_PATH.test(method)) return ignore('call-method');
    if (!Array.isArray(args) || args.length > LIMITS.args) return ignore('call-args');
    const why = checkArgs(args);
    if (why) {
      reject(frame, id, new HostError('validation.invalid_argument', `${method}: ${why}`, { method }));
      return ignore('call-bounds');
    }
    call(frame, id, method, args as unknown[]).catch((err: unknown) => reject(frame, id, err));
  }

  function onFrameMessage(frame: FrameState, data: Record<string, unknown>): void {
    const kind = data.kind as FrameMessage['kind'];
    if (kind === 'hello') {
      const path = data.path;
      if (typeof path !== 'string' || path.length > LIMITS.pathLength) return ignore('hello-path');
      // A frame may navigate itself; another package's page in this frame would run with this grant.
      if (!path.startsWith(`/ext/${encodeURIComponent(frame.id)}/`)) {
        ignore('hello-elsewhere');
        frame.hooks.onFailed(`its frame left its own package (it loaded ${path.slice(0, 200)})`);
        return;
      }
      // A reload of the frame's document starts a new client: its old subscriptions (and hooks asked) are gone.
      router.drop(frame);
      hooks.drop(frame);
      frame.hello = true;
      welcome(frame);
      frame.hooks.onHello();
      return;
    }
    if (!frame.hello) return ignore('before-hello');
    switch (kind) {
      case 'call':
        return onCall(frame, data);
      case 'subscribe':
      case 'unsubscribe': {
        const type = data.type;
        if (typeof type !== 'string' || type === '' || type.length > LIMITS.typeLength) return ignore('event-type');
        if (!frame.calls.take()) return ignore('rate-limited');
        if (kind === 'unsubscribe') return router.unsubscribe(frame, type);
        if (router.types(frame) >= LIMITS.subscriptions) return ignore('subscriptions');
        return router.subscribe(frame, type);
      }
      case 'hookResult':
        return hooks.settle(frame, data);
      case 'activated':
        return frame.hooks.onActivated();
      case 'failed': {
        const error = typeof data.error === 'string' && data.error.trim() !== '' ? data.error.slice(0, LIMITS.errorLength) : 'it reported a failure without a message';
        return frame.hooks.onFailed(error);
      }
      default:
        return ignore('kind');
    }
  }

  function onMessage(event: Pick<MessageEvent, 'source' | 'origin' | 'data'>): void {
    const frame = event.source ? frames.get(event.source) : undefined;
    if (!frame) return ignore('source');
    if (event.origin !== 'null') return ignore('origin');
    if (!isTagged(event.data)) return ignore('shape');
    onFrameMessage(frame, event.data);
  }

  return {
    onMessage,
    listen(target) {
      const fn = (e: Event) => onMessage(e as MessageEvent);
      target.addEventListener('message', fn);
      return () => target.removeEventListener('message', fn);
    },
    attach(id, window, hooks) {
      const frame: FrameState = {
        id,
        window,
        hooks,
        calls: new TokenBucket(CALL_RATE.perSecond, CALL_RATE.burst, now),
        toasts: new TokenBucket(NOTIFY_RATE.perSecond, NOTIFY_RATE.burst, now),
        hello: false,
        inFlight: 0,
        waiting: [],
        attached: true,
        granted: '',
        deliver(type, payload) {
          post(frame, { kind: 'event', type, payload });
        },
      };
      const replaced = frames.get(window);
      if (replaced) forget(replaced);
      frames.set(window, frame);
      return () => {
        if (frames.get(window) !== frame) return;
        frames.delete(window);
        forget(frame);
      };
    },
    stats: () => ({ ignored: stats.ignored, reasons: { ...stats.reasons } }),
    setTheme(theme) {
      for (const f of frames.values()) {
        if (!f.hello) continue;
        try {
          post(f, { kind: 'theme', theme });
        } catch (err) {
          console.warn(`Hearth: could not tell the extension ${f.id} the theme`, err);
        }
      }
    },
    promptHooks: { wants: () => hooks.wants(), run: (request, deadline) => hooks.run(request, deadline) },
    close() {
      for (const f of frames.values()) forget(f);
      frames.clear();
      hooks.close();
      router.close();
      unwatch();
    },
  };
}
