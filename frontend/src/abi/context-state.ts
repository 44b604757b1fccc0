// The state methods of getContext() (HOST-ABI §9): Luker's signatures over
// api.state. Unlike api.state they resolve values, not { value, revision }
// envelopes, and updateChatState/deleteChatState report expected failures
// as { ok: false, reason } instead of throwing.
import { updateChatState } from './api-state';
import { HostError } from './errors';
import { createFloorState } from './floor-state';
import type { Call } from './host';
import type { ChatTarget, StateEntry, UpdateResult } from './types';

/** reason turns a HostError into the short reason Luker-style callers get. */
function reason(err: unknown): string {
  if (!(err instanceof HostError)) throw err;
  switch (err.code) {
    case 'state.conflict':
      return 'conflict';
    case 'state.reserved_namespace':
      return 'reserved_namespace';
    case 'state.floor_owned':
      return 'floor_owned';
    case 'chat.not_found':
      return 'not_found';
    default:
      return err.code;
  }
}

/** createContextState returns the state methods for a context over currentChatId. */
export function createContextState(call: Call, currentChatId: () => string | null) {
  /** resolve turns an options.target into a chatId (null: no chat). */
  async function resolve(options: { target?: ChatTarget } | undefined): Promise<string | null> {
    const t = options?.target;
    if (t === undefined || t === null) return currentChatId();
    if (typeof t === 'string') return t;
    if (typeof t === 'object' && 'chatId' in t && typeof t.chatId === 'string') return t.chatId;
    return (await call('chat.resolve', t)) as string;
  }

  function noChat(): HostError {
    return new HostError('chat.not_found', 'no chat is open in this window and no options.target was given');
  }

  return {
    async getChatState(namespace: string, options?: { target?: ChatTarget }): Promise<unknown> {
      const id = await resolve(options);
      if (id === null) return null;
      const e = (await call('state.getChatState', id, namespace)) as StateEntry | null;
      return e === null ? null : e.value;
    },
    async getChatStateBatch(namespaces: string[], options?: { target?: ChatTarget }): Promise<Record<string, unknown>> {
      const id = await resolve(options);
      const out: Record<string, unknown> = {};
      if (id === null) {
        for (const ns of namespaces) out[ns] = null;
        return out;
      }
      const got = (await call('state.getChatStateBatch', id, namespaces)) as Record<string, StateEntry | null>;
      for (const [ns, e] of Object.entries(got)) out[ns] = e === null ? null : e.value;
      return out;
    },
    async updateChatState(
      namespace: string,
      updater: (current: unknown) => unknown,
      options?: { target?: ChatTarget; maxRetries?: number },
    ): Promise<UpdateResult> {
      try {
        const id = await resolve(options);
        if (id === null) throw noChat();
        const r = await updateChatState(call, id, namespace, updater, options?.maxRetries === undefined ? undefined : { maxRetries: options.maxRetries });
        return r.ok ? { ok: true } : r;
      } catch (err) {
        return { ok: false, reason: reason(err) };
      }
    },
    async deleteChatState(namespace: string, options?: { target?: ChatTarget }): Promise<UpdateResult> {
      try {
        const id = await resolve(options);
        if (id === null) throw noChat();
        await call('state.deleteChatState', id, namespace);
        return { ok: true };
      } catch (err) {
        return { ok: false, reason: reason(err) };
      }
    },
    createFloorState: (options: { namespace: string; chatId?: string }) => createFloorState(call, currentChatId, options),
    getCharacterState: (avatar: string, namespace: string) => call('state.getCharacterState', avatar, namespace),
    async setCharacterState(avatar: string, namespace: string, data: unknown): Promise<void> {
      await call('state.setCharacterState', avatar, namespace, data === undefined ? null : data);
    },
  };
}
