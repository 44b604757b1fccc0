// The run panel's view of one agent run, folded from its events
// (AGENT.md §8): the status, each model round's streamed text, a card per
// tool call, the call waiting for approval, commits and checkpoints, in the
// order they happened. foldEvent is pure and returns a new view (the parts
// it changed are new objects, the rest are shared), so the components can
// key on identity.
import type { AgentRunEvent, AgentRunStatus } from '../../abi/types';

/** A model round: the text streamed (model_delta) or, without streaming, the text model_completed reported. */
export interface RoundView {
  round: number;
  text: string;
  reasoning: string;
  /** done: model_completed arrived. */
  done: boolean;
  usage: { inputTokens: number; outputTokens: number } | null;
  finishReason: string | null;
  toolCalls: number;
  /** How many requests this round took (a retry adds one). */
  attempts: number;
  /** The last retry's reason, while the round has not completed. */
  retry: { code: string; waitMs: number } | null;
}

/** RunError is a failure as a run's events tell it; details (run_failed's, with cause for a failed model request) when it has any. */
export interface RunError {
  code: string;
  message: string;
  details?: Readonly<Record<string, unknown>>;
}

/** How far a tool call got. */
export type ToolState = 'running' | 'awaiting' | 'denied' | 'completed' | 'failed';

/** ToolCard is one tool call as the panel shows it. */
export interface ToolCard {
  callId: string;
  tool: string;
  args: unknown;
  state: ToolState;
  round: number;
  /** tool_call_completed's result (a summary of what the model got back). */
  result: unknown;
  error: RunError | null;
  /** Why the user denied it, or the note they approved it with. */
  reason: string;
  approved: boolean;
}

/** What the run's activity list shows, in order. */
export type RunItem =
  | { kind: 'round'; round: number }
  | { kind: 'tool'; callId: string }
  | { kind: 'commit'; seq: number; path: string; mode: string; index: number | null; checkpointId: string }
  | { kind: 'external'; seq: number; path: string; op: string }
  | { kind: 'rollback'; seq: number; restoredFrom: string; files: string[]; includeChat: boolean }
  /** How the run ended (rollbacks may follow). */
  | { kind: 'end'; seq: number; status: AgentRunStatus };

export interface RunView {
  runId: string;
  status: AgentRunStatus;
  chatId: string | null;
  profileId: string | null;
  profileName: string | null;
  model: string | null;
  stream: boolean;
  rounds: RoundView[];
  tools: Record<string, ToolCard>;
  items: RunItem[];
  /** The call awaiting the user's answer. */
  pending: { callId: string; tool: string; args: unknown } | null;
  /** How the run failed (run_failed), or why it stopped (run_interrupted). */
  error: RunError | null;
  commits: number;
  /** The checkpoints the events named, oldest first. */
  checkpoints: string[];
  lastSeq: number;
  startedAt: string | null;
  endedAt: string | null;
}

/** TERMINAL are the statuses after which a run does nothing more. */
export const TERMINAL: ReadonlySet<AgentRunStatus> = new Set<AgentRunStatus>(['completed', 'cancelled', 'failed', 'interrupted']);

/** isActive: the run may still do something (or waits for the user). */
export function isActive(status: AgentRunStatus): boolean {
  return !TERMINAL.has(status);
}

/** STATUS_LABEL is how a status reads in the panel. */
export const STATUS_LABEL: Record<AgentRunStatus, string> = {
  created: 'Starting',
  initializing_workspace: 'Preparing workspace',
  assembling_context: 'Reading the chat',
  calling_model: 'Thinking',
  dispatching_tool: 'Using tools',
  awaiting_approval: 'Needs approval',
  committing: 'Committing',
  completed: 'Completed',
  cancelled: 'Cancelled',
  failed: 'Failed',
  interrupted: 'Interrupted',
};

/** STATUS_AFTER is the status an event moves its run to (the backend records the same change with it). */
const STATUS_AFTER: Record<string, AgentRunStatus> = {
  run_created: 'created',
  profile_resolved: 'initializing_workspace',
  context_assembled: 'assembling_context',
  model_request_created: 'calling_model',
  tool_call_requested: 'dispatching_tool',
  tool_call_approval_requested: 'awaiting_approval',
  tool_call_approved: 'dispatching_tool',
  tool_call_denied: 'dispatching_tool',
  tool_call_completed: 'dispatching_tool',
  tool_call_failed: 'dispatching_tool',
  chat_commit_requested: 'committing',
  chat_commit_completed: 'dispatching_tool',
  run_completed: 'completed',
  run_cancelled: 'cancelled',
  run_failed: 'failed',
  run_interrupted: 'interrupted',
};

/** statusAfter is the status a run has after an event of type (null: the event does not change it). */
export function statusAfter(type: string): AgentRunStatus | null {
  return STATUS_AFTER[type] ?? null;
}

export function emptyRun(runId: string): RunView {
  return {
    runId,
    status: 'created',
    chatId: null,
    profileId: null,
    profileName: null,
    model: null,
    stream: false,
    rounds: [],
    tools: {},
    items: [],
    pending: null,
    error: null,
    commits: 0,
    checkpoints: [],
    lastSeq: 0,
    startedAt: null,
    endedAt: null,
  };
}

type P = Record<string, unknown>;

const str = (v: unknown, fallback = ''): string => (typeof v === 'string' ? v : fallback);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const strs = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

function newRound(round: number): RoundView {
  return { round, text: '', reasoning: '', done: false, usage: null, finishReason: null, toolCalls: 0, attempts: 0, retry: null };
}

/** withRound returns v with round n changed by fn (added, with its item, when new). */
function withRound(v: RunView, n: number, fn: (r: RoundView) => RoundView): RunView {
  const at = v.rounds.findIndex((r) => r.round === n);
  if (at < 0) {
    return { ...v, rounds: [...v.rounds, fn(newRound(n))], items: [...v.items, { kind: 'round', round: n }] };
  }
  const rounds = v.rounds.slice();
  rounds[at] = fn(rounds[at] as RoundView);
  return { ...v, rounds };
}

function currentRound(v: RunView): number {
  return v.rounds[v.rounds.length - 1]?.round ?? 0;
}

/** withTool returns v with call id changed by fn (a card is made, with its item, when new). */
function withTool(v: RunView, p: P, fn: (c: ToolCard) => ToolCard): RunView {
  const callId = str(p.callId);
  if (callId === '') return v;
  const old = v.tools[callId];
  const base: ToolCard = old ?? {
    callId,
    tool: str(p.tool, '?'),
    args: p.args ?? null,
    state: 'running',
    round: currentRound(v),
    result: null,
    error: null,
    reason: '',
    approved: false,
  };
  const next = { ...v, tools: { ...v.tools, [callId]: fn(base) } };
  if (!old) next.items = [...v.items, { kind: 'tool', callId }];
  return next;
}

/** errorOf reads a failure event's { code, message, details? }; details are kept as sent, for the text and the fix to read. */
function errorOf(p: P): RunError {
  const e: RunError = { code: str(p.code, 'internal'), message: str(p.message) };
  if (typeof p.details === 'object' && p.details !== null && !Array.isArray(p.details)) e.details = p.details as P;
  return e;
}

/**
 * foldEvent applies one event to a run's view. Events at or before
 * v.lastSeq are ignored (a replay that overlaps), so folding is safe to
 * repeat; unknown types only advance lastSeq.
 */
export function foldEvent(view: RunView, e: AgentRunEvent): RunView {
  if (e.seq <= view.lastSeq) return view;
  const p: P = typeof e.payload === 'object' && e.payload !== null ? (e.payload as P) : {};
  let v: RunView = { ...view, lastSeq: e.seq };
  const status = statusAfter(e.type);
  if (status) v.status = status;
  switch (e.type) {
    case 'run_created':
      v.chatId = str(p.chatId) || null;
      v.profileId = str(p.profileId) || null;
      v.model = str(p.model) || null;
      v.stream = p.stream === true;
      v.startedAt = e.timestamp;
      break;
    case 'profile_resolved':
      v.profileId = str(p.profileId) || v.profileId;
      v.profileName = str(p.displayName) || null;
      break;
    case 'context_assembled':
      v.model = str(p.model) || v.model;
      break;
    case 'model_request_created': {
      const n = num(p.round) ?? currentRound(v) + 1;
      v = withRound(v, n, (r) => ({ ...r, attempts: r.attempts + 1, done: false }));
      break;
    }
    case 'model_delta': {
      const n = num(p.round) ?? currentRound(v);
      v = withRound(v, n, (r) => ({ ...r, text: r.text + str(p.text), reasoning: r.reasoning + str(p.reasoning) }));
      break;
    }
    case 'model_request_retry': {
      const n = num(p.round) ?? currentRound(v);
      v = withRound(v, n, (r) => ({ ...r, text: '', reasoning: '', retry: { code: str(p.code, 'model.request_failed'), waitMs: num(p.waitMs) ?? 0 } }));
      break;
    }
    case 'model_completed': {
      const n = num(p.round) ?? currentRound(v);
      const u = (p.usage ?? null) as P | null;
      v = withRound(v, n, (r) => ({
        ...r,
        // Without streaming the text arrives only here (cut at 4,000 bytes); streamed text is whole.
        text: r.text !== '' ? r.text : str(p.text),
        done: true,
        retry: null,
        usage: u ? { inputTokens: num(u.inputTokens) ?? 0, outputTokens: num(u.outputTokens) ?? 0 } : null,
        finishReason: str(p.finishReason) || null,
        toolCalls: num(p.toolCalls) ?? 0,
      }));
      if (typeof p.model === 'string' && p.model !== '') v.model = p.model;
      break;
    }
    case 'tool_call_requested':
      v = withTool(v, p, (c) => ({ ...c, tool: str(p.tool, c.tool), args: p.args ?? c.args }));
      break;
    case 'tool_call_approval_requested':
      v = withTool(v, p, (c) => ({ ...c, state: 'awaiting', args: p.args ?? c.args }));
      v.pending = { callId: str(p.callId), tool: str(p.tool, '?'), args: p.args ?? null };
      break;
    case 'tool_call_approved':
    case 'tool_call_denied': {
      const denied = e.type === 'tool_call_denied';
      v = withTool(v, p, (c) => ({ ...c, state: denied ? 'denied' : 'running', approved: !denied, reason: str(p.reason) }));
      if (v.pending?.callId === p.callId) v.pending = null;
      break;
    }
    case 'tool_call_completed':
      v = withTool(v, p, (c) => ({ ...c, state: 'completed', result: p.result ?? null }));
      break;
    case 'tool_call_failed':
      v = withTool(v, p, (c) => ({ ...c, state: 'failed', error: errorOf(p) }));
      break;
    case 'checkpoint_created': {
      const id = str(p.checkpointId);
      if (id !== '' && !v.checkpoints.includes(id)) v.checkpoints = [...v.checkpoints, id];
      break;
    }
    case 'chat_commit_completed':
      v.commits += 1;
      v.items = [
        ...v.items,
        { kind: 'commit', seq: e.seq, path: str(p.path, 'output/main.md'), mode: str(p.mode, 'replace'), index: num(p.index), checkpointId: str(p.checkpointId) },
      ];
      break;
    case 'workspace_file_changed_externally':
      v.items = [...v.items, { kind: 'external', seq: e.seq, path: str(p.path), op: str(p.op, 'write') }];
      break;
    case 'rollback_completed': {
      const id = str(p.checkpointId);
      if (id !== '' && !v.checkpoints.includes(id)) v.checkpoints = [...v.checkpoints, id];
      v.items = [...v.items, { kind: 'rollback', seq: e.seq, restoredFrom: str(p.restoredFrom), files: strs(p.files), includeChat: p.includeChat === true }];
      break;
    }
    case 'run_failed':
      v.error = errorOf(p);
      break;
    case 'run_interrupted':
      v.error = { code: 'agent.interrupted', message: 'Hearth stopped before the run finished.' };
      break;
  }
  if (TERMINAL.has(v.status) && statusAfter(e.type) !== null) {
    v.endedAt = v.endedAt ?? e.timestamp;
    v.items = [...v.items, { kind: 'end', seq: e.seq, status: v.status }];
    // Nothing waits once a run ended; a card still "running" never finished.
    if (v.pending) v.pending = null;
    if (Object.values(v.tools).some((c) => c.state === 'running' || c.state === 'awaiting')) {
      const tools: Record<string, ToolCard> = {};
      for (const [k, c] of Object.entries(v.tools)) {
        tools[k] = c.state === 'running' || c.state === 'awaiting' ? { ...c, state: 'failed', error: c.error ?? { code: v.status, message: `The run ended (${v.status}) before this call finished.` } } : c;
      }
      v.tools = tools;
    }
  }
  return v;
}

/** foldEvents folds a list of events (in seq order) into view. */
export function foldEvents(view: RunView, events: readonly AgentRunEvent[]): RunView {
  return events.reduce(foldEvent, view);
}
