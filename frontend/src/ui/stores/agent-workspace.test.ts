import { get, writable } from 'svelte/store';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AgentCheckpoint, EventPayload, HearthAbi } from '../../abi/types';
import { createWorkspaceStore } from './agent-workspace';
import { createToasts } from './toasts';

function cp(seq: number): AgentCheckpoint {
  return { checkpointId: `cp${seq}`, seq, reason: seq === 1 ? 'initial' : `write ${seq}`, files: [], createdMs: seq };
}

function setup() {
  const handlers = new Map<string, (p: EventPayload) => void>();
  const api = {
    listWorkspaceFiles: vi.fn(async () => ({ files: [{ path: 'output/main.md', bytes: 3, sha256: 'a', modifiedMs: 1 }], truncated: false })),
    readWorkspaceFile: vi.fn(async ({ path, checkpointId }: { path: string; checkpointId?: string }) => ({ path, text: checkpointId ? 'old' : 'new', bytes: 3, sha256: 'a' })),
    listCheckpoints: vi.fn(async () => ({ checkpoints: [cp(1), cp(2)] })),
    readDiff: vi.fn(async () => ({ files: [{ path: 'output/main.md', status: 'modified', unified: '@@ -1 +1 @@\n-old\n+new\n' }] })),
    rollback: vi.fn(async () => ({})),
  };
  const hearth = {
    api: {
      agent: api,
      events: {
        types: {},
        on(type: string, h: (p: EventPayload) => void) {
          handlers.set(type, h);
          return () => handlers.delete(type);
        },
      },
    },
  } as unknown as HearthAbi;
  const runId = writable<string | null>('r1');
  const toasts = createToasts(0);
  const ws = createWorkspaceStore({ hearth, toasts, runId, debounceMs: 100 });
  const stop = ws.start();
  const emit = (type: string, p: Record<string, unknown>) => handlers.get(type)?.(p);
  return { api, ws, runId, toasts, emit, stop };
}

afterEach(() => vi.useRealTimers());

describe('workspace store', () => {
  it('reads the tree again once per burst of file changes of its run, and the open file with it', async () => {
    const { api, ws, emit } = setup();
    await ws.loadFiles();
    await ws.openFile('output/main.md');
    expect(get(ws.file)).toMatchObject({ path: 'output/main.md', text: 'new', checkpointId: null, loading: false });
    vi.useFakeTimers();
    for (let i = 0; i < 5; i++) emit('workspace_file_changed', { runId: 'r1', workspaceId: 'ws', path: 'output/main.md', op: 'write', sha256: 'b' });
    emit('workspace_file_changed', { runId: 'other', path: 'x', op: 'write' });
    expect(api.listWorkspaceFiles).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(99);
    expect(api.listWorkspaceFiles).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(api.listWorkspaceFiles).toHaveBeenCalledTimes(2);
    expect(api.listWorkspaceFiles).toHaveBeenLastCalledWith({ runId: 'r1', depth: 4 });
    expect(api.readWorkspaceFile).toHaveBeenCalledTimes(2);
  });

  it('reads the tree again after the run’s own writes too', async () => {
    const { api, ws, emit } = setup();
    await ws.loadFiles();
    vi.useFakeTimers();
    emit('agent_run_event', { runId: 'r1', seq: 5, type: 'workspace_file_written', payload: { path: 'output/main.md', bytes: 3 } });
    emit('agent_run_event', { runId: 'r2', seq: 5, type: 'workspace_file_written', payload: { path: 'output/main.md', bytes: 3 } });
    await vi.advanceTimersByTimeAsync(100);
    expect(api.listWorkspaceFiles).toHaveBeenCalledTimes(2);
  });

  it('keeps a file opened at a checkpoint as it was', async () => {
    const { api, ws, emit } = setup();
    await ws.openFile('output/main.md', 'cp1');
    expect(api.readWorkspaceFile).toHaveBeenCalledWith({ runId: 'r1', path: 'output/main.md', checkpointId: 'cp1' });
    expect(get(ws.file)?.text).toBe('old');
    vi.useFakeTimers();
    emit('workspace_file_changed', { runId: 'r1', path: 'output/main.md', op: 'write' });
    await vi.advanceTimersByTimeAsync(150);
    expect(api.readWorkspaceFile).toHaveBeenCalledTimes(1);
  });

  it('re-reads the checkpoints on checkpoint and rollback events, and diffs two of them', async () => {
    const { api, ws, emit } = setup();
    await ws.loadCheckpoints();
    emit('agent_run_event', { runId: 'r1', seq: 9, type: 'checkpoint_created', payload: {} });
    expect(api.listCheckpoints).toHaveBeenCalledTimes(2);
    await ws.showDiff(cp(2), cp(1));
    expect(api.readDiff).toHaveBeenCalledWith({ runId: 'r1', toCheckpointId: 'cp2', fromCheckpointId: 'cp1' });
    expect(get(ws.diff)).toMatchObject({ loading: false, error: null, from: { seq: 1 }, to: { seq: 2 } });
    expect(get(ws.diff)?.files).toHaveLength(1);
    await ws.showDiff(cp(2), null);
    expect(api.readDiff).toHaveBeenLastCalledWith({ runId: 'r1', toCheckpointId: 'cp2' });
  });

  it('reports a rollback conflict as a sentence, and a rollback with a toast', async () => {
    const { api, ws, toasts } = setup();
    api.rollback.mockRejectedValueOnce(Object.assign(new Error('a later edit touched message 2'), { code: 'agent.rollback_conflict' }));
    const res = await ws.rollback('cp1', true);
    expect(res.ok).toBe(false);
    expect(res.ok ? '' : res.message).toMatch(/cannot be taken back out/);
    expect(await ws.rollback('cp1', false)).toEqual({ ok: true });
    expect(api.rollback).toHaveBeenLastCalledWith({ runId: 'r1', checkpointId: 'cp1', includeChat: false });
    expect(get(toasts).map((t) => t.message)).toEqual(['Rolled back the workspace']);
  });

  it('forgets everything when another run is selected', async () => {
    const { ws, runId } = setup();
    await ws.loadFiles();
    await ws.openFile('output/main.md');
    runId.set('r2');
    expect(get(ws.files)).toEqual([]);
    expect(get(ws.file)).toBeNull();
  });
});
