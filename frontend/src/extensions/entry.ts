// What the host reads of an installed extension to run it: whether it runs
// in a frame, the frame's URL, its panel, and the activate hook its
// manifest names. The Go side serves a sandboxed extension's files at
// /ext/<id>/<path> (manifest.json included) while it is active.
import type { ExtensionEntry } from '../abi/types-extensions';
import { HOOK_NAME } from './protocol';

/** MANIFEST_MAX is the largest manifest.json the host reads (the Go side installs none larger). */
export const MANIFEST_MAX = 256 << 10;

/** PanelInfo is a panel an extension shows, as the panel list names it. */
export interface PanelInfo {
  id: string;
  title: string;
  /** An image URL under the extension's files, or null. */
  icon: string | null;
}

/** runsInFrame says whether entry should have a frame now: sandboxed, active, with an entry page. */
export function runsInFrame(entry: ExtensionEntry): boolean {
  return entry.mode === 'sandboxed' && entry.status === 'active' && typeof entry.entry === 'string' && entry.entry !== '';
}

/** packagePath encodes a path inside a package for a URL, or returns null for one that leaves it. */
export function packagePath(path: string): string | null {
  if (path === '' || path.length > 1024 || path.startsWith('/') || path.includes('\\')) return null;
  const parts = path.split('/');
  if (parts.some((p) => p === '' || p === '.' || p === '..')) return null;
  return parts.map(encodeURIComponent).join('/');
}

/** fileUrl is where the server serves a file of extension id. */
export function fileUrl(id: string, encodedPath: string): string {
  return `/ext/${encodeURIComponent(id)}/${encodedPath}`;
}

/** frameSrc is the URL of entry's frame page, or null when its entry is not a path inside its package. */
export function frameSrc(entry: ExtensionEntry): string | null {
  const p = packagePath(entry.entry ?? '');
  return p === null ? null : fileUrl(entry.id, p);
}

/** panelOf is entry's panel: only with ui.panel granted and a panel in its manifest. */
export function panelOf(entry: ExtensionEntry): PanelInfo | null {
  const panel = entry.panel;
  if (!entry.granted.includes('ui.panel') || typeof panel !== 'object' || panel === null || Array.isArray(panel)) return null;
  const t = typeof panel.title === 'string' ? panel.title.trim() : '';
  const iconPath = typeof panel.icon === 'string' ? packagePath(panel.icon) : null;
  return {
    id: entry.id,
    title: (t || entry.displayName || entry.id).slice(0, 60),
    icon: iconPath === null ? null : fileUrl(entry.id, iconPath),
  };
}

/** StartReason is why a frame starts: a plain start (the app's, or leaving safe mode), or the change that started it. */
export type StartReason = 'start' | 'install' | 'update' | 'enable';

/** FrameHookNames are the manifest's hooks a frame runs: activate every start, and the one for why it started. */
export interface FrameHookNames {
  activate: string | null;
  install: string | null;
  update: string | null;
  enable: string | null;
}

/** hookName reads hooks[key] of a manifest's hooks object: a global function name, or null. */
function hookName(hooks: Record<string, unknown>, key: keyof FrameHookNames): string | null {
  const name = hooks[key];
  if (name === undefined || name === null || name === '') return null;
  if (typeof name !== 'string' || !HOOK_NAME.test(name)) throw new Error(`hooks.${key} in its manifest.json is not the name of a function`);
  return name;
}

/**
 * frameHooks reads the hooks a frame runs from a parsed manifest. In the
 * sandboxed tier install, update and enable run when the frame starts for
 * that reason, before activate; disable, delete and clean are not called:
 * by then the extension holds no grant, so they could do nothing.
 */
export function frameHooks(manifest: unknown): FrameHookNames {
  if (typeof manifest !== 'object' || manifest === null) throw new Error('its manifest.json is not a JSON object');
  const hooks = (manifest as { hooks?: unknown }).hooks;
  if (hooks === undefined || hooks === null) return { activate: null, install: null, update: null, enable: null };
  if (typeof hooks !== 'object' || Array.isArray(hooks)) throw new Error('hooks in its manifest.json is not an object');
  const h = hooks as Record<string, unknown>;
  return { activate: hookName(h, 'activate'), install: hookName(h, 'install'), update: hookName(h, 'update'), enable: hookName(h, 'enable') };
}

/** activateHook reads hooks.activate of a parsed manifest: a global function name, or null when there is none. */
export function activateHook(manifest: unknown): string | null {
  return frameHooks(manifest).activate;
}

/** fetchManifest reads extension id's manifest.json from the server. */
export async function fetchManifest(id: string, fetcher: typeof fetch = fetch): Promise<unknown> {
  const res = await fetcher(fileUrl(id, 'manifest.json'), { cache: 'no-store', credentials: 'same-origin' });
  if (!res.ok) throw new Error(`its manifest.json could not be read (HTTP ${res.status})`);
  const text = await res.text();
  if (text.length > MANIFEST_MAX) throw new Error(`its manifest.json is larger than ${MANIFEST_MAX} bytes`);
  try {
    return JSON.parse(text.replace(/^\uFEFF/, '')) as unknown;
  } catch {
    throw new Error('its manifest.json is not JSON');
  }
}
