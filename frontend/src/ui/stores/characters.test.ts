import { get } from 'svelte/store';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { CharacterSummary, HearthAbi } from '../../abi/types';
import { createCharacterStore } from './characters';
import type { ToastStore } from './toasts';

function summary(avatar: string, at: number): CharacterSummary {
  return { avatar, name: avatar.replace('.png', ''), tags: [], createdAt: at, lastChatAt: null, chatCount: 0, hasImage: false };
}

function setup() {
  const hearth = {
    api: {
      characters: { list: vi.fn(async () => [summary('ann.png', 1), summary('bo.png', 2)]) },
      events: { types: {}, on: () => () => {} },
    },
  } as unknown as HearthAbi;
  const toasts = { error: vi.fn(), info: vi.fn() } as unknown as ToastStore;
  return createCharacterStore(hearth, toasts);
}

describe('the selection: a character or a group', () => {
  let data: Map<string, string>;
  beforeEach(() => {
    data = new Map();
    vi.stubGlobal('localStorage', {
      getItem: (k: string) => data.get(k) ?? null,
      setItem: (k: string, v: string) => void data.set(k, v),
      removeItem: (k: string) => void data.delete(k),
    });
  });
  afterEach(() => vi.unstubAllGlobals());

  it('remembers a group across a reload, and a load of the characters keeps it', async () => {
    const store = setup();
    store.selectGroup('g1');
    expect([get(store.selection), get(store.selected), get(store.selectedGroupId)]).toEqual([{ kind: 'group', id: 'g1' }, null, 'g1']);
    expect(Object.fromEntries(data)).toEqual({ 'hearth.selectedGroup': 'g1' });

    const reloaded = setup();
    expect(get(reloaded.selectedGroupId)).toBe('g1');
    await reloaded.refresh();
    expect(get(reloaded.selectedGroupId)).toBe('g1');
    expect(get(reloaded.selectedCharacter)).toBeNull();
  });

  it('a character chosen after a group replaces it in storage; a fresh start picks the newest character', async () => {
    const store = setup();
    store.selectGroup('g1');
    store.select('ann.png');
    expect(Object.fromEntries(data)).toEqual({ 'hearth.selectedCharacter': 'ann.png' });
    expect([get(store.selected), get(store.selectedGroupId)]).toEqual(['ann.png', null]);

    data.clear();
    const fresh = setup();
    await fresh.refresh();
    expect(get(fresh.selected)).toBe('bo.png');
    expect(fresh.selectedAutomatically()).toBe(true);
  });

  it('the same choice again notifies no one; forgetGroup moves a gone group to the first character', async () => {
    const store = setup();
    await store.refresh();
    store.selectGroup('g1');
    const seen: unknown[] = [];
    const off = store.selection.subscribe((s) => seen.push(s));
    store.selectGroup('g1');
    store.forgetGroup('other');
    expect(seen).toHaveLength(1);
    store.forgetGroup('g1');
    expect(get(store.selected)).toBe('bo.png');
    expect(store.selectedAutomatically()).toBe(true);
    off();
  });
});

describe('loaded', () => {
  beforeEach(() => vi.stubGlobal('localStorage', { getItem: () => null, setItem: () => {}, removeItem: () => {} }));
  afterEach(() => vi.unstubAllGlobals());

  it('resolves once the first read of the list has ended, shown or failed', async () => {
    const store = setup();
    let done = false;
    void store.loaded.then(() => (done = true));
    await Promise.resolve();
    expect(done).toBe(false);
    await store.refresh();
    expect(done).toBe(true);
    expect(get(store.list).map((c) => c.avatar)).toEqual(['bo.png', 'ann.png']);

    const failing = createCharacterStore(
      { api: { characters: { list: async () => Promise.reject(new Error('down')) }, events: { types: {}, on: () => () => {} } } } as unknown as HearthAbi,
      { error: vi.fn(), info: vi.fn() } as unknown as ToastStore,
    );
    await failing.refresh();
    await expect(failing.loaded).resolves.toBeUndefined();
  });
});
