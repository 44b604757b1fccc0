import { describe, expect, it } from 'vitest';
import {
  applyProgress,
  count,
  countsText,
  ellipsizeStart,
  exportHeadline,
  extensionsLine,
  fieldError,
  finishPhases,
  importHeadline,
  initialPhases,
  kindLabel,
  phaseLabel,
  progressPercent,
  userFolder,
} from './library';

const none = { characters: 0, chats: 0, lorebooks: 0, personas: 0, presets: 0, groups: 0, groupChats: 0, groupFiles: 0, extensions: 0 };

describe('phases', () => {
  it('names phases in words', () => {
    expect(initialPhases('import').map((p) => p.label)).toEqual([
      'Lorebooks',
      'Characters',
      'Chats',
      'Groups',
      'Group chats',
      'Group files kept as they were',
      'Settings',
      'Personas',
      'Presets',
      'Extensions',
    ]);
    expect(initialPhases('export').map((p) => p.phase)).toEqual(['lorebooks', 'characters', 'personas', 'presets', 'groups']);
    expect(phaseLabel('vectors')).toBe('Vectors');
    expect(phaseLabel('')).toBe('Working');
  });

  it('folds progress in: the phase counts, earlier silent phases become none, done at the end', () => {
    let ps = initialPhases('import');
    ps = applyProgress(ps, { phase: 'lorebooks', done: 0, total: 5 });
    expect(ps[0]).toMatchObject({ state: 'active', done: 0, total: 5 });
    ps = applyProgress(ps, { phase: 'lorebooks', done: 5, total: 5 });
    expect(ps[0]!.state).toBe('done');
    ps = applyProgress(ps, { phase: 'chats', done: 2, total: 4 });
    expect(ps.map((p) => p.state).slice(0, 4)).toEqual(['done', 'none', 'active', 'pending']);
    // Personas run inside settings: settings stays active while they do.
    ps = applyProgress(ps, { phase: 'settings', done: 0, total: 1 });
    ps = applyProgress(ps, { phase: 'personas', done: 1, total: 3 });
    expect(ps.find((p) => p.phase === 'settings')!.state).toBe('active');
    expect(ps.find((p) => p.phase === 'chats')!.state).toBe('active');
    ps = applyProgress(ps, { phase: 'settings', done: 1, total: 1 });
    expect(ps.find((p) => p.phase === 'settings')!.state).toBe('done');
    const finished = finishPhases(ps);
    expect(finished.map((p) => p.state)).toEqual(['done', 'none', 'done', 'none', 'none', 'none', 'done', 'done', 'none', 'none']);
  });

  it('a phase with nothing to do is done at once; an unknown phase is appended; counts are clamped', () => {
    let ps = applyProgress(initialPhases('export'), { phase: 'lorebooks', done: 0, total: 0 });
    expect(ps[0]!.state).toBe('done');
    ps = applyProgress(ps, { phase: 'vectors', done: 9, total: 3 });
    expect(ps.at(-1)).toMatchObject({ phase: 'vectors', label: 'Vectors', done: 3, total: 3, state: 'done' });
    expect(ps.slice(1, 5).every((p) => p.state === 'none')).toBe(true);
  });

  it('gives a percent, whole for an empty phase', () => {
    expect(progressPercent({ done: 0, total: 0 })).toBe(100);
    expect(progressPercent({ done: 1, total: 3 })).toBe(33);
    expect(progressPercent({ done: 7, total: 3 })).toBe(100);
    expect(progressPercent({ done: -1, total: 3 })).toBe(0);
  });
});

describe('summary text', () => {
  it('lists the counts, kinds with none left out, with thousands separators', () => {
    expect(countsText({ characters: 22, chats: 53, lorebooks: 5, personas: 3, presets: 2, groups: 0, groupChats: 0, groupFiles: 0, extensions: 4 }, 61234)).toBe(
      '22 characters, 53 chats (61,234 messages), 5 lorebooks, 3 personas, 2 presets',
    );
    expect(countsText({ ...none, characters: 1, chats: 1, groupFiles: 2 }, 1)).toBe('1 character, 1 chat (1 message), 2 group files kept as they were');
    expect(countsText({ ...none, chats: 2, groups: 2, groupChats: 1, groupFiles: 1 }, 9)).toBe('2 chats, 1 group chat (9 messages), 2 groups, 1 group file kept as it was');
    expect(countsText({ ...none, groups: 1, groupChats: 3 }, 12)).toBe('3 group chats (12 messages), 1 group');
    expect(countsText({ ...none, chats: 2 }, 0)).toBe('2 chats');
    expect(countsText(none, 0)).toBe('');
    expect(count(1000, 'entry', 'entries')).toBe('1,000 entries');
  });

  it('heads an import by what it did', () => {
    const base = { folder: '/st', imported: none, skipped: [], failed: [], messages: 0 };
    expect(importHeadline({ ...base, imported: { ...none, lorebooks: 5 } })).toBe('Imported 5 lorebooks.');
    expect(importHeadline({ ...base, skipped: [{ kind: 'chat', path: 'a', reason: 'already imported' }] })).toMatch(/^Nothing new/);
    expect(importHeadline({ ...base, failed: [{ kind: 'chat', path: 'a', error: 'x' }] })).toBe('Nothing was imported.');
    expect(importHeadline(base)).toBe('The folder holds nothing to import.');
    expect(importHeadline({ ...base, imported: { ...none, extensions: 2 } })).toBe('Imported 2 extensions.');
  });

  it('says what became of the extensions, and where to turn them on', () => {
    const base = { folder: '/st', imported: none, skipped: [], failed: [], messages: 0 };
    const skip = (kind: 'extension' | 'settings', path: string) => ({ kind, path, reason: 'already imported' });
    const fail = { kind: 'extension' as const, path: 'extensions/Broken', error: 'manifest.json: is not a JSON object' };
    expect(extensionsLine({ ...base, imported: { ...none, characters: 3 } })).toBe('');
    expect(extensionsLine({ ...base, imported: { ...none, extensions: 3 } })).toBe('Extensions: 3 added, turned off — turn them on in Extensions…');
    expect(extensionsLine({ ...base, imported: { ...none, extensions: 1 } })).toBe('Extensions: 1 added, turned off — turn it on in Extensions…');
    expect(
      extensionsLine({ ...base, imported: { ...none, extensions: 2 }, skipped: [skip('extension', 'extensions/A'), skip('settings', 'settings.json#extension_settings/B')], failed: [fail] }),
    ).toBe('Extensions: 2 added, turned off, 1 skipped, 1 failed — turn them on in Extensions…');
    expect(extensionsLine({ ...base, skipped: [skip('extension', 'extensions/A'), skip('extension', 'extensions/B')] })).toBe('Extensions: 2 skipped.');
  });

  it('heads an export by what it wrote', () => {
    expect(exportHeadline({ folder: '/out', exported: { ...none, characters: 2, chats: 3 }, failed: [], messages: 12 })).toBe('Exported 2 characters, 3 chats (12 messages).');
    expect(exportHeadline({ folder: '/out', exported: none, failed: [], messages: 0 })).toMatch(/^Hearth has nothing/);
  });

  it('names item kinds', () => {
    expect(kindLabel('group')).toBe('Group');
    expect(kindLabel('extension')).toBe('Extension');
    expect(kindLabel('character')).toBe('Character');
    expect(kindLabel('other')).toBe('Other');
  });

  it('keeps a long path’s end', () => {
    expect(ellipsizeStart('chats/a.jsonl', 40)).toBe('chats/a.jsonl');
    expect(ellipsizeStart('chats/Seraphina the Great/Seraphina - 2023.jsonl', 20)).toBe('…aphina - 2023.jsonl');
  });
});

describe('field errors', () => {
  it('explains each refusal next to the field', () => {
    expect(fieldError({ code: 'library.not_found', message: 'cannot read /x' }, 'import', '/x').message).toMatch(/no folder at this path/);
    expect(fieldError({ code: 'library.not_sillytavern', message: '…' }, 'import', '/tmp').message).toMatch(/not a SillyTavern folder/);
    expect(fieldError({ code: 'library.target_not_empty', message: '…' }, 'export', '/x').message).toMatch(/not empty/);
    expect(fieldError({ code: 'library.busy', message: '…' }, 'export', '/x').message).toMatch(/Another library import or export/);
    const outside = { code: 'library.path_not_allowed', message: '"/etc" is not inside a folder …', details: { roots: ['/srv/st', '/mnt/b'] } };
    expect(fieldError(outside, 'import', '/etc').message).toBe('This server may use only folders under /srv/st, /mnt/b. Pick a folder there.');
    const off = { code: 'library.path_not_allowed', message: 'importing … is off', details: { roots: [] } };
    expect(fieldError(off, 'export', '/x').message).toMatch(/--library-root DIR/);
    const data = { code: 'library.path_not_allowed', message: '"/h" is inside Hearth\'s own data folder', details: { roots: [] } };
    expect(fieldError(data, 'export', '/h').message).toMatch(/Hearth’s own data folder/);
    expect(fieldError({ code: 'validation.invalid_argument', message: 'path is required' }, 'import', '  ').message).toBe('Type the path of a folder first.');
    expect(fieldError({ code: 'internal', message: 'disk on fire' }, 'import', '/x')).toEqual({ code: 'internal', message: 'disk on fire', suggestions: [] });
    expect(fieldError('boom', 'import', '/x')).toMatchObject({ code: 'internal', message: 'boom' });
  });

  it('lists the users of an install as folders to pick', () => {
    const e = fieldError({ code: 'library.several_users', message: '…', details: { path: '/st', users: ['alice', 'bob', 3] } }, 'import', '/st/');
    expect(e.message).toMatch(/2 users and no default-user/);
    expect(e.suggestions).toEqual([
      { user: 'alice', path: '/st/data/alice' },
      { user: 'bob', path: '/st/data/bob' },
    ]);
    expect(userFolder('/st/data', 'alice')).toBe('/st/data/alice');
    expect(userFolder('C:\\ST\\data\\', 'bob')).toBe('C:\\ST\\data\\bob');
    expect(userFolder('C:\\ST', 'bob')).toBe('C:\\ST\\data\\bob');
  });
});
