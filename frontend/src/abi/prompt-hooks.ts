// SillyTavern's prompt hooks, the window's half (EXTENSIONS.md §6).
// Generation is the backend's, yet SillyTavern extensions rewrite prompts
// in the window, so the window that starts a generation (api.generate,
// whoever calls it: the UI, getContext().generate, a script, a frame
// through the bridge) brings them along:
//
// - generate_interceptor: before the start call, each page extension's
//   interceptor (its manifest names a global function; registered by the
//   page loader, in load order) is awaited with shallow copies of the
//   chat's messages, as SillyTavern's runGenerationInterceptors does. What
//   they made of the chat goes with the call as `hooks.interceptor.chat`
//   (originals by index, new or edited messages whole); abort() stops the
//   generation before it starts (generate.aborted). Like SillyTavern's,
//   they do not run for a dry run.
// - CHAT_COMPLETION_PROMPT_READY: when an eventSource listener is there,
//   the call carries a token; the backend sends the assembled messages
//   back with it (PROMPT_HOOK_REQUEST), the listeners get SillyTavern's
//   `{ chat, dryRun }` to change in place, and what they leave goes back
//   with generate.promptHookReply.
//
// Both are bounded (5 s for the interceptors here, 5 s for the round trip
// in the backend) and change that prompt only, never the stored chat.
import type { ChatCache } from './chat-cache';
import { HostError } from './errors';
import { hasListeners } from './event-source';
import { T } from './event-types';
import type { PromptHookRequestPayload } from './event-registry.gen';
import type { Call } from './host';
import type { HostEvent } from './transport';
import type { EventSource, GenerateOptions, InterceptedItem, PromptHooksOption, StMessage } from './types';

/** An interceptor a page extension's manifest names (generate_interceptor). */
export interface InterceptorEntry {
  extensionId: string;
  displayName: string;
  /** name is the global function SillyTavern calls (globalThis[name]). */
  name: string;
}

// One window holds one ABI: the page loader fills this list (as the
// compat runtime fills page-extras), the window's prompt hooks read it.
let interceptors: readonly InterceptorEntry[] = [];

/** registerInterceptor adds a page extension's interceptor; call in load order. */
export function registerInterceptor(entry: InterceptorEntry): void {
  interceptors = Object.freeze([...interceptors, Object.freeze({ ...entry })]);
}

/** clearInterceptors forgets them all (tests). */
export function clearInterceptors(): void {
  interceptors = [];
}

/** HOOK_TIMEOUT_MS bounds the interceptors of one generation. */
export const HOOK_TIMEOUT_MS = 5000;

/** SillyTavern's mark for a message an interceptor leaves out of the prompt (extra[IGNORE_SYMBOL]). */
export const IGNORE_SYMBOL = Symbol.for('ignore');

export interface PromptHooksDeps {
  call: Call;
  cache: Pick<ChatCache, 'committed' | 'waitFor'>;
  eventSource: EventSource;
  /** maxContext is getContext().maxContext: the interceptors' contextSize. */
  maxContext(): number;
  /** global is where interceptors are looked up (globalThis). */
  global?: Record<string, unknown>;
  timeoutMs?: number;
}

/** Prepared is a start call's options with the window's hooks, and what to do once the call settled. */
export interface Prepared {
  options: GenerateOptions;
  settled(): void;
}

export interface PromptHooks {
  /**
   * prepare runs the interceptors (not for a dry run) and adds the hooks
   * option; it rejects generate.aborted when an interceptor aborted.
   */
  prepare(options: GenerateOptions, dryRun: boolean): Promise<Prepared>;
  /** ingest answers a PROMPT_HOOK_REQUEST carrying one of this window's tokens. */
  ingest(ev: HostEvent): void;
}

type Mutable = Record<string | symbol, unknown>;

/** newToken is a prompt-hook token: 32 random hex digits (crypto.randomUUID needs a secure context). */
function newToken(): string {
  const b = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
}

function elapsed(t0: number): number {
  return Math.round((performance.now() - t0) * 100) / 100;
}

const narrator = (m: { extra?: unknown }): boolean => (m.extra as Mutable | undefined)?.type === 'narrator';

/**
 * interceptedItems compares what the interceptors left in chat with the
 * copies they were given (origin: copy → stored index; positions: a copy's
 * `index` → stored index, for copies spread into new objects) and returns
 * the items to send, or null when nothing changed.
 */
export function interceptedItems(chat: unknown, origin: Map<object, number>, positions: readonly number[], stored: readonly StMessage[]): InterceptedItem[] | null {
  if (!Array.isArray(chat)) return null;
  const items: InterceptedItem[] = [];
  let changed = chat.length !== positions.length;
  chat.forEach((el: unknown, k) => {
    if (typeof el !== 'object' || el === null) {
      changed = true;
      return;
    }
    const m = el as Mutable;
    const extra = typeof m.extra === 'object' && m.extra !== null ? (m.extra as Mutable) : undefined;
    if (m.is_system === true || extra?.[IGNORE_SYMBOL]) {
      changed = true; // hidden from the prompt
      return;
    }
    let ref = origin.get(m);
    if (ref === undefined && Number.isInteger(m.index)) ref = positions[m.index as number];
    const orig = ref === undefined ? undefined : stored[ref];
    const mes = typeof m.mes === 'string' ? m.mes : String(m.mes ?? '');
    const name = typeof m.name === 'string' ? m.name : '';
    const isUser = m.is_user === true;
    const asNarrator = narrator(m);
    if (orig && ref !== undefined && mes === orig.mes && name === (orig.name ?? '') && isUser === (orig.is_user === true) && asNarrator === narrator(orig)) {
      items.push({ ref });
      if (ref !== positions[k]) changed = true;
      return;
    }
    items.push({ mes, name, is_user: isUser, ...(asNarrator ? { narrator: true } : {}), ...(ref === undefined ? {} : { ref }) });
    changed = true;
  });
  return changed ? items : null;
}

/** createPromptHooks returns the window's prompt hooks. */
export function createPromptHooks(deps: PromptHooksDeps): PromptHooks {
  const timeoutMs = deps.timeoutMs ?? HOOK_TIMEOUT_MS;
  const pending = new Set<string>();

  /** interceptor runs the interceptors for options' chat: undefined when there are none (or the chat is not this window's). */
  async function interceptor(options: GenerateOptions): Promise<PromptHooksOption['interceptor']> {
    const g = deps.global ?? (globalThis as unknown as Record<string, unknown>);
    if (!interceptors.some((i) => typeof g[i.name] === 'function')) return undefined;
    const chatId = options.chatId;
    const type = options.type ?? 'normal';
    const t0 = performance.now();
    let aborted: InterceptorEntry | null = null;
    let timedOut = false;

    const phase = (async () => {
      // The window's copy of the chat may lag a write just made (the
      // message just sent): wait until it holds the chat's revision.
      const head = (await deps.call('chat.get', chatId)) as { revision?: unknown } | null;
      if (typeof head?.revision === 'number') await deps.cache.waitFor(chatId, head.revision, 1000);
      const base = deps.cache.committed();
      if (!base || base.chatId !== chatId || timedOut) return null;
      const stored = base.messages;
      let n = stored.length;
      // A swipe or a regenerate replaces the character's last reply, which is not part of its own prompt.
      const last = stored[n - 1];
      if ((type === 'swipe' || type === 'regenerate') && last && !last.is_user && !last.is_system) n--;
      const origin = new Map<object, number>();
      const positions: number[] = [];
      const chat: Mutable[] = [];
      for (let i = 0; i < n; i++) {
        const m = stored[i]!;
        if (m.is_system) continue; // hidden from the prompt, as SillyTavern's coreChat leaves them out
        const copy: Mutable = { ...m, index: chat.length };
        if (typeof m.extra === 'object' && m.extra !== null) copy.extra = { ...m.extra };
        origin.set(copy, i);
        positions.push(i);
        chat.push(copy);
      }
      let current: InterceptorEntry | null = null;
      let exit = false;
      const abort = (immediately?: boolean) => {
        aborted ??= current;
        exit = immediately === true;
      };
      for (const entry of interceptors) {
        const fn = g[entry.name];
        if (typeof fn !== 'function' || timedOut) continue;
        current = entry;
        try {
          await (fn as (...a: unknown[]) => unknown)(chat, deps.maxContext(), abort, type);
        } catch (err) {
          console.error(`Hearth: the generate interceptor of ${entry.displayName} (${entry.name}) threw`, err);
        }
        if (exit) break;
      }
      return { revision: base.revision, items: interceptedItems(chat, origin, positions, stored) };
    })();

    let timer: ReturnType<typeof setTimeout> | undefined;
    const limit = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeoutMs);
    });
    let result: Awaited<typeof phase> | 'timeout';
    try {
      result = await Promise.race([phase, limit]);
    } catch (err) {
      // The chat could not be read: the backend's start says why.
      console.warn('Hearth: the generate interceptors could not run', err);
      return undefined;
    } finally {
      clearTimeout(timer);
    }
    if (result === 'timeout') {
      timedOut = true;
      console.warn(`Hearth: the generate interceptors took over ${timeoutMs / 1000} s; the generation goes on without what they did`);
      return { ms: elapsed(t0), timedOut: true };
    }
    if (result === null) return undefined;
    const by = aborted as InterceptorEntry | null;
    if (by) {
      throw new HostError('generate.aborted', `${by.displayName}'s generate interceptor aborted the generation`, {
        extensionId: by.extensionId,
        interceptor: by.name,
      });
    }
    const ms = elapsed(t0);
    return result.items ? { ms, chat: { revision: result.revision, items: result.items } } : { ms };
  }

  async function answer(p: PromptHookRequestPayload): Promise<void> {
    // SillyTavern's listeners change the messages in place: give them a copy.
    const chat = structuredClone(p.chat) as unknown[];
    const original = JSON.stringify(chat);
    const data: { chat: unknown; dryRun: boolean } = { chat, dryRun: p.dryRun };
    await deps.eventSource.emit(T.CHAT_COMPLETION_PROMPT_READY, data);
    let changed = true;
    try {
      changed = JSON.stringify(data.chat) !== original;
    } catch {
      // Not JSON (a cycle): sent as it is, the backend refuses it.
    }
    try {
      const res = (await deps.call('generate.promptHookReply', p.token, changed ? data.chat : null)) as { accepted?: boolean } | null;
      if (res?.accepted === false) {
        console.warn('Hearth: the CHAT_COMPLETION_PROMPT_READY listeners answered after the generation went on without them (5 s)');
      }
    } catch (err) {
      console.warn('Hearth: what the CHAT_COMPLETION_PROMPT_READY listeners left of the prompt was refused; it goes as assembled', err);
    }
  }

  return {
    async prepare(options, dryRun) {
      if (typeof options !== 'object' || options === null || typeof options.chatId !== 'string') {
        return { options, settled: () => {} };
      }
      const hooks: PromptHooksOption = {};
      if (!dryRun) {
        const ic = await interceptor(options);
        if (ic) hooks.interceptor = ic;
      }
      let token: string | null = null;
      if (hasListeners(deps.eventSource, T.CHAT_COMPLETION_PROMPT_READY)) {
        token = newToken();
        pending.add(token);
        hooks.promptReady = token;
      }
      return {
        options: { ...options, hooks },
        settled: () => {
          if (token !== null) pending.delete(token);
        },
      };
    },
    ingest(ev) {
      if (ev.type !== T.PROMPT_HOOK_REQUEST) return;
      const p = ev.payload as unknown as PromptHookRequestPayload;
      if (!pending.delete(p.token)) return; // another window's, or answered already
      answer(p).catch((err: unknown) => console.error('Hearth: the prompt hook failed', err));
    },
  };
}
