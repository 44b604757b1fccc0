import { afterEach, describe, expect, it, vi } from 'vitest';
import { clearInterceptors } from '../abi/prompt-hooks';
import type { HearthAbi } from '../abi/types';
import type { ExtensionEntry } from '../abi/types-extensions';
import { createExtensionHost } from './host';
import { BOOT_MARK } from '../boot-mark';
import { readText } from '../testing/node-fs';
import { MARKS, startPageExtensions, type PageLoaderDeps } from './page-loader';
import { createRegistry } from './registry';
import { createLocale, type StLocale } from './st/i18n';
import type { StRuntime } from './st/runtime';
import { entry, fakePage, type FakePage } from './testing/fakes';

/** pageEntry is an active page extension's list entry. */
function pageEntry(id: string, fields: Partial<ExtensionEntry> = {}): ExtensionEntry {
  const e = entry(id, [], { mode: 'page', js: 'index.js', permissions: [], ...fields });
  delete e.entry;
  return e;
}

/** fakeWindow is what the loader touches of a window: a document with the mounts made and a head. */
function fakeWindow(): Window & typeof globalThis {
  const el = () => ({ dataset: {} as Record<string, string> });
  const doc = {
    querySelector: () => el(),
    getElementById: () => el(),
    createElement: () => el(),
    head: { append: () => {} },
  };
  return { document: doc } as unknown as Window & typeof globalThis;
}

/** loaderDeps runs the loader over page with a runtime of locale (no SillyTavern runtime is fetched). */
function loaderDeps(page: FakePage, locale: StLocale, more: Partial<PageLoaderDeps> = {}) {
  const imported: string[] = [];
  const rt = {
    locale,
    settings: { load: async () => {}, keys: () => [], claim: () => {} },
  } as unknown as StRuntime;
  const deps: PageLoaderDeps = {
    hearth: page.hearth as unknown as Pick<HearthAbi, 'ready' | 'api' | 'getContext'>,
    toasts: { show: () => 0, dismiss: () => {} },
    failure: vi.fn(),
    loadRuntime: async () => ({ installStRuntime: () => rt }),
    importModule: async (url) => {
      imported.push(url);
      return {};
    },
    readManifest: async () => ({}),
    window: fakeWindow(),
    ...more,
  };
  return { deps, imported };
}

describe('the page loader', () => {
  afterEach(() => clearInterceptors());

  it('shares the host\'s read of the extension list: a window start lists once', async () => {
    const page = fakePage([pageEntry('notes'), entry('mood', ['chat.read'])]);
    const registry = createRegistry(() => page.api.extensions.list());
    // As App.svelte does: the host starts, then the loader, over one registry.
    const host = createExtensionHost({ hearth: page.hearth, notices: { info: () => {}, failure: () => {} }, registry });
    const stop = host.start({ addEventListener: () => {}, removeEventListener: () => {} });
    const { deps, imported } = loaderDeps(page, createLocale('en'), { registry });
    const result = await startPageExtensions(deps);
    expect(result.loaded).toEqual(['notes']);
    expect(imported).toEqual(['/scripts/extensions/third-party/notes/index.js']);
    expect(page.listCount()).toBe(1);
    stop();
  });

  it('reads manifests and preloads scripts while the runtime is still on its way, then runs the scripts in order', async () => {
    const page = fakePage([pageEntry('notes', { css: 'style.css' }), pageEntry('dice')]);
    const appended: Array<{ rel: string | undefined; href: string | undefined }> = [];
    const win = fakeWindow();
    (win.document as unknown as { createElement: () => object }).createElement = () => ({ dataset: {} });
    (win.document as unknown as { head: { append: (el: { rel?: string; href?: string }) => void } }).head.append = (el) => void appended.push({ rel: el.rel, href: el.href });
    let release: () => void = () => {};
    const runtimeHeld = new Promise<void>((r) => (release = r));
    const read: string[] = [];
    const { deps, imported } = loaderDeps(page, createLocale('en'), { window: win, readManifest: async (id) => (read.push(id), {}) });
    const inner = deps.loadRuntime!;
    deps.loadRuntime = async () => {
      await runtimeHeld;
      return inner();
    };
    const done = startPageExtensions(deps);
    await vi.waitFor(() => expect(read).toEqual(['notes', 'dice']));
    expect(imported).toEqual([]);
    expect(appended).toEqual([
      { rel: 'modulepreload', href: '/script.js' },
      { rel: 'modulepreload', href: '/scripts/extensions.js' },
      { rel: 'modulepreload', href: '/scripts/extensions/third-party/notes/index.js' },
      { rel: 'modulepreload', href: '/scripts/extensions/third-party/dice/index.js' },
      { rel: 'stylesheet', href: '/scripts/extensions/third-party/notes/style.css' },
    ]);
    release();
    expect((await done).loaded).toEqual(['notes', 'dice']);
    expect(imported).toEqual(['/scripts/extensions/third-party/notes/index.js', '/scripts/extensions/third-party/dice/index.js']);
  });

  it('fetches the runtime while the UI comes up, but installs it, adds the style sheets and runs the scripts once the UI is shown', async () => {
    const page = fakePage([pageEntry('notes', { css: 'style.css' })]);
    const appended: Array<string | undefined> = [];
    const win = fakeWindow();
    (win.document as unknown as { createElement: () => object }).createElement = () => ({ dataset: {} });
    (win.document as unknown as { head: { append: (el: { rel?: string }) => void } }).head.append = (el) => void appended.push(el.rel);
    let show: () => void = () => {};
    const uiShown = new Promise<void>((r) => (show = r));
    const read: string[] = [];
    let runtimeAsked = 0;
    let installed = 0;
    const { deps, imported } = loaderDeps(page, createLocale('en'), { window: win, uiShown, readManifest: async (id) => (read.push(id), {}) });
    const inner = deps.loadRuntime!;
    deps.loadRuntime = async () => {
      runtimeAsked++;
      const { installStRuntime } = await inner();
      return {
        installStRuntime: (...args: Parameters<typeof installStRuntime>) => {
          installed++;
          return installStRuntime(...args);
        },
      };
    };
    const done = startPageExtensions(deps);
    await vi.waitFor(() => expect(read).toEqual(['notes']));
    await new Promise((r) => setTimeout(r, 0));
    expect([runtimeAsked, installed, imported, appended.includes('stylesheet')]).toEqual([1, 0, [], false]);
    expect(appended.every((rel) => rel === 'modulepreload')).toBe(true);
    show();
    expect((await done).loaded).toEqual(['notes']);
    expect([runtimeAsked, installed, imported, appended.includes('stylesheet')]).toEqual([1, 1, ['/scripts/extensions/third-party/notes/index.js'], true]);
  });

  it('reads the list itself without a registry', async () => {
    const page = fakePage([pageEntry('notes')]);
    const { deps } = loaderDeps(page, createLocale('en'));
    expect((await startPageExtensions(deps)).loaded).toEqual(['notes']);
    expect(page.listCount()).toBe(1);
  });

  it('adds the translations for the window\'s locale before the extension\'s js runs', async () => {
    const locale = createLocale('zh-cn');
    const page = fakePage([
      pageEntry('notes', { i18n: { 'zh-cn': 'i18n/zh-cn.json', default: 'i18n/en.json' } }),
      pageEntry('dice', { loadingOrder: 1, i18n: { default: 'lang/any.json' } }),
      pageEntry('plain', { loadingOrder: 2 }),
    ]);
    const read: string[] = [];
    const seenAtImport: string[] = [];
    const { deps } = loaderDeps(page, locale, {
      readLocale: async (url) => {
        read.push(url);
        return url.includes('/notes/') ? { Notes: '笔记', Roll: '掷骰-notes' } : { Roll: '掷骰' };
      },
      importModule: async (url) => {
        seenAtImport.push(`${url.split('/')[4]}: ${locale.translate('Notes')} ${locale.translate('Roll')}`);
        return {};
      },
    });
    const result = await startPageExtensions(deps);
    expect(read).toEqual(['/scripts/extensions/third-party/notes/i18n/zh-cn.json', '/scripts/extensions/third-party/dice/lang/any.json']);
    // The first text added for a key stays, as in SillyTavern.
    expect(seenAtImport).toEqual(['notes: 笔记 掷骰-notes', 'dice: 笔记 掷骰-notes', 'plain: 笔记 掷骰-notes']);
    expect(result.warnings).toEqual([]);
  });

  it('loads an extension whose translation file cannot be read, with a warning', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const page = fakePage([pageEntry('notes', { displayName: 'Notes', i18n: { 'de-de': 'de.json' } })]);
    const { deps, imported } = loaderDeps(page, createLocale('de-de'), {
      readLocale: async () => {
        throw new Error('it is not JSON');
      },
    });
    const result = await startPageExtensions(deps);
    expect(result.loaded).toEqual(['notes']);
    expect(imported).toHaveLength(1);
    expect(result.failed).toEqual([]);
    expect(result.warnings).toEqual([{ id: 'notes', warning: 'its translations for de-de (de.json) were not loaded: it is not JSON' }]);
    expect(warn).toHaveBeenCalledWith('Hearth: Notes: its translations for de-de (de.json) were not loaded: it is not JSON');
    expect(deps.failure).not.toHaveBeenCalled();
    warn.mockRestore();
  });

  it('reads no translation file for a locale the manifest lacks, with no default', async () => {
    const page = fakePage([pageEntry('notes', { i18n: { 'zh-cn': 'zh.json' } })]);
    const readLocale = vi.fn(async () => ({}));
    const { deps } = loaderDeps(page, createLocale('en-us'), { readLocale });
    expect((await startPageExtensions(deps)).loaded).toEqual(['notes']);
    expect(readLocale).not.toHaveBeenCalled();
  });

  it('leaves a User Timing mark at each step of the start, in order, and none with no page extension on', async () => {
    const names = () => performance.getEntriesByType('mark').map((m) => m.name).filter((n) => n.startsWith('hearth:st-'));
    performance.clearMarks();
    await startPageExtensions(loaderDeps(fakePage([entry('mood', ['chat.read'])]), createLocale('en')).deps);
    expect(names()).toEqual([]);

    let show: () => void = () => {};
    const uiShown = new Promise<void>((r) => (show = r));
    const loading = startPageExtensions(loaderDeps(fakePage([pageEntry('notes'), pageEntry('dice')]), createLocale('en'), { uiShown }).deps);
    await vi.waitFor(() => expect(names()).toEqual([MARKS.runtimeAsked, MARKS.runtimeLoaded]));
    show();
    await loading;
    expect(names()).toEqual([MARKS.runtimeAsked, MARKS.runtimeLoaded, MARKS.uiShown, MARKS.installed, `${MARKS.importing}:notes`, `${MARKS.importing}:dice`]);
    performance.clearMarks();
  });

  it('names its marks as the self-test page bench reads them (stpage.js cannot import them)', () => {
    const bench = readText(new URL('../../../backend/selftest/stpage.js', import.meta.url));
    const quoted = [MARKS.runtimeAsked, MARKS.runtimeLoaded, MARKS.uiShown, MARKS.installed, BOOT_MARK].map((n) => `'${n}'`);
    for (const q of quoted) expect(bench).toContain(q);
    expect(bench).toContain(`\`${MARKS.importing}:\${id}\``);
  });
});
