// One SillyTavern library run (an import or an export) and what it showed:
// the phases' progress from LIBRARY_PROGRESS while it runs, then the
// summary, or the error that refused the path. The host runs one at a time;
// the run goes on there even if the window closes.
import { get, writable, type Readable } from 'svelte/store';
import type { EventPayload, HearthAbi } from '../../abi/types';
import type { LibraryExportSummary, LibraryImportSummary } from '../../abi/types-library';
import { applyProgress, fieldError, finishPhases, initialPhases, type FieldError, type LibraryOp, type PhaseState } from '../lib/library';
import { eventType } from '../lib/events';

/** LibraryRun is what one op's section shows. */
export type LibraryRun =
  | { status: 'idle' }
  | { status: 'running'; path: string; phases: PhaseState[]; current: string }
  | { status: 'refused'; path: string; error: FieldError }
  | { status: 'done'; path: string; phases: PhaseState[]; summary: LibraryImportSummary | LibraryExportSummary };

export interface LibraryRunStore extends Readable<LibraryRun> {
  readonly op: LibraryOp;
  /** start runs the op on path; it resolves once the host answered (never rejects). */
  start(path: string): Promise<void>;
  /** reset forgets the last result (not while running). */
  reset(): void;
}

/** createLibraryRun makes the store of one op, importST or exportST. */
export function createLibraryRun(hearth: Pick<HearthAbi, 'api'>, op: LibraryOp): LibraryRunStore {
  const state = writable<LibraryRun>({ status: 'idle' });

  /** onProgress reads a LIBRARY_PROGRESS payload (LibraryProgress), checking each field, as it comes off the wire. */
  function onProgress(payload: EventPayload): void {
    const phase = payload.phase;
    if (payload.op !== op || typeof phase !== 'string') return;
    const progress = { phase, done: Number(payload.done) || 0, total: Number(payload.total) || 0 };
    const current = typeof payload.current === 'string' ? payload.current : '';
    state.update((s) => (s.status === 'running' ? { ...s, phases: applyProgress(s.phases, progress), current } : s));
  }

  return {
    op,
    subscribe: state.subscribe,
    async start(path) {
      if (get(state).status === 'running') return;
      const trimmed = path.trim();
      state.set({ status: 'running', path: trimmed, phases: initialPhases(op), current: '' });
      const type = eventType(hearth, 'LIBRARY_PROGRESS');
      const off = hearth.api.events.on(type, onProgress);
      try {
        const summary = op === 'import' ? await hearth.api.library.importST(trimmed) : await hearth.api.library.exportST(trimmed);
        const s = get(state);
        state.set({ status: 'done', path: trimmed, phases: finishPhases(s.status === 'running' ? s.phases : initialPhases(op)), summary });
      } catch (err) {
        state.set({ status: 'refused', path: trimmed, error: fieldError(err, op, trimmed) });
      } finally {
        off();
      }
    },
    reset() {
      if (get(state).status !== 'running') state.set({ status: 'idle' });
    },
  };
}
