// The UI's entry point: main.ts (the ABI layer) calls mountApp once the
// public ABI object exists.
import { mount } from 'svelte';
import type { Session } from '../abi/http';
import type { HearthAbi } from '../abi/types';
import { warmMarkdown } from './lib/markdown';
import Root from './Root.svelte';
import { readTheme } from './stores/theme';
import './theme.css';

/** How the page was opened, and (browser mode) the session API for logging in. */
export interface BootOptions {
  mode: 'desktop' | 'browser';
  login: {
    session(): Promise<Session>;
    login(password: string): Promise<Session>;
    loginWithToken(token: string): Promise<Session>;
  } | null;
  /** onReady is called once the app may talk to the host (after login, if any). */
  onReady: () => void;
}

/**
 * mountApp shows the login form first when browser mode has no session yet
 * (then calls onReady), otherwise calls onReady at once; then the app.
 */
export function mountApp(target: HTMLElement, hearth: HearthAbi, boot: BootOptions): void {
  let storage: Storage | null = null;
  try {
    storage = globalThis.localStorage ?? null;
  } catch {
    storage = null;
  }
  // Apply the remembered theme before the first paint.
  document.documentElement.dataset.theme = readTheme(storage);
  target.replaceChildren();
  mount(Root, { target, props: { hearth, boot } });
  setTimeout(warmMarkdown, 0);
}
