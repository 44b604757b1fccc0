// Which chats have a generation running, from the backend's events, and
// what getContext() reports of the connection and preset in use
// (online_status, maxContext): the window keeps them current so those
// stay synchronous, as SillyTavern's are.
import type { Call } from './host';
import type { HostEvent } from './transport';
import { T } from './event-types';
import type { GenerationStartedPayload, GenerationStatus } from './types';

export interface Generations {
  /** running returns the generation id running in chatId, if any. */
  running(chatId: string): string | undefined;
  /** onlineStatus is the active connection's model, or 'no_connection'. */
  onlineStatus(): string;
  /** maxContext is the active preset's context size. */
  maxContext(): number;
  ingest(ev: HostEvent): void;
  /** load reads the current state (at ready and after a reconnect). */
  load(): Promise<void>;
}

/** DEFAULT_MAX_CONTEXT is the built-in preset's context size, shown until the preset is read. */
export const DEFAULT_MAX_CONTEXT = 8192;

export function createGenerations(call: Call): Generations {
  const byChat = new Map<string, string>();
  let online = 'no_connection';
  let maxContext = DEFAULT_MAX_CONTEXT;

  async function loadConnection(): Promise<void> {
    const c = (await call('connections.active')) as { model?: string; name?: string } | null;
    online = c ? c.model || c.name || 'connected' : 'no_connection';
  }
  async function loadPreset(): Promise<void> {
    try {
      const p = (await call('presets.active')) as { maxContext?: number } | null;
      if (typeof p?.maxContext === 'number') maxContext = p.maxContext;
    } catch (err) {
      console.warn('Hearth: could not read the active preset', err);
    }
  }
  function warn(what: string) {
    return (err: unknown) => console.warn(`Hearth: could not read ${what}`, err);
  }

  return {
    running: (chatId) => byChat.get(chatId),
    onlineStatus: () => online,
    maxContext: () => maxContext,
    ingest(ev) {
      const p = ev.payload as Partial<GenerationStartedPayload>;
      switch (ev.type) {
        case T.GENERATION_STARTED:
          if (p.chatId && p.generationId) byChat.set(p.chatId, p.generationId);
          break;
        case T.GENERATION_ENDED:
        case T.GENERATION_STOPPED:
          if (p.chatId && byChat.get(p.chatId) === p.generationId) byChat.delete(p.chatId);
          break;
        case T.CONNECTIONS_CHANGED:
          loadConnection().catch(warn('the active connection'));
          break;
        case T.OAI_PRESET_CHANGED_AFTER:
          loadPreset().catch(warn('the active preset'));
          break;
      }
    },
    async load() {
      const st = (await call('generate.status')) as GenerationStatus;
      byChat.clear();
      if (st.generating && st.chatId && st.generationId) byChat.set(st.chatId, st.generationId);
      await Promise.all([loadConnection(), loadPreset()]);
    },
  };
}
