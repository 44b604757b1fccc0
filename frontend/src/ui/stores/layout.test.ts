import { get } from 'svelte/store';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLayout, NARROW_QUERY, type LayoutHost, type MediaLike } from './layout';

/** fakeMedia is a MediaQueryList whose matches the test flips. */
function fakeMedia(matches: boolean) {
  const listeners = new Set<(e: { matches: boolean }) => void>();
  const media = {
    matches,
    addEventListener: (_: 'change', fn: (e: { matches: boolean }) => void) => void listeners.add(fn),
    removeEventListener: (_: 'change', fn: (e: { matches: boolean }) => void) => void listeners.delete(fn),
    set(value: boolean) {
      media.matches = value;
      for (const fn of listeners) fn({ matches: value });
    },
  };
  return media;
}

/**
 * fakeWindow is a session history with a back button: go() moves through
 * the entries and fires popstate on a later task, as browsers do.
 */
function fakeWindow({ narrow = true, state = null as unknown } = {}) {
  const entries: unknown[] = [state];
  let at = 0;
  const popListeners = new Set<(e: { state: unknown }) => void>();
  const narrowMedia = fakeMedia(narrow);
  const fire = () => {
    const s = entries[at];
    for (const fn of popListeners) fn({ state: s });
  };
  const history = {
    get state() {
      return entries[at];
    },
    get length() {
      return entries.length;
    },
    pushState: vi.fn((s: unknown) => {
      entries.splice(at + 1);
      entries.push(structuredClone(s));
      at++;
    }),
    replaceState: vi.fn((s: unknown) => {
      entries[at] = structuredClone(s);
    }),
    go: vi.fn((delta = 0) => {
      const to = at + delta;
      if (to < 0 || to >= entries.length || delta === 0) return;
      at = to;
      setTimeout(fire, 0);
    }),
  };
  const host: LayoutHost = {
    history: history as unknown as LayoutHost['history'],
    addEventListener: (_, fn) => void popListeners.add(fn),
    removeEventListener: (_, fn) => void popListeners.delete(fn),
    matchMedia: (q): MediaLike => (q === NARROW_QUERY ? narrowMedia : fakeMedia(false)),
  };
  return {
    host,
    history,
    narrowMedia,
    entries,
    at: () => at,
    /** browserBack is the browser's back button: one entry back, popstate later. */
    browserBack: () => history.go(-1),
    browserForward: () => history.go(1),
    listeners: () => popListeners.size,
  };
}

const settle = () => vi.runAllTimersAsync();

/** started is a layout store over a fake window, started. */
function started(options?: Parameters<typeof fakeWindow>[0]) {
  const w = fakeWindow(options);
  const layout = createLayout(w.host);
  layout.start();
  return { w, layout };
}

describe('layout', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('starts on the character list and marks the entry it opened on', () => {
    const { w, layout } = started({ state: { other: 1 } });
    expect(get(layout.pane)).toBe('characters');
    expect(get(layout.narrow)).toBe(true);
    expect(w.entries).toEqual([{ other: 1, hearthPane: 'characters' }]);
  });

  it('pushes one entry per level going deeper, and goes back through history', async () => {
    vi.useFakeTimers();
    const { w, layout } = started();
    layout.show('chats');
    layout.show('chat');
    expect(w.entries.map((e) => (e as { hearthPane: string }).hearthPane)).toEqual(['characters', 'chats', 'chat']);
    expect(w.at()).toBe(2);

    layout.back();
    expect(get(layout.pane)).toBe('chats'); // at once, not after popstate
    expect(w.history.go).toHaveBeenLastCalledWith(-1);
    await settle();
    expect(get(layout.pane)).toBe('chats');
    expect(w.at()).toBe(1);

    layout.back();
    await settle();
    expect(get(layout.pane)).toBe('characters');
    expect(w.at()).toBe(0);
    layout.back(); // nothing above the character list
    await settle();
    expect(w.history.go).toHaveBeenCalledTimes(2);
  });

  it('follows the browser back and forward buttons', async () => {
    vi.useFakeTimers();
    const { w, layout } = started();
    layout.show('chats');
    layout.show('chat');
    w.browserBack();
    await settle();
    expect(get(layout.pane)).toBe('chats');
    w.browserBack();
    await settle();
    expect(get(layout.pane)).toBe('characters');
    w.browserForward();
    await settle();
    expect(get(layout.pane)).toBe('chats');
    // Going deeper from here replaces the forward entries.
    layout.show('chat');
    expect(w.entries).toHaveLength(3);
    expect(w.at()).toBe(2);
  });

  it('opening a chat straight from the character list pushes both levels', async () => {
    vi.useFakeTimers();
    const { w, layout } = started();
    layout.show('chat');
    expect(w.history.pushState).toHaveBeenCalledTimes(2);
    w.browserBack();
    await settle();
    expect(get(layout.pane)).toBe('chats');
  });

  it('catches up when a person moves while its own back is on its way', async () => {
    vi.useFakeTimers();
    const { w, layout } = started();
    layout.show('chat');
    layout.back(); // go(-1) pending
    layout.show('chat'); // opened another chat before popstate came
    await settle();
    expect(get(layout.pane)).toBe('chat');
    expect(w.at()).toBe(2);
    expect((w.history.state as { hearthPane: string }).hearthPane).toBe('chat');

    layout.back();
    layout.back(); // two taps on back in a row
    await settle();
    expect(get(layout.pane)).toBe('characters');
    expect(w.at()).toBe(0);
  });

  it('adopts the pane of the entry a reload lands on', async () => {
    vi.useFakeTimers();
    const w = fakeWindow();
    const first = createLayout(w.host);
    const stop = first.start();
    first.show('chat');
    stop();
    expect(w.listeners()).toBe(0);

    const reloaded = createLayout(w.host);
    reloaded.start();
    expect(get(reloaded.pane)).toBe('chat');
    expect(w.entries).toHaveLength(3); // nothing pushed again
    reloaded.followChat('c1', true); // the restored chat does not move a reloaded page
    expect(get(reloaded.pane)).toBe('chat');
    w.browserBack();
    await settle();
    expect(get(reloaded.pane)).toBe('chats');
  });

  it('ignores entries it did not make', async () => {
    vi.useFakeTimers();
    const { w, layout } = started();
    layout.show('chats');
    w.host.history.pushState({ someoneElse: true }, '');
    w.browserForward();
    w.browserBack();
    await settle();
    expect(get(layout.pane)).toBe('chats');
  });

  it('recovers when its go() finds no entry to go to', async () => {
    vi.useFakeTimers();
    // A reload adopted "chat", but the entries below it are gone.
    const { w, layout } = started({ state: { hearthPane: 'chat' } });
    layout.back();
    expect(get(layout.pane)).toBe('chats');
    await settle();
    // go(-1) did nothing: the entry takes the pane shown, and all keeps working.
    expect(w.history.state).toEqual({ hearthPane: 'chats' });
    layout.show('chat');
    expect(w.entries).toHaveLength(2);
    expect(get(layout.pane)).toBe('chat');
    layout.show('characters');
    await settle();
    expect(get(layout.pane)).toBe('characters');
  });

  it('leaves history alone on wide screens and catches up when the screen narrows', async () => {
    vi.useFakeTimers();
    const { w, layout } = started({ narrow: false });
    layout.show('chats');
    layout.show('chat');
    expect(get(layout.pane)).toBe('chat');
    expect(w.history.pushState).not.toHaveBeenCalled();

    w.narrowMedia.set(true);
    expect(get(layout.narrow)).toBe(true);
    expect(w.entries).toHaveLength(3);
    w.browserBack();
    await settle();
    expect(get(layout.pane)).toBe('chats');
  });

  it('shows the chat restored at start-up, and chats a script opens', () => {
    const { w, layout } = started();
    layout.followChat('restored', true);
    expect(get(layout.pane)).toBe('chat');

    layout.show('characters');
    // Picking a character opens its last chat behind the chat list: no jump.
    layout.show('chats');
    layout.followChat('last-of-bob', true);
    expect(get(layout.pane)).toBe('chats');
    // A script's api.chat.select shows the chat.
    layout.followChat('from-script', false);
    expect(get(layout.pane)).toBe('chat');
  });

  it('does not jump to a chat once a person moved first', () => {
    const layout = createLayout(fakeWindow().host);
    layout.start();
    layout.show('chats');
    layout.followChat('restored', true);
    expect(get(layout.pane)).toBe('chats');
  });

  it('goes back to the chat list when the open chat closes under it', async () => {
    vi.useFakeTimers();
    const { w, layout } = started();
    layout.followChat(null, true); // nothing open yet: nothing happens
    expect(get(layout.pane)).toBe('characters');
    layout.followChat('c1', false);
    layout.followChat(null, true);
    expect(get(layout.pane)).toBe('chats');
    await settle();
    expect(w.at()).toBe(1);
  });

  it('works without a window', () => {
    const layout = createLayout(null);
    const stop = layout.start();
    layout.show('chat');
    layout.back();
    expect(get(layout.pane)).toBe('chats');
    expect(get(layout.narrow)).toBe(false);
    stop();
  });
});
