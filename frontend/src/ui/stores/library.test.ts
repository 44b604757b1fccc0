import { get } from 'svelte/store';
import { describe, expect, it, vi } from 'vitest';
import type { EventPayload, HearthAbi } from '../../abi/types';
import type { LibraryImportSummary } from '../../abi/types-library';
import { createLibraryRun } from './library';

const summary: LibraryImportSummary = {
  folder: '/st/data/default-user',
  imported: { characters: 2, chats: 1, lorebooks: 0, personas: 0, presets: 0, groups: 0, groupChats: 0, groupFiles: 0, extensions: 0 },
  skipped: [],
  failed: [{ kind: 'chat', path: 'chats/a/b.jsonl', error: 'line 3' }],
  messages: 4,
};

function setup() {
  const handlers = new Map<string, Set<(p: EventPayload) => void>>();
  let answer: { resolve: (v: unknown) => void; reject: (e: unknown) => void } | null = null;
  const pending = () => new Promise((resolve, reject) => (answer = { resolve, reject }));
  const library = { importST: vi.fn(pending), exportST: vi.fn(pending), pickFolder: vi.fn() };
  const hearth = {
    api: {
      library,
      events: {
        types: { LIBRARY_PROGRESS: 'library_progress' },
        on(type: string, h: (p: EventPayload) => void) {
          let set = handlers.get(type);
          if (!set) handlers.set(type, (set = new Set()));
          set.add(h);
          return () => set.delete(h);
        },
      },
    },
  } as unknown as HearthAbi;
  return {
    hearth,
    library,
    emit: (p: Record<string, unknown>) => handlers.get('library_progress')?.forEach((h) => h(p)),
    listeners: () => handlers.get('library_progress')?.size ?? 0,
    answer: () => answer!,
  };
}

const flush = () => new Promise((r) => setTimeout(r, 0));

describe('library run store', () => {
  it('runs an import: progress of its own op only, then the summary; stops listening', async () => {
    const t = setup();
    const run = createLibraryRun(t.hearth, 'import');
    const done = run.start('  /st  ');
    expect(t.library.importST).toHaveBeenCalledWith('/st');
    expect(t.listeners()).toBe(1);
    t.emit({ op: 'import', phase: 'characters', done: 1, total: 4, current: 'characters/a.png' });
    t.emit({ op: 'export', phase: 'presets', done: 1, total: 1, current: 'x' });
    let s = get(run);
    expect(s.status).toBe('running');
    if (s.status !== 'running') return;
    expect(s.current).toBe('characters/a.png');
    expect(s.phases.find((p) => p.phase === 'characters')).toMatchObject({ state: 'active', done: 1, total: 4 });
    expect(s.phases[0]!.state).toBe('none');
    // A second start while running is ignored.
    void run.start('/other');
    expect(t.library.importST).toHaveBeenCalledTimes(1);
    run.reset();
    expect(get(run).status).toBe('running');

    t.answer().resolve(summary);
    await done;
    s = get(run);
    expect(s.status).toBe('done');
    if (s.status !== 'done') return;
    expect(s.summary).toEqual(summary);
    expect(s.phases.find((p) => p.phase === 'characters')!.state).toBe('done');
    expect(t.listeners()).toBe(0);
    run.reset();
    expect(get(run)).toEqual({ status: 'idle' });
  });

  it('a refused path becomes a field error', async () => {
    const t = setup();
    const run = createLibraryRun(t.hearth, 'export');
    const done = run.start('/full');
    expect(t.library.exportST).toHaveBeenCalledWith('/full');
    t.answer().reject({ code: 'library.target_not_empty', message: '/full is not empty' });
    await done;
    await flush();
    const s = get(run);
    expect(s.status).toBe('refused');
    if (s.status === 'refused') expect(s.error.message).toMatch(/not empty/);
    expect(t.listeners()).toBe(0);
  });
});
