import { afterEach, describe, expect, it, vi } from 'vitest';
import { clearInterceptors } from '../abi/prompt-hooks';
import type { HearthAbi } from '../abi/types';
import type { ExtensionEntry } from '../abi/types-extensions';
import { createExtensionHost } from './host';
import { startPageExtensions, type PageLoaderDeps } from './page-loader';
import { createRegistry } from './registry';
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

/** loaderDeps runs the loader over page with a stand-in runtime (no SillyTavern runtime is fetched). */
function loaderDeps(page: FakePage, more: Partial<PageLoaderDeps> = {}) {
  const imported: string[] = [];
  const rt = {
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
    const { deps, imported } = loaderDeps(page, { registry });
    const result = await startPageExtensions(deps);
    expect(result.loaded).toEqual(['notes']);
    expect(imported).toEqual(['/scripts/extensions/third-party/notes/index.js']);
    expect(page.listCount()).toBe(1);
    stop();
  });

  it('reads the list itself without a registry', async () => {
    const page = fakePage([pageEntry('notes')]);
    const { deps } = loaderDeps(page);
    expect((await startPageExtensions(deps)).loaded).toEqual(['notes']);
    expect(page.listCount()).toBe(1);
  });
});
