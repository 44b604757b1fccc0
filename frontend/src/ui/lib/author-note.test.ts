import { describe, expect, it } from 'vitest';
import { AUTHOR_NOTE_DEFAULTS, authorNoteProblem, readAuthorNote } from './author-note';

describe("the Author's Note", () => {
  it('checks a note before it is saved', () => {
    expect(authorNoteProblem({ ...AUTHOR_NOTE_DEFAULTS })).toBeNull();
    expect(authorNoteProblem({ ...AUTHOR_NOTE_DEFAULTS, note_interval: 1.5 })).toMatch(/interval/);
    expect(readAuthorNote(null)).toEqual(AUTHOR_NOTE_DEFAULTS);
  });

  it('reads SillyTavern\'s keys, strings of digits too, and falls back to the defaults for bad values', () => {
    expect(readAuthorNote({ note_prompt: 'Rain.', note_interval: '3', note_depth: 2, note_position: 0, note_role: 2 })).toEqual({
      note_prompt: 'Rain.',
      note_interval: 3,
      note_depth: 2,
      note_position: 0,
      note_role: 2,
    });
    expect(readAuthorNote({ note_prompt: 7, note_interval: -1, note_depth: 1.5, note_position: 3, note_role: 'x' })).toEqual(AUTHOR_NOTE_DEFAULTS);
  });
});
