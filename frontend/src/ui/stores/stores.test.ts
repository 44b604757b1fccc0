import { get } from 'svelte/store';
import { describe, expect, it, vi } from 'vitest';
import { createConfirm } from './confirm';
import { createTheme, readTheme } from './theme';
import { createToasts } from './toasts';

function memoryStorage(init: Record<string, string> = {}) {
  const data = new Map(Object.entries(init));
  return { getItem: (k: string) => data.get(k) ?? null, setItem: (k: string, v: string) => void data.set(k, v), data };
}

describe('theme', () => {
  it('defaults to dark and remembers changes', () => {
    const storage = memoryStorage();
    const theme = createTheme(storage, null);
    expect(get(theme)).toBe('dark');
    theme.toggle();
    expect(get(theme)).toBe('light');
    expect(storage.data.get('hearth.theme')).toBe('light');
    expect(readTheme(storage)).toBe('light');
    expect(readTheme(memoryStorage({ 'hearth.theme': 'neon' }))).toBe('dark');
  });

  it('survives a throwing storage', () => {
    const storage = {
      getItem: () => {
        throw new Error('denied');
      },
      setItem: () => {
        throw new Error('denied');
      },
    };
    const theme = createTheme(storage, null);
    theme.set('light');
    expect(get(theme)).toBe('light');
  });
});

describe('toasts', () => {
  it('shows errors with their code and expires them', () => {
    vi.useFakeTimers();
    const toasts = createToasts(1000);
    toasts.error(Object.assign(new Error('gone'), { code: 'chat.not_found' }), 'Could not open the chat');
    expect(get(toasts)).toMatchObject([{ kind: 'error', message: 'Could not open the chat: That chat no longer exists.', code: 'chat.not_found' }]);
    vi.advanceTimersByTime(1600);
    expect(get(toasts)).toEqual([]);
    vi.useRealTimers();
  });

  it('carries an action that leads to the fix; none by default', () => {
    const toasts = createToasts(0);
    const run = vi.fn();
    toasts.error(Object.assign(new Error('no connection'), { code: 'generate.no_connection' }), undefined, { label: 'Open Connections', run });
    toasts.info('Saved');
    const [withAction, plain] = get(toasts);
    expect(withAction?.action?.label).toBe('Open Connections');
    withAction?.action?.run();
    expect(run).toHaveBeenCalledTimes(1);
    expect(plain?.action).toBeNull();
  });

  it('keeps sticky toasts, and holds others while someone reads them', () => {
    vi.useFakeTimers();
    const toasts = createToasts(1000);
    const sticky = toasts.show({ kind: 'error', message: '1 failed', groups: [{ label: 'a.png', lines: ['bad'] }], sticky: true });
    const held = toasts.show({ kind: 'info', message: 'Imported', notes: { summary: '1 import note', groups: [] } });
    expect(get(toasts).find((t) => t.id === sticky)).toMatchObject({ code: null, groups: [{ label: 'a.png', lines: ['bad'] }], notes: null });
    toasts.hold(held, true);
    vi.advanceTimersByTime(5000);
    expect(get(toasts).map((t) => t.id)).toEqual([sticky, held]);
    toasts.hold(held, false);
    vi.advanceTimersByTime(999);
    expect(get(toasts)).toHaveLength(2);
    vi.advanceTimersByTime(1);
    expect(get(toasts).map((t) => t.id)).toEqual([sticky]);
    toasts.dismiss(sticky);
    expect(get(toasts)).toEqual([]);
    vi.useRealTimers();
  });

  it('keeps at most max toasts', () => {
    const toasts = createToasts(0, 2);
    toasts.info('a');
    toasts.info('b');
    toasts.info('c');
    expect(get(toasts).map((t) => t.message)).toEqual(['b', 'c']);
  });
});

describe('confirm', () => {
  it('resolves with the answer and cancels a superseded question', async () => {
    const confirm = createConfirm();
    const first = confirm.ask({ title: 'A', message: 'a' });
    const second = confirm.ask({ title: 'B', message: 'b', danger: true });
    expect(get(confirm)).toMatchObject({ title: 'B', danger: true, confirmLabel: 'OK' });
    confirm.answer(true);
    await expect(first).resolves.toBe(false);
    await expect(second).resolves.toBe(true);
    expect(get(confirm)).toBeNull();
  });
});

describe('matchesQuery', async () => {
  const { matchesQuery } = await import('./characters');
  const c = { name: 'Séraphina', tags: ['Fantasy', 'guardian'] };
  it.each([
    ['', true],
    ['sera', true],
    ['SÉRA', true],
    ['fant', true],
    ['sera guard', true],
    ['sera robot', false],
    ['xyz', false],
  ])('%j → %s', (q, want) => {
    expect(matchesQuery(c, q)).toBe(want);
  });
});
