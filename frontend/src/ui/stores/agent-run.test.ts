import { describe, expect, it } from 'vitest';
import type { AgentRunEvent } from '../../abi/types';
import { emptyRun, foldEvent, foldEvents, isActive, statusAfter, type RunView } from './agent-run';

/** events numbers a script of [type, payload] pairs as run r1's events from seq 1. */
function events(script: [string, Record<string, unknown>?][], from = 1): AgentRunEvent[] {
  return script.map(([type, payload], i) => ({
    seq: from + i,
    id: `r1:${from + i}`,
    runId: 'r1',
    timestamp: `2025-01-01T00:00:${String(from + i).padStart(2, '0')}.000Z`,
    level: 'info',
    type,
    payload: payload ?? {},
  }));
}

const write = { path: 'output/main.md', content: 'The storm is far out at sea.' };

/** A streamed run: one round with text and a write, a commit, then finish. */
const happy = events([
  ['run_created', { chatId: 'c1', workspaceId: 'ws_1', profileId: 'default-writer', generationType: 'normal', presentation: 'foreground', stream: true, model: 'scripted' }],
  ['profile_resolved', { profileId: 'default-writer', displayName: 'Default writer' }],
  ['workspace_initialized', { workspaceId: 'ws_1', files: 0 }],
  ['checkpoint_created', { checkpointId: 'cp1', reason: 'initial', files: [] }],
  ['context_assembled', { messages: 3, tools: ['workspace_write_file'], model: 'scripted' }],
  ['model_request_created', { round: 1, attempt: 1 }],
  ['model_delta', { round: 1, text: 'Let me ' }],
  ['model_delta', { round: 1, text: 'write.', reasoning: 'Plan first.' }],
  ['model_completed', { round: 1, usage: { inputTokens: 120, outputTokens: 30 }, finishReason: 'tool_calls', toolCalls: 2, text: 'Let me write.' }],
  ['tool_call_requested', { callId: 'call_1', tool: 'workspace.write_file', args: write }],
  ['workspace_file_written', { path: 'output/main.md', bytes: 28 }],
  ['checkpoint_created', { checkpointId: 'cp2', reason: 'write output/main.md', files: ['output/main.md'] }],
  ['tool_call_completed', { callId: 'call_1', tool: 'workspace.write_file', result: { path: 'output/main.md', bytes: 28 } }],
  ['tool_call_requested', { callId: 'call_2', tool: 'workspace.commit', args: {} }],
  ['chat_commit_requested', { commitId: 'k1', path: 'output/main.md' }],
  ['chat_commit_completed', { commitId: 'k1', checkpointId: 'cp2', index: 2, swipeId: 0, messageId: 'm2', path: 'output/main.md', mode: 'replace' }],
  ['tool_call_completed', { callId: 'call_2', tool: 'workspace.commit', result: { committed: true } }],
  ['model_request_created', { round: 2, attempt: 1 }],
  ['model_completed', { round: 2, usage: { inputTokens: 200, outputTokens: 5 }, finishReason: 'tool_calls', toolCalls: 1, text: '' }],
  ['tool_call_requested', { callId: 'call_3', tool: 'workspace_finish', args: { reason: 'done' } }],
  ['tool_call_completed', { callId: 'call_3', tool: 'workspace.finish', result: { finished: true } }],
  ['persistent_changes_committed', { files: [] }],
  ['run_completed', { commits: 1 }],
]);

describe('folding a run’s events', () => {
  it('builds rounds from the streamed text, a card per tool call, commits and the final status', () => {
    const v = foldEvents(emptyRun('r1'), happy);
    expect(v.status).toBe('completed');
    expect(v).toMatchObject({ chatId: 'c1', profileId: 'default-writer', profileName: 'Default writer', model: 'scripted', stream: true, commits: 1, lastSeq: happy.length });
    expect(v.rounds).toHaveLength(2);
    expect(v.rounds[0]).toMatchObject({ round: 1, text: 'Let me write.', reasoning: 'Plan first.', done: true, usage: { inputTokens: 120, outputTokens: 30 }, toolCalls: 2, attempts: 1 });
    expect(v.rounds[1]).toMatchObject({ round: 2, text: '', done: true, toolCalls: 1 });
    expect(v.items.map((i) => (i.kind === 'round' ? `round ${i.round}` : i.kind === 'tool' ? i.callId : i.kind))).toEqual(['round 1', 'call_1', 'call_2', 'commit', 'round 2', 'call_3', 'end']);
    expect(v.items.at(-1)).toEqual({ kind: 'end', seq: happy.length, status: 'completed' });
    expect(v.tools.call_1).toMatchObject({ tool: 'workspace.write_file', args: write, state: 'completed', round: 1, result: { path: 'output/main.md', bytes: 28 } });
    expect(v.tools.call_3).toMatchObject({ tool: 'workspace_finish', state: 'completed', round: 2 });
    expect(v.items.find((i) => i.kind === 'commit')).toMatchObject({ path: 'output/main.md', index: 2, checkpointId: 'cp2', mode: 'replace' });
    expect(v.checkpoints).toEqual(['cp1', 'cp2']);
    expect(v.pending).toBeNull();
    expect(v.endedAt).toBe(happy.at(-1)?.timestamp);
    expect(isActive(v.status)).toBe(false);
  });

  it('follows the status event by event', () => {
    const seen: string[] = [];
    let v = emptyRun('r1');
    for (const e of happy.slice(0, 17)) {
      v = foldEvent(v, e);
      seen.push(v.status);
    }
    expect(seen.slice(0, 6)).toEqual(['created', 'initializing_workspace', 'initializing_workspace', 'initializing_workspace', 'assembling_context', 'calling_model']);
    expect(seen[9]).toBe('dispatching_tool');
    expect(seen[14]).toBe('committing');
    expect(seen[15]).toBe('dispatching_tool');
    expect(v.rounds[0]?.done).toBe(true);
  });

  it('shows the text streamed so far while a round is under way', () => {
    const v = foldEvents(emptyRun('r1'), happy.slice(0, 7));
    expect(v.rounds[0]).toMatchObject({ text: 'Let me ', done: false });
    expect(v.status).toBe('calling_model');
  });

  it('takes the text from model_completed when the run did not stream', () => {
    const v = foldEvents(
      emptyRun('r1'),
      events([
        ['run_created', { stream: false }],
        ['model_request_created', { round: 1, attempt: 1 }],
        ['model_completed', { round: 1, text: 'Whole reply.', toolCalls: 0, usage: { inputTokens: 1, outputTokens: 2 } }],
      ]),
    );
    expect(v.rounds[0]).toMatchObject({ text: 'Whole reply.', done: true });
  });

  it('holds a pending approval until it is answered, then keeps how it was answered', () => {
    const ask = events([
      ['run_created', {}],
      ['model_request_created', { round: 1 }],
      ['model_completed', { round: 1, toolCalls: 1 }],
      ['tool_call_requested', { callId: 'c9', tool: 'workspace.write_file', args: write }],
      ['tool_call_approval_requested', { callId: 'c9', tool: 'workspace.write_file', args: write }],
    ]);
    let v = foldEvents(emptyRun('r1'), ask);
    expect(v.status).toBe('awaiting_approval');
    expect(v.pending).toEqual({ callId: 'c9', tool: 'workspace.write_file', args: write });
    expect(v.tools.c9?.state).toBe('awaiting');
    expect(isActive(v.status)).toBe(true);

    const approved = foldEvents(v, events([['tool_call_approved', { callId: 'c9', tool: 'workspace.write_file', reason: '' }], ['tool_call_completed', { callId: 'c9', result: { bytes: 28 } }]], 6));
    expect(approved.pending).toBeNull();
    expect(approved.status).toBe('dispatching_tool');
    expect(approved.tools.c9).toMatchObject({ state: 'completed', approved: true });

    v = foldEvents(v, events([['tool_call_denied', { callId: 'c9', tool: 'workspace.write_file', reason: 'not yet' }]], 6));
    expect(v.pending).toBeNull();
    expect(v.tools.c9).toMatchObject({ state: 'denied', reason: 'not yet', approved: false });
  });

  it('records a failed call with its code, and a failed run with its error', () => {
    const v = foldEvents(
      emptyRun('r1'),
      events([
        ['run_created', {}],
        ['model_request_created', { round: 1 }],
        ['tool_call_requested', { callId: 'c1', tool: 'workspace.read_file', args: { path: '../etc/passwd' } }],
        ['tool_call_failed', { callId: 'c1', tool: 'workspace.read_file', code: 'workspace.path_denied', message: 'outside the workspace' }],
        ['tool_call_requested', { callId: 'c2', tool: 'workspace.write_file', args: write }],
        ['run_failed', { code: 'commit.save_failed', message: 'disk full' }],
      ]),
    );
    expect(v.tools.c1).toMatchObject({ state: 'failed', error: { code: 'workspace.path_denied', message: 'outside the workspace' } });
    expect(v.status).toBe('failed');
    expect(v.error).toEqual({ code: 'commit.save_failed', message: 'disk full' });
    // A call still running when the run ended is marked as cut short.
    expect(v.tools.c2?.state).toBe('failed');
    expect(v.tools.c2?.error?.code).toBe('failed');
  });

  it('keeps a failed run’s details, which name the cause of a failed model request', () => {
    const details = { cause: 'model.auth_failed', status: 401, providerMessage: 'bad key' };
    const v = foldEvents(emptyRun('r1'), events([['run_created', {}], ['run_failed', { code: 'model.request_failed', message: 'refused', details }]]));
    expect(v.error).toEqual({ code: 'model.request_failed', message: 'refused', details });
    // Details that are not an object are left out, as is a run_failed without any.
    const odd = foldEvents(emptyRun('r1'), events([['run_created', {}], ['run_failed', { code: 'agent.max_rounds', message: 'm', details: ['x'] }]]));
    expect(odd.error).toEqual({ code: 'agent.max_rounds', message: 'm' });
  });

  it('clears a pending approval when the run is cancelled or interrupted', () => {
    const base = events([
      ['run_created', {}],
      ['tool_call_requested', { callId: 'c1', tool: 'workspace.write_file', args: {} }],
      ['tool_call_approval_requested', { callId: 'c1', tool: 'workspace.write_file', args: {} }],
    ]);
    const cancelled = foldEvents(emptyRun('r1'), [...base, ...events([['run_cancelled', { commits: 0 }]], 4)]);
    expect(cancelled).toMatchObject({ status: 'cancelled', pending: null, error: null });
    const interrupted = foldEvents(emptyRun('r1'), [...base, ...events([['run_interrupted', { previousStatus: 'awaiting_approval' }]], 4)]);
    expect(interrupted.status).toBe('interrupted');
    expect(interrupted.pending).toBeNull();
    expect(interrupted.error?.code).toBe('agent.interrupted');
  });

  it('counts a retry as another attempt and drops the text of the failed one', () => {
    const v = foldEvents(
      emptyRun('r1'),
      events([
        ['model_request_created', { round: 1, attempt: 1 }],
        ['model_delta', { round: 1, text: 'half' }],
        ['model_request_retry', { round: 1, attempt: 1, code: 'model.unavailable', waitMs: 3000 }],
      ]),
    );
    expect(v.rounds[0]).toMatchObject({ text: '', retry: { code: 'model.unavailable', waitMs: 3000 }, attempts: 1 });
    const w = foldEvents(v, events([['model_request_created', { round: 1, attempt: 2 }], ['model_delta', { round: 1, text: 'whole' }], ['model_completed', { round: 1, toolCalls: 0 }]], 4));
    expect(w.rounds).toHaveLength(1);
    expect(w.rounds[0]).toMatchObject({ text: 'whole', retry: null, attempts: 2, done: true });
  });

  it('ignores events it has already folded and keeps unchanged parts shared', () => {
    const v = foldEvents(emptyRun('r1'), happy.slice(0, 12));
    expect(foldEvents(v, happy.slice(5, 12))).toBe(v);
    const next = foldEvent(v, happy[12] as AgentRunEvent);
    expect(next).not.toBe(v);
    expect(next.rounds).toBe(v.rounds);
    expect(next.tools.call_1).not.toBe(v.tools.call_1);
  });

  it('adds rollbacks and outside edits to the activity, after the run ended too', () => {
    const done: RunView = foldEvents(emptyRun('r1'), happy);
    const v = foldEvents(
      done,
      events(
        [
          ['workspace_file_changed_externally', { path: 'output/main.md', op: 'write' }],
          ['checkpoint_created', { checkpointId: 'cp4', reason: 'rollback', files: ['output/main.md'] }],
          ['rollback_completed', { checkpointId: 'cp5', restoredFrom: 'cp1', files: ['output/main.md'], includeChat: true }],
        ],
        happy.length + 1,
      ),
    );
    expect(v.status).toBe('completed');
    expect(v.items.slice(-2)).toEqual([
      { kind: 'external', seq: happy.length + 1, path: 'output/main.md', op: 'write' },
      { kind: 'rollback', seq: happy.length + 3, restoredFrom: 'cp1', files: ['output/main.md'], includeChat: true },
    ]);
    expect(v.checkpoints).toEqual(['cp1', 'cp2', 'cp4', 'cp5']);
  });

  it('maps every status-changing event type', () => {
    expect(statusAfter('tool_call_approval_requested')).toBe('awaiting_approval');
    expect(statusAfter('chat_commit_requested')).toBe('committing');
    expect(statusAfter('model_delta')).toBeNull();
    expect(statusAfter('something_new')).toBeNull();
  });
});
