// Prompt hooks for frames (EXTENSIONS.md §6): a sandboxed extension granted
// prompt.hooks whose frame has an api.events handler for a hook event
// (protocol.ts HOOK_EVENTS: CHAT_COMPLETION_PROMPT_READY) takes part in the
// window's prompt-ready step, after the page's eventSource listeners. Each
// such frame, in load order, gets the prompt ('hook') and answers with what
// its handlers left ('hookResult'); the next frame gets that. A frame that
// does not answer in time, throws, goes away or answers something that is
// not a prompt is skipped with a warning, and the prompt goes on as it was
// before it. The grant is read again before each frame is asked, so a frame
// whose prompt.hooks was revoked is never handed a prompt.
import type { FrameHookRequest, FrameHookResult, FramePromptHooks } from '../abi/prompt-hooks';
import { T } from '../abi/event-types';
import type { Listener } from './bridge-events';
import { imagesOf, readHookChat } from './hook-chat';
import { HOOK_PERMISSION, LIMITS, type HookPayload, type PageMessage } from './protocol';
import type { ExtensionRegistry } from './registry';

/** FRAME_HOOK_TIMEOUT_MS is the most one frame's hook may take (less when the window's prompt hooks have less left). */
export const FRAME_HOOK_TIMEOUT_MS = 5000;

/** MIN_HOOK_MS is the least time worth asking a frame with: with less left, it is skipped. */
export const MIN_HOOK_MS = 20;

/** HOOK_EXTRA_MAX is how many messages the hooks may add to the prompt the backend sent (the backend's bound). */
export const HOOK_EXTRA_MAX = 1000;

/** HookRequestMessage is the 'hook' message the window posts to a frame. */
export type HookRequestMessage = Extract<PageMessage, { kind: 'hook' }>;

/** HookDeps are what the hooks need of the bridge. */
export interface HookDeps {
  registry: ExtensionRegistry;
  /** subscribers lists the frames subscribed to an event type, whatever their grant. */
  subscribers(type: string): readonly Listener[];
  /** post sends a hook to frame; it throws when the message cannot be cloned. */
  post(frame: Listener, message: HookRequestMessage): void;
  /** now is the clock deadlines are on (performance.now). */
  now?: () => number;
  /** timeoutMs is the most one frame may take (FRAME_HOOK_TIMEOUT_MS). */
  timeoutMs?: number;
}

/** HookRunner is the bridge's prompt hooks: what the window's prompt-ready step calls, and what the bridge feeds it. */
export interface HookRunner extends FramePromptHooks {
  /** settle takes a frame's hookResult message. */
  settle(frame: Listener, data: Record<string, unknown>): void;
  /** drop ends the hooks frame was asked and has not answered (it went away or reloaded). */
  drop(frame: Listener): void;
  /** close ends every hook under way. */
  close(): void;
}

type Outcome = { kind: 'answer'; chat: unknown } | { kind: 'failed'; error: string } | { kind: 'timeout' } | { kind: 'gone' };

interface Pending {
  frame: Listener;
  done(o: Outcome): void;
}

/** seconds writes ms as seconds for a person ("4.5 s"). */
function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}

/** createHookRunner returns the frames' prompt hooks. */
export function createHookRunner(deps: HookDeps): HookRunner {
  const now = deps.now ?? (() => performance.now());
  const timeoutMs = deps.timeoutMs ?? FRAME_HOOK_TIMEOUT_MS;
  const pending = new Map<number, Pending>();
  let nextId = 1;

  function granted(id: string): boolean {
    const e = deps.registry.get(id);
    return e !== undefined && e.status === 'active' && e.mode === 'sandboxed' && e.granted.includes(HOOK_PERMISSION);
  }

  /** hooking lists the frames that hook type under the grant as last read, in load order. */
  function hooking(type: string): Listener[] {
    const order = new Map(deps.registry.entries().map((e, i) => [e.id, i]));
    return deps
      .subscribers(type)
      .filter((f) => granted(f.id))
      .sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0));
  }

  function nameOf(frame: Listener): string {
    const e = deps.registry.get(frame.id);
    const name = (e?.displayName || frame.id).slice(0, 100);
    return name === frame.id ? `The extension ${name}` : `The extension ${name} (${frame.id.slice(0, 100)})`;
  }

  /** ask posts a hook to frame and waits, at most limitMs, for its answer. */
  function ask(frame: Listener, type: string, payload: HookPayload, limitMs: number): Promise<Outcome> {
    const id = nextId++;
    return new Promise<Outcome>((resolve) => {
      const timer = setTimeout(() => done({ kind: 'timeout' }), limitMs);
      function done(o: Outcome): void {
        if (pending.get(id)?.done !== done) return;
        clearTimeout(timer);
        pending.delete(id);
        resolve(o);
      }
      pending.set(id, { frame, done });
      try {
        deps.post(frame, { kind: 'hook', id, type, payload });
      } catch (err) {
        done({ kind: 'failed', error: `the prompt could not be sent to it (${err instanceof Error ? err.message : String(err)})` });
      }
    });
  }

  async function run(request: FrameHookRequest, deadline: number): Promise<FrameHookResult> {
    const type = T.CHAT_COMPLETION_PROMPT_READY;
    const warnings: string[] = [];
    let chat = request.chat;
    try {
      await deps.registry.current();
    } catch (err) {
      // Without a grant to check them against, no frame is handed the prompt.
      console.warn('Hearth: could not read the extensions to run their prompt hooks', err);
      return { chat, warnings };
    }
    const frames = hooking(type);
    if (frames.length === 0) return { chat, warnings };
    const maxMessages = request.original.length + HOOK_EXTRA_MAX;
    // What the page's listeners left is what the first frame sees: it must be a prompt too.
    let current = readHookChat(chat, maxMessages, null);
    if (!current.ok) {
      warnings.push(`No extension frame was given the prompt: what the page's listeners left is not a prompt (${current.why})`);
      return { chat, warnings };
    }
    const images = imagesOf(request.original);
    for (const frame of frames) {
      // A revoke that came while an earlier frame ran holds for this one.
      try {
        await deps.registry.current();
      } catch {
        warnings.push(`${nameOf(frame)} was skipped: its grant could not be read`);
        continue;
      }
      if (!granted(frame.id) || !deps.subscribers(type).includes(frame)) continue;
      const left = deadline - now();
      if (left < MIN_HOOK_MS) {
        warnings.push(`${nameOf(frame)} was skipped: the prompt hooks had no time left`);
        continue;
      }
      const limit = Math.min(timeoutMs, left);
      const payload: HookPayload = { chat: current.chat, dryRun: request.dryRun, chatId: request.chatId };
      if (request.generationId !== undefined) payload.generationId = request.generationId;
      const o = await ask(frame, type, payload, limit);
      const skipped = `${nameOf(frame)}'s prompt hook was skipped`;
      if (o.kind === 'timeout') warnings.push(`${skipped}: it did not answer within ${seconds(limit)}`);
      else if (o.kind === 'gone') warnings.push(`${skipped}: its frame stopped before it answered`);
      else if (o.kind === 'failed') warnings.push(`${skipped}: it failed: ${o.error.slice(0, 300)}`);
      else {
        const next = readHookChat(o.chat, maxMessages, images);
        if (!next.ok) warnings.push(`${skipped}: what it answered is not a prompt: ${next.why}`);
        else if (JSON.stringify(next.chat) !== JSON.stringify(current.chat)) {
          current = next;
          chat = next.chat;
        }
      }
    }
    return { chat, warnings };
  }

  return {
    async wants() {
      await deps.registry.current();
      return hooking(T.CHAT_COMPLETION_PROMPT_READY).length > 0;
    },
    run,
    settle(frame, data) {
      const id = data.id;
      const p = typeof id === 'number' ? pending.get(id) : undefined;
      // Only the frame asked may answer, once.
      if (!p || p.frame !== frame) return;
      if (data.ok === true) p.done({ kind: 'answer', chat: data.chat });
      else p.done({ kind: 'failed', error: typeof data.error === 'string' && data.error.trim() !== '' ? data.error.slice(0, LIMITS.errorLength) : 'it reported a failure without a message' });
    },
    drop(frame) {
      for (const p of [...pending.values()]) if (p.frame === frame) p.done({ kind: 'gone' });
    },
    close() {
      for (const p of [...pending.values()]) p.done({ kind: 'gone' });
    },
  };
}
