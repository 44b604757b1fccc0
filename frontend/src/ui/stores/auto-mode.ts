// The open group chat's auto mode (groups.setAutoMode / groups.autoMode):
// the chat's toggle, read when a group chat opens and kept in step by
// GROUP_AUTO_MODE_CHANGED from any window. The backend cannot tell which
// chat a window shows, so "members keep talking while you watch" is this
// store's job: it turns auto mode off when the window leaves the chat, and
// when you start typing (the backend itself turns it off once a message of
// yours lands) — each with a quiet notice, so it never just stops.
import { get, writable, type Readable } from 'svelte/store';
import type { GroupAutoMode, HearthAbi } from '../../abi/types';
import { listen } from '../lib/events';
import type { ChatView } from './chat';
import { generationErrorText } from '../lib/generation-errors';
import type { ToastStore } from './toasts';

export interface AutoModeStore {
  /** state is the open group chat's auto mode; null for a character's chat, or until it is read. */
  state: Readable<GroupAutoMode | null>;
  /** set turns the open chat's auto mode on or off. */
  set(on: boolean): Promise<void>;
  /** typed tells the store you typed in the composer: auto mode goes off. */
  typed(): void;
  start(): () => void;
}

export interface AutoModeDeps {
  hearth: HearthAbi;
  toasts: ToastStore;
  view: Readable<ChatView>;
}

export function createAutoModeStore({ hearth, toasts, view }: AutoModeDeps): AutoModeStore {
  const state = writable<GroupAutoMode | null>(null);
  /** The chat whose auto mode this window last turned off itself (its event then says nothing new). */
  let turnedOff: string | null = null;

  function shown(): string | null {
    const v = get(view);
    return v.groupId ? v.chatId : null;
  }

  /** off turns chatId's auto mode off for the window's own reason, saying so quietly. */
  function off(chatId: string, why: string): void {
    turnedOff = chatId;
    state.update((s) => (s && s.chatId === chatId ? { ...s, on: false } : s));
    toasts.info(why);
    hearth.api.groups.setAutoMode(chatId, false).catch((err: unknown) => {
      // A chat deleted meanwhile has no auto mode left to stop.
      if ((err as { code?: unknown } | null)?.code !== 'chat.not_found') toasts.error(err, 'Could not turn auto mode off');
    });
  }

  function onChanged(p: Record<string, unknown>): void {
    const c = p.chatId;
    if (typeof c !== 'string' || c !== shown() || typeof p.on !== 'boolean') return;
    const was = get(state);
    const delaySeconds = typeof p.delaySeconds === 'number' ? p.delaySeconds : (was?.delaySeconds ?? 5);
    state.set({ chatId: c, on: p.on, delaySeconds });
    if (p.on) {
      turnedOff = null;
      return;
    }
    const mine = turnedOff === c;
    turnedOff = null;
    if (mine || was?.on === false) return;
    if (p.reason === 'failed') {
      toasts.info(`Auto mode stopped: a reply failed.${p.error ? ` ${generationErrorText(p.error).message}` : ''}`);
    } else if (p.reason === 'user_message') {
      toasts.info('Auto mode is off: a message of yours was added.');
    }
  }

  return {
    state: { subscribe: state.subscribe },
    async set(on) {
      const c = shown();
      if (!c) return;
      if (!on) turnedOff = c;
      try {
        const s = await hearth.api.groups.setAutoMode(c, on);
        if (shown() === c) state.set(s);
      } catch (err) {
        turnedOff = null;
        toasts.error(err, on ? 'Could not turn auto mode on' : 'Could not turn auto mode off');
      }
    },
    typed() {
      const s = get(state);
      if (s?.on && s.chatId === shown()) off(s.chatId, 'Auto mode is off while you type.');
    },
    start() {
      const offEvents = listen(hearth, ['GROUP_AUTO_MODE_CHANGED'], (p) => onChanged(p));
      let lookup = 0;
      let last: string | null = null;
      const offView = view.subscribe(() => {
        const c = shown();
        if (c === last) return;
        last = c;
        const s = get(state);
        // Left the chat: its members stop talking to nobody.
        if (s?.on) off(s.chatId, 'Auto mode is off: you left the group chat.');
        state.set(null);
        if (!c) return;
        const mine = ++lookup;
        hearth.api.groups
          .autoMode(c)
          .then((read) => {
            if (mine === lookup && shown() === c && get(state)?.chatId !== c) state.set(read);
          })
          .catch((err: unknown) => console.warn('Hearth: could not read the auto mode', err));
      });
      // A tab closed on the chat leaves it too (best effort: the call may not get out before the page goes).
      const onHide = () => {
        const s = get(state);
        if (s?.on) void hearth.api.groups.setAutoMode(s.chatId, false).catch(() => {});
      };
      globalThis.addEventListener?.('pagehide', onHide);
      return () => {
        offEvents();
        offView();
        globalThis.removeEventListener?.('pagehide', onHide);
      };
    },
  };
}
