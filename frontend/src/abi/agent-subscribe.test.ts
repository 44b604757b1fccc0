import { afterEach, describe, expect, it, vi } from 'vitest';
import { REPLAY_PAGE, subscribeRun, type SubscribeDeps } from './agent-subscribe';
import { HostError } from './errors';
import { tick } from './testing/fake-host';
import type { AgentReadEventsInput, AgentReadEventsResult, AgentRunEvent } from './types-agent';

const RUN = 'run_1';

function envelope(seq: number, type = 'tool_call_completed', runId = RUN): AgentRunEvent {
  return { seq, id: `${runId}:${seq}`, runId, timestamp: '2026-01-01T00:00:00.000Z', level: 'info', type, payload: { n: seq } };
}

/**
 * FakeRun is one run's event store and the bus around it: append stores an
 * event and publishes it (unless the socket is down), reads answer from the
 * store in pages, and gate holds reads until a test lets them go.
 */
class FakeRun {
  readonly events: AgentRunEvent[] = [];
  readonly reads: AgentReadEventsInput[] = [];
  readonly live = new Set<(payload: unknown) => void>();
  readonly reconnects = new Set<() => void>();
  up = true;
  /** gate, when set, is awaited by each read before it answers. */
  gate: ((input: AgentReadEventsInput) => Promise<void>) | null = null;
  /** fail, when set, makes the next reads reject with what it returns (null: answer). */
  fail: (() => unknown) | null = null;

  deps(backoff = { minMs: 1, maxMs: 4 }): SubscribeDeps {
    return {
      readEvents: (input) => this.read(input),
      listen: (h) => {
        const f = (p: unknown) => h(p);
        this.live.add(f);
        return () => void this.live.delete(f);
      },
      onReconnect: (h) => {
        const f = () => h();
        this.reconnects.add(f);
        return () => void this.reconnects.delete(f);
      },
      backoff,
    };
  }

  /** append stores the next event and publishes it while the socket is up. */
  append(type = 'tool_call_completed'): AgentRunEvent {
    const ev = envelope(this.events.length + 1, type);
    this.events.push(ev);
    if (this.up) this.publish(ev);
    return ev;
  }

  publish(ev: AgentRunEvent): void {
    for (const h of [...this.live]) h(structuredClone(ev));
  }

  reconnect(): void {
    for (const h of [...this.reconnects]) h();
  }

  async read(input: AgentReadEventsInput): Promise<AgentReadEventsResult> {
    this.reads.push(input);
    if (this.gate) await this.gate(input);
    const err = this.fail?.();
    if (err) throw err;
    const after = this.events.filter((e) => e.seq > (input.afterSeq ?? 0));
    const limit = input.limit ?? REPLAY_PAGE;
    return structuredClone({ events: after.slice(0, limit), hasMore: after.length > limit });
  }
}

/** Held is a gate whose reads wait until release(). */
function held(run: FakeRun): { release: () => void } {
  const waiting: (() => void)[] = [];
  let open = false;
  run.gate = () => (open ? Promise.resolve() : new Promise<void>((r) => waiting.push(r)));
  return {
    release() {
      open = true;
      waiting.splice(0).forEach((r) => r());
    },
  };
}

const seqs = (events: AgentRunEvent[]) => events.map((e) => e.seq);
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe('agent.subscribe', () => {
  it('replays the stored events in pages, then delivers live ones', async () => {
    const run = new FakeRun();
    run.up = false;
    for (let i = 0; i < 250; i++) run.append();
    run.up = true;
    const got: AgentRunEvent[] = [];
    const stop = subscribeRun(run.deps(), RUN, (e) => got.push(e), { limit: 5, intervalMs: 10 });
    await vi.waitFor(() => expect(got).toHaveLength(250));
    expect(run.reads).toEqual([
      { runId: RUN, afterSeq: 0, limit: 100 },
      { runId: RUN, afterSeq: 100, limit: 100 },
      { runId: RUN, afterSeq: 200, limit: 100 },
    ]);
    run.append();
    run.append();
    expect(seqs(got)).toEqual(range(1, 252));
    expect(got[0]).toEqual(envelope(1));
    expect(Object.isFrozen(got[0]!.payload)).toBe(true);
    expect(run.reads).toHaveLength(3);
    stop();
  });

  it('starts after afterSeq', async () => {
    const run = new FakeRun();
    for (let i = 0; i < 5; i++) run.append();
    const got: AgentRunEvent[] = [];
    subscribeRun(run.deps(), RUN, (e) => got.push(e), { afterSeq: 3 });
    await vi.waitFor(() => expect(seqs(got)).toEqual([4, 5]));
    expect(run.reads[0]).toEqual({ runId: RUN, afterSeq: 3, limit: 100 });
    run.append();
    expect(seqs(got)).toEqual([4, 5, 6]);
  });

  it('listens before the first read and delivers live events that race the replay once each', async () => {
    const run = new FakeRun();
    run.up = false;
    run.append('run_created');
    run.append();
    run.up = true;
    const gate = held(run);
    const got: AgentRunEvent[] = [];
    subscribeRun(run.deps(), RUN, (e) => got.push(e));
    await tick();
    expect(run.reads).toHaveLength(1);
    // Published while the first read is under way: 3 and 4 wait for 1 and 2.
    run.append();
    run.append();
    expect(got).toEqual([]);
    gate.release();
    await vi.waitFor(() => expect(seqs(got)).toEqual([1, 2, 3, 4]));
    await tick();
    expect(seqs(got)).toEqual([1, 2, 3, 4]);
  });

  it('drops live events it already has, and events of other runs', async () => {
    const run = new FakeRun();
    const got: AgentRunEvent[] = [];
    subscribeRun(run.deps(), RUN, (e) => got.push(e));
    await tick();
    run.append();
    run.publish(run.events[0]!);
    run.append();
    for (const h of run.live) {
      h(envelope(3, 'x', 'run_other'));
      h({ seq: 'nope', runId: RUN });
      h(null);
    }
    run.publish(run.events[1]!);
    expect(seqs(got)).toEqual([1, 2]);
  });

  it('fills a gap with readEvents before delivering what follows it', async () => {
    const run = new FakeRun();
    const got: AgentRunEvent[] = [];
    subscribeRun(run.deps(), RUN, (e) => got.push(e));
    await tick();
    run.append();
    run.append();
    run.up = false;
    run.append();
    run.append();
    run.up = true;
    run.append();
    expect(seqs(got)).toEqual([1, 2]);
    await vi.waitFor(() => expect(seqs(got)).toEqual([1, 2, 3, 4, 5]));
    expect(run.reads.at(-1)).toEqual({ runId: RUN, afterSeq: 2, limit: 100 });
  });

  it('re-reads after a reconnect what was published while the socket was down', async () => {
    const run = new FakeRun();
    const got: AgentRunEvent[] = [];
    subscribeRun(run.deps(), RUN, (e) => got.push(e));
    await tick();
    run.append();
    run.up = false;
    run.append();
    run.append();
    await tick();
    expect(seqs(got)).toEqual([1]);
    run.up = true;
    run.reconnect();
    await vi.waitFor(() => expect(seqs(got)).toEqual([1, 2, 3]));
    expect(run.reads.at(-1)).toEqual({ runId: RUN, afterSeq: 1, limit: 100 });
  });

  it('sees every seq exactly once, in order, across random live delivery, drops, duplicates and reconnects', async () => {
    for (let seed = 1; seed <= 25; seed++) {
      const rand = mulberry32(seed);
      const run = new FakeRun();
      // Reads answer after a random pause, from the store as it is then.
      run.gate = () => (rand() < 0.5 ? Promise.resolve() : new Promise<void>((r) => setTimeout(r, Math.floor(rand() * 3))));
      const prefix = Math.floor(rand() * 30);
      run.up = false;
      for (let i = 0; i < prefix; i++) run.append();
      run.up = rand() < 0.5;
      const got: AgentRunEvent[] = [];
      const errors: unknown[] = [];
      const stop = subscribeRun(run.deps(), RUN, (e) => got.push(e), { onError: (e) => errors.push(e) });
      while (run.events.length < 200) {
        const r = rand();
        if (r < 0.6) {
          run.append(run.events.length === 199 ? 'run_completed' : 'tool_call_completed');
        } else if (r < 0.7) {
          const wasUp = run.up;
          run.up = !run.up;
          if (!wasUp) run.reconnect();
        } else if (r < 0.75 && run.events.length > 0 && run.up) {
          run.publish(run.events[Math.floor(rand() * run.events.length)]!);
        } else if (r < 0.9) {
          await Promise.resolve();
        } else {
          await new Promise((res) => setTimeout(res, 0));
        }
      }
      if (!run.up) {
        run.up = true;
        run.reconnect();
      }
      await vi.waitFor(() => expect(got.length).toBe(200), { timeout: 3000 });
      await tick();
      expect(seqs(got), `seed ${seed}`).toEqual(range(1, 200));
      expect(errors).toEqual([]);
      // The terminal event ended the subscription.
      expect(run.live.size).toBe(0);
      expect(run.reconnects.size).toBe(0);
      stop();
    }
  });

  it('ends by itself after a terminal event; a later subscription with afterSeq picks up what follows', async () => {
    const run = new FakeRun();
    const got: AgentRunEvent[] = [];
    subscribeRun(run.deps(), RUN, (e) => got.push(e));
    await tick();
    run.append('run_created');
    run.append('run_completed');
    expect(run.live.size).toBe(0);
    expect(run.reconnects.size).toBe(0);
    run.append('rollback_completed');
    run.reconnect();
    await tick();
    expect(got.map((e) => e.type)).toEqual(['run_created', 'run_completed']);
    const readsBefore = run.reads.length;

    const later: AgentRunEvent[] = [];
    const stop = subscribeRun(run.deps(), RUN, (e) => later.push(e), { afterSeq: 2 });
    await vi.waitFor(() => expect(later.map((e) => e.type)).toEqual(['rollback_completed']));
    expect(run.reads.length).toBe(readsBefore + 1);
    stop();
  });

  it('stops at the terminal event of a replay too', async () => {
    for (const terminal of ['run_completed', 'run_cancelled', 'run_failed', 'run_interrupted']) {
      const run = new FakeRun();
      run.append('run_created');
      run.append(terminal);
      run.append('rollback_completed');
      const got: string[] = [];
      subscribeRun(run.deps(), RUN, (e) => got.push(e.type));
      await vi.waitFor(() => expect(got).toEqual(['run_created', terminal]));
      expect(run.live.size).toBe(0);
    }
  });

  it('has an idempotent unsubscribe that silences buffered events and the read under way', async () => {
    const run = new FakeRun();
    run.up = false;
    run.append();
    run.up = true;
    const gate = held(run);
    const handler = vi.fn();
    const stop = subscribeRun(run.deps(), RUN, handler);
    await tick();
    run.append();
    run.append();
    stop();
    stop();
    expect(run.live.size).toBe(0);
    expect(run.reconnects.size).toBe(0);
    gate.release();
    await tick();
    run.append();
    run.reconnect();
    await tick();
    expect(handler).not.toHaveBeenCalled();
    expect(run.reads).toHaveLength(1);
  });

  it('can be stopped from inside the handler', async () => {
    const run = new FakeRun();
    run.up = false;
    for (let i = 0; i < 5; i++) run.append();
    const got: number[] = [];
    const stop: () => void = subscribeRun(run.deps(), RUN, (e) => {
      got.push(e.seq);
      if (e.seq === 2) stop();
    });
    await tick();
    expect(got).toEqual([1, 2]);
  });

  it('reports a throwing handler to onError (else console.error) and keeps delivering', async () => {
    const run = new FakeRun();
    const errors: unknown[] = [];
    const got: number[] = [];
    const boom = new Error('bad handler');
    subscribeRun(
      run.deps(),
      RUN,
      (e) => {
        got.push(e.seq);
        if (e.seq === 2) throw boom;
      },
      { onError: (e) => errors.push(e) },
    );
    await tick();
    for (let i = 0; i < 3; i++) run.append();
    expect(got).toEqual([1, 2, 3]);
    expect(errors).toEqual([boom]);

    const consoleError = vi.spyOn(console, 'error').mockImplementation(() => {});
    const run2 = new FakeRun();
    const seen: number[] = [];
    subscribeRun(run2.deps(), RUN, (e) => {
      seen.push(e.seq);
      throw boom;
    });
    await tick();
    run2.append();
    run2.append();
    expect(seen).toEqual([1, 2]);
    expect(consoleError).toHaveBeenCalledTimes(2);
    expect(consoleError).toHaveBeenCalledWith(expect.stringContaining(RUN), boom);

    const run3 = new FakeRun();
    const rejected: unknown[] = [];
    subscribeRun(run3.deps(), RUN, async () => Promise.reject(boom), { onError: (e) => rejected.push(e) });
    await tick();
    run3.append();
    await tick();
    expect(rejected).toEqual([boom]);
  });

  it('reports a failed read and retries with backoff from 250 ms to 5 s', async () => {
    vi.useFakeTimers();
    const run = new FakeRun();
    run.up = false;
    run.append();
    let failures = 7;
    run.fail = () => (failures-- > 0 ? new HostError('transport.unavailable', 'down') : null);
    const errors: unknown[] = [];
    const got: number[] = [];
    const deps = run.deps();
    delete deps.backoff;
    subscribeRun(deps, RUN, (e) => got.push(e.seq), { onError: (e) => errors.push(e) });
    const at: number[] = [];
    const start = Date.now();
    const read = deps.readEvents;
    deps.readEvents = (input) => {
      at.push(Date.now() - start);
      return read(input);
    };
    await vi.advanceTimersByTimeAsync(0);
    await vi.advanceTimersByTimeAsync(20_000);
    expect(got).toEqual([1]);
    expect(errors).toHaveLength(7);
    expect((errors[0] as HostError).code).toBe('transport.unavailable');
    // The first read went out before the spy; the retries follow the schedule.
    const pauses = at.map((t, i) => t - (i === 0 ? 0 : at[i - 1]!));
    expect(pauses).toEqual([250, 500, 1000, 2000, 4000, 5000, 5000]);
  });

  it('ends on a read error no retry cures', async () => {
    const run = new FakeRun();
    run.fail = () => new HostError('agent.run_not_found', 'no run run_1');
    const errors: unknown[] = [];
    subscribeRun(run.deps(), RUN, () => {}, { onError: (e) => errors.push(e) });
    await tick(10);
    expect(errors).toHaveLength(1);
    expect(run.reads).toHaveLength(1);
    expect(run.live.size).toBe(0);
  });

  it('cuts a retry pause short on reconnect', async () => {
    const run = new FakeRun();
    run.up = false;
    run.append();
    let failures = 1;
    run.fail = () => (failures-- > 0 ? new HostError('transport.unavailable', 'down') : null);
    const got: number[] = [];
    subscribeRun(run.deps({ minMs: 60_000, maxMs: 60_000 }), RUN, (e) => got.push(e.seq), { onError: () => {} });
    await tick();
    expect(got).toEqual([]);
    run.reconnect();
    await vi.waitFor(() => expect(got).toEqual([1]));
  });

  it('validates its arguments synchronously', () => {
    const run = new FakeRun();
    const bad: [unknown, unknown, unknown][] = [
      ['', () => {}, undefined],
      [5, () => {}, undefined],
      [RUN, null, undefined],
      [RUN, () => {}, { afterSeq: -1 }],
      [RUN, () => {}, { afterSeq: 1.5 }],
      [RUN, () => {}, { afterSeq: '3' }],
      [RUN, () => {}, { onError: 'x' }],
      [RUN, () => {}, 'x'],
    ];
    for (const [runId, handler, options] of bad) {
      expect(() => subscribeRun(run.deps(), runId as string, handler as () => void, options as undefined)).toThrow(
        expect.objectContaining({ code: 'validation.invalid_argument' }) as Error,
      );
    }
    expect(run.reads).toEqual([]);
    expect(run.live.size).toBe(0);
  });
});

/** mulberry32 is a small seeded PRNG, so a failing interleaving can be replayed. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
