// The page tier's loader (EXTENSIONS.md §5): once the UI is shown, it
// loads every active page extension the way SillyTavern loads third-party
// extensions — in load order (loading_order, then display name, as
// api.extensions.list() gives them), the translation file its i18n names
// for the window's locale (page-locale.ts; one that cannot be read is a
// warning, not a failure), its css as a style sheet, its js as a module
// from /scripts/extensions/third-party/<id>/ — after installing the
// SillyTavern compat runtime, which it fetches only when there is at
// least one to load. The list is the window's registry copy, which the
// extension host reads too, so a window start lists the extensions once.
// Each extension's module has 5 s to evaluate and each hook 5 s to
// finish; one that throws or takes longer is reported
// (api.extensions.reportFailure: it shows as failed, with its error, and
// does not load next time until turned on again) and the rest go on. A
// loaded extension whose manifest names a generate_interceptor has it
// registered, in load order, for the window's prompt hooks
// (abi/prompt-hooks.ts), which look the function up on the window when
// a generation starts, as SillyTavern does.
import { registerInterceptor } from '../abi/prompt-hooks';
import type { HearthAbi } from '../abi/types';
import type { ExtensionEntry } from '../abi/types-extensions';
import { readLocaleFile } from './page-locale';
import { createRegistry, type ExtensionRegistry } from './registry';
import { localeFile } from './st/i18n';
import { ST_SETTINGS_KEY } from './st/settings';
import { makeMounts } from './st-mounts';
import type { StRuntime, RuntimeDeps } from './st/runtime';
import type { ToastSink } from './st/toastr';

/** Where SillyTavern serves third-party extensions (and Hearth page extensions). */
export const PAGE_PREFIX = '/scripts/extensions/third-party/';

/** PAGE_TIMEOUT_MS bounds a module's evaluation and each hook. */
export const PAGE_TIMEOUT_MS = 5000;

/** The storage key recording the version a page extension last started at (for its install and update hooks). */
export const STARTED_KEY = 'hearth.page.startedVersion';

export interface PageLoaderDeps {
  hearth: Pick<HearthAbi, 'ready' | 'api' | 'getContext'>;
  toasts: ToastSink;
  /** failure tells the person an extension failed (a toast). */
  failure(message: string): void;
  /** loadRuntime fetches the compat runtime (a separate chunk). */
  loadRuntime?: () => Promise<{ installStRuntime(w: Window & typeof globalThis, deps: RuntimeDeps): StRuntime }>;
  /** importModule imports an extension's js (import() by default). */
  importModule?: (url: string) => Promise<Record<string, unknown>>;
  readManifest?: (id: string) => Promise<Record<string, unknown>>;
  /**
   * uiShown settles once the UI is on screen. The reads and the runtime's
   * fetch and evaluation start before it, with the list; installing the
   * runtime, the style sheets and the scripts wait for it, so what an
   * extension does to the page starts once the UI is up (at once by
   * default).
   */
  uiShown?: Promise<unknown>;
  /** registry is the window's copy of extensions.list(), shared with the extension host (a copy of its own by default). */
  registry?: ExtensionRegistry;
  /** readLocale reads a translation file (readLocaleFile by default). */
  readLocale?: (url: string) => Promise<Record<string, string>>;
  timeoutMs?: number;
  window?: Window & typeof globalThis;
}

/** PageLoadResult says what happened to each page extension. */
export interface PageLoadResult {
  loaded: string[];
  failed: { id: string; error: string }[];
  /** warnings are what went wrong short of a failure (a translation file that could not be read), also on the console. */
  warnings: { id: string; warning: string }[];
}

/** pageUrl is the address of a file in a page extension's package. */
export function pageUrl(id: string, path: string): string {
  return PAGE_PREFIX + encodeURIComponent(id) + '/' + path.split('/').filter(Boolean).map(encodeURIComponent).join('/');
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms / 1000} s`)), ms);
  });
  return Promise.race([p, limit]).finally(() => clearTimeout(timer));
}

/**
 * MARKS are the User Timing marks the loader leaves at each step of a
 * window's start (the Web Inspector's timeline shows them; the desktop
 * self-test's page bench reads them): the runtime asked for and evaluated,
 * the UI shown, the runtime installed, and each extension's import begun
 * (the last with its id after a colon).
 */
export const MARKS = {
  runtimeAsked: 'hearth:st-runtime-asked',
  runtimeLoaded: 'hearth:st-runtime-loaded',
  uiShown: 'hearth:st-ui-shown',
  installed: 'hearth:st-installed',
  importing: 'hearth:st-import',
} as const;

function mark(name: string): void {
  globalThis.performance?.mark?.(name);
}

/** macrotask lets jQuery's ready handlers (which run on a timer) run before the next step. */
const macrotask = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

async function fetchPageManifest(id: string): Promise<Record<string, unknown>> {
  const res = await fetch(pageUrl(id, 'manifest.json'), { cache: 'no-store', credentials: 'same-origin' });
  if (!res.ok) throw new Error(`its manifest.json could not be read (HTTP ${res.status})`);
  const m = (await res.json()) as unknown;
  if (!m || typeof m !== 'object' || Array.isArray(m)) throw new Error('its manifest.json is not a JSON object');
  return m as Record<string, unknown>;
}

type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

/** settle holds a promise's outcome without an unhandled rejection while it waits for its turn. */
function settle<T>(p: Promise<T>): Promise<Settled<T>> {
  return p.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
}

function unsettle<T>(s: Settled<T>): T {
  if (s.ok) return s.value;
  throw s.error;
}

/** preload asks the browser to fetch module scripts before they are imported (nothing runs until then). */
function preload(doc: Document, urls: string[]): void {
  for (const href of urls) {
    const link = doc.createElement('link');
    link.rel = 'modulepreload';
    link.href = href;
    doc.head.append(link);
  }
}

function hookName(manifest: Record<string, unknown>, hook: string): string | null {
  const hooks = manifest.hooks;
  if (!hooks || typeof hooks !== 'object') return null;
  const name = (hooks as Record<string, unknown>)[hook];
  return typeof name === 'string' && name !== '' ? name : null;
}

/** startPageExtensions loads the active page extensions; with none it loads nothing at all. */
export async function startPageExtensions(deps: PageLoaderDeps): Promise<PageLoadResult> {
  const w = deps.window ?? window;
  const ms = deps.timeoutMs ?? PAGE_TIMEOUT_MS;
  const result: PageLoadResult = { loaded: [], failed: [], warnings: [] };
  await deps.hearth.ready;
  const registry = deps.registry ?? createRegistry(() => deps.hearth.api.extensions.list());
  await registry.current();
  const active = registry.entries().filter((e) => e.mode === 'page' && e.status === 'active' && e.js);
  if (active.length === 0) return result;

  const storage = deps.hearth.api.extensions.storage;
  const importModule = deps.importModule ?? ((url: string) => import(/* @vite-ignore */ url) as Promise<Record<string, unknown>>);
  const readManifest = deps.readManifest ?? fetchPageManifest;
  const readLocale = deps.readLocale ?? ((url: string) => readLocaleFile(url));

  // What prepares starts now, while the UI is still coming up: each
  // manifest, each settings share and started version, a preload of each
  // script and of the two compat modules nearly every extension imports
  // (so the first import finds them fetched), and the runtime itself,
  // whose fetch and evaluation are most of the layer's cost and overlap
  // the UI's waits for its first reads. What changes the page — the
  // runtime's install, the style sheets, the scripts (in order) — waits
  // until the UI is shown.
  const manifests = new Map(active.map((e) => [e.id, settle(readManifest(e.id))]));
  const shares = new Map(active.map((e) => [e.id, settle(storage.get(ST_SETTINGS_KEY, { extensionId: e.id }))]));
  const started = new Map(active.map((e) => [e.id, storage.get(STARTED_KEY, { extensionId: e.id }).catch(() => null)]));
  preload(w.document, ['/script.js', '/scripts/extensions.js', ...active.map((e) => pageUrl(e.id, e.js!))]);
  mark(MARKS.runtimeAsked);
  const loading = settle(
    (deps.loadRuntime ?? (() => import('./st/runtime')))().then((m) => {
      mark(MARKS.runtimeLoaded);
      return m;
    }),
  );
  await deps.uiShown;
  mark(MARKS.uiShown);

  for (const e of active) if (e.css) addStyleSheet(e);
  const { installStRuntime } = unsettle(await loading);
  const rt = installStRuntime(w, {
    hearth: deps.hearth,
    toasts: deps.toasts,
    storage: {
      // The first read of each share is the one already under way.
      get: (id) => {
        const early = shares.get(id);
        shares.delete(id);
        return early ? early.then(unsettle) : storage.get(ST_SETTINGS_KEY, { extensionId: id });
      },
      set: (id, value) => storage.set(ST_SETTINGS_KEY, value, { extensionId: id }),
    },
  });
  mark(MARKS.installed);
  await rt.settings.load(active.map((e) => e.id));
  makeMounts(w.document);

  for (const e of active) {
    try {
      const manifest = await loadOne(e);
      result.loaded.push(e.id);
      const interceptor = manifest.generate_interceptor;
      if (typeof interceptor === 'string' && interceptor !== '') {
        registerInterceptor({ extensionId: e.id, displayName: e.displayName, name: interceptor });
      }
    } catch (err) {
      const error = err instanceof Error ? err.message : String(err);
      result.failed.push({ id: e.id, error });
      deps.failure(`${e.displayName} failed to start: ${error}`);
      await deps.hearth.api.extensions.reportFailure(e.id, error).catch(() => undefined);
    }
  }
  return result;

  async function loadOne(e: ExtensionEntry): Promise<Record<string, unknown>> {
    const manifest = unsettle(await manifests.get(e.id)!);
    await loadTranslations(e);
    const before = rt.settings.keys();
    mark(`${MARKS.importing}:${e.id}`);
    const mod = await withTimeout(importModule(pageUrl(e.id, e.js!)), ms, 'its script');
    await macrotask();
    rt.settings.claim(e.id, before);
    const was = await started.get(e.id)!;
    const reason = was === null ? 'install' : was !== e.version ? 'update' : null;
    for (const hook of [reason, 'activate']) {
      const name = hook && hookName(manifest, hook);
      if (!name) continue;
      const fn = mod[name];
      if (typeof fn !== 'function') throw new Error(`its ${hook} hook ${name} is not a function its script exports`);
      const beforeHook = rt.settings.keys();
      await withTimeout(Promise.resolve().then(() => (fn as () => unknown)()), ms, `its ${hook} hook`);
      rt.settings.claim(e.id, beforeHook);
    }
    if (reason) await storage.set(STARTED_KEY, e.version, { extensionId: e.id }).catch(() => undefined);
    return manifest;
  }

  function addStyleSheet(e: ExtensionEntry): void {
    const link = w.document.createElement('link');
    link.rel = 'stylesheet';
    link.href = pageUrl(e.id, e.css!);
    link.dataset.extension = e.id;
    w.document.head.append(link);
  }

  /** loadTranslations adds e's translations for the window's locale, before its js runs; what goes wrong is a warning. */
  async function loadTranslations(e: ExtensionEntry): Promise<void> {
    const locale = rt.locale.locale;
    const file = localeFile(e.i18n, locale);
    if (!file) return;
    try {
      const data = await withTimeout(readLocale(pageUrl(e.id, file)), ms, 'its translation file');
      rt.locale.addLocaleData(locale, data);
    } catch (err) {
      const warning = `its translations for ${locale} (${file}) were not loaded: ${err instanceof Error ? err.message : String(err)}`;
      result.warnings.push({ id: e.id, warning });
      console.warn(`Hearth: ${e.displayName}: ${warning}`);
    }
  }
}
