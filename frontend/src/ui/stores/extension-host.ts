// The extension host (frontend/src/extensions/host.ts) as the app's
// components reach it: App makes and starts it, the chat view shows its
// panels.
import { getContext, setContext } from 'svelte';
import type { ExtensionHost } from '../../extensions/host';

const KEY = Symbol('hearth.extensionHost');

/** setExtensionHost hands the host to the app's components. */
export function setExtensionHost(host: ExtensionHost): void {
  setContext(KEY, host);
}

/** getExtensionHost is the host App set. */
export function getExtensionHost(): ExtensionHost {
  const host = getContext<ExtensionHost | undefined>(KEY);
  if (!host) throw new Error('getExtensionHost() outside the Hearth app');
  return host;
}
