// Which pane a narrow screen shows (characters → chats → chat), kept in step
// with the browser's history so its back button and back gesture go up one
// pane, as the pane headers' back buttons do.
//
// Widths (the CSS media queries use the same numbers):
//   narrow  < 760 px   one pane at a time
//   medium  < 1100 px  the character column shrinks to avatars
//   wide               three full columns
import { get, writable, type Readable } from 'svelte/store';

export type Pane = 'characters' | 'chats' | 'chat';

/** PANES lists the panes from the top level down. */
export const PANES: readonly Pane[] = ['characters', 'chats', 'chat'];

/** NARROW_QUERY matches screens that show one pane at a time. */
export const NARROW_QUERY = '(max-width: 759.98px)';

/** COARSE_QUERY matches touch screens, where focusing a box pops up a keyboard. */
export const COARSE_QUERY = '(pointer: coarse)';

/** TRAVERSE_TIMEOUT_MS is how long a history.go() of ours may take to report back. */
const TRAVERSE_TIMEOUT_MS = 1000;

/** depth is a pane's level: 0 for characters, 2 for the chat. */
export function depth(pane: Pane): number {
  return PANES.indexOf(pane);
}

/** PaneState is what this module keeps in history.state (other keys are kept). */
interface PaneState {
  hearthPane: Pane;
}

function paneOf(state: unknown): Pane | null {
  const p = (state as Partial<PaneState> | null)?.hearthPane;
  return typeof p === 'string' && (PANES as readonly string[]).includes(p) ? (p as Pane) : null;
}

/** MediaLike is the part of a MediaQueryList the store reads. */
export interface MediaLike {
  readonly matches: boolean;
  addEventListener(type: 'change', fn: (event: { matches: boolean }) => void): void;
  removeEventListener(type: 'change', fn: (event: { matches: boolean }) => void): void;
}

/** LayoutHost is the window the store works with (a fake in tests). */
export interface LayoutHost {
  history: Pick<History, 'state' | 'pushState' | 'replaceState' | 'go'>;
  addEventListener(type: 'popstate', fn: (event: { state: unknown }) => void): void;
  removeEventListener(type: 'popstate', fn: (event: { state: unknown }) => void): void;
  matchMedia(query: string): MediaLike;
}

export interface LayoutStore {
  /** pane is the pane a narrow screen shows; wider screens show them all. */
  pane: Readable<Pane>;
  /** narrow is true while the screen shows one pane at a time. */
  narrow: Readable<boolean>;
  /** coarse is true on touch screens. */
  coarse: Readable<boolean>;
  /** show goes to a pane because a person asked for it (a tap on a character or a chat). */
  show(pane: Pane): void;
  /** back goes up one pane, as the browser's back button does. */
  back(): void;
  /**
   * followChat keeps the pane in step with the open chat. A chat the UI did
   * not choose (a script's api.chat.select) or the one restored at start-up
   * is shown; a chat closing under the chat pane sends it back to the list.
   */
  followChat(chatId: string | null, chosenByUi: boolean): void;
  /** start reads the history entry the page opened on and listens to it; returns the stop. */
  start(): () => void;
}

/**
 * createLayout makes the pane store. History holds one entry per level of
 * the pane shown (characters at the bottom), pushed only while the screen
 * is narrow: going deeper pushes, going up is history.go(-n), and popstate
 * (ours or the browser's back and forward) sets the pane from the entry's
 * state. A reload lands on an entry that already names its pane.
 */
export function createLayout(host: LayoutHost | null): LayoutStore {
  const pane = writable<Pane>('characters');
  const narrowQuery = host?.matchMedia(NARROW_QUERY) ?? null;
  const coarseQuery = host?.matchMedia(COARSE_QUERY) ?? null;
  const narrow = writable(narrowQuery?.matches ?? false);
  const coarse = writable(coarseQuery?.matches ?? false);

  /** The level of the history entry the page is on (entries below it are ours). */
  let entryDepth = 0;
  /** A history.go() of ours is on its way; its popstate must not move the pane. */
  let traversing = false;
  let traversals = 0;
  /** Until a person moves or a chat opens, an opening chat is the one restored at start-up. */
  let startingUp = true;
  let lastChat: string | null = null;

  function state(p: Pane): PaneState & Record<string, unknown> {
    const old = host?.history.state;
    return { ...(old && typeof old === 'object' ? (old as Record<string, unknown>) : {}), hearthPane: p };
  }

  /** sync makes history match the pane: push the levels missing, or go back to it. */
  function sync(): void {
    if (!host || !get(narrow) || traversing) return;
    const want = depth(get(pane));
    if (want > entryDepth) {
      for (let d = entryDepth + 1; d <= want; d++) {
        const p = PANES[d];
        if (p) host.history.pushState({ hearthPane: p } satisfies PaneState, '');
      }
      entryDepth = want;
    } else if (want < entryDepth) {
      traversing = true;
      const h = host;
      const mine = ++traversals;
      host.history.go(want - entryDepth);
      // A go() that cannot happen (the entries below are gone) fires no
      // popstate: then the entry we are on takes the pane shown.
      setTimeout(() => {
        if (!traversing || mine !== traversals) return;
        traversing = false;
        h.history.replaceState(state(get(pane)), '');
        entryDepth = depth(get(pane));
      }, TRAVERSE_TIMEOUT_MS);
    }
  }

  function show(p: Pane): void {
    startingUp = false;
    pane.set(p);
    sync();
  }

  function back(): void {
    const up = PANES[depth(get(pane)) - 1];
    if (up) show(up);
  }

  function onPopState(event: { state: unknown }): void {
    const p = paneOf(event.state);
    if (!p) return; // an entry someone else made
    entryDepth = depth(p);
    if (traversing) {
      // Our own go(): the pane already moved, and may have moved on since.
      traversing = false;
      sync();
      return;
    }
    startingUp = false;
    pane.set(p);
  }

  function onNarrow(event: { matches: boolean }): void {
    narrow.set(event.matches);
    sync();
  }

  function onCoarse(event: { matches: boolean }): void {
    coarse.set(event.matches);
  }

  return {
    pane,
    narrow,
    coarse,
    show,
    back,
    followChat(chatId, chosenByUi) {
      const was = lastChat;
      lastChat = chatId;
      if (chatId === null) {
        if (was !== null && get(pane) === 'chat') back();
        return;
      }
      if (chatId === was) return;
      if (!chosenByUi || startingUp) show('chat');
    },
    start() {
      if (!host) return () => {};
      const adopted = paneOf(host.history.state);
      if (adopted) {
        // A reload: the entries below this one are ours from before.
        entryDepth = depth(adopted);
        startingUp = false;
        pane.set(adopted);
      } else {
        host.history.replaceState(state('characters'), '');
        entryDepth = 0;
      }
      host.addEventListener('popstate', onPopState);
      narrowQuery?.addEventListener('change', onNarrow);
      coarseQuery?.addEventListener('change', onCoarse);
      sync();
      return () => {
        host.removeEventListener('popstate', onPopState);
        narrowQuery?.removeEventListener('change', onNarrow);
        coarseQuery?.removeEventListener('change', onCoarse);
      };
    },
  };
}

/** browserHost is the real window, or null where there is none (tests, SSR). */
export function browserHost(): LayoutHost | null {
  if (typeof window === 'undefined' || typeof window.matchMedia !== 'function' || !window.history) return null;
  return {
    history: window.history,
    addEventListener: (type, fn) => window.addEventListener(type, fn),
    removeEventListener: (type, fn) => window.removeEventListener(type, fn),
    matchMedia: (q) => window.matchMedia(q),
  };
}
