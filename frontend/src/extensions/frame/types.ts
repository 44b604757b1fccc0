// The shape of window.__HEARTH__ inside a sandboxed extension's frame
// (EXTENSIONS.md §2). Its api has the page api's method names; every
// method answers a Promise (the page's few synchronous ones included), and
// a call outside the extension's grant rejects auth.denied.
import type { EventsApi } from '../../abi/types';
import type { ExtensionPermission } from '../../abi/types-extensions';
import type { FrameCapabilities } from '../protocol';

/** FrameMethod is any api method as a frame sees it: arguments are copied to the window, the answer back. */
export type FrameMethod = (...args: unknown[]) => Promise<unknown>;

/** FrameNamespace is one api namespace: methods and nested namespaces (agent.profiles). */
export interface FrameNamespace {
  readonly [name: string]: FrameMethod | FrameNamespace;
}

/** FrameApi is __HEARTH__.api in a frame: the offered namespaces (after ready) and events. */
export type FrameApi = { readonly events: EventsApi } & { readonly [namespace: string]: FrameNamespace | EventsApi };

/** FrameUi holds the frame-only methods. */
export interface FrameUi {
  /** notify shows message (≤ 500 characters) as a toast in the window; needs the notify permission. */
  notify(message: string): Promise<void>;
}

/** FrameExtension is who the frame is: its id and what it is granted now. */
export interface FrameExtension {
  readonly id: string;
  readonly permissions: readonly ExtensionPermission[];
}

/** HearthFrameAbi is window.__HEARTH__ in a sandboxed frame. */
export interface HearthFrameAbi {
  readonly abiVersion: 1;
  /** ready resolves once the window answered the handshake; api's namespaces exist from then on. */
  readonly ready: Promise<void>;
  /** capabilities() throws host.not_ready before ready. */
  capabilities(): FrameCapabilities;
  /** extension is null before ready. */
  readonly extension: FrameExtension | null;
  readonly api: FrameApi;
  readonly ui: FrameUi;
}
