// The "no reply" mark under a user's message whose reply failed: what
// last tried to answer in each chat (a generation or an agent run), and
// how the generations this window heard of failed. Generations are
// followed on the bus (GENERATION_STARTED / _ENDED / _STOPPED, from any
// window or script), for as long as the window is open; agent runs are
// read from the chat's run list (api.agent.listRuns, kept live by the
// agent store), which a reload does not lose.
import { getContext, setContext } from 'svelte';
import { get, writable, type Readable } from 'svelte/store';
import type { AgentRunSummary, GenerationType, HearthAbi, StMessage } from '../../abi/types';
import { agentErrorText } from '../lib/agent-text';
import { eventType } from '../lib/events';
import type { ChatView } from './chat';
import { connectionsAction } from './connections';
import { generationErrorText } from '../lib/generation-errors';
import type { ToastAction } from './toasts';

/** Answerer is what tries to answer a user's message. */
export type Answerer = 'generation' | 'agent';

/** GenerationFailure is how a chat's last generation failed. */
export interface GenerationFailure {
  generationId: string;
  code: string;
  message: string;
  details: Record<string, unknown> | null;
  /**
   * messageId is the message left without a reply: the chat's last when
   * the failure came, or, when the chat was not open then, its last once
   * it opens (null until then).
   */
  messageId: string | null;
}

export interface NoReplyState {
  /** last is what last tried to answer in each chat this window heard of. */
  last: ReadonlyMap<string, Answerer>;
  failures: ReadonlyMap<string, GenerationFailure>;
}

/** Unanswered is a user's message whose reply failed, as the notice shows it. */
export interface Unanswered {
  kind: Answerer;
  messageId: string;
  /** code is for the details fold; message says what went wrong, in words. */
  code: string;
  message: string;
  details: Record<string, unknown> | null;
  /** runId is the failed run (kind 'agent'); null for a generation. */
  runId: string | null;
}

/** Generation types that answer the user: the others write for them (impersonate) or for a script (quiet). */
const QUIET: ReadonlySet<string> = new Set<GenerationType>(['quiet', 'impersonate']);

/** sentMs reads a message's send_date (Hearth writes ISO; an imported chat may hold what Date.parse cannot read: null). */
function sentMs(m: Readonly<StMessage>): number | null {
  const ms = typeof m.send_date === 'string' ? Date.parse(m.send_date) : NaN;
  return Number.isFinite(ms) ? ms : null;
}

/**
 * unanswered says whether the chat's last message is the user's and the
 * last try to answer it failed: its last generation, when a generation
 * came after the chat's last agent run (as far as this window heard), or
 * else its newest run (runs newest first, as the agent store keeps them)
 * when it failed or was interrupted and began after the message was sent.
 */
export function unanswered(
  state: NoReplyState,
  chatId: string | null,
  last: Readonly<StMessage> | undefined,
  runs: readonly AgentRunSummary[],
): Unanswered | null {
  if (!chatId || !last?.is_user) return null;
  if (state.last.get(chatId) === 'generation') {
    const f = state.failures.get(chatId);
    if (!f || (f.messageId !== null && f.messageId !== last.id)) return null;
    const t = generationErrorText({ code: f.code, message: f.message, details: f.details ?? undefined });
    return { kind: 'generation', messageId: last.id, code: t.code, message: t.message, details: f.details, runId: null };
  }
  const run = runs[0];
  if (!run || run.chatId !== chatId || (run.status !== 'failed' && run.status !== 'interrupted')) return null;
  const sent = sentMs(last);
  if (sent !== null && run.createdMs < sent) return null;
  const error = run.error ?? (run.status === 'interrupted' ? { code: 'agent.interrupted', message: '' } : { code: 'internal', message: 'The run failed.' });
  const t = agentErrorText(error);
  return { kind: 'agent', messageId: last.id, code: t.code, message: t.message, details: error.details ?? null, runId: run.runId };
}

/**
 * fixAction is the button that leads to the fix of a failed reply: Open
 * Connections for the failures fixed there (connectionsAction), and for a
 * model that does not call tools, which another model of the connection
 * may. Null for any other.
 */
export function fixAction(code: string, open: (() => void) | undefined, details?: Readonly<Record<string, unknown>> | null): ToastAction | null {
  if (code === 'agent.no_tool_calls' && open) return { label: 'Open Connections', run: open };
  return connectionsAction(code, open, details) ?? null;
}

export interface NoReplyStore {
  state: Readable<NoReplyState>;
  /** start follows the bus and the open chat; returns the stop. */
  start(): () => void;
}

export interface NoReplyDeps {
  hearth: HearthAbi;
  view: Readable<ChatView>;
}

/** KNOWN_TYPES bounds how many generations' types are remembered (a failure names only its id). */
const KNOWN_TYPES = 64;

export function createNoReplyStore({ hearth, view }: NoReplyDeps): NoReplyStore {
  const state = writable<NoReplyState>({ last: new Map(), failures: new Map() });
  /** types are the types of the generations heard starting, newest last. */
  const types = new Map<string, string>();

  function answered(chatId: string, by: Answerer, failure: GenerationFailure | null): void {
    state.update((s) => {
      const last = new Map(s.last).set(chatId, by);
      const failures = new Map(s.failures);
      if (failure) failures.set(chatId, failure);
      else failures.delete(chatId);
      return { last, failures };
    });
  }

  /** lastOpenMessage is the chat's last message when it is the open one (and loaded), else null. */
  function lastOpenMessage(chatId: string): string | null {
    const v = get(view);
    if (v.chatId !== chatId || v.loading) return null;
    return v.messages[v.messages.length - 1]?.id ?? null;
  }

  function failed(chatId: string, generationId: string, error: Record<string, unknown>): void {
    const details = typeof error.details === 'object' && error.details !== null ? (error.details as Record<string, unknown>) : null;
    answered(chatId, 'generation', {
      generationId,
      code: typeof error.code === 'string' ? error.code : 'internal',
      message: typeof error.message === 'string' ? error.message : '',
      details,
      messageId: lastOpenMessage(chatId),
    });
  }

  function onStarted(p: Record<string, unknown>): void {
    const { chatId, generationId: id, type } = p;
    if (typeof chatId !== 'string' || typeof id !== 'string' || typeof type !== 'string') return;
    types.set(id, type);
    if (types.size > KNOWN_TYPES) types.delete(types.keys().next().value as string);
    if (!QUIET.has(type)) answered(chatId, 'generation', null);
  }

  function onEnded(p: Record<string, unknown>): void {
    const { chatId, generationId: id } = p;
    if (typeof chatId !== 'string' || typeof id !== 'string') return;
    const type = types.get(id);
    const error = typeof p.error === 'object' && p.error !== null ? (p.error as Record<string, unknown>) : null;
    if (type !== undefined) {
      if (QUIET.has(type)) return;
      if (error) failed(chatId, id, error);
      else answered(chatId, 'generation', null);
      return;
    }
    if (!error) return; // an answer, or a stop, of a generation begun before this window listened: nothing failed
    // A failure of a generation this window did not see start: its record names the type.
    hearth.api.generate
      .status(id)
      .then((rec) => {
        if (!QUIET.has(rec.type) && rec.status === 'failed') failed(chatId, id, error);
      })
      .catch((err: unknown) => console.warn('Hearth: could not read the failed generation', err));
  }

  function onRunEvent(p: Record<string, unknown>): void {
    const payload = typeof p.payload === 'object' && p.payload !== null ? (p.payload as Record<string, unknown>) : {};
    if (p.type === 'run_created' && typeof payload.chatId === 'string') answered(payload.chatId, 'agent', null);
  }

  /** bind gives a failure heard while its chat was closed the message it left unanswered, once the chat shows. */
  function bind(v: ChatView): void {
    if (!v.chatId || v.loading) return;
    const f = get(state).failures.get(v.chatId);
    const last = v.messages[v.messages.length - 1];
    if (!f || f.messageId !== null || !last) return;
    const chatId = v.chatId;
    state.update((s) => {
      const failures = new Map(s.failures);
      if (last.is_user) failures.set(chatId, { ...f, messageId: last.id });
      else failures.delete(chatId);
      return { ...s, failures };
    });
  }

  return {
    state: { subscribe: state.subscribe },
    start() {
      const on = (name: Parameters<typeof eventType>[1], fn: (p: Record<string, unknown>) => void) =>
        hearth.api.events.on(eventType(hearth, name), (p) => fn((p ?? {}) as Record<string, unknown>));
      const offs = [
        on('GENERATION_STARTED', onStarted),
        on('GENERATION_ENDED', onEnded),
        on('GENERATION_STOPPED', onEnded),
        on('AGENT_RUN_EVENT', onRunEvent),
        view.subscribe(bind),
      ];
      return () => offs.forEach((off) => off());
    },
  };
}

const KEY = Symbol('hearth.no-reply');

export function setNoReply(store: NoReplyStore): void {
  setContext(KEY, store);
}

export function getNoReply(): NoReplyStore {
  const store = getContext<NoReplyStore | undefined>(KEY);
  if (!store) throw new Error('getNoReply() outside the Hearth app');
  return store;
}
