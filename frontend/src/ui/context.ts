// The app's stores, handed to components through Svelte context.
import { getContext, setContext } from 'svelte';
import type { HearthAbi } from '../abi/types';
import type { CharacterStore } from './stores/characters';
import type { ChatViewStore } from './stores/chat';
import type { ChatListStore } from './stores/chats';
import type { ConfirmStore } from './stores/confirm';
import type { ConnectionStore } from './stores/connections';
import type { FirstRunStore } from './stores/first-run';
import type { GroupStore } from './stores/groups';
import type { LayoutStore } from './stores/layout';
import type { PersonaStore } from './stores/personas';
import type { PresetStore } from './stores/presets';
import type { ThemeStore } from './stores/theme';
import type { ToastStore } from './stores/toasts';

export interface AppContext {
  hearth: HearthAbi;
  mode: 'desktop' | 'browser';
  toasts: ToastStore;
  confirm: ConfirmStore;
  theme: ThemeStore;
  characters: CharacterStore;
  /** groups is the group list (the character list shows groups among the characters). */
  groups: GroupStore;
  chats: ChatListStore;
  chat: ChatViewStore;
  layout: LayoutStore;
  connections: ConnectionStore;
  personas: PersonaStore;
  presets: PresetStore;
  /** firstRun is the start screen's checklist (connect a model, a character, a reply). */
  firstRun: FirstRunStore;
}

const KEY = Symbol('hearth.app');

export function setApp(app: AppContext): void {
  setContext(KEY, app);
}

export function getApp(): AppContext {
  const app = getContext<AppContext | undefined>(KEY);
  if (!app) throw new Error('getApp() outside the Hearth app');
  return app;
}
