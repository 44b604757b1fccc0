// The window's copy of api.extensions.list(), which both the host (which
// frames run) and the bridge (what each may do) read. A grant or revoke may
// come from another window, so the bridge asks for a fresh read before every
// call: fresh() resolves after a read that started after it was called.
// Reads are coalesced — one in flight, and every caller that arrives
// meanwhile shares the single read that follows it — so a busy frame costs
// one list() per round trip, not one per call. Events are delivered under a
// grant a little old (bridge-events.ts); invalidate() is how the host says
// the list changed (an EXTENSION_* event), so none is delivered under the
// old one.
import type { ExtensionEntry } from '../abi/types-extensions';

/** ExtensionRegistry is the latest extensions.list() and the way to a fresher one. */
export interface ExtensionRegistry {
  /** entries is the last list read (empty before the first). */
  entries(): readonly ExtensionEntry[];
  get(id: string): ExtensionEntry | undefined;
  /** fresh reads the list again; it resolves once a read started after this call has landed. */
  fresh(): Promise<void>;
  /** age is how long ago the last read that landed started, in ms (Infinity before one, and after invalidate until a read started after it lands). */
  age(): number;
  /** invalidate says the list changed: age() is Infinity until a read started after this call has landed. */
  invalidate(): void;
  /** invalidated is true from invalidate() until a read started after it has landed. */
  invalidated(): boolean;
  /** onChange calls fn after every read that lands (listeners compare what they need). */
  onChange(fn: (entries: readonly ExtensionEntry[]) => void): () => void;
}

/** createRegistry reads through list; now is the clock age() uses. */
export function createRegistry(list: () => Promise<ExtensionEntry[]>, now: () => number = () => performance.now()): ExtensionRegistry {
  let entries: readonly ExtensionEntry[] = [];
  let byId = new Map<string, ExtensionEntry>();
  let readAt = -Infinity;
  /** generation counts invalidate() calls; a read started under an older one does not make the list fresh. */
  let generation = 0;
  let invalid = false;
  let inFlight: Promise<void> | null = null;
  let next: Promise<void> | null = null;
  const listeners = new Set<(entries: readonly ExtensionEntry[]) => void>();

  async function read(): Promise<void> {
    const started = now();
    const gen = generation;
    const got = await list();
    if (!Array.isArray(got)) throw new Error('extensions.list answered something other than a list');
    entries = Object.freeze([...got]);
    byId = new Map(got.map((e) => [e.id, e]));
    if (gen === generation) {
      readAt = started;
      invalid = false;
    }
    for (const fn of [...listeners]) {
      try {
        fn(entries);
      } catch (err) {
        console.error('Hearth: an extension registry listener threw', err);
      }
    }
  }

  function fresh(): Promise<void> {
    if (!inFlight) {
      inFlight = read().finally(() => (inFlight = null));
      return inFlight;
    }
    // The read under way may have started before this call: wait for the one after it.
    next ??= inFlight
      .catch(() => undefined)
      .then(() => {
        next = null;
        return fresh();
      });
    return next;
  }

  return {
    entries: () => entries,
    get: (id) => byId.get(id),
    fresh,
    age: () => now() - readAt,
    invalidate() {
      generation++;
      invalid = true;
      readAt = -Infinity;
    },
    invalidated: () => invalid,
    onChange(fn) {
      listeners.add(fn);
      return () => void listeners.delete(fn);
    },
  };
}
