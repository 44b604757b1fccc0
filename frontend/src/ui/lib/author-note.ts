// The Author's Note as SillyTavern keeps it in chat metadata (note_prompt,
// note_interval, note_depth, note_position, note_role): read with its
// defaults and checked before it is saved.

/** AuthorNote is the chat metadata SillyTavern keeps the Author's Note in. */
export interface AuthorNote {
  note_prompt: string;
  /** Insert at every interval-th user message; 0 turns the note off. */
  note_interval: number;
  note_depth: number;
  /** 1 in the chat at depth, 0 after the main prompt, 2 before it. */
  note_position: 0 | 1 | 2;
  /** 0 system, 1 user, 2 assistant. */
  note_role: 0 | 1 | 2;
}

/** AUTHOR_NOTE_DEFAULTS are SillyTavern's (and the backend's) values for unset keys. */
export const AUTHOR_NOTE_DEFAULTS: Readonly<AuthorNote> = Object.freeze({ note_prompt: '', note_interval: 1, note_depth: 4, note_position: 1, note_role: 0 });

function intIn(v: unknown, min: number, max: number, fallback: number): number {
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
  return typeof n === 'number' && Number.isInteger(n) && n >= min && n <= max ? n : fallback;
}

/** readAuthorNote reads the note's keys from chat metadata, with the defaults for unset or bad values. */
export function readAuthorNote(meta: Readonly<Record<string, unknown>> | null | undefined): AuthorNote {
  const m = meta ?? {};
  const D = AUTHOR_NOTE_DEFAULTS;
  return {
    note_prompt: typeof m.note_prompt === 'string' ? m.note_prompt : D.note_prompt,
    note_interval: intIn(m.note_interval, 0, 1_000_000, D.note_interval),
    note_depth: intIn(m.note_depth, 0, 10_000, D.note_depth),
    note_position: intIn(m.note_position, 0, 2, D.note_position) as AuthorNote['note_position'],
    note_role: intIn(m.note_role, 0, 2, D.note_role) as AuthorNote['note_role'],
  };
}

/** authorNoteProblem says what is wrong with a note before it is saved (null: nothing). */
export function authorNoteProblem(n: AuthorNote): string | null {
  if (!Number.isInteger(n.note_interval) || n.note_interval < 0) return 'The interval must be a whole number, 0 or more (0 turns the note off).';
  if (!Number.isInteger(n.note_depth) || n.note_depth < 0) return 'The depth must be a whole number, 0 or more.';
  if (![0, 1, 2].includes(n.note_position)) return 'Pick where the note goes.';
  if (![0, 1, 2].includes(n.note_role)) return 'Pick the role the note is sent as.';
  return null;
}
