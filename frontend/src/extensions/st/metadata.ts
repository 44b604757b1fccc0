// SillyTavern's chat_metadata as page extensions use it: one mutable
// object for the open chat that they write keys into, then save with
// saveMetadata()/saveMetadataDebounced()/saveChat(). Hearth's own
// getContext().chat_metadata is the committed, frozen metadata (writes go
// through saveChatMetadata), so the compat layer keeps a working copy per
// chat: the same object while the chat stays open, brought up to date in
// place when the stored metadata moves (keeping edits not yet saved), and
// saved as the keys that differ (a removed key as null, which removes it).

export interface MetadataSource {
  /** committed is the open chat's stored metadata (a new object after each change). */
  committed(): Readonly<Record<string, unknown>>;
  /** chatKey names the open chat (undefined when none). */
  chatKey(): string | undefined;
  /** save merges changes into the stored metadata (null removes a key). */
  save(changes: Record<string, unknown>): Promise<unknown>;
}

export interface WorkingMetadata {
  /** current is the working copy for the open chat. */
  current(): Record<string, unknown>;
  /** save writes what differs from the stored metadata; nothing when nothing does. */
  save(): Promise<void>;
}

function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  try {
    return JSON.stringify(a) === JSON.stringify(b);
  } catch {
    return false;
  }
}

/** changesOf lists the keys of work that differ from base, removed ones as null. */
export function changesOf(base: Readonly<Record<string, unknown>>, work: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(work)) if (!Object.hasOwn(base, k) || !same(base[k], v)) out[k] = v === undefined ? null : v;
  for (const k of Object.keys(base)) if (!Object.hasOwn(work, k)) out[k] = null;
  return out;
}

export function createWorkingMetadata(source: MetadataSource): WorkingMetadata {
  let key: string | undefined;
  let base: Readonly<Record<string, unknown>> | null = null;
  let work: Record<string, unknown> = {};

  function current(): Record<string, unknown> {
    const now = source.committed();
    const chat = source.chatKey();
    if (base === null || chat !== key) {
      key = chat;
      base = now;
      work = structuredClone(now) as Record<string, unknown>;
    } else if (now !== base) {
      const pending = changesOf(base, work);
      for (const k of Object.keys(work)) delete work[k];
      Object.assign(work, structuredClone(now));
      for (const [k, v] of Object.entries(pending)) {
        if (v === null) delete work[k];
        else work[k] = v;
      }
      base = now;
    }
    return work;
  }

  return {
    current,
    async save() {
      const w = current();
      const changes = changesOf(base ?? {}, w);
      if (Object.keys(changes).length === 0) return;
      await source.save(changes);
    },
  };
}
