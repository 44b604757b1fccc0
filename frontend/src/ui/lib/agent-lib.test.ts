import { describe, expect, it } from 'vitest';
import type { AgentWorkspaceFileInfo } from '../../abi/types';
import { checkProfile, copyOf, errorField, formatProfile, getPath, parseProfile, setPath, setToolFlag, toolFlags } from './agent-profile-edit';
import { agentErrorText, argsHint, canonicalTool, formatBytes, prettyJson } from './agent-text';
import { treeRows } from './agent-tree';
import { diffStats, parseUnifiedDiff } from './unified-diff';

const profile = {
  schemaVersion: 1,
  kind: 'hearth.agentProfile',
  id: 'default-writer',
  displayName: 'Default writer',
  tools: { allow: ['chat.search', 'workspace.write_file'], deny: [], requireApproval: [], maxRounds: 80, maxCallsPerRun: 80 },
  model: { mode: 'currentPromptSnapshot' },
};

describe('unified diffs', () => {
  it('numbers the lines of each side and sorts them into additions, removals and context', () => {
    const lines = parseUnifiedDiff('--- a/output/main.md\n+++ b/output/main.md\n@@ -1,3 +1,3 @@\n The storm\n-is close.\n+is far out.\n \\ No newline\n@@ -10 +10,2 @@\n+new\n');
    expect(lines.map((l) => [l.kind, l.oldNo, l.newNo, l.text])).toEqual([
      ['meta', null, null, '--- a/output/main.md'],
      ['meta', null, null, '+++ b/output/main.md'],
      ['hunk', null, null, '@@ -1,3 +1,3 @@'],
      ['ctx', 1, 1, 'The storm'],
      ['del', 2, null, 'is close.'],
      ['add', null, 2, 'is far out.'],
      ['ctx', 3, 3, '\\ No newline'],
      ['hunk', null, null, '@@ -10 +10,2 @@'],
      ['add', null, 10, 'new'],
    ]);
    expect(diffStats(lines)).toEqual({ added: 2, removed: 1 });
    expect(parseUnifiedDiff('')).toEqual([]);
  });
});

describe('workspace tree', () => {
  const f = (path: string): AgentWorkspaceFileInfo => ({ path, bytes: 1, sha256: '', modifiedMs: 0 });
  it('puts the workspace roots in their order, folders before files, and hides collapsed folders', () => {
    const files = [f('scratch/notes.md'), f('output/main.md'), f('persist/state/a.json'), f('output/alt/b.md'), f('zeta.txt')];
    expect(treeRows(files).map((r) => `${'  '.repeat(r.depth)}${r.kind === 'dir' ? `${r.name}/ (${r.count})` : r.name}`)).toEqual([
      'output/ (2)',
      '  alt/ (1)',
      '    b.md',
      '  main.md',
      'scratch/ (1)',
      '  notes.md',
      'persist/ (1)',
      '  state/ (1)',
      '    a.json',
      'zeta.txt',
    ]);
    expect(treeRows(files, new Set(['output', 'persist/state'])).map((r) => r.path)).toEqual(['output', 'scratch', 'scratch/notes.md', 'persist', 'persist/state', 'zeta.txt']);
  });
});

describe('agent words', () => {
  it('turns codes into sentences', () => {
    expect(agentErrorText({ code: 'agent.no_connection', message: 'x' }).message).toMatch(/^Add a connection first/);
    expect(agentErrorText({ code: 'agent.busy', message: 'x' }).message).toMatch(/^An agent is already working on this chat/);
    expect(agentErrorText({ code: 'agent.invalid_profile', message: 'bad', details: { field: 'tools.maxRounds' } }).message).toBe('The agent profile is not valid (tools.maxRounds): bad');
    expect(agentErrorText({ code: 'model.auth_failed', message: 'x' }).message).toMatch(/API key/);
    // A run's failed model request keeps its code and is told by its cause.
    const authFailed = { code: 'model.request_failed', message: 'x', details: { cause: 'model.auth_failed', status: 401 } };
    expect(agentErrorText(authFailed)).toEqual({ code: 'model.request_failed', message: expect.stringMatching(/API key/) });
    expect(agentErrorText({ code: 'model.request_failed', message: 'x', details: { cause: 'model.request_failed', providerMessage: 'no such model' } }).message).toMatch(/refused the request.*no such model/);
    // A model without tool calls is told apart from one that stopped using them.
    expect(agentErrorText({ code: 'agent.no_tool_calls', message: 'x', details: { rounds: 2, toolCalls: 0 } }).message).toBe(
      "The model answered in plain text instead of using Hearth's tools. Pick a model that supports tool calling in the connection, or send without the agent.",
    );
    expect(agentErrorText({ code: 'agent.no_tool_calls', message: 'x', details: { rounds: 2, toolCalls: 3 } }).message).toMatch(/^The model stopped using Hearth's tools/);
    const unreachable = {
      code: 'model.request_failed',
      message: 'the model request failed (model.unreachable): Nothing answered at 127.0.0.1:9999',
      details: { cause: 'model.unreachable', address: '127.0.0.1:9999' },
    };
    expect(agentErrorText(unreachable).message).toBe('Nothing answered at 127.0.0.1:9999. Is the server running, and is its address right in Connections?');
    expect(agentErrorText({ code: 'odd.code', message: 'as is' })).toEqual({ code: 'odd.code', message: 'as is' });
  });

  it('summarizes calls and cuts long strings in arguments', () => {
    expect(canonicalTool('workspace_write_file')).toBe('workspace.write_file');
    expect(canonicalTool('worldinfo_read_activated')).toBe('worldinfo.read_activated');
    expect(canonicalTool('made_up')).toBe('made_up');
    expect(argsHint({ path: 'output/main.md', content: 'x' })).toBe('output/main.md');
    expect(argsHint({ query: 'storm' })).toBe('“storm”');
    expect(argsHint({ messages: [{ index: 1 }, { index: 2 }] })).toBe('2 messages');
    expect(argsHint(null)).toBe('');
    const long = prettyJson({ content: 'x'.repeat(1000) }, 10);
    expect(long.cut).toBe(true);
    expect(long.text).toContain('"xxxxxxxxxx… (990 more characters)"');
    expect(prettyJson({ content: 'short' }, 10)).toEqual({ text: '{\n  "content": "short"\n}', cut: false });
    expect(prettyJson({ content: 'x'.repeat(1000) }, Infinity).cut).toBe(false);
    expect([formatBytes(900), formatBytes(4300), formatBytes(3 * 1024 * 1024)]).toEqual(['900 B', '4.2 KB', '3.0 MB']);
  });
});

describe('profile editing', () => {
  it('parses the text and names the line of a syntax error', () => {
    expect(parseProfile(formatProfile(profile))).toEqual({ ok: true, doc: profile });
    const bad = parseProfile('{\n  "id": "x",\n  oops\n}');
    expect(bad.ok).toBe(false);
    expect(bad.ok ? '' : bad.message).toMatch(/^The JSON is not valid/);
    expect(parseProfile('[1]')).toEqual({ ok: false, message: 'A profile is a JSON object ({ … }).' });
  });

  it('sets and reads dotted paths without touching the original', () => {
    const next = setPath(profile, 'model.connectionId', 'c1');
    expect(getPath(next, 'model.connectionId')).toBe('c1');
    expect(getPath(profile, 'model.connectionId')).toBeUndefined();
    expect(getPath(setPath(next, 'model.connectionId', undefined), 'model')).toEqual({ mode: 'currentPromptSnapshot' });
    expect(getPath(setPath({}, 'tools.maxRounds', 3), 'tools.maxRounds')).toBe(3);
  });

  it('moves tools in and out of the lists in the tools’ order', () => {
    let d = setToolFlag(profile, 'chat.read_messages', 'allow', true);
    expect(getPath(d, 'tools.allow')).toEqual(['chat.search', 'chat.read_messages', 'workspace.write_file']);
    d = setToolFlag(d, 'workspace.write_file', 'requireApproval', true);
    expect(toolFlags(d, 'workspace.write_file')).toEqual({ allow: true, deny: false, requireApproval: true });
    d = setToolFlag(d, 'chat.search', 'allow', false);
    expect(getPath(d, 'tools.allow')).toEqual(['chat.read_messages', 'workspace.write_file']);
  });

  it('finds what is wrong before saving, naming the field', () => {
    expect(checkProfile(profile)).toEqual([]);
    const issues = checkProfile({
      ...profile,
      id: 'Bad Id',
      displayName: ' ',
      tools: { allow: ['chat.search', 'shell.exec'], maxRounds: 0 },
      model: { mode: 'connection' },
    });
    expect(issues.map((i) => i.field)).toEqual(['id', 'displayName', 'tools.allow', 'tools.maxRounds', 'model.connectionId']);
  });

  it('copies a profile under a fresh id and reads the field of a save error', () => {
    expect(copyOf(profile, ['default-writer', 'default-writer-copy'])).toMatchObject({ id: 'default-writer-copy-2', displayName: 'Default writer copy', kind: 'hearth.agentProfile' });
    expect(copyOf({ ...profile, id: 'default-writer-copy' }, []).id).toBe('default-writer-copy');
    expect(errorField({ code: 'agent.invalid_profile', details: { field: 'tools.allow[2]' } })).toBe('tools.allow[2]');
    expect(errorField(new Error('x'))).toBeNull();
  });
});
