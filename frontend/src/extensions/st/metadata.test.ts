import { describe, expect, it } from 'vitest';
import { changesOf, createWorkingMetadata } from './metadata';

describe('chat_metadata for page extensions', () => {
  it('is one mutable object per chat, saved as the keys that changed, kept up to date in place', async () => {
    let stored: Readonly<Record<string, unknown>> = Object.freeze({ note: 'n', old: 1 });
    let chat = 'a';
    const saves: Record<string, unknown>[] = [];
    const m = createWorkingMetadata({
      committed: () => stored,
      chatKey: () => chat,
      save: async (changes) => {
        saves.push(changes);
        const next: Record<string, unknown> = { ...stored };
        for (const [k, v] of Object.entries(changes)) if (v === null) delete next[k]; else next[k] = v;
        stored = Object.freeze(next);
      },
    });
    const w = m.current();
    w.objective = { tasks: [1] };
    delete w.old;
    await m.save();
    expect(saves).toEqual([{ objective: { tasks: [1] }, old: null }]);
    expect(m.current()).toBe(w);
    await m.save();
    expect(saves).toHaveLength(1);

    // Stored metadata moves underneath (another window); an unsaved edit stays.
    w.draft = 'mine';
    stored = Object.freeze({ ...stored, note: 'changed elsewhere' });
    expect(m.current()).toBe(w);
    expect(w).toEqual({ note: 'changed elsewhere', objective: { tasks: [1] }, draft: 'mine' });

    chat = 'b';
    stored = Object.freeze({ other: true });
    expect(m.current()).not.toBe(w);
    expect(m.current()).toEqual({ other: true });
  });

  it('reads deep changes and removals', () => {
    expect(changesOf({ a: { b: 1 }, c: 2 }, { a: { b: 2 }, c: 2, d: undefined })).toEqual({ a: { b: 2 }, d: null });
  });
});
