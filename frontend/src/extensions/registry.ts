// The window's copy of api.extensions.list(), which the host (which frames
// run), the bridge (what each may do) and the page loader (which page
// extensions load) read. Every change to an
// extension's grant or status sends an EXTENSION_* event (EXTENSION_GRANTED
// for a grant or a revoke), on which the host calls invalidate(); current()
// then reads the list again before the next call is checked, so a revoke
// holds from the first call after its event reaches this window, without a
// list read per call. A copy older than MAX_AGE_MS is read again too, which
// bounds what an event lost to a dropped connection could cost. Reads are
// coalesced: one in flight, and every caller that arrives meanwhile shares
// the single read that follows it.
import type { ExtensionEntry } from '../abi/types-extensions';

/** ExtensionRegistry is the latest extensions.list() and the way to a fresher one. */
export interface ExtensionRegistry {
  /** entries is the last list read (empty before the first). */
  entries(): readonly ExtensionEntry[];
  get(id: string): ExtensionEntry | undefined;
  /** fresh reads the list again; it resolves once a read started after this call has landed. */
  fresh(): Promise<void>;
  /**
   * current resolves at once when the copy is neither invalidated nor older than MAX_AGE_MS; else with the
   * read under way when that one started after the last invalidate() and within MAX_AGE_MS (so the window's
   * readers at start share one read), else as fresh().
   */
  current(): Promise<void>;
  /** stale reports whether current() would read the list again. */
  stale(): boolean;
  /** invalidate marks the copy out of date (an EXTENSION_* event came): the next current() reads again. */
  invalidate(): void;
  /** age is how long ago the last read that landed started, in ms (Infinity before one). */
  age(): number;
  /** onChange calls fn after every read that lands (listeners compare what they need). */
  onChange(fn: (entries: readonly ExtensionEntry[]) => void): () => void;
}

/** MAX_AGE_MS is the oldest copy current() answers from without reading again. */
export const MAX_AGE_MS = 5000;

/** createRegistry reads through list; now is the clock age() uses. */
export function createRegistry(list: () => Promise<ExtensionEntry[]>, now: () => number = () => performance.now()): ExtensionRegistry {
  let entries: readonly ExtensionEntry[] = [];
  let byId = new Map<string, ExtensionEntry>();
  let readAt = -Infinity;
  /** generation counts invalidate() calls; readGeneration is the count when the last landed read started. */
  let generation = 0;
  let readGeneration = -1;
  let inFlight: Promise<void> | null = null;
  /** The generation and clock when the read in flight started. */
  let inFlightGeneration = -1;
  let inFlightAt = -Infinity;
  let next: Promise<void> | null = null;
  const listeners = new Set<(entries: readonly ExtensionEntry[]) => void>();

  async function read(): Promise<void> {
    const started = now();
    const startedGeneration = generation;
    const got = await list();
    if (!Array.isArray(got)) throw new Error('extensions.list answered something other than a list');
    entries = Object.freeze([...got]);
    byId = new Map(got.map((e) => [e.id, e]));
    readAt = started;
    readGeneration = startedGeneration;
    for (const fn of [...listeners]) {
      try {
        fn(entries);
      } catch (err) {
        console.error('Hearth: an extension registry listener threw', err);
      }
    }
  }

  function stale(): boolean {
    return readGeneration < generation || now() - readAt > MAX_AGE_MS;
  }

  function fresh(): Promise<void> {
    if (!inFlight) {
      inFlightGeneration = generation;
      inFlightAt = now();
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
    stale,
    current() {
      if (!stale()) return Promise.resolve();
      if (inFlight && inFlightGeneration === generation && now() - inFlightAt <= MAX_AGE_MS) return inFlight;
      return fresh();
    },
    invalidate() {
      generation++;
    },
    age: () => now() - readAt,
    onChange(fn) {
      listeners.add(fn);
      return () => void listeners.delete(fn);
    },
  };
}
