// api.personas: the personas.* host methods (HOST-ABI §6). A change made
// from this window resolves once the window shows it: getContext().name1
// already names the new persona when save, delete, setActive, setDefault
// or lockToChat resolves (PERSONA_CHANGED and CHAT_METADATA_UPDATED, which
// may arrive after the answer, bring other windows along).
import { bind } from './bind';
import type { ChatCache } from './chat-cache';
import type { Call } from './host';
import type { PersonaCache } from './persona-cache';
import type { PersonaLock, PersonasApi } from './types';

/** The personas.* host methods; the writes among them are wrapped to reload the persona cache. */
const PERSONA_METHODS = ['list', 'get', 'active', 'effective', 'save', 'delete', 'setActive', 'setDefault', 'lockToChat'] as const;

/** PersonasApiDeps are what api.personas keeps in step after a write. */
export interface PersonasApiDeps {
  personas: PersonaCache;
  cache: ChatCache;
  /** settleMs is how long lockToChat waits for its event before the chat cache re-fetches. */
  settleMs: number;
}

/** createPersonasApi returns the frozen api.personas. */
export function createPersonasApi(call: Call, deps: PersonasApiDeps): PersonasApi {
  const host = bind<PersonasApi>(call, 'personas')(PERSONA_METHODS);
  /** reloading makes a write resolve once this window's persona cache has re-read the personas. */
  const reloading =
    <A extends unknown[], R>(write: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      const out = await write(...args);
      // The write stands even if the re-read fails; PERSONA_CHANGED retries it.
      await deps.personas.load().catch((err: unknown) => console.warn('Hearth: could not reload the personas', err));
      return out;
    };
  return Object.freeze({
    ...host,
    save: reloading(host.save),
    delete: reloading(host.delete),
    setActive: reloading(host.setActive),
    setDefault: reloading(host.setDefault),
    async lockToChat(...args: Parameters<PersonasApi['lockToChat']>): Promise<PersonaLock> {
      const out = await host.lockToChat(...args);
      const chatId: unknown = args[0];
      if (typeof chatId === 'string' && deps.cache.current()?.chatId === chatId) {
        await deps.cache.waitFor(chatId, out.revision, deps.settleMs);
      }
      return out;
    },
  });
}
