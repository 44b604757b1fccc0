import { describe, expect, it } from 'vitest';
// The backend's list of permissions, read from its source: a permission
// added there without words here fails this test.
import manifestGo from '../../../../backend/extensions/manifest.go?raw';
import type { ExtensionEntry, ExtensionPermission } from '../../abi/types-extensions';
import { MODE_WORDS, PERMISSIONS, firstLine, permissionLines, permissionWords, sourceWords, statusWords, tierWarning, updatable, versionWords } from './extension-words';

/** backendPermissions reads `var Permissions = []string{…}` out of manifest.go. */
function backendPermissions(): string[] {
  const m = /var Permissions = \[\]string\{([^}]*)\}/.exec(manifestGo);
  if (!m?.[1]) throw new Error('manifest.go no longer declares var Permissions = []string{…}');
  return [...m[1].matchAll(/"([^"]+)"/g)].map((x) => x[1] ?? '');
}

function entry(fields: Partial<ExtensionEntry> = {}): ExtensionEntry {
  return {
    id: 'mood',
    displayName: 'Mood',
    version: '1.0.0',
    author: 'Ada',
    mode: 'sandboxed',
    enabled: true,
    permissions: ['chat.read', 'state'],
    granted: ['chat.read', 'state'],
    status: 'active',
    loadingOrder: 0,
    dependencies: [],
    network: [],
    source: { kind: 'zip', value: 'mood.zip' },
    installedAt: 1,
    updatedAt: 1,
    ...fields,
  };
}

describe('permission words', () => {
  it('has words for every permission the backend knows, and no others', () => {
    const known = backendPermissions();
    expect(known.length).toBeGreaterThanOrEqual(13);
    for (const p of known) {
      const w = PERMISSIONS[p as ExtensionPermission];
      expect(w, `words for ${p}`).toBeDefined();
      expect(w.words).not.toBe('');
      expect(w.words).not.toBe(p);
      expect(w.more).not.toBe('');
    }
    expect(Object.keys(PERMISSIONS).sort()).toEqual([...known].sort());
  });

  it('says each in words a person reads, each one different', () => {
    expect(permissionWords('chat.read').words).toBe('Read your chats');
    expect(permissionWords('chat.write').words).toBe('Change messages in your chats');
    expect(permissionWords('state').words).toBe('Keep its own notes in chat state');
    expect(permissionWords('generate').words).toBe('Generate text with your model (uses your tokens)');
    const all = Object.values(PERMISSIONS).map((w) => w.words);
    expect(new Set(all).size).toBe(all.length);
  });

  it('names the sites a network permission reaches', () => {
    expect(permissionWords('network', ['https://api.example.com', 'https://cdn.example.org/']).words).toBe('Talk to: api.example.com, cdn.example.org');
    expect(permissionWords('network', []).words).toMatch(/names none/);
  });

  it('lists what is declared with whether it is granted now', () => {
    const lines = permissionLines(entry({ permissions: ['chat.read', 'state', 'network'], granted: ['state'], network: ['https://a.example'] }));
    expect(lines.map((l) => [l.permission, l.granted, l.words])).toEqual([
      ['chat.read', false, 'Read your chats'],
      ['state', true, 'Keep its own notes in chat state'],
      ['network', false, 'Talk to: a.example'],
    ]);
  });
});

describe('tier and status words', () => {
  it('warns of full access for the page tier and lists what a sandboxed one asks', () => {
    const page = tierWarning(entry({ mode: 'page', permissions: [], granted: [] }));
    expect(page.fullAccess).toBe(true);
    expect(page.lead).toMatch(/^Runs with full access to your chats, characters and settings/);
    expect(page.lines).toEqual([]);
    const boxed = tierWarning(entry());
    expect(boxed).toMatchObject({ lead: 'Allow:', fullAccess: false });
    expect(boxed.lines.map((l) => l.words)).toEqual(['Read your chats', 'Keep its own notes in chat state']);
    expect(tierWarning(entry({ permissions: [], granted: [] })).lead).toMatch(/asks for nothing/);
    expect(MODE_WORDS.sandboxed.badge).toBe('Sandboxed');
    expect(MODE_WORDS.page.badge).toBe('Full access');
  });

  it('says the status in words, with the error or reason', () => {
    expect(statusWords(entry())).toEqual({ text: 'Active', tone: 'ok' });
    expect(statusWords(entry({ status: 'disabled', enabled: false }))).toEqual({ text: 'Off', tone: 'off' });
    expect(statusWords(entry({ status: 'disabled', enabled: true, error: 'safe mode is on' }))).toEqual({ text: 'Off: safe mode is on', tone: 'off' });
    expect(statusWords(entry({ status: 'failed', error: 'TypeError: x is undefined\n    at init (index.js:3)' }))).toEqual({ text: 'Failed: TypeError: x is undefined', tone: 'trouble' });
    expect(statusWords(entry({ status: 'failed' })).text).toBe('Failed');
    expect(statusWords(entry({ status: 'blocked', error: 'needs the extension "base", which is turned off' })).text).toBe('Blocked: needs the extension "base", which is turned off');
    expect(firstLine('  one\ntwo')).toBe('one');
  });

  it('says where it came from, and whether it can be fetched again', () => {
    expect(sourceWords({ kind: 'path', value: '/home/me/mood' })).toBe('From the folder /home/me/mood');
    expect(sourceWords({ kind: 'url', value: 'https://github.com/me/mood' })).toBe('From https://github.com/me/mood');
    expect(sourceWords({ kind: 'zip', value: 'mood.zip' })).toBe('From the uploaded file mood.zip');
    expect([updatable({ kind: 'path', value: '' }), updatable({ kind: 'url', value: '' }), updatable({ kind: 'zip', value: '' })]).toEqual([true, true, false]);
    expect([versionWords('1.2.0'), versionWords('v2'), versionWords(' '), versionWords('beta')]).toEqual(['v1.2.0', 'v2', '', 'beta']);
  });
});
