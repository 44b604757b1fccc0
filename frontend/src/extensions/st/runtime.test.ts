// The runtime against the generated table: what the compatibility report
// promises (stcompat.Backed, ContextMembers) is exactly what runs.
import { afterEach, describe, expect, it } from 'vitest';
import { PAGE_CONTEXT_MEMBERS, setPageExtras } from '../../abi/page-extras';
import { setup } from '../../abi/testing/setup';
import { createBacking } from './backing';
import { createLocale } from './i18n';
import { createStRuntime, moduleValues, RUNTIME_GLOBAL } from './runtime';
import { createExtensionSettings } from './settings';
import { BACKED, CONTEXT_MEMBERS, ST_MODULES } from './st-compat.gen';
import { UNSUPPORTED_CODE } from './unsupported';

const memory = () => ({ get: async () => null, set: async () => {} });
/** load imports a generated compat module afresh (the query makes a new instance, bound to the runtime set now). */
const load = (path: string, fresh: string) => import(/* @vite-ignore */ `../../../public${path}?${fresh}`) as Promise<Record<string, unknown>>;

describe('the compat runtime', () => {
  afterEach(() => {
    delete (globalThis as Record<string, unknown>)[RUNTIME_GLOBAL];
  });

  it('has a value for every backed name and none for any other', async () => {
    const { h } = await setup();
    const backing = createBacking({ hearth: h, settings: createExtensionSettings(memory()), locale: createLocale('en') });
    const live = backing.live();
    for (const path of Object.keys(ST_MODULES)) {
      const backed = new Set(BACKED[path]);
      const given = [...Object.keys(backing.values[path] ?? {}), ...Object.keys(live[path] ?? {})];
      expect(given.filter((n) => !backed.has(n)), `${path} gives unbacked names`).toEqual([]);
      const values = moduleValues(path, backing.values[path] ?? {}, live[path] ?? {});
      expect(Object.keys(values).sort()).toEqual(Object.keys(ST_MODULES[path]!).sort());
      for (const [name, v] of Object.entries(values)) {
        if (backed.has(name)) continue;
        expect(() => (v as () => void)(), `${path} ${name}`).toThrow(expect.objectContaining({ code: UNSUPPORTED_CODE, details: { name, module: path } }));
      }
    }
  });

  it('backs exactly the getContext() members the report lists', async () => {
    const { h } = await setup();
    expect(Object.keys(h.getContext()).sort()).toEqual([...CONTEXT_MEMBERS].sort());
    expect(PAGE_CONTEXT_MEMBERS.every((m) => CONTEXT_MEMBERS.includes(m))).toBe(true);
  });

  it('moves the let bindings of an imported module on refresh', async () => {
    const ctx = {
      chat: [] as unknown[],
      characters: [],
      chat_metadata: {} as Record<string, unknown>,
      name1: 'User',
      name2: '',
      online_status: 'no_connection',
      characterId: undefined as number | undefined,
      eventSource: {},
      event_types: {},
      fileName: undefined as string | undefined,
      getCurrentChatId: () => ctx.fileName,
    };
    const hearth = { getContext: () => ctx, api: { worldinfo: { getSettings: async () => ({ globalSelect: [] }) } } };
    const rt = createStRuntime({ hearth: hearth as never, toasts: { show: () => 0, dismiss: () => {} }, storage: memory() });
    (globalThis as Record<string, unknown>)[RUNTIME_GLOBAL] = { module: rt.module };
    const script = await load('/script.js', 'refresh');
    expect([script.chat, script.this_chid, script.name2]).toEqual([[], undefined, '']);
    ctx.chat = [{ mes: 'hi' }];
    ctx.characterId = 0;
    ctx.name2 = 'Wren';
    expect(script.name2).toBe('');
    rt.refresh();
    expect([script.chat, script.this_chid, script.name2]).toEqual([[{ mes: 'hi' }], 0, 'Wren']);

    // chat_metadata is a working copy per open chat that extensions write into.
    ctx.fileName = 'Wren - 1';
    ctx.chat_metadata = Object.freeze({ note: 'n' });
    rt.refresh();
    const meta = script.chat_metadata as Record<string, unknown>;
    expect(meta).toEqual({ note: 'n' });
    expect(Object.isFrozen(meta)).toBe(false);
    meta.objective = 1;
    rt.refresh();
    expect(script.chat_metadata).toBe(meta);
  });

  it('runs the generated modules: every export links to a value', async () => {
    const { h } = await setup();
    const rt = createStRuntime({ hearth: h, toasts: { show: () => 0, dismiss: () => {} }, storage: memory() });
    (globalThis as Record<string, unknown>)[RUNTIME_GLOBAL] = { module: rt.module };
    for (const path of Object.keys(ST_MODULES)) {
      const mod = await load(path, 'links');
      expect(Object.keys(mod).sort(), path).toEqual(Object.keys(ST_MODULES[path]!).sort());
    }
    const script = await load('/script.js', 'values');
    expect(script.chat).toEqual([]);
    expect(script.main_api).toBe('openai');
    expect(typeof script.saveSettingsDebounced).toBe('function');
    expect(() => (script.Generate as () => void)()).toThrow(/Generate \(SillyTavern's \/script.js\) is not available in Hearth/);
  });

  it('fills the page members of getContext() once installed', async () => {
    const { h } = await setup();
    const ctx = () => h.getContext() as unknown as Record<string, unknown>;
    expect(ctx().extensionSettings).toBeUndefined();
    setPageExtras(Object.fromEntries([...PAGE_CONTEXT_MEMBERS, 'libs'].map((k) => [k, `v-${k}`])) as never);
    expect(ctx().extensionSettings).toBe('v-extensionSettings');
  });
});
