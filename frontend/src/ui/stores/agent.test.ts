import { get } from 'svelte/store';
import { describe, expect, it, vi } from 'vitest';
import type { AgentRunEvent, AgentRunSummary } from '../../abi/types';
import { createAgentStore, PANEL_KEY, PROFILE_KEY } from './agent';
import { createChatViewStore } from './chat';
import { createConfirm } from './confirm';
import { createFakeHearth, message } from './fake-hearth';
import { createToasts } from './toasts';

const flush = () => new Promise((r) => setTimeout(r, 0));

function hostError(code: string, message = code, details?: Record<string, unknown>) {
  return Object.assign(new Error(message), { code }, details ? { details } : {});
}

function summary(runId: string, fields: Partial<AgentRunSummary> = {}): AgentRunSummary {
  return {
    runId,
    status: 'completed',
    workspaceId: 'ws_1',
    stableChatId: 'c1',
    chatId: 'c1',
    profileId: 'default-writer',
    generationType: 'normal',
    presentation: 'foreground',
    createdMs: 1000,
    updatedMs: 1000,
    endedMs: null,
    error: null,
    rounds: 0,
    calls: 0,
    usage: { inputTokens: 0, outputTokens: 0 },
    lastSeq: 0,
    pending: null,
    ...fields,
  };
}

function ev(runId: string, seq: number, type: string, payload: Record<string, unknown> = {}): AgentRunEvent {
  return { seq, id: `${runId}:${seq}`, runId, timestamp: '2025-01-01T00:00:00.000Z', level: 'info', type, payload };
}

/** fakeAgent is api.agent with every method a spy; subscribe keeps its handlers for the test to feed. */
function fakeAgent(runs: AgentRunSummary[] = []) {
  const handlers = new Map<string, (e: AgentRunEvent) => void>();
  const unsubscribed: string[] = [];
  const known = new Map(runs.map((r) => [r.runId, r]));
  const agent = {
    startRunFromLegacyGenerate: vi.fn(async () => {
      known.set('r-new', summary('r-new', { status: 'created', createdMs: 5000 }));
      return { runId: 'r-new', status: 'created', workspaceId: 'ws_1', stableChatId: 'c1' };
    }),
    subscribe: vi.fn((runId: string, handler: (e: AgentRunEvent) => void) => {
      handlers.set(runId, handler);
      return () => unsubscribed.push(runId);
    }),
    listRuns: vi.fn(async () => ({ runs: [...known.values()] })),
    getRun: vi.fn(async (id: string) => {
      const r = known.get(id);
      if (!r) throw hostError('agent.run_not_found');
      return r;
    }),
    cancel: vi.fn(async () => ({})),
    approveToolCall: vi.fn(async () => {}),
    readEvents: vi.fn(async (): Promise<{ events: AgentRunEvent[]; hasMore: boolean }> => ({ events: [], hasMore: false })),
    profiles: {
      list: vi.fn(async () => ({
        profiles: [
          { id: 'default-writer', displayName: 'Default writer', builtIn: true, updatedMs: 0 },
          { id: 'careful', displayName: 'Careful', builtIn: false, updatedMs: 1 },
        ],
        issues: [],
      })),
    },
  };
  return { agent, handlers, unsubscribed, known };
}

function memoryStorage(init: Record<string, string> = {}) {
  const data = new Map(Object.entries(init));
  return { getItem: (k: string) => data.get(k) ?? null, setItem: (k: string, v: string) => void data.set(k, v), data };
}

async function setup(runs: AgentRunSummary[] = [], storage = memoryStorage({ [PANEL_KEY]: '1' })) {
  const fake = createFakeHearth();
  const a = fakeAgent(runs);
  (fake.hearth.api as unknown as Record<string, unknown>).agent = a.agent;
  const toasts = createToasts(0);
  const chat = createChatViewStore(fake.hearth, toasts, createConfirm());
  const stopChat = chat.start();
  fake.setLoaded({ chatId: 'c1', start: 0, total: 1, messages: [message('m0')] }, true);
  await chat.select('c1');
  const openConnections = vi.fn();
  const store = createAgentStore({ hearth: fake.hearth, toasts, chat, storage, rememberPanel: true, openConnections });
  const stop = store.start();
  await flush();
  const toastTexts = () => get(toasts).map((t) => `${t.code}: ${t.message}`);
  return { fake, ...a, toasts, toastTexts, chat, store, storage, openConnections, stop: () => (stop(), stopChat()) };
}

describe('agent store', () => {
  it('sends the typed message through the chat, then starts a streamed foreground run of the chosen profile', async () => {
    const { fake, agent, store, handlers } = await setup();
    store.chooseProfile('careful');
    expect(await store.sendWithAgent('Write me a storm.')).toBe(true);
    expect(fake.chat.addMessages).toHaveBeenCalledWith('c1', { is_user: true, name: 'Me', mes: 'Write me a storm.' });
    expect(agent.startRunFromLegacyGenerate).toHaveBeenCalledWith({ chatId: 'c1', profileId: 'careful', options: { stream: true, presentation: 'foreground' } });
    // The new run is listed, selected, subscribed from seq 0, and the panel opens.
    expect(get(store.runs).map((r) => r.runId)).toEqual(['r-new']);
    expect(get(store.selectedId)).toBe('r-new');
    expect(agent.subscribe).toHaveBeenCalledWith('r-new', expect.any(Function), expect.objectContaining({ afterSeq: 0 }));
    expect(get(store.panelOpen)).toBe(true);
    handlers.get('r-new')?.(ev('r-new', 1, 'run_created', { chatId: 'c1', model: 'scripted' }));
    handlers.get('r-new')?.(ev('r-new', 2, 'model_request_created', { round: 1 }));
    await flush();
    expect(get(store.run)).toMatchObject({ runId: 'r-new', status: 'calling_model', model: 'scripted' });
  });

  it('starts without adding a message when the composer is empty', async () => {
    const { fake, agent, store } = await setup();
    expect(await store.sendWithAgent('  ')).toBe(true);
    expect(fake.chat.addMessages).not.toHaveBeenCalled();
    expect(agent.startRunFromLegacyGenerate).toHaveBeenCalledTimes(1);
  });

  it('says what to do when the run cannot start', async () => {
    const { agent, store, toasts, toastTexts, openConnections } = await setup();
    agent.startRunFromLegacyGenerate.mockRejectedValueOnce(hostError('agent.no_connection', 'no connection is selected'));
    expect(await store.sendWithAgent('')).toBe(false);
    agent.startRunFromLegacyGenerate.mockRejectedValueOnce(hostError('agent.busy', 'run r1 is going'));
    // The message was sent, so the composer does not get it back.
    expect(await store.sendWithAgent('Again')).toBe(true);
    expect(toastTexts()).toEqual([
      'agent.no_connection: Could not start the agent: Add a connection first — open Connections (the plug button) to add or pick one.',
      'agent.busy: Could not start the agent: An agent is already working on this chat — wait for it or cancel it.',
    ]);
    // Only the first is fixed in Connections; its toast opens them.
    expect(get(toasts).map((t) => t.action?.label ?? null)).toEqual(['Open Connections', null]);
    get(toasts)[0]?.action?.run();
    expect(openConnections).toHaveBeenCalledTimes(1);
  });

  it('offers Connections for a failed model request whose cause is fixed there', async () => {
    const { agent, store, toasts, openConnections } = await setup();
    agent.startRunFromLegacyGenerate.mockRejectedValueOnce(
      hostError('model.request_failed', 'the model request failed (model.auth_failed): bad key', { cause: 'model.auth_failed', status: 401 }),
    );
    await store.sendWithAgent('');
    agent.startRunFromLegacyGenerate.mockRejectedValueOnce(hostError('model.request_failed', 'no such model', { cause: 'model.request_failed', status: 400 }));
    await store.sendWithAgent('');
    expect(get(toasts).map((t) => t.action?.label ?? null)).toEqual(['Open Connections', null]);
    get(toasts)[0]?.action?.run();
    expect(openConnections).toHaveBeenCalledTimes(1);
  });

  it('offers Connections under a run that failed on a refused key, by run_failed’s details.cause', async () => {
    const { store, handlers, openConnections } = await setup([summary('r1', { status: 'calling_model' }), summary('r2', { status: 'calling_model', createdMs: 500 })]);
    const h = handlers.get('r1');
    h?.(ev('r1', 1, 'run_created', {}));
    h?.(ev('r1', 2, 'model_request_created', { round: 1 }));
    await flush();
    expect(get(store.failureAction)).toBeNull();
    h?.(ev('r1', 3, 'run_failed', { code: 'model.request_failed', message: 'the model request failed (model.auth_failed): bad key', details: { cause: 'model.auth_failed', status: 401 } }));
    await flush();
    expect(get(store.failureAction)?.label).toBe('Open Connections');
    get(store.failureAction)?.run();
    expect(openConnections).toHaveBeenCalledTimes(1);
    // A refused request is not fixed in Connections: no button.
    store.select('r2');
    handlers.get('r2')?.(ev('r2', 1, 'run_failed', { code: 'model.request_failed', message: 'no such model', details: { cause: 'model.request_failed', status: 400 } }));
    await flush();
    expect(get(store.run)?.status).toBe('failed');
    expect(get(store.failureAction)).toBeNull();
  });

  it('lists the chat’s runs newest first, opens the newest, and adds new ones live', async () => {
    const { fake, store, known, agent, unsubscribed } = await setup([summary('r1', { createdMs: 1000 }), summary('r2', { createdMs: 2000, status: 'failed' })]);
    expect(get(store.runs).map((r) => r.runId)).toEqual(['r2', 'r1']);
    expect(get(store.selectedId)).toBe('r2');
    expect(get(store.active)).toBeNull();

    known.set('r3', summary('r3', { createdMs: 3000, status: 'created' }));
    fake.emit('agent_run_event', ev('r3', 1, 'run_created', { chatId: 'c1' }) as never);
    fake.emit('agent_run_event', ev('r9', 1, 'run_created', { chatId: 'other' }) as never);
    await flush();
    expect(get(store.runs).map((r) => r.runId)).toEqual(['r3', 'r2', 'r1']);
    expect(agent.getRun).not.toHaveBeenCalledWith('r9');
    // A new run takes over from an ended one.
    expect(get(store.selectedId)).toBe('r3');
    expect(unsubscribed).toEqual(['r2']);
    // Its status in the list follows its events.
    fake.emit('agent_run_event', ev('r3', 2, 'tool_call_approval_requested', { callId: 'x' }) as never);
    expect(get(store.runs)[0]?.status).toBe('awaiting_approval');
    expect(get(store.active)?.runId).toBe('r3');
    // A failure's words reach the list with its event, for the chat's "no reply" notice.
    fake.emit('agent_run_event', ev('r3', 3, 'run_failed', { code: 'agent.no_tool_calls', message: 'plain text', details: { rounds: 2 } }) as never);
    expect(get(store.runs)[0]).toMatchObject({ status: 'failed', error: { code: 'agent.no_tool_calls', message: 'plain text', details: { rounds: 2 } } });
    expect(get(store.active)).toBeNull();
  });

  it('switching runs unsubscribes the last one; closing the chat clears the list', async () => {
    const { store, agent, unsubscribed, chat, stop } = await setup([summary('r1', { createdMs: 1000 }), summary('r2', { createdMs: 2000 })]);
    store.select('r1');
    expect(unsubscribed).toEqual(['r2']);
    expect(agent.subscribe).toHaveBeenLastCalledWith('r1', expect.any(Function), expect.objectContaining({ afterSeq: 0 }));
    await chat.select(null);
    await flush();
    expect(get(store.runs)).toEqual([]);
    expect(get(store.run)).toBeNull();
    expect(unsubscribed).toEqual(['r2', 'r1']);
    stop();
  });

  it('subscribes only while the panel is open', async () => {
    const { store, agent, unsubscribed } = await setup([summary('r1', { createdMs: 1000 }), summary('r2', { createdMs: 2000 })]);
    expect(agent.subscribe).toHaveBeenCalledTimes(1);
    store.setPanel(false);
    expect(unsubscribed).toEqual(['r2']);
    expect(get(store.run)).toBeNull();
    // Picking a run with the panel closed only remembers it.
    store.select('r1');
    expect(agent.subscribe).toHaveBeenCalledTimes(1);
    store.setPanel(true);
    expect(agent.subscribe).toHaveBeenCalledTimes(2);
    expect(agent.subscribe).toHaveBeenLastCalledWith('r1', expect.any(Function), expect.objectContaining({ afterSeq: 0 }));
    expect(get(store.run)?.runId).toBe('r1');
  });

  it('starting a run opens the panel on it', async () => {
    const { store, agent } = await setup([], memoryStorage());
    expect(get(store.panelOpen)).toBe(false);
    await store.sendWithAgent('');
    expect(get(store.panelOpen)).toBe(true);
    expect(agent.subscribe).toHaveBeenCalledTimes(1);
    expect(agent.subscribe).toHaveBeenCalledWith('r-new', expect.any(Function), expect.objectContaining({ afterSeq: 0 }));
  });

  it('folds a replay in one update and answers the pending call', async () => {
    const { store, handlers, agent } = await setup([summary('r1', { status: 'awaiting_approval' })]);
    const h = handlers.get('r1');
    const seen: (string | undefined)[] = [];
    const off = store.run.subscribe((v) => seen.push(v?.status));
    h?.(ev('r1', 1, 'run_created', {}));
    h?.(ev('r1', 2, 'tool_call_requested', { callId: 'c9', tool: 'workspace.write_file', args: { path: 'output/main.md' } }));
    h?.(ev('r1', 3, 'tool_call_approval_requested', { callId: 'c9', tool: 'workspace.write_file', args: { path: 'output/main.md' } }));
    await flush();
    // The list's status first, then one update for the three events.
    expect(seen).toEqual(['awaiting_approval', 'awaiting_approval']);
    off();
    expect(get(store.run)?.pending?.callId).toBe('c9');
    expect(await store.answer('c9', 'deny', 'too long')).toBe(true);
    expect(agent.approveToolCall).toHaveBeenCalledWith({ runId: 'r1', callId: 'c9', decision: 'deny', reason: 'too long' });
    agent.approveToolCall.mockRejectedValueOnce(hostError('agent.call_not_pending'));
    expect(await store.answer('c9', 'approve')).toBe(false);
  });

  it('folds events of an ended run that arrive on the bus (a rollback)', async () => {
    const { fake, store, handlers, agent } = await setup([summary('r1')]);
    handlers.get('r1')?.(ev('r1', 1, 'run_created', {}));
    handlers.get('r1')?.(ev('r1', 2, 'run_completed', {}));
    await flush();
    expect(get(store.run)?.status).toBe('completed');
    fake.emit('agent_run_event', ev('r1', 3, 'rollback_completed', { checkpointId: 'cp9', restoredFrom: 'cp1', files: [] }) as never);
    expect(get(store.run)?.lastSeq).toBe(3);
    expect(get(store.run)?.items.at(-1)?.kind).toBe('rollback');
    // A gap is read from the store.
    agent.readEvents.mockResolvedValueOnce({ events: [ev('r1', 4, 'checkpoint_created', { checkpointId: 'cp10' }), ev('r1', 5, 'rollback_completed', {})], hasMore: false });
    fake.emit('agent_run_event', ev('r1', 5, 'rollback_completed', {}) as never);
    await flush();
    expect(agent.readEvents).toHaveBeenCalledWith({ runId: 'r1', afterSeq: 3, limit: 100 });
    expect(get(store.run)?.lastSeq).toBe(5);
  });

  it('remembers the profile and the panel, and falls back to Default writer when the profile is gone', async () => {
    const storage = memoryStorage({ [PROFILE_KEY]: 'careful', [PANEL_KEY]: '1' });
    const { store } = await setup([], storage);
    expect(get(store.profileId)).toBe('careful');
    expect(get(store.panelOpen)).toBe(true);
    store.setPanel(false);
    expect(storage.data.get(PANEL_KEY)).toBe('0');
    store.chooseProfile('gone');
    expect(storage.data.get(PROFILE_KEY)).toBe('gone');
    await store.loadProfiles();
    expect(get(store.profileId)).toBe('default-writer');
    expect(get(store.profiles).map((p) => p.id)).toEqual(['default-writer', 'careful']);
  });

  it('cancels the selected run and reports a run that already ended', async () => {
    const { store, agent, toastTexts } = await setup([summary('r1', { status: 'calling_model' })]);
    await store.cancel();
    expect(agent.cancel).toHaveBeenCalledWith('r1');
    agent.cancel.mockRejectedValueOnce(hostError('agent.run_not_active'));
    await store.cancel();
    expect(toastTexts()).toEqual(['agent.run_not_active: Could not cancel the run: The run has already ended.']);
  });
});
