import { get, writable } from 'svelte/store';
import { describe, expect, it, vi } from 'vitest';
import type { CharacterSummary, HearthAbi, StMessage } from '../../abi/types';
import type { ChatView } from './chat';
import { message } from './fake-hearth';
import { createFirstRun, FIRST_RUN_KEY, firstRunSteps, hasReply } from './first-run';

const EMPTY: ChatView = { chatId: null, avatar: null, groupId: null, start: 0, total: 0, messages: [], version: 0, loading: false };

function chatView(messages: StMessage[], start = 0): ChatView {
  return { ...EMPTY, chatId: 'c1', avatar: 'ada.png', start, total: start + messages.length, messages };
}

function character(name: string): CharacterSummary {
  return { avatar: `${name}.png`, name, tags: [], createdAt: 1, lastChatAt: null, chatCount: 0, hasImage: false };
}

/** memoryStorage is a Storage stand-in that keeps what is set. */
function memoryStorage(initial: Record<string, string> = {}) {
  const data = new Map(Object.entries(initial));
  return { getItem: (k: string) => data.get(k) ?? null, setItem: (k: string, v: string) => void data.set(k, v), data };
}

function setup(storage = memoryStorage()) {
  const activeId = writable<string | null>(null);
  const characters = writable<CharacterSummary[]>([]);
  const view = writable<ChatView>(EMPTY);
  const load = vi.fn(async () => {});
  const handlers = new Map<string, () => void>();
  const off = vi.fn();
  const hearth = {
    api: { events: { types: { CONNECTIONS_CHANGED: 'connections_changed' }, on: vi.fn((t: string, h: () => void) => (handlers.set(t, h), off)) } },
  } as unknown as HearthAbi;
  const store = createFirstRun({ hearth, connections: { activeId, load }, characters, view, storage });
  return { store, activeId, characters, view, load, handlers, off, storage };
}

const ticks = (store: ReturnType<typeof setup>['store']) => get(store.steps).map((s) => `${s.id}:${s.done ? 'done' : s.current ? 'next' : 'todo'}`);

describe('firstRunSteps', () => {
  it('ticks each step from its fact and points at the first one left', () => {
    expect(firstRunSteps({ connected: false, hasCharacter: false, replied: false }).map((s) => [s.id, s.done, s.current])).toEqual([
      ['connect', false, true],
      ['character', false, false],
      ['chat', false, false],
    ]);
    expect(firstRunSteps({ connected: true, hasCharacter: false, replied: false }).map((s) => s.current)).toEqual([false, true, false]);
    expect(firstRunSteps({ connected: false, hasCharacter: true, replied: true }).map((s) => [s.done, s.current])).toEqual([
      [false, true],
      [true, false],
      [true, false],
    ]);
    expect(firstRunSteps({ connected: true, hasCharacter: true, replied: true }).some((s) => s.current)).toBe(false);
  });
});

describe('hasReply', () => {
  it('counts a character message after the greeting, not the greeting, the user or a system note', () => {
    expect(hasReply(chatView([]))).toBe(false);
    expect(hasReply(chatView([message('g')]))).toBe(false);
    expect(hasReply(chatView([message('g'), message('u', { is_user: true })]))).toBe(false);
    expect(hasReply(chatView([message('g'), message('u', { is_user: true }), message('s', { is_system: true })]))).toBe(false);
    expect(hasReply(chatView([message('u', { is_user: true }), message('r')]))).toBe(true);
    expect(hasReply(chatView([message('g'), message('u', { is_user: true }), message('r')]))).toBe(true);
  });

  it('reads whole-chat indexes: a window starting later holds replies at its start', () => {
    expect(hasReply(chatView([message('r')], 0))).toBe(false);
    expect(hasReply(chatView([message('r')], 40))).toBe(true);
  });
});

describe('createFirstRun', () => {
  it('ticks off the steps from the connection in use, the character list and a reply, then goes for good', () => {
    const { store, activeId, characters, view, storage } = setup();
    const stop = store.start();
    expect(ticks(store)).toEqual(['connect:next', 'character:todo', 'chat:todo']);
    expect(get(store.visible)).toBe(true);

    activeId.set('conn-1');
    expect(ticks(store)).toEqual(['connect:done', 'character:next', 'chat:todo']);
    characters.set([character('Ada')]);
    expect(ticks(store)).toEqual(['connect:done', 'character:done', 'chat:next']);

    view.set(chatView([message('g'), message('u', { is_user: true })]));
    expect(get(store.visible)).toBe(true);
    view.set(chatView([message('g'), message('u', { is_user: true }), message('r')]));
    expect(ticks(store)).toEqual(['connect:done', 'character:done', 'chat:done']);
    expect(get(store.visible)).toBe(false);
    expect(JSON.parse(storage.data.get(FIRST_RUN_KEY) ?? '{}')).toMatchObject({ replied: true, finished: true });

    // Deleting the connection later does not bring the list back.
    activeId.set(null);
    expect(get(store.steps)[0]?.done).toBe(false);
    expect(get(store.visible)).toBe(false);
    stop();
  });

  it('remembers a reply once seen, though the chat closes', () => {
    const { store, view } = setup();
    const stop = store.start();
    view.set(chatView([message('u', { is_user: true }), message('r')]));
    view.set(EMPTY);
    expect(get(store.steps)[2]?.done).toBe(true);
    expect(get(store.visible)).toBe(true);
    stop();

    const again = setup(memoryStorage({ [FIRST_RUN_KEY]: JSON.stringify({ replied: true }) }));
    again.activeId.set('c');
    expect(ticks(again.store)).toEqual(['connect:done', 'character:next', 'chat:done']);
  });

  it('stays away once dismissed, across a reload', () => {
    const { store, storage } = setup();
    store.dismiss();
    expect(get(store.visible)).toBe(false);
    const again = setup(memoryStorage(Object.fromEntries(storage.data)));
    expect(get(again.store.visible)).toBe(false);
  });

  it('reads the connections while it shows and follows their changes, and not at all once put away', () => {
    const shown = setup();
    const stop = shown.store.start();
    expect(shown.load).toHaveBeenCalledTimes(1);
    shown.handlers.get('connections_changed')?.();
    expect(shown.load).toHaveBeenCalledTimes(2);
    stop();
    expect(shown.off).toHaveBeenCalled();

    const hidden = setup(memoryStorage({ [FIRST_RUN_KEY]: JSON.stringify({ dismissed: true }) }));
    hidden.store.start();
    expect(hidden.load).not.toHaveBeenCalled();
    expect(hidden.handlers.size).toBe(0);
  });

  it('treats unreadable storage as a first run', () => {
    const broken = { getItem: () => '{not json', setItem: () => { throw new Error('full'); } };
    const { store, activeId } = setup(broken as unknown as ReturnType<typeof memoryStorage>);
    expect(get(store.visible)).toBe(true);
    activeId.set('c');
    store.dismiss();
    expect(get(store.visible)).toBe(false);
  });
});
