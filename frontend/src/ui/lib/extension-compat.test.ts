import { describe, expect, it } from 'vitest';
import type { ExtensionCompatReport } from '../../abi/types-extensions';
import { blockers, compatBadge, unsupportedGroups, usedWords, verdictSentence } from './extension-compat';

function report(fields: Partial<ExtensionCompatReport> = {}): ExtensionCompatReport {
  return {
    verdict: 'works',
    unsupported: 0,
    stVersion: '1.18.0',
    modules: [
      {
        path: '/script.js',
        served: true,
        linked: true,
        dynamic: false,
        names: [{ name: 'chat', exported: true, backed: true, linked: true }],
      },
    ],
    context: [{ name: 'chat', backed: true }],
    events: [{ name: 'MESSAGE_RECEIVED', supported: true }],
    domIds: [{ id: 'extensions_settings', supported: true }],
    apiPaths: [],
    others: [],
    manifest: { dependencies: [] },
    notes: [],
    scanned: { files: 2, bytes: 900, skipped: [] },
    ...fields,
  };
}

describe('compatibility words', () => {
  it('says a working extension works, and lists nothing', () => {
    const r = report();
    expect(verdictSentence(r)).toEqual({ tone: 'ok', text: 'Works in Hearth' });
    expect(unsupportedGroups(r)).toEqual([]);
    expect(compatBadge(r)).toEqual({ tone: 'ok', text: 'Works in Hearth' });
    expect(usedWords(r)).toBe('Read 2 files; it uses 1 SillyTavern module, 1 getContext() member, 1 event, 1 page element.');
  });

  it('counts what a partly working one lacks, and groups it', () => {
    const r = report({
      verdict: 'partial',
      unsupported: 7,
      modules: [
        {
          path: '/script.js',
          served: true,
          linked: true,
          dynamic: false,
          names: [
            { name: 'Generate', exported: true, backed: false, linked: true },
            { name: 'chat', exported: true, backed: true, linked: true },
            { name: 'nothing', exported: false, backed: false, linked: false },
          ],
        },
        { path: '/scripts/tags.js', served: false, linked: false, dynamic: true, names: [] },
      ],
      context: [
        { name: 'chat', backed: true },
        { name: 'openCharacterEditor', backed: false },
      ],
      events: [{ name: 'IMPERSONATE_READY', supported: false }],
      domIds: [{ id: 'send_but', supported: false }],
      apiPaths: [{ path: '/api/characters/all' }],
      others: [{ specifier: '../other/x.js', kind: 'extension', linked: true }],
    });
    expect(verdictSentence(r)).toEqual({ tone: 'partial', text: 'Partly works: 7 things it uses are not in Hearth' });
    expect(verdictSentence({ ...r, unsupported: 1 }).text).toBe('Partly works: 1 thing it uses is not in Hearth');
    expect(compatBadge(r)).toEqual({ tone: 'partial', text: 'Partly works' });
    expect(blockers(r)).toEqual([]);
    const groups = unsupportedGroups(r);
    expect(groups.map((g) => [g.key, g.items.map((i) => i.what)])).toEqual([
      ['modules', ['/scripts/tags.js', '../other/x.js']],
      ['names', ['Generate (/script.js)', 'nothing (/script.js)']],
      ['context', ['openCharacterEditor']],
      ['events', ['IMPERSONATE_READY']],
      ['elements', ['#send_but']],
      ['server', ['/api/characters/all']],
    ]);
    expect(groups[1]?.items[0]?.why).toBe('not in Hearth: using it shows an error');
    expect(groups[0]?.items[0]?.why).toBe('not provided by Hearth: the part that loads it fails');
  });

  it('says a partial verdict from an unread file as such', () => {
    expect(verdictSentence(report({ verdict: 'partial', unsupported: 0 })).text).toBe('Partly checked: some of its code could not be read');
  });

  it('says why one will not load, the first reason and how many more', () => {
    const r = report({
      verdict: 'wont_load',
      unsupported: 5,
      modules: [
        { path: '/scripts/openai.js', served: false, linked: true, dynamic: false, names: [] },
        { path: '/script.js', served: true, linked: true, dynamic: false, names: [{ name: 'nope', exported: false, backed: false, linked: true }] },
      ],
      others: [
        { specifier: 'lodash', kind: 'bare', linked: true },
        { specifier: 'https://cdn.example/x.js', kind: 'url', linked: false },
      ],
      manifest: { minimumClientVersion: { version: '9.0.0', satisfied: false }, dependencies: [{ id: 'base', installed: false }] },
    });
    expect(verdictSentence(r)).toEqual({
      tone: 'blocked',
      text: 'Will not load: it imports /scripts/openai.js, which Hearth does not provide (and 4 more reasons)',
    });
    expect(blockers(r)).toEqual([
      'it imports /scripts/openai.js, which Hearth does not provide',
      'it imports nope from /script.js, which SillyTavern 1.18.0 does not have',
      'it imports “lodash”, a package name a browser cannot find',
      'it needs SillyTavern 9.0.0 or newer, and Hearth follows 1.18.0',
      'it needs the extension “base”, which is not installed',
    ]);
    expect(unsupportedGroups(r).find((g) => g.key === 'manifest')?.items).toEqual([
      { what: 'minimum_client_version 9.0.0', why: 'Hearth follows SillyTavern 1.18.0' },
      { what: 'base', why: 'a needed extension that is not installed' },
    ]);
    expect(verdictSentence({ ...r, modules: [r.modules[0]!], others: [], manifest: { dependencies: [] } }).text).toBe(
      'Will not load: it imports /scripts/openai.js, which Hearth does not provide',
    );
    expect(compatBadge(r)).toEqual({ tone: 'blocked', text: 'Will not load' });
  });
});
