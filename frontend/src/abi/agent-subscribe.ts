// api.agent.subscribe: a run's events pushed, not polled (AGENT.md §1).
// Stored events come from readEvents, live ones from AGENT_RUN_EVENT on the
// bus; both go through one buffer keyed by seq, so the handler sees every
// seq after afterSeq exactly once, in order, whichever source brought it
// first. A live event past a gap, and every transport reconnect (events
// sent while the socket was down are lost), make it read the store again
// from the last seq delivered.
import { HostError } from './errors';
import { deepFreeze } from './readonly';
import type { AgentReadEventsInput, AgentReadEventsResult, AgentRunEvent, AgentSubscribeOptions } from './types-agent';

/** The event types after which a run sends nothing more (but a later rollback). */
export const AGENT_TERMINAL_EVENTS: ReadonlySet<string> = new Set(['run_completed', 'run_cancelled', 'run_failed', 'run_interrupted']);

/** How many events one replay read asks for. */
export const REPLAY_PAGE = 100;

/** Read errors no retry can cure: the subscription reports them and ends. */
const PERMANENT_CODES: ReadonlySet<string> = new Set(['agent.run_not_found', 'validation.invalid_argument']);

/** SubscribeDeps are what a subscription reads and listens to. */
export interface SubscribeDeps {
  readEvents(input: AgentReadEventsInput): Promise<AgentReadEventsResult>;
  /** listen delivers the payload of every AGENT_RUN_EVENT (an event envelope) until the returned function is called. */
  listen(handler: (payload: unknown) => void): () => void;
  /** onReconnect calls handler each time the event stream is back after a drop. */
  onReconnect(handler: () => void): () => void;
  /** Retry pauses after failed or fruitless reads: from minMs, doubling, at most maxMs. */
  backoff?: { minMs: number; maxMs: number };
}

const DEFAULT_BACKOFF = { minMs: 250, maxMs: 5000 };

function invalid(message: string): HostError {
  return new HostError('validation.invalid_argument', message);
}

function isSeq(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v >= 1;
}

/** asEvent returns v if it is an envelope of runId, else null. */
function asEvent(v: unknown, runId: string): AgentRunEvent | null {
  if (typeof v !== 'object' || v === null) return null;
  const e = v as Partial<AgentRunEvent>;
  return e.runId === runId && isSeq(e.seq) && typeof e.type === 'string' ? (e as AgentRunEvent) : null;
}

/** checkArgs validates subscribe's arguments (it is sync: it throws). */
function checkArgs(runId: unknown, handler: unknown, options: unknown): asserts handler is (event: AgentRunEvent) => void {
  if (typeof runId !== 'string' || runId === '') throw invalid('runId must be a non-empty string');
  if (typeof handler !== 'function') throw invalid('handler must be a function');
  if (options === undefined || options === null) return;
  if (typeof options !== 'object') throw invalid('options must be an object');
  const o = options as Record<string, unknown>;
  if (o.afterSeq !== undefined && (typeof o.afterSeq !== 'number' || !Number.isInteger(o.afterSeq) || o.afterSeq < 0)) {
    throw invalid(`options.afterSeq must be an integer >= 0, got ${String(o.afterSeq)}`);
  }
  if (o.onError !== undefined && typeof o.onError !== 'function') throw invalid('options.onError must be a function');
}

/**
 * subscribeRun delivers runId's events after options.afterSeq to handler
 * and returns an idempotent unsubscribe. It listens before its first read,
 * so nothing published meanwhile is missed; it ends by itself right after
 * delivering a terminal event. options.limit and options.intervalMs (the
 * seed's polling knobs) are ignored.
 */
export function subscribeRun(deps: SubscribeDeps, runId: string, handler: (event: AgentRunEvent) => void, options?: AgentSubscribeOptions): () => void {
  checkArgs(runId, handler, options);
  const onError = options?.onError;
  const backoff = deps.backoff ?? DEFAULT_BACKOFF;
  // last is the seq delivered last; buffer holds events after it, by seq.
  let last = options?.afterSeq ?? 0;
  const buffer = new Map<number, AgentRunEvent>();
  let closed = false;
  // reading: the read loop runs; wanted: it must read (again) from last.
  let reading = false;
  let wanted = true;
  let wake: (() => void) | null = null;

  function report(err: unknown): void {
    if (onError) {
      try {
        onError(err);
        return;
      } catch (inner) {
        console.error(`Hearth: agent.subscribe(${runId}) onError threw`, inner);
      }
    }
    console.error(`Hearth: agent.subscribe(${runId})`, err);
  }

  function take(ev: AgentRunEvent): void {
    if (ev.seq > last && !buffer.has(ev.seq)) buffer.set(ev.seq, ev);
  }

  /** gap: events after last are buffered but last+1 is not. */
  function gap(): boolean {
    return buffer.size > 0 && !buffer.has(last + 1);
  }

  /** drain delivers the buffered events that follow last without a gap. */
  function drain(): void {
    for (let ev = buffer.get(last + 1); ev !== undefined && !closed; ev = buffer.get(last + 1)) {
      buffer.delete(ev.seq);
      last = ev.seq;
      try {
        // An async handler's rejection is reported like a throw.
        const r = handler(ev) as unknown;
        if (r instanceof Promise) r.catch(report);
      } catch (err) {
        report(err);
      }
      if (AGENT_TERMINAL_EVENTS.has(ev.type)) stop();
    }
  }

  function sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        wake = null;
        resolve();
      }, ms);
      wake = () => {
        clearTimeout(timer);
        wake = null;
        resolve();
      };
    });
  }

  function pause(attempt: number): Promise<void> {
    return sleep(Math.min(backoff.maxMs, backoff.minMs * 2 ** Math.min(attempt - 1, 16)));
  }

  /** pump reads from last until nothing is missing, retrying with backoff. */
  async function pump(): Promise<void> {
    if (reading) return;
    reading = true;
    let failures = 0;
    let stalls = 0;
    try {
      while (wanted && !closed) {
        wanted = false;
        const from = last;
        let page: AgentReadEventsResult;
        try {
          page = await deps.readEvents({ runId, afterSeq: from, limit: REPLAY_PAGE });
        } catch (err) {
          if (closed) return;
          report(err);
          if (err instanceof HostError && PERMANENT_CODES.has(err.code)) {
            stop();
            return;
          }
          wanted = true;
          await pause(++failures);
          continue;
        }
        failures = 0;
        if (closed) return;
        const got = page as Partial<AgentReadEventsResult> | null;
        for (const raw of Array.isArray(got?.events) ? got.events : []) {
          const ev = asEvent(raw, runId);
          if (ev) take(deepFreeze(ev));
        }
        drain();
        if (closed) return;
        if (got?.hasMore === true || gap()) {
          wanted = true;
          // A read that brought nothing new while something is still
          // missing is retried, but not in a tight loop.
          if (last === from) await pause(++stalls);
          else stalls = 0;
        }
      }
    } finally {
      reading = false;
    }
  }

  let offLive: (() => void) | null = null;
  let offReconnect: (() => void) | null = null;

  function stop(): void {
    if (closed) return;
    closed = true;
    buffer.clear();
    offLive?.();
    offReconnect?.();
    wake?.();
  }

  offLive = deps.listen((payload) => {
    if (closed) return;
    const ev = asEvent(payload, runId);
    if (!ev || ev.seq <= last) return;
    take(ev);
    drain();
    if (closed || !gap()) return;
    // Something before ev is missing: read it (once the read under way,
    // or the pause after a failed one, is over).
    wanted = true;
    void pump();
  });
  // A reconnect also cuts a retry pause short: the host is back.
  offReconnect = deps.onReconnect(() => {
    if (closed) return;
    wanted = true;
    wake?.();
    void pump();
  });
  void pump();
  return stop;
}
