// api.personas: the personas.* host methods (HOST-ABI §6). A change made
// from this window resolves once the window shows it: getContext().name1
// already names the new persona when save, delete, setActive, setDefault
// or lockToChat resolves (PERSONA_CHANGED and CHAT_METADATA_UPDATED, which
// may arrive after the answer, bring other windows along).
import { bind } from './api-chat';
import type { ChatCache } from './chat-cache';
import type { Call } from './host';
import type { PersonaCache } from './persona-cache';
import type { PersonaLock, PersonasApi } from './types';

const READ_METHODS = ['list', 'get', 'active', 'effective'] as const;
const WRITE_METHODS = ['save', 'delete', 'setActive', 'setDefault'] as const;

/** PersonasApiDeps are what api.personas keeps in step after a write. */
export interface PersonasApiDeps {
  personas: PersonaCache;
  cache: ChatCache;
  /** settleMs is how long lockToChat waits for its event before the chat cache re-fetches. */
  settleMs: number;
}

/** createPersonasApi returns the frozen api.personas. */
export function createPersonasApi(call: Call, deps: PersonasApiDeps): PersonasApi {
  const api: Record<string, (...args: unknown[]) => Promise<unknown>> = bind(call, 'personas', READ_METHODS);
  for (const name of WRITE_METHODS) {
    api[name] = async (...args) => {
      const out = await call(`personas.${name}`, ...args);
      // The write stands even if the re-read fails; PERSONA_CHANGED retries it.
      await deps.personas.load().catch((err: unknown) => console.warn('Hearth: could not reload the personas', err));
      return out;
    };
  }
  api.lockToChat = async (...args) => {
    const out = (await call('personas.lockToChat', ...args)) as PersonaLock;
    const chatId = args[0];
    if (typeof chatId === 'string' && deps.cache.current()?.chatId === chatId) {
      await deps.cache.waitFor(chatId, out.revision, deps.settleMs);
    }
    return out;
  };
  return Object.freeze(api) as unknown as PersonasApi;
}
