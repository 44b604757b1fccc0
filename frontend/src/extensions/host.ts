// The extension host: the window's half of the sandboxed tier. It keeps one
// frame per active sandboxed extension (api.extensions.list, read again on
// every EXTENSION_* event), attaches each to the bridge, and watches it
// start: the frame client's handshake within 5 s of the frame's creation,
// and 'activated' within 5 s of the frame's load. A frame that fails either,
// or whose activate hook throws, is removed and reported
// (api.extensions.reportFailure); the app goes on. It knows nothing of
// Svelte: the UI gives it a FrameDom (where frames go) and reads its
// panels and open-panel stores.
import { writable, type Readable } from 'svelte/store';
import { registerFrameHooks } from '../abi/prompt-hooks';
import type { HearthAbi } from '../abi/types';
import type { ExtensionEntry } from '../abi/types-extensions';
import { createBridge, type Bridge, type FrameWindow } from './bridge';
import { fetchManifest, frameHooks, frameSrc, panelOf, runsInFrame, type PanelInfo } from './entry';
import type { FrameTheme, StartHook } from './protocol';
import { createRegistry, type ExtensionRegistry } from './registry';

export type { PanelInfo } from './entry';

/** FrameHandle is one frame element the FrameDom made. */
export interface FrameHandle {
  /** window is the frame's contentWindow (the bridge knows the frame by it). */
  readonly window: FrameWindow | null;
  onLoad(fn: () => void): void;
  /** show shows or hides a panel frame (hidden frames stay running). */
  show(visible: boolean): void;
  remove(): void;
}

/** FrameSpec says what frame to make. */
export interface FrameSpec {
  id: string;
  src: string;
  /** panel: the frame goes in the panel area (shown when its panel is open); else it is hidden. */
  panel: boolean;
  title: string;
}

/** FrameDom makes frames (dom.ts in the browser, a fake in tests). */
export interface FrameDom {
  create(spec: FrameSpec): FrameHandle;
}

/** HostNotices are how the host tells the person something (the app's toasts). */
export interface HostNotices {
  info(message: string): void;
  failure(message: string): void;
}

/** HostDeps are the host's dependencies. */
export interface HostDeps {
  hearth: Pick<HearthAbi, 'ready' | 'api' | 'capabilities'>;
  notices: HostNotices;
  /** readManifest reads an extension's parsed manifest.json (fetchManifest by default). */
  readManifest?: (id: string) => Promise<unknown>;
  /** registry is the window's copy of extensions.list(), which the page loader shares (a copy of its own by default). */
  registry?: ExtensionRegistry;
  /** theme is the window's colour theme, which frames take as their color-scheme (dark when absent). */
  theme?: Readable<FrameTheme>;
  /** timeouts of the handshake (from the frame's creation) and of activation (from its load), in ms. */
  timeouts?: { handshakeMs?: number; activateMs?: number };
}

/** FrameState is what frames() reports of each running frame. */
export interface FrameState {
  id: string;
  state: 'starting' | 'running';
  panel: boolean;
}

/** ExtensionHost runs the sandboxed extensions' frames. */
export interface ExtensionHost {
  /** start waits for ready, then listens for frames on target and starts what is active; it returns stop. */
  start(target: Pick<Window, 'addEventListener' | 'removeEventListener'>): () => void;
  /** attachDom tells the host where frames go; its return removes every frame again. */
  attachDom(dom: FrameDom): () => void;
  /** panels are the panels of the frames running, in load order. */
  readonly panels: Readable<PanelInfo[]>;
  /** openPanel is the id of the panel shown, or null. */
  readonly openPanel: Readable<string | null>;
  setPanel(id: string | null): void;
  frames(): FrameState[];
  /** bridge is the bridge once started (tests read its stats). */
  bridge(): Bridge | null;
}

/** START_TIMEOUT_MS is how long a frame has for its handshake, and then to activate. */
export const START_TIMEOUT_MS = 5000;

/**
 * The events after which the list is read again (names; a type the backend
 * does not list is skipped). Each invalidates the registry first, so no
 * event that follows is delivered to a frame under the grant from before.
 */
const WATCHED = [
  'EXTENSION_INSTALLED',
  'EXTENSION_REMOVED',
  'EXTENSION_ENABLED',
  'EXTENSION_DISABLED',
  'EXTENSION_FAILED',
  'EXTENSION_SAFE_MODE',
  'EXTENSION_GRANTED',
];

interface Running {
  readonly id: string;
  readonly signature: string;
  readonly panel: PanelInfo | null;
  state: 'starting' | 'running';
  handle: FrameHandle | null;
  detach: (() => void) | null;
  handshake: ReturnType<typeof setTimeout> | null;
  activation: ReturnType<typeof setTimeout> | null;
  stopped: boolean;
}

/** signature changes when a frame must start over: a new package, another entry page, or a panel granted or revoked. */
function signature(e: ExtensionEntry): string {
  return JSON.stringify([e.entry, e.updatedAt, panelOf(e) !== null]);
}

function text(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** createExtensionHost returns a host; nothing runs before start and attachDom. */
export function createExtensionHost(deps: HostDeps): ExtensionHost {
  const handshakeMs = deps.timeouts?.handshakeMs ?? START_TIMEOUT_MS;
  const activateMs = deps.timeouts?.activateMs ?? START_TIMEOUT_MS;
  const readManifest = deps.readManifest ?? ((id: string) => fetchManifest(id));
  const api = deps.hearth.api;
  const registry: ExtensionRegistry = deps.registry ?? createRegistry(() => api.extensions.list());
  const running = new Map<string, Running>();
  /** Why each extension's next frame starts, from the event that will start it (none: a plain start). */
  const startReasons = new Map<string, StartHook['reason']>();
  /** Extensions that failed in this window, kept off until the list shows them failed or they are enabled again. */
  const failedHere = new Set<string>();
  const panels = writable<PanelInfo[]>([]);
  let panelsKey = '[]';
  const openPanel = writable<string | null>(null);
  let open: string | null = null;
  let dom: FrameDom | null = null;
  let bridge: Bridge | null = null;

  function nameOf(id: string): string {
    const e = registry.get(id);
    return e?.displayName || id;
  }

  /** publishPanels sets panels when they changed (the registry is read on every frame call). */
  function publishPanels(): void {
    const order = new Map(registry.entries().map((e, i) => [e.id, i]));
    const list = [...running.values()]
      .flatMap((r) => (r.panel ? [r.panel] : []))
      .sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0));
    const key = JSON.stringify(list);
    if (key !== panelsKey) {
      panelsKey = key;
      panels.set(list);
    }
    if (open !== null && !list.some((p) => p.id === open)) setPanel(null);
  }

  function setPanel(id: string | null): void {
    open = id !== null && running.get(id)?.panel ? id : null;
    for (const r of running.values()) if (r.panel) r.handle?.show(r.id === open);
    openPanel.set(open);
  }

  function clear(r: Running): void {
    if (r.handshake) clearTimeout(r.handshake);
    if (r.activation) clearTimeout(r.activation);
    r.handshake = r.activation = null;
  }

  function stop(id: string): void {
    const r = running.get(id);
    if (!r) return;
    r.stopped = true;
    clear(r);
    r.detach?.();
    r.handle?.remove();
    running.delete(id);
  }

  /**
   * fail stops r's frame and, once a fresh list shows it should still be
   * running as it was, reports why. An extension turned off, failed
   * elsewhere or updated meanwhile had its files taken away (a 404 for its
   * manifest, a frame that never starts): that is not a failure of its own,
   * and reporting it would overwrite the error recorded for it.
   */
  function fail(r: Running, reason: string): void {
    if (r.stopped) return;
    stop(r.id);
    failedHere.add(r.id);
    publishPanels();
    const report = () => {
      deps.notices.failure(`The extension ${nameOf(r.id)} stopped: ${reason}`);
      api.extensions.reportFailure(r.id, reason).catch((err: unknown) => console.warn(`Hearth: could not record that the extension ${r.id} failed`, err));
    };
    registry.fresh().then(
      () => {
        const e = registry.get(r.id);
        if (e && runsInFrame(e) && signature(e) === r.signature) return report();
        failedHere.delete(r.id);
        reconcile();
      },
      // Without a list to check against, say it.
      report,
    );
  }

  async function launch(entry: ExtensionEntry): Promise<void> {
    const r: Running = {
      id: entry.id,
      signature: signature(entry),
      panel: panelOf(entry),
      state: 'starting',
      handle: null,
      detach: null,
      handshake: null,
      activation: null,
      stopped: false,
    };
    running.set(entry.id, r);
    publishPanels();
    const reason = startReasons.get(entry.id);
    startReasons.delete(entry.id);
    let activate: string | null;
    let startHook: StartHook | null = null;
    try {
      const hooks = frameHooks(await readManifest(entry.id));
      activate = hooks.activate;
      const name = reason ? hooks[reason] : null;
      if (reason && name) startHook = { reason, name };
    } catch (err) {
      return fail(r, text(err));
    }
    if (r.stopped) return;
    if (!dom || !bridge) return stop(r.id);
    const src = frameSrc(entry);
    if (src === null) return fail(r, `its entry page "${entry.entry ?? ''}" is not a path inside its package`);
    const handle = dom.create({ id: entry.id, src, panel: r.panel !== null, title: r.panel?.title ?? entry.displayName ?? entry.id });
    r.handle = handle;
    if (!handle.window) return fail(r, 'its frame has no window');
    r.detach = bridge.attach(entry.id, handle.window, {
      activate,
      startHook,
      onHello() {
        if (r.handshake) clearTimeout(r.handshake);
        r.handshake = null;
      },
      onActivated() {
        if (r.state !== 'starting') return;
        clear(r);
        r.state = 'running';
      },
      onFailed: (error) => fail(r, error),
    });
    const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;
    r.handshake = setTimeout(
      () => fail(r, `it did not start within ${seconds(handshakeMs)}: its page never ran the Hearth frame client (/ext-runtime/frame.js)`),
      handshakeMs,
    );
    handle.onLoad(() => {
      if (r.stopped || r.state !== 'starting' || r.activation) return;
      // Each hook has activateMs: the start hook (if any), then activate.
      const hooks = [startHook ? `${startHook.reason} hook (${startHook.name})` : null, activate === null ? null : `activate hook (${activate})`].filter((h) => h !== null);
      const budget = activateMs * Math.max(1, hooks.length);
      const what = hooks.length === 0 ? 'its page did not finish starting' : `its ${hooks.join(' and ')} did not finish`;
      r.activation = setTimeout(() => fail(r, `${what} within ${seconds(budget)}`), budget);
    });
    handle.show(r.panel !== null && open === r.id);
  }

  function reconcile(): void {
    for (const e of registry.entries()) if (!runsInFrame(e)) failedHere.delete(e.id);
    if (!dom || !bridge) return;
    const want = new Map<string, ExtensionEntry>();
    for (const e of registry.entries()) if (runsInFrame(e) && !failedHere.has(e.id)) want.set(e.id, e);
    for (const [id, r] of [...running]) {
      const e = want.get(id);
      if (!e || signature(e) !== r.signature) stop(id);
    }
    for (const e of want.values()) if (!running.has(e.id)) void launch(e);
    publishPanels();
  }

  /** noteStartReason keeps why id's next frame starts: installed, updated or enabled (an install not yet run stays one). */
  function noteStartReason(event: string, id: string, payload: { updated?: unknown }): void {
    if (event === 'EXTENSION_INSTALLED') startReasons.set(id, payload.updated === true ? 'update' : 'install');
    else if (event === 'EXTENSION_ENABLED' && !startReasons.has(id)) startReasons.set(id, 'enable');
    else if (event === 'EXTENSION_REMOVED') startReasons.delete(id);
  }

  function refresh(): void {
    registry.fresh().catch((err: unknown) => console.warn('Hearth: could not list the extensions', err));
  }

  return {
    start(target) {
      let stopped = false;
      const offs: (() => void)[] = [];
      deps.hearth.ready
        .then(() => {
          if (stopped) return;
          let theme: FrameTheme = 'dark';
          bridge = createBridge({
            api,
            capabilities: () => deps.hearth.capabilities(),
            registry,
            theme: () => theme,
            notify: (entry, message) => deps.notices.info(`${entry.displayName || entry.id}: ${message}`),
          });
          offs.push(bridge.listen(target));
          // The window's prompt-ready step asks the frames granted prompt.hooks (bridge-hooks.ts).
          offs.push(registerFrameHooks(bridge.promptHooks));
          if (deps.theme) {
            const b = bridge;
            offs.push(
              deps.theme.subscribe((t) => {
                if (t === theme) return;
                theme = t;
                b.setTheme(t);
              }),
            );
          }
          offs.push(registry.onChange(reconcile));
          const types = api.events.types;
          for (const name of WATCHED) {
            const type = types[name];
            if (!type) continue;
            offs.push(
              api.events.on(type, (payload) => {
                const id = (payload as { id?: unknown }).id;
                if ((name === 'EXTENSION_ENABLED' || name === 'EXTENSION_INSTALLED') && typeof id === 'string') failedHere.delete(id);
                if (typeof id === 'string') noteStartReason(name, id, payload as { updated?: unknown });
                registry.invalidate();
                refresh();
              }),
            );
          }
          refresh();
        })
        .catch((err: unknown) => console.warn('Hearth: the extension host did not start', err));
      return () => {
        stopped = true;
        for (const id of [...running.keys()]) stop(id);
        for (const off of offs) off();
        bridge?.close();
        bridge = null;
        publishPanels();
      };
    },
    attachDom(d) {
      dom = d;
      reconcile();
      return () => {
        if (dom !== d) return;
        for (const id of [...running.keys()]) stop(id);
        dom = null;
        publishPanels();
      };
    },
    panels: { subscribe: panels.subscribe },
    openPanel: { subscribe: openPanel.subscribe },
    setPanel,
    frames: () => [...running.values()].map((r) => ({ id: r.id, state: r.state, panel: r.panel !== null })),
    bridge: () => bridge,
  };
}
