// The frame client: window.__HEARTH__ inside a sandboxed extension's frame.
// It runs first in the frame's page (the server puts its script at the top
// of <head>), says hello to the window, and builds the api from the method
// paths the window's welcome lists; each method posts a call and settles
// with the window's answer, rejecting with a HostError of the same code,
// message and details. Then, once the page has loaded, it runs the
// extension's activate hook and reports how that went. A 'hook' message
// (a prompt hook, for a frame granted prompt.hooks) runs the frame's
// api.events handlers for its type on a payload they may change, awaited,
// and answers with what they left.
import { HostError, isErrorShape } from '../../abi/errors';
import { mergeEventTypes } from '../../abi/event-types';
import { deepFreeze } from '../../abi/readonly';
import type { EventPayload } from '../../abi/types';
import type { ExtensionPermission } from '../../abi/types-extensions';
import { HOOK_EVENTS, HOOK_NAME, isStartHook, isTagged, LIMITS, METHOD_PATH, tag, type FrameMessage, type HookPayload, type StartHook, type Welcome } from '../protocol';
import { createFrameEvents } from './events';
import type { FrameExtension, FrameMethod, HearthFrameAbi } from './types';

/** FrameGlobal is what the client needs of the frame's window (a fake one in tests). */
export interface FrameGlobal {
  readonly parent: { postMessage(message: unknown, targetOrigin: string): void };
  readonly location: { readonly pathname: string };
  readonly document: {
    readonly readyState: string;
    /** The page's root element, whose color-scheme follows the window's theme (absent in some tests). */
    readonly documentElement?: { readonly style: { colorScheme: string }; readonly dataset: Record<string, string | undefined> };
    addEventListener(type: string, fn: () => void, opts?: { once?: boolean }): void;
  };
  addEventListener(type: string, fn: (event: never) => void): void;
  removeEventListener(type: string, fn: (event: never) => void): void;
}

/** HOOKED_KEPT is how many hooked prompts a frame remembers, to skip their announcements. */
const HOOKED_KEPT = 32;

/** promptKey names a prompt by its chat, its generation (none for a dry run) and whether it was a dry run. */
function promptKey(p: { chatId?: unknown; generationId?: unknown; dryRun?: unknown }): string {
  return JSON.stringify([p.chatId ?? null, p.generationId ?? null, p.dryRun === true]);
}

/** Keys never created on the api from a path the window sent. */
const UNSAFE = new Set(['__proto__', 'constructor', 'prototype', 'events']);

function text(v: unknown): string {
  if (v instanceof Error) return v.message || v.name;
  if (typeof v === 'object' && v !== null && typeof (v as { message?: unknown }).message === 'string') return (v as { message: string }).message;
  return String(v);
}

function isWelcome(d: Record<string, unknown>): d is Record<string, unknown> & Welcome {
  const ext = d.extension as Record<string, unknown> | null | undefined;
  const caps = d.capabilities as Record<string, unknown> | null | undefined;
  return (
    typeof ext === 'object' &&
    ext !== null &&
    typeof ext.id === 'string' &&
    Array.isArray(ext.permissions) &&
    typeof caps === 'object' &&
    caps !== null &&
    Array.isArray(caps.methods) &&
    caps.methods.every((m) => typeof m === 'string') &&
    Array.isArray(caps.ui) &&
    caps.ui.every((m) => typeof m === 'string') &&
    typeof caps.eventTypes === 'object' &&
    caps.eventTypes !== null &&
    (d.activate === null || (typeof d.activate === 'string' && HOOK_NAME.test(d.activate))) &&
    (d.startHook === undefined || d.startHook === null || isStartHook(d.startHook))
  );
}

/** namespaces builds the api's namespaces from dotted paths, each leaf calling its path. */
function namespaces(paths: readonly string[], call: (method: string, args: unknown[]) => Promise<unknown>): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const path of paths) {
    if (!METHOD_PATH.test(path)) continue;
    const parts = path.split('.');
    if (parts.some((p) => UNSAFE.has(p))) continue;
    let at = root;
    for (const part of parts.slice(0, -1)) {
      const next = Object.hasOwn(at, part) ? at[part] : (at[part] = {});
      if (typeof next !== 'object' || next === null) {
        at = {};
        break;
      }
      at = next as Record<string, unknown>;
    }
    const leaf = parts[parts.length - 1]!;
    if (!Object.hasOwn(at, leaf)) {
      const fn: FrameMethod = (...args) => call(path, args);
      at[leaf] = fn;
    }
  }
  return deepFreeze(root);
}

/** createFrameClient builds the frame's __HEARTH__ and starts the handshake with win.parent. */
export function createFrameClient(win: FrameGlobal): HearthFrameAbi {
  let parentOrigin = '*';
  let welcome: Welcome | null = null;
  let extension: FrameExtension | null = null;
  let nextId = 1;
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: unknown) => void }>();
  let markReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  const initialTypes = mergeEventTypes(undefined);

  function send(message: FrameMessage): void {
    win.parent.postMessage(tag(message), parentOrigin);
  }

  const events = createFrameEvents(
    (kind, type) => send({ kind, type }),
    () => (welcome ? welcome.capabilities.eventTypes : initialTypes),
  );
  const api: Record<string, unknown> = { events: events.api };

  function call(method: string, args: unknown[]): Promise<unknown> {
    return ready.then(
      () =>
        new Promise((resolve, reject) => {
          const id = nextId++;
          pending.set(id, { resolve, reject });
          try {
            send({ kind: 'call', id, method, args });
          } catch (err) {
            pending.delete(id);
            reject(new HostError('validation.invalid_argument', `${method}: the arguments cannot be copied to the window (${text(err)})`, { method }));
          }
        }),
    );
  }

  /** applyTheme gives the page the window's colour scheme, so a transparent page shows the panel's background. */
  function applyTheme(theme: unknown): void {
    const root = win.document.documentElement;
    if (!root || (theme !== 'dark' && theme !== 'light')) return;
    root.style.colorScheme = theme;
    root.dataset.hearthTheme = theme;
  }

  function onWelcome(data: Welcome, origin: string): void {
    welcome = deepFreeze({ kind: 'welcome', extension: data.extension, capabilities: data.capabilities, activate: data.activate, startHook: data.startHook ?? null, theme: data.theme === 'light' ? 'light' : 'dark' });
    if (origin !== 'null' && origin !== '') parentOrigin = origin;
    extension = Object.freeze({ id: welcome.extension.id, permissions: welcome.extension.permissions });
    applyTheme(data.theme);
    Object.assign(api, namespaces(welcome.capabilities.methods, call));
    Object.freeze(api);
    markReady();
    events.ready();
  }

  /**
   * Prompts this frame's handlers had as a hook: the announcement that
   * follows (CHAT_COMPLETION_PROMPT_READY with hooked: true) is not handed
   * to them again, as the window keeps it from its eventSource listeners.
   */
  const hooked: string[] = [];

  /** onHook runs the handlers for a hook and answers with what they left of its chat. */
  async function onHook(data: Record<string, unknown>): Promise<void> {
    const { id, type } = data;
    const payload = data.payload as Partial<HookPayload> | null | undefined;
    if (typeof id !== 'number' || typeof type !== 'string' || !HOOK_EVENTS.has(type)) return;
    if (typeof payload !== 'object' || payload === null || !Array.isArray(payload.chat)) return;
    hooked.push(promptKey(payload));
    if (hooked.length > HOOKED_KEPT) hooked.shift();
    // The payload is this frame's own copy (postMessage cloned it): the handlers change it in place, or replace chat.
    const hook: HookPayload = { chat: payload.chat, dryRun: payload.dryRun === true, chatId: String(payload.chatId ?? '') };
    if (typeof payload.generationId === 'string') hook.generationId = payload.generationId;
    try {
      await events.run(type, hook);
    } catch (err) {
      send({ kind: 'hookResult', id, ok: false, error: text(err).slice(0, LIMITS.errorLength) });
      return;
    }
    try {
      send({ kind: 'hookResult', id, ok: true, chat: hook.chat });
    } catch (err) {
      send({ kind: 'hookResult', id, ok: false, error: `what its handlers left of the prompt cannot be copied to the window (${text(err)})`.slice(0, LIMITS.errorLength) });
    }
  }

  /** ownAnnouncement reports whether an event announces a prompt this frame hooked (and forgets it). */
  function ownAnnouncement(type: string, payload: unknown): boolean {
    if (!HOOK_EVENTS.has(type) || typeof payload !== 'object' || payload === null || (payload as { hooked?: unknown }).hooked !== true) return false;
    const at = hooked.indexOf(promptKey(payload as Record<string, unknown>));
    if (at < 0) return false;
    hooked.splice(at, 1);
    return true;
  }

  function onResult(data: Record<string, unknown>): void {
    const id = data.id;
    const p = typeof id === 'number' ? pending.get(id) : undefined;
    if (!p) return;
    pending.delete(id as number);
    if (data.ok === true) p.resolve(data.value);
    else if (isErrorShape(data.error)) p.reject(new HostError(data.error.code, data.error.message, data.error.details ?? undefined));
    else p.reject(new HostError('internal', 'the window answered with an error of no known shape'));
  }

  win.addEventListener('message', (event: MessageEvent) => {
    if (event.source !== (win.parent as unknown) || !isTagged(event.data)) return;
    if (welcome && parentOrigin !== '*' && event.origin !== parentOrigin) return;
    const data = event.data;
    switch (data.kind) {
      case 'welcome':
        if (!welcome && isWelcome(data)) onWelcome(data, event.origin);
        return;
      case 'result':
        return onResult(data);
      case 'event':
        if (welcome && typeof data.type === 'string' && !ownAnnouncement(data.type, data.payload)) events.emit(data.type, deepFreeze(data.payload ?? {}) as EventPayload);
        return;
      case 'hook':
        if (welcome) void onHook(data);
        return;
      case 'theme':
        if (welcome) applyTheme(data.theme);
        return;
      case 'grant':
        if (welcome && Array.isArray(data.permissions)) {
          extension = Object.freeze({ id: welcome.extension.id, permissions: Object.freeze([...(data.permissions as ExtensionPermission[])]) });
        }
        return;
    }
  });

  const ui = Object.freeze({
    notify: (message: string) => call('ui.notify', [message]) as Promise<void>,
  });

  const hearth: HearthFrameAbi = Object.freeze({
    abiVersion: 1 as const,
    ready,
    capabilities() {
      if (!welcome) throw new HostError('host.not_ready', 'capabilities() is available once __HEARTH__.ready has resolved');
      return welcome.capabilities;
    },
    get extension() {
      return extension;
    },
    api: api as unknown as HearthFrameAbi['api'],
    ui,
  });

  startLifecycle(win, ready, () => [welcome?.startHook ?? null, welcome?.activate ?? null], hearth, send);
  send({ kind: 'hello', path: win.location.pathname });
  return hearth;
}

/**
 * startLifecycle waits for the handshake and the page's DOMContentLoaded,
 * awaits the start hook (install, update or enable, when the frame started
 * for that reason) and then the activate hook — global functions of the
 * page, each given __HEARTH__ — and reports 'activated' or 'failed'; an
 * uncaught error or unhandled rejection before that is a failure too.
 */
function startLifecycle(
  win: FrameGlobal,
  ready: Promise<void>,
  hooks: () => [start: StartHook | null, activate: string | null],
  hearth: HearthFrameAbi,
  send: (m: FrameMessage) => void,
): void {
  let settled = false;
  const onError = (event: { error?: unknown; message?: unknown }) => settle({ kind: 'failed', error: `an uncaught error while it started: ${text(event.error ?? event.message)}` });
  const onRejection = (event: { reason?: unknown }) => settle({ kind: 'failed', error: `an unhandled rejection while it started: ${text(event.reason)}` });

  function settle(message: FrameMessage): void {
    if (settled) return;
    settled = true;
    win.removeEventListener('error', onError);
    win.removeEventListener('unhandledrejection', onRejection);
    send(message);
  }

  async function run(kind: string, name: string | null): Promise<void> {
    if (name === null) return;
    const fn = (win as unknown as Record<string, unknown>)[name];
    if (typeof fn !== 'function') throw new Error(`hooks.${kind} names "${name}", which is not a function of the frame's page`);
    try {
      await (fn as (h: HearthFrameAbi) => unknown).call(win, hearth);
    } catch (err) {
      throw new Error(`its ${kind} hook (${name}) failed: ${text(err)}`);
    }
  }

  win.addEventListener('error', onError);
  win.addEventListener('unhandledrejection', onRejection);
  const loaded = new Promise<void>((resolve) => {
    if (win.document.readyState === 'loading') win.document.addEventListener('DOMContentLoaded', () => resolve(), { once: true });
    else resolve();
  });

  void Promise.all([ready, loaded])
    .then(async () => {
      const [start, activate] = hooks();
      if (start) await run(start.reason, start.name);
      await run('activate', activate);
    })
    .then(
      () => settle({ kind: 'activated' }),
      (err: unknown) => settle({ kind: 'failed', error: text(err) }),
    );
}
