// The postMessage protocol between a sandboxed extension's frame and the
// window that runs it (EXTENSIONS.md §2). Both halves import this file: the
// frame client (frame/, built into /ext-runtime/frame.js) and the bridge
// (bridge.ts). Every message is a plain, structured-cloneable object tagged
// with PROTOCOL and PROTOCOL_VERSION, so anything else posted to either
// window is told apart and ignored.
import type { HostErrorShape } from '../abi/errors';
import { T } from '../abi/event-types';
import type { ExtensionPermission } from '../abi/types-extensions';

/** PROTOCOL tags every message of the protocol. */
export const PROTOCOL = 'hearth.ext';
/** PROTOCOL_VERSION is the version of the message shapes below. */
export const PROTOCOL_VERSION = 1;

/** Bounds the bridge holds every message from a frame to; past any of them the message is ignored. */
export const LIMITS = Object.freeze({
  /** A method path ("agent.profiles.list"), in characters. */
  methodLength: 100,
  /** Positional arguments of one call. */
  args: 16,
  /** Nesting of the arguments (the argument array is level 1). */
  depth: 32,
  /** Values (objects, arrays and leaves) in the arguments. */
  values: 250_000,
  /** The arguments' size as JSON text, in characters (a Blob counts its bytes). */
  jsonChars: 8 << 20,
  /** An event type a frame subscribes to. */
  typeLength: 128,
  /** Event types one frame may be subscribed to at once. */
  subscriptions: 256,
  /** A failure message from a frame; longer ones are cut. */
  errorLength: 2000,
  /** The frame document's path sent with hello. */
  pathLength: 2048,
});

/** Messages a frame posts to the window. */
export type FrameMessage =
  /** The frame client started; path is the frame document's location.pathname. */
  | { kind: 'hello'; path: string }
  /** A call of an api method ("chat.getMessages") or a frame-only one ("ui.notify"). */
  | { kind: 'call'; id: number; method: string; args: unknown[] }
  /** The frame has its first handler for type (it wants the events). */
  | { kind: 'subscribe'; type: string }
  /** The frame has no handler left for type. */
  | { kind: 'unsubscribe'; type: string }
  /** The activate hook (if any) resolved after the document loaded. */
  | { kind: 'activated' }
  /** Starting failed: the activate hook threw, or an uncaught error came first. */
  | { kind: 'failed'; error: string }
  /** The frame's answer to hook id: what its handlers left of payload.chat, or why they failed. */
  | { kind: 'hookResult'; id: number; ok: true; chat: unknown }
  | { kind: 'hookResult'; id: number; ok: false; error: string };

/**
 * HOOK_EVENTS are the event types whose handlers in a frame are prompt
 * hooks (EXTENSIONS.md §6). A frame registers for one with the ordinary
 * subscribe message (its first api.events handler for the type) and is
 * dropped with unsubscribe; the window asks it only while its grant holds
 * HOOK_PERMISSION, with a 'hook' message it answers with 'hookResult'.
 */
export const HOOK_EVENTS: ReadonlySet<string> = new Set([T.CHAT_COMPLETION_PROMPT_READY]);

/** HOOK_PERMISSION is the permission a frame's hooks need. */
export const HOOK_PERMISSION: ExtensionPermission = 'prompt.hooks';

/**
 * HookPayload is what a frame's hook handlers get, to change in place:
 * SillyTavern's { chat, dryRun } for CHAT_COMPLETION_PROMPT_READY, with
 * the chat and generation it is for (no generationId for a dry run).
 */
export interface HookPayload {
  chat: HookMessage[];
  dryRun: boolean;
  chatId: string;
  generationId?: string;
}

/** HookMessage is one message of a prompt: content a string, or text parts and the image parts the prompt held. */
export interface HookMessage {
  role: 'system' | 'user' | 'assistant';
  content: string | HookPart[];
  name?: string;
}

/** HookPart is one part of a message whose content is a list. */
export type HookPart = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } };

/** What a frame's capabilities() answers: the window's, with the methods a frame is offered. */
export interface FrameCapabilities {
  abiVersion: 1;
  namespaces: Record<string, number>;
  /** The api method paths the frame is offered (a call outside its grant still rejects auth.denied). */
  methods: string[];
  /** The frame-only methods under __HEARTH__.ui ("ui.notify"). */
  ui: string[];
  features: string[];
  eventTypes: Record<string, string>;
}

/** The welcome: everything the frame client needs to build its __HEARTH__. */
export interface Welcome {
  kind: 'welcome';
  extension: { id: string; permissions: ExtensionPermission[] };
  capabilities: FrameCapabilities;
  /** The global function of the frame document that hooks.activate names, or null. */
  activate: string | null;
  /** The hook for why the frame started (hooks.install, update or enable), run before activate, or null. */
  startHook: StartHook | null;
  /** The window's colour theme now ('theme' messages follow it). */
  theme: FrameTheme;
}

/** FrameTheme is the window's colour theme, which a frame's page takes as its color-scheme. */
export type FrameTheme = 'dark' | 'light';

/** StartHook names the hook a frame runs for why it started, before activate. */
export interface StartHook {
  reason: 'install' | 'update' | 'enable';
  name: string;
}

/** isStartHook checks a StartHook from a message. */
export function isStartHook(v: unknown): v is StartHook {
  if (typeof v !== 'object' || v === null) return false;
  const h = v as Record<string, unknown>;
  return (h.reason === 'install' || h.reason === 'update' || h.reason === 'enable') && typeof h.name === 'string' && HOOK_NAME.test(h.name);
}

/** Messages the window posts to a frame. */
export type PageMessage =
  | Welcome
  | { kind: 'result'; id: number; ok: true; value: unknown }
  | { kind: 'result'; id: number; ok: false; error: HostErrorShape }
  | { kind: 'event'; type: string; payload: unknown }
  /** The extension's grant changed (extension.permissions follows it). */
  | { kind: 'grant'; permissions: ExtensionPermission[] }
  /** The window's colour theme changed. */
  | { kind: 'theme'; theme: FrameTheme }
  /** Run the frame's handlers for type (one of HOOK_EVENTS) on payload and answer hookResult with the same id. */
  | { kind: 'hook'; id: number; type: string; payload: HookPayload };

/** Tagged is a message as posted: with the protocol tag and version. */
export type Tagged<M> = M & { protocol: typeof PROTOCOL; v: typeof PROTOCOL_VERSION };

/** tag adds the protocol tag and version to a message. */
export function tag<M extends FrameMessage | PageMessage>(message: M): Tagged<M> {
  return { ...message, protocol: PROTOCOL, v: PROTOCOL_VERSION };
}

/** isTagged reports whether data is a plain object carrying this protocol's tag and version. */
export function isTagged(data: unknown): data is Record<string, unknown> & { kind: unknown } {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return false;
  const d = data as Record<string, unknown>;
  return d.protocol === PROTOCOL && d.v === PROTOCOL_VERSION && typeof d.kind === 'string';
}

/** METHOD_PATH is what a method path may look like: two to four dotted identifiers. */
export const METHOD_PATH = /^[A-Za-z][A-Za-z0-9]*(\.[A-Za-z][A-Za-z0-9]*){1,3}$/;

/** HOOK_NAME is what a global function name from hooks.activate may look like. */
export const HOOK_NAME = /^[A-Za-z_$][A-Za-z0-9_$]{0,127}$/;
