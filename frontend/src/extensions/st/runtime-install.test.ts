// installStRuntime's globals: lodash stays unevaluated until an extension
// uses it (the page tier's start budget, EXTENSIONS.md §5), yet `_`,
// SillyTavern.libs.lodash and /lib.js's lodash are lodash when read.
import lodash from 'lodash';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { pageExtra } from '../../abi/page-extras';
import { setup } from '../../abi/testing/setup';
import { installStRuntime, RUNTIME_GLOBAL } from './runtime';

const loads = vi.hoisted(() => ({ count: 0 }));

vi.mock('./lazy-libs.cjs', async (importOriginal) => {
  const real = (await importOriginal()) as typeof import('./lazy-libs.cjs');
  return {
    ...real,
    loadLodash: () => {
      loads.count++;
      return real.loadLodash();
    },
  };
});

const memory = () => ({ get: async () => null, set: async () => {} });

/** fakeWindow is what installStRuntime touches of a window, with `_` already set when given. */
function fakeWindow(underscore?: unknown): Window & typeof globalThis {
  const w: Record<string, unknown> = {
    navigator: { language: 'en' },
    document: { addEventListener: () => {} },
    addEventListener: () => {},
  };
  if (underscore !== undefined) w._ = underscore;
  return w as unknown as Window & typeof globalThis;
}

async function install(w: Window & typeof globalThis) {
  const { h } = await setup();
  return installStRuntime(w, { hearth: h, toasts: { show: () => 0, dismiss: () => {} }, storage: memory() });
}

describe('installStRuntime', () => {
  afterEach(() => {
    loads.count = 0;
  });

  it('leaves lodash unevaluated until `_` is read, then gives lodash itself', async () => {
    const w = fakeWindow();
    const rt = await install(w);
    expect(loads.count).toBe(0);
    // Both are getters: reading them is what evaluates lodash.
    expect(typeof Object.getOwnPropertyDescriptor(w, '_')?.get).toBe('function');
    expect(typeof Object.getOwnPropertyDescriptor(pageExtra('libs') as object, 'lodash')?.get).toBe('function');
    expect(Object.keys(pageExtra('libs') as object)).toContain('lodash');
    expect(loads.count).toBe(0);

    const g = w as unknown as Record<string, unknown>;
    expect(g._).toBe(lodash);
    expect((g._ as typeof lodash).chunk([1, 2, 3], 2)).toEqual([[1, 2], [3]]);
    expect((pageExtra('libs') as Record<string, unknown>).lodash).toBe(lodash);
    expect(rt.module('/lib.js').values.lodash).toBe(lodash);
    expect(typeof g.jQuery).toBe('function');
    expect(g.$).toBe(g.jQuery);
    expect(RUNTIME_GLOBAL in w).toBe(true);
  });

  it("reads onlineStatus when asked, not at install", async () => {
    const { h } = await setup();
    let status = 'no_connection';
    const hearth = { api: h.api, getContext: () => Object.create(h.getContext(), { online_status: { get: () => status } }) as object };
    installStRuntime(fakeWindow(), { hearth: hearth as never, toasts: { show: () => 0, dismiss: () => {} }, storage: memory() });
    expect(pageExtra('onlineStatus')).toBe('no_connection');
    status = 'gpt-4o-mini';
    expect(pageExtra('onlineStatus')).toBe('gpt-4o-mini');
  });

  it("keeps a page's own `_`, and an assignment to `_` replaces lodash", async () => {
    const own = { underscore: true };
    const kept = fakeWindow(own);
    await install(kept);
    expect((kept as unknown as Record<string, unknown>)._).toBe(own);

    const w = fakeWindow();
    await install(w);
    const g = w as unknown as Record<string, unknown>;
    g._ = own;
    expect(g._).toBe(own);
    expect(loads.count).toBe(0);
  });
});
