import { get, writable } from 'svelte/store';
import { describe, expect, it, vi } from 'vitest';
import type { AgentRunSummary, EventPayload, StMessage } from '../../abi/types';
import type { ChatView } from './chat';
import { createFakeHearth, message } from './fake-hearth';
import { createNoReplyStore, fixAction, unanswered, type NoReplyState } from './no-reply';

const SENT = '2025-03-01T10:00:00.000Z';
const SENT_MS = Date.parse(SENT);

function user(id: string, sendDate = SENT): StMessage {
  return message(id, { is_user: true, name: 'Me', send_date: sendDate });
}

function run(fields: Partial<AgentRunSummary> = {}): AgentRunSummary {
  return {
    runId: 'run_1',
    status: 'failed',
    workspaceId: 'ws',
    stableChatId: 'c1',
    chatId: 'c1',
    profileId: 'default-writer',
    generationType: 'normal',
    presentation: 'foreground',
    createdMs: SENT_MS + 50,
    updatedMs: SENT_MS + 900,
    endedMs: SENT_MS + 900,
    error: { code: 'agent.no_tool_calls', message: 'the model answered in plain text 2 rounds in a row', details: { rounds: 2, toolCalls: 0 } },
    rounds: 2,
    calls: 0,
    usage: { inputTokens: 0, outputTokens: 0 },
    lastSeq: 12,
    pending: null,
    ...fields,
  };
}

const NOTHING: NoReplyState = { last: new Map(), failures: new Map() };

describe('unanswered', () => {
  it('marks the user’s last message after a failed run that began after it', () => {
    const got = unanswered(NOTHING, 'c1', user('m2'), [run()]);
    expect(got).toEqual({
      kind: 'agent',
      messageId: 'm2',
      code: 'agent.no_tool_calls',
      message: "The model answered in plain text instead of using Hearth's tools. Pick a model that supports tool calling in the connection, or send without the agent.",
      details: { rounds: 2, toolCalls: 0 },
      runId: 'run_1',
    });
    expect(unanswered(NOTHING, 'c1', user('m2'), [run({ status: 'interrupted', error: null })])?.message).toBe('Hearth stopped before the run finished.');
  });

  it('leaves alone a reply, a run that ended well, a message sent after the run, and another chat’s run', () => {
    expect(unanswered(NOTHING, 'c1', message('m3'), [run()])).toBeNull();
    expect(unanswered(NOTHING, 'c1', user('m2'), [run({ status: 'completed', error: null })])).toBeNull();
    expect(unanswered(NOTHING, 'c1', user('m2'), [run({ status: 'cancelled', error: null })])).toBeNull();
    expect(unanswered(NOTHING, 'c1', user('m2'), [run({ status: 'calling_model', error: null })])).toBeNull();
    expect(unanswered(NOTHING, 'c1', user('m4', '2025-03-01T10:05:00.000Z'), [run()])).toBeNull();
    expect(unanswered(NOTHING, 'c1', user('m2'), [run({ chatId: 'c2' })])).toBeNull();
    expect(unanswered(NOTHING, 'c1', user('m2'), [])).toBeNull();
    expect(unanswered(NOTHING, null, user('m2'), [run()])).toBeNull();
    // A date Date.parse cannot read (an imported chat's) does not hide the failure.
    expect(unanswered(NOTHING, 'c1', user('m2', 'someday'), [run()])?.kind).toBe('agent');
  });

  it('after a generation, tells its failure and ignores the older run', () => {
    const failure = { generationId: 'g1', code: 'model.unavailable', message: 'x', details: { status: 503 }, messageId: 'm2' };
    const failed: NoReplyState = { last: new Map([['c1', 'generation']]), failures: new Map([['c1', failure]]) };
    expect(unanswered(failed, 'c1', user('m2'), [run()])).toEqual({
      kind: 'generation',
      messageId: 'm2',
      code: 'model.unavailable',
      message: 'The model server is unavailable or overloaded; try again shortly.',
      details: { status: 503 },
      runId: null,
    });
    // Another message of the user's since: that one was never asked about.
    expect(unanswered(failed, 'c1', user('m5'), [])).toBeNull();
    const answered: NoReplyState = { last: new Map([['c1', 'generation']]), failures: new Map() };
    expect(unanswered(answered, 'c1', user('m2'), [run()])).toBeNull();
  });
});

describe('fixAction', () => {
  it('offers Connections for a model without tool calls and for the failures fixed there', () => {
    const open = vi.fn();
    expect(fixAction('agent.no_tool_calls', open)?.label).toBe('Open Connections');
    expect(fixAction('model.request_failed', open, { cause: 'model.auth_failed' })?.label).toBe('Open Connections');
    expect(fixAction('agent.max_rounds', open)).toBeNull();
    expect(fixAction('agent.no_tool_calls', undefined)).toBeNull();
  });
});

describe('createNoReplyStore', () => {
  function setup(messages: StMessage[] = [message('m0'), user('m1')]) {
    const fake = createFakeHearth();
    const view = writable<ChatView>({ chatId: 'c1', avatar: 'Ann.png', groupId: null, start: 0, total: messages.length, messages, version: 1, loading: false });
    const store = createNoReplyStore({ hearth: fake.hearth, view });
    const stop = store.start();
    const emit = (type: string, p: Record<string, unknown>) => fake.emit(type, p as EventPayload);
    return { fake, view, store, stop, emit };
  }

  it('remembers a failed generation of the open chat against its last message, until the next one', () => {
    const { store, emit, stop } = setup();
    emit('generation_started', { chatId: 'c1', generationId: 'g1', type: 'normal' });
    expect(get(store.state).last.get('c1')).toBe('generation');
    emit('generation_ended', { chatId: 'c1', generationId: 'g1', index: null, swipeId: null, error: { code: 'model.unavailable', message: 'busy', details: { status: 503 } } });
    expect(get(store.state).failures.get('c1')).toEqual({ generationId: 'g1', code: 'model.unavailable', message: 'busy', details: { status: 503 }, messageId: 'm1' });
    emit('generation_started', { chatId: 'c1', generationId: 'g2', type: 'normal' });
    expect(get(store.state).failures.has('c1')).toBe(false);
    emit('generation_ended', { chatId: 'c1', generationId: 'g2', index: 2, swipeId: 0 });
    expect(get(store.state).failures.has('c1')).toBe(false);
    stop();
    emit('generation_started', { chatId: 'c9', generationId: 'g3', type: 'normal' });
    expect(get(store.state).last.has('c9')).toBe(false);
  });

  it('ignores quiet prompts and impersonation, and a stop is no failure', () => {
    const { store, emit } = setup();
    emit('generation_started', { chatId: 'c1', generationId: 'q1', type: 'quiet' });
    emit('generation_ended', { chatId: 'c1', generationId: 'q1', index: null, swipeId: null, error: { code: 'model.timeout', message: 'slow' } });
    emit('generation_started', { chatId: 'c1', generationId: 'i1', type: 'impersonate' });
    emit('generation_ended', { chatId: 'c1', generationId: 'i1', index: null, swipeId: null, error: { code: 'model.timeout', message: 'slow' } });
    expect(get(store.state)).toEqual({ last: new Map(), failures: new Map() });
    emit('generation_started', { chatId: 'c1', generationId: 'g1', type: 'normal' });
    emit('generation_stopped', { chatId: 'c1', generationId: 'g1', index: null });
    expect(get(store.state).failures.size).toBe(0);
    expect(get(store.state).last.get('c1')).toBe('generation');
  });

  it('a run started after a failed generation takes over', () => {
    const { store, emit } = setup();
    emit('generation_started', { chatId: 'c1', generationId: 'g1', type: 'normal' });
    emit('generation_ended', { chatId: 'c1', generationId: 'g1', index: null, swipeId: null, error: { code: 'model.timeout', message: 'slow' } });
    emit('agent_run_event', { seq: 1, id: 'run_2:1', runId: 'run_2', timestamp: SENT, level: 'info', type: 'run_created', payload: { chatId: 'c1' } });
    expect(get(store.state).last.get('c1')).toBe('agent');
    expect(get(store.state).failures.has('c1')).toBe(false);
  });

  it('a failure in a chat not open is tied to the message it left once the chat shows, and asks the type it did not hear', async () => {
    const { fake, store, emit, view } = setup();
    fake.generate.status.mockResolvedValueOnce({ generationId: 'g7', chatId: 'c2', type: 'normal', status: 'failed', messageId: null, index: null, swipeId: null, startedAt: 1, endedAt: 2 });
    emit('generation_ended', { chatId: 'c2', generationId: 'g7', index: null, swipeId: null, error: { code: 'model.timeout', message: 'slow' } });
    await vi.waitFor(() => expect(get(store.state).failures.get('c2')?.messageId).toBeNull());
    expect(fake.generate.status).toHaveBeenCalledWith('g7');
    view.set({ chatId: 'c2', avatar: 'Ann.png', groupId: null, start: 0, total: 2, messages: [message('n0'), user('n1')], version: 2, loading: false });
    expect(get(store.state).failures.get('c2')?.messageId).toBe('n1');

    // One whose record says it was a quiet prompt is nobody's reply.
    fake.generate.status.mockResolvedValueOnce({ generationId: 'g8', chatId: 'c3', type: 'quiet', status: 'failed', messageId: null, index: null, swipeId: null, startedAt: 1, endedAt: 2 });
    emit('generation_ended', { chatId: 'c3', generationId: 'g8', index: null, swipeId: null, error: { code: 'model.timeout', message: 'slow' } });
    await vi.waitFor(() => expect(fake.generate.status).toHaveBeenCalledTimes(2));
    await Promise.resolve();
    expect(get(store.state).failures.has('c3')).toBe(false);
  });
});
