import { describe, expect, it, vi } from 'vitest';
import { createAgentApi, type AgentApiDeps } from './api-agent';
import { createExtensionPrompts } from './extension-prompts';
import type { Call } from './host';
import { tick } from './testing/fake-host';
import { setup } from './testing/setup';
import type { AgentRunEvent } from './types';

const HANDLE = { runId: 'run_1', status: 'created', workspaceId: 'ws_0123456789abcdef', stableChatId: 'c1' };

/** recorder is a Call that records every call and answers from answers (else HANDLE). */
function recorder(answers: Record<string, unknown> = {}) {
  const calls: { method: string; args: unknown[] }[] = [];
  const call: Call = async (method, ...args) => {
    calls.push({ method, args });
    return method in answers ? answers[method] : HANDLE;
  };
  return { calls, call };
}

function deps(current: string | null = 'c1', extra: Partial<AgentApiDeps> = {}): AgentApiDeps {
  return { currentChatId: () => current, listen: () => () => {}, onReconnect: () => () => {}, ...extra };
}

describe('api.agent', () => {
  it('calls agent.* with the arguments as given, and is frozen', async () => {
    const { calls, call } = recorder({
      'agent.approveToolCall': null,
      'agent.profiles.save': null,
      'agent.profiles.delete': null,
      'agent.readEvents': { events: [], hasMore: false },
    });
    const api = createAgentApi(call, deps());
    expect(await api.cancel('run_1')).toEqual(HANDLE);
    expect(await api.readEvents({ runId: 'run_1', afterSeq: 3, beforeSeq: 9, limit: 5 })).toEqual({ events: [], hasMore: false });
    await api.readWorkspaceFile({ runId: 'run_1', path: 'output/main.md', checkpointId: 'cp_1' });
    await api.listWorkspaceFiles({ runId: 'run_1', path: 'output', depth: 2 });
    await api.listRuns({ chatId: 'c1', status: 'completed', limit: 10, beforeCreatedMs: 5 });
    await api.listRuns();
    await api.getRun('run_1');
    await api.listCheckpoints('run_1');
    await api.readDiff({ runId: 'run_1', fromCheckpointId: 'cp_1', path: 'output/main.md' });
    await api.rollback({ runId: 'run_1', checkpointId: 'cp_1', includeChat: true });
    expect(await api.approveToolCall({ runId: 'run_1', callId: 'call_1', decision: 'deny', reason: 'no' })).toBeUndefined();
    expect(calls).toEqual([
      { method: 'agent.cancel', args: ['run_1'] },
      { method: 'agent.readEvents', args: [{ runId: 'run_1', afterSeq: 3, beforeSeq: 9, limit: 5 }] },
      { method: 'agent.readWorkspaceFile', args: [{ runId: 'run_1', path: 'output/main.md', checkpointId: 'cp_1' }] },
      { method: 'agent.listWorkspaceFiles', args: [{ runId: 'run_1', path: 'output', depth: 2 }] },
      { method: 'agent.listRuns', args: [{ chatId: 'c1', status: 'completed', limit: 10, beforeCreatedMs: 5 }] },
      { method: 'agent.listRuns', args: [{}] },
      { method: 'agent.getRun', args: ['run_1'] },
      { method: 'agent.listCheckpoints', args: ['run_1'] },
      { method: 'agent.readDiff', args: [{ runId: 'run_1', fromCheckpointId: 'cp_1', path: 'output/main.md' }] },
      { method: 'agent.rollback', args: [{ runId: 'run_1', checkpointId: 'cp_1', includeChat: true }] },
      { method: 'agent.approveToolCall', args: [{ runId: 'run_1', callId: 'call_1', decision: 'deny', reason: 'no' }] },
    ]);
    expect(Object.isFrozen(api)).toBe(true);
    expect(Object.isFrozen(api.profiles)).toBe(true);
  });

  it('sends a skill folder’s files as base64, whatever form their data takes', async () => {
    const { calls, call } = recorder({ 'agent.skills.install': { name: 'tone' }, 'agent.skills.list': { skills: [], problems: [] } });
    const api = createAgentApi(call, deps());
    await api.skills.list();
    await api.skills.read('tone');
    await api.skills.install({
      files: [
        { path: 'tone/SKILL.md', data: '---\nname: tone\n---\nWarm é' },
        { path: 'tone/a.bin', data: new Uint8Array([0, 255]) },
        { path: 'tone/b.txt', data: new Blob(['hi']) },
      ],
      replace: true,
    });
    expect(calls.map((c) => c.method)).toEqual(['agent.skills.list', 'agent.skills.read', 'agent.skills.install']);
    const sent = calls[2]?.args[0] as { files: { path: string; data: string }[]; replace: boolean };
    expect(sent.replace).toBe(true);
    const [text, bin, blob] = sent.files.map((f) => f.data);
    expect(new TextDecoder().decode(Uint8Array.from(atob(text ?? ''), (c) => c.charCodeAt(0)))).toBe('---\nname: tone\n---\nWarm é');
    expect(bin).toBe('AP8=');
    expect(blob).toBe('aGk=');
    await expect(api.skills.install({ files: [{ path: 'x', data: 42 as unknown as string }] })).rejects.toMatchObject({ code: 'validation.invalid_argument' });
  });

  it('accepts the seed’s input forms for profiles', async () => {
    const profile = { schemaVersion: 1 as const, kind: 'tauritavern.agentProfile' as const, id: 'my-writer', displayName: 'My Writer' };
    const { calls, call } = recorder({
      'agent.profiles.list': { profiles: [], issues: [] },
      'agent.profiles.load': { profile },
      'agent.profiles.save': null,
      'agent.profiles.delete': null,
      'agent.profiles.diagnose': { ok: true, issues: [] },
    });
    const p = createAgentApi(call, deps()).profiles;
    expect(await p.list()).toEqual({ profiles: [], issues: [] });
    expect(await p.load('my-writer')).toEqual({ profile });
    await p.load({ profileId: 'my-writer' });
    expect(await p.save(profile)).toBeUndefined();
    await p.save({ profile });
    expect(await p.delete('my-writer')).toBeUndefined();
    await p.delete({ profileId: 'my-writer' });
    expect(await p.diagnose({ profileId: 'my-writer' })).toEqual({ ok: true, issues: [] });
    await p.diagnose('my-writer');
    expect(calls).toEqual([
      { method: 'agent.profiles.list', args: [] },
      { method: 'agent.profiles.load', args: ['my-writer'] },
      { method: 'agent.profiles.load', args: ['my-writer'] },
      { method: 'agent.profiles.save', args: [profile] },
      { method: 'agent.profiles.save', args: [profile] },
      { method: 'agent.profiles.delete', args: ['my-writer'] },
      { method: 'agent.profiles.delete', args: ['my-writer'] },
      { method: 'agent.profiles.diagnose', args: ['my-writer'] },
      { method: 'agent.profiles.diagnose', args: ['my-writer'] },
    ]);
  });

  it('starts a run for the chat the input names, else for this window’s chat', async () => {
    const { calls, call } = recorder({ 'chat.resolve': 'c9' });
    const api = createAgentApi(call, deps('c1'));
    const snapshot = { chatCompletionPayload: { messages: [{ role: 'user', content: 'hi' }] } };
    await api.startRunFromLegacyGenerate();
    await api.startRunFromLegacyGenerate({ generationType: 'swipe', profileId: 'default-writer', options: { stream: true, presentation: 'background' } });
    await api.startRunFromLegacyGenerate({ chatId: 'c2' });
    await api.startRunFromLegacyGenerate({ stableChatId: 'c3' });
    await api.startRunFromLegacyGenerate({ chatRef: 'c4' });
    await api.startRunFromLegacyGenerate({ chatRef: { chatId: 'c5' } });
    await api.startRunFromLegacyGenerate({ chatRef: { avatar: 'Seraphina.png', fileName: 'Seraphina - 1' } });
    await api.startRunWithPromptSnapshot({ promptSnapshot: snapshot });
    await api.startRunWithPromptSnapshot({ chatRef: 'c6', promptSnapshot: snapshot, presentation: 'foreground' });
    expect(calls).toEqual([
      { method: 'agent.startRunFromLegacyGenerate', args: [{ chatId: 'c1' }] },
      {
        method: 'agent.startRunFromLegacyGenerate',
        args: [{ chatId: 'c1', generationType: 'swipe', profileId: 'default-writer', options: { stream: true, presentation: 'background' } }],
      },
      { method: 'agent.startRunFromLegacyGenerate', args: [{ chatId: 'c2' }] },
      { method: 'agent.startRunFromLegacyGenerate', args: [{ stableChatId: 'c3' }] },
      { method: 'agent.startRunFromLegacyGenerate', args: [{ chatRef: 'c4', chatId: 'c4' }] },
      { method: 'agent.startRunFromLegacyGenerate', args: [{ chatRef: { chatId: 'c5' }, chatId: 'c5' }] },
      { method: 'chat.resolve', args: [{ avatar: 'Seraphina.png', fileName: 'Seraphina - 1' }] },
      { method: 'agent.startRunFromLegacyGenerate', args: [{ chatRef: { chatId: 'c9' }, chatId: 'c9' }] },
      { method: 'agent.startRunWithPromptSnapshot', args: [{ promptSnapshot: snapshot, chatId: 'c1' }] },
      { method: 'agent.startRunWithPromptSnapshot', args: [{ chatRef: 'c6', promptSnapshot: snapshot, presentation: 'foreground', chatId: 'c6' }] },
    ]);
  });

  it('rejects with agent.no_chat, before calling the host, when no chat is named or open', async () => {
    const { calls, call } = recorder();
    const api = createAgentApi(call, deps(null));
    await expect(api.startRunFromLegacyGenerate()).rejects.toMatchObject({ name: 'HostError', code: 'agent.no_chat' });
    await expect(api.startRunFromLegacyGenerate({ chatRef: null } as never)).rejects.toMatchObject({ code: 'agent.no_chat' });
    await expect(api.startRunWithPromptSnapshot({ promptSnapshot: { chatCompletionPayload: {} } })).rejects.toMatchObject({ code: 'agent.no_chat' });
    expect(calls).toEqual([]);
    // A chat named in the input needs no open chat.
    await api.startRunFromLegacyGenerate({ chatId: 'c2' });
    expect(calls).toHaveLength(1);
  });

  it('leaves malformed inputs to the host to refuse', async () => {
    const { calls, call } = recorder();
    const api = createAgentApi(call, deps('c1'));
    await api.startRunFromLegacyGenerate('c1' as never);
    await api.startRunWithPromptSnapshot(undefined as never);
    await api.startRunFromLegacyGenerate({ chatRef: 7 } as never);
    expect(calls).toEqual([
      { method: 'agent.startRunFromLegacyGenerate', args: ['c1'] },
      { method: 'agent.startRunWithPromptSnapshot', args: [undefined] },
      { method: 'agent.startRunFromLegacyGenerate', args: [{ chatRef: 7 }] },
    ]);
  });

  it('sends this window’s extension prompts with the legacy dry run; given ones win by key', async () => {
    const { calls, call } = recorder();
    const prompts = createExtensionPrompts();
    const api = createAgentApi(call, deps('c1', { prompts }));
    await api.startRunFromLegacyGenerate();
    prompts.set('note', 'Be brief.', 1, 2);
    prompts.set('style', 'Past tense.', 0, 0, false, 0, () => true);
    const mine = { key: 'note', value: 'Be long.', position: 1, depth: 0, scan: false, role: 0 };
    await api.startRunFromLegacyGenerate({ generateOptions: { extensionPrompts: [mine], other: 1 } });
    expect(calls.map((c) => c.args[0])).toEqual([
      { chatId: 'c1' },
      {
        chatId: 'c1',
        generateOptions: { other: 1, extensionPrompts: [{ key: 'style', value: 'Past tense.', position: 0, depth: 0, scan: false, role: 0 }, mine] },
      },
    ]);
  });

  it('subscribes through the deps: live events and reconnects', async () => {
    const live = new Set<(p: unknown) => void>();
    const reconnects = new Set<() => void>();
    const stored: AgentRunEvent[] = [];
    const { calls, call } = recorder();
    const reading: Call = async (method, ...args) => {
      if (method !== 'agent.readEvents') return call(method, ...args);
      calls.push({ method, args });
      const after = (args[0] as { afterSeq: number }).afterSeq;
      return { events: stored.filter((e) => e.seq > after), hasMore: false };
    };
    const api = createAgentApi(reading, {
      currentChatId: () => null,
      listen: (h) => (live.add(h), () => void live.delete(h)),
      onReconnect: (h) => (reconnects.add(h), () => void reconnects.delete(h)),
    });
    const got: number[] = [];
    const stop = api.subscribe('run_1', (e) => got.push(e.seq), { intervalMs: 5 });
    expect(live.size).toBe(1);
    expect(reconnects.size).toBe(1);
    await tick();
    stored.push(ev(1));
    for (const h of live) h(ev(1));
    stored.push(ev(2));
    for (const r of reconnects) r();
    await vi.waitFor(() => expect(got).toEqual([1, 2]));
    expect(calls).toEqual([
      { method: 'agent.readEvents', args: [{ runId: 'run_1', afterSeq: 0, limit: 100 }] },
      { method: 'agent.readEvents', args: [{ runId: 'run_1', afterSeq: 1, limit: 100 }] },
    ]);
    stop();
    expect(live.size).toBe(0);
    expect(reconnects.size).toBe(0);
  });
});

describe('api.agent in __HEARTH__', () => {
  it('hears AGENT_RUN_EVENT from the bus, re-reads after a transport reconnect, and runs for the window’s chat', async () => {
    const stored: AgentRunEvent[] = [];
    const { host, h } = await setup((host) => {
      host.addChat('c1', 2);
      const invoke = host.invoke.bind(host);
      host.invoke = async (method, args) => {
        if (method === 'agent.readEvents') {
          host.calls.push({ method, args: [...args] });
          const after = (args[0] as { afterSeq: number }).afterSeq;
          return JSON.parse(JSON.stringify({ events: stored.filter((e) => e.seq > after), hasMore: false })) as unknown;
        }
        if (method === 'agent.startRunFromLegacyGenerate') {
          host.calls.push({ method, args: [...args] });
          return { ...HANDLE, stableChatId: (args[0] as { chatId: string }).chatId };
        }
        return invoke(method, args);
      };
    });
    expect(h.api.events.types).toMatchObject({
      AGENT_RUN_EVENT: 'agent_run_event',
      WORKSPACE_FILE_CHANGED: 'workspace_file_changed',
      AGENT_PROFILES_CHANGED: 'agent_profiles_changed',
    });
    expect(Object.isFrozen(h.api.agent)).toBe(true);
    await expect(h.api.agent.startRunFromLegacyGenerate()).rejects.toMatchObject({ code: 'agent.no_chat' });
    await h.api.chat.select('c1');
    const handle = await h.api.agent.startRunFromLegacyGenerate({ profileId: 'default-writer' });
    expect(handle.stableChatId).toBe('c1');
    expect(host.calls.find((c) => c.method === 'agent.startRunFromLegacyGenerate')?.args).toEqual([{ profileId: 'default-writer', chatId: 'c1' }]);

    const got: string[] = [];
    h.api.agent.subscribe('run_1', (e) => got.push(`${e.seq}:${e.type}`));
    await tick();
    const publish = (e: AgentRunEvent) => {
      stored.push(e);
      host.push('agent_run_event', e as unknown as Record<string, unknown>);
    };
    publish(ev(1, 'run_created'));
    host.push('agent_run_event', ev(1, 'other', 'run_2') as unknown as Record<string, unknown>);
    stored.push(ev(2, 'model_delta'));
    host.reconnect();
    await vi.waitFor(() => expect(got).toEqual(['1:run_created', '2:model_delta']));
    publish(ev(3, 'run_completed'));
    publish(ev(4, 'rollback_completed'));
    await tick();
    expect(got).toEqual(['1:run_created', '2:model_delta', '3:run_completed']);
    expect(host.count('agent.readEvents')).toBe(2);
  });
});

function ev(seq: number, type = 'tool_call_completed', runId = 'run_1'): AgentRunEvent {
  return { seq, id: `${runId}:${seq}`, runId, timestamp: '2026-01-01T00:00:00.000Z', level: 'info', type, payload: {} };
}
