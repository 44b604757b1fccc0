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
// - Sandboxed extensions granted prompt.hooks take part in that step
//   through the bridge (extensions/bridge-hooks.ts, registered here by the
//   extension host): after the eventSource listeners, each hooking frame in
//   load order gets what they left; one that fails or runs out of time is
//   skipped, and the warning goes with the answer into the record.
//
// Both are bounded (5 s for the interceptors here, 5 s for the round trip
// in the backend, which the frames share: they must be done by
// PROMPT_READY_BUDGET_MS after the request came) and change that prompt
// only, never the stored chat.
import type { ChatCache } from './chat-cache';
import { HostError } from './errors';
import { hasListeners } from './event-source';
import { T } from './event-types';
import type { PromptHookRequestPayload } from './event-registry.gen';
import type { Call } from './host';
import type { HostEvent } from './transport';
import type { EventSource, GenerateOptions, InterceptedItem, PayloadMessage, PromptHooksOption, StMessage } from './types';

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

/** HOOK_TIMEOUT_MS bounds the interceptors of one generation (and the backend's wait for the prompt-ready answer). */
export const HOOK_TIMEOUT_MS = 5000;

/**
 * PROMPT_READY_BUDGET_MS is how long after a PROMPT_HOOK_REQUEST came the
 * extension frames' hooks must be done: the backend waits HOOK_TIMEOUT_MS
 * from sending it, and the answer needs time to get there.
 */
export const PROMPT_READY_BUDGET_MS = 4500;

/** HOOK_WARNINGS_MAX and HOOK_WARNING_BYTES bound the warnings an answer carries (the backend's bounds). */
export const HOOK_WARNINGS_MAX = 32;
export const HOOK_WARNING_BYTES = 1000;

/** FrameHookRequest is the prompt the window's extension frames hook. */
export interface FrameHookRequest {
  /** chat is what the page's listeners left of the prompt. */
  chat: unknown;
  /** original is the prompt as the backend sent it (what bounds an answer: its count, its images). */
  original: readonly PayloadMessage[];
  dryRun: boolean;
  chatId: string;
  generationId?: string;
}

/** FrameHookResult is what the frames left of the prompt (chat itself when none changed it), and what they skipped. */
export interface FrameHookResult {
  chat: unknown;
  warnings: string[];
}

/** FramePromptHooks are the sandboxed extensions' prompt hooks, as the extension host registers them. */
export interface FramePromptHooks {
  /** wants says whether some frame would hook CHAT_COMPLETION_PROMPT_READY under its current grant. */
  wants(): Promise<boolean>;
  /** run hands request to each hooking frame in turn, all done by deadline (performance.now() ms). */
  run(request: FrameHookRequest, deadline: number): Promise<FrameHookResult>;
}

// The extension host of this window registers its frames' hooks here.
let frameHooks: FramePromptHooks | null = null;

/** registerFrameHooks makes hooks the window's frame prompt hooks; the return takes them away again. */
export function registerFrameHooks(hooks: FramePromptHooks): () => void {
  frameHooks = hooks;
  return () => {
    if (frameHooks === hooks) frameHooks = null;
  };
}

/** framesWant asks the registered frame hooks whether any would hook; an error is a no. */
async function framesWant(): Promise<boolean> {
  const f = frameHooks;
  if (!f) return false;
  try {
    return await f.wants();
  } catch (err) {
    console.warn('Hearth: could not tell whether an extension frame hooks the prompt', err);
    return false;
  }
}

/** clipWarning cuts a warning to HOOK_WARNING_BYTES of UTF-8. */
export function clipWarning(text: string): string {
  const enc = new TextEncoder();
  if (enc.encode(text).length <= HOOK_WARNING_BYTES) return text;
  let out = text;
  while (out.length > 0 && enc.encode(out).length > HOOK_WARNING_BYTES - 3) out = out.slice(0, Math.floor(out.length * 0.9));
  return `${out}…`;
}

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

  /** frames runs the extension frames' hooks on what the listeners left in data, and returns their warnings. */
  async function frames(p: PromptHookRequestPayload, data: { chat: unknown }, t0: number): Promise<string[]> {
    const f = frameHooks;
    if (!f) return [];
    try {
      const request: FrameHookRequest = { chat: data.chat, original: p.chat, dryRun: p.dryRun, chatId: p.chatId };
      if (p.generationId) request.generationId = p.generationId;
      const r = await f.run(request, t0 + PROMPT_READY_BUDGET_MS);
      data.chat = r.chat;
      for (const w of r.warnings) console.warn(`Hearth: ${w}`);
      return r.warnings.slice(0, HOOK_WARNINGS_MAX).map(clipWarning);
    } catch (err) {
      console.error('Hearth: the extension frames’ prompt hooks failed', err);
      return [];
    }
  }

  async function answer(p: PromptHookRequestPayload): Promise<void> {
    const t0 = performance.now();
    // SillyTavern's listeners change the messages in place: give them a copy.
    const chat = structuredClone(p.chat) as unknown[];
    const original = JSON.stringify(chat);
    const data: { chat: unknown; dryRun: boolean } = { chat, dryRun: p.dryRun };
    await deps.eventSource.emit(T.CHAT_COMPLETION_PROMPT_READY, data);
    const warnings = await frames(p, data, t0);
    let changed = true;
    try {
      changed = JSON.stringify(data.chat) !== original;
    } catch {
      // Not JSON (a cycle): sent as it is, the backend refuses it.
    }
    try {
      const extra = warnings.length > 0 ? [{ warnings }] : [];
      const res = (await deps.call('generate.promptHookReply', p.token, changed ? data.chat : null, ...extra)) as { accepted?: boolean } | null;
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
      if (hasListeners(deps.eventSource, T.CHAT_COMPLETION_PROMPT_READY) || (await framesWant())) {
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
