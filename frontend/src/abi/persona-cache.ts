// The personas getContext().name1 reads synchronously: every persona with
// the active and default ids, loaded during ready and again on every
// PERSONA_CHANGED. The persona in effect in the window's chat is worked
// out here, as the backend does (the chat's lock, its metadata key
// "persona"; else the active persona; else the default), from the chat
// cache's metadata, so a chat switch or a lock shows at once.
import { T } from './event-types';
import type { Call } from './host';
import { deepFreeze } from './readonly';
import type { HostEvent } from './transport';
import type { Persona } from './types';

/** PersonaCache is the window's copy of the personas. */
export interface PersonaCache {
  /** load (re)reads the personas; a change that arrives meanwhile triggers one more pass. */
  load(): Promise<void>;
  ingest(event: HostEvent): void;
  /** effective is the persona in effect in a chat whose metadata is given (null: no chat). */
  effective(metadata: Readonly<Record<string, unknown>> | null): Persona | null;
}

/** createPersonaCache returns an empty cache; call load() to fill it. */
export function createPersonaCache(call: Call): PersonaCache {
  let byId = new Map<string, Persona>();
  let active: string | null = null;
  let fallback: string | null = null;
  let loading: Promise<void> | null = null;
  let changedWhileLoading = false;

  async function loadLoop(): Promise<void> {
    for (let pass = 0; pass < 3; pass++) {
      changedWhileLoading = false;
      const list = (await call('personas.list')) as Persona[];
      byId = new Map(list.map((p) => [p.id, deepFreeze(p)]));
      active = list.find((p) => p.isActive)?.id ?? null;
      fallback = list.find((p) => p.isDefault)?.id ?? null;
      if (!changedWhileLoading) return;
    }
  }

  function load(): Promise<void> {
    loading ??= loadLoop().finally(() => (loading = null));
    return loading;
  }

  return {
    load,
    ingest(ev) {
      if (ev.type !== T.PERSONA_CHANGED) return;
      if (loading) changedWhileLoading = true;
      // Until the list is read again, the payload's ids already apply.
      const p = ev.payload as { activeId?: unknown; defaultId?: unknown };
      if (p.activeId === null || typeof p.activeId === 'string') active = p.activeId;
      if (p.defaultId === null || typeof p.defaultId === 'string') fallback = p.defaultId;
      load().catch((err: unknown) => console.warn('Hearth: could not reload the personas', err));
    },
    effective(metadata) {
      const lock = metadata?.persona;
      const locked = typeof lock === 'string' ? byId.get(lock) : undefined;
      if (locked) return locked;
      return (active !== null ? byId.get(active) : undefined) ?? (fallback !== null ? byId.get(fallback) : undefined) ?? null;
    },
  };
}
