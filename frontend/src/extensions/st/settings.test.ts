import { describe, expect, it, vi } from 'vitest';
import { createExtensionSettings, type SettingsStorage } from './settings';

function memory(initial: Record<string, unknown> = {}): SettingsStorage & { data: Record<string, unknown>; sets: number } {
  const data: Record<string, unknown> = structuredClone(initial);
  const s = {
    data,
    sets: 0,
    get: async (id: string) => structuredClone(data[id] ?? null),
    set: async (id: string, v: Record<string, unknown>) => {
      s.sets++;
      data[id] = structuredClone(v);
    },
  };
  return s;
}

describe('extension_settings', () => {
  it('reads each share back into one object and writes only changed shares to their owners', async () => {
    const st = memory({ memo: { memo: { on: true } }, dice: { dice: { sides: 6 } } });
    const s = createExtensionSettings(st);
    await s.load(['memo', 'dice']);
    expect(s.object).toEqual({ memo: { on: true }, dice: { sides: 6 } });
    (s.object.memo as { on: boolean }).on = false;
    await s.flush();
    expect(st.data.memo).toEqual({ memo: { on: false } });
    expect(st.sets).toBe(1);
    await s.flush();
    expect(st.sets).toBe(1);
  });

  it('gives a new key to the extension that was loading and a named key to its namesake', async () => {
    const st = memory();
    const warn = vi.fn();
    const s = createExtensionSettings(st, { warn });
    await s.load(['Stepped-Thinking', 'tracker']);
    const before = s.keys();
    s.object.my_custom_key = { a: 1 };
    s.claim('tracker', before);
    s.object['third-party/Stepped-Thinking'] = { b: 2 };
    s.object.stray = 1;
    await s.flush();
    expect(st.data.tracker).toEqual({ my_custom_key: { a: 1 } });
    expect(st.data['Stepped-Thinking']).toEqual({ 'third-party/Stepped-Thinking': { b: 2 } });
    expect(s.owner('stray')).toBeNull();
    expect(warn).toHaveBeenCalledTimes(1);
    await s.flush();
    expect(warn).toHaveBeenCalledTimes(1);
  });

  it('debounces saves and survives a failing write and a cycle', async () => {
    vi.useFakeTimers();
    try {
      const st = memory();
      const warn = vi.fn();
      const s = createExtensionSettings(st, { warn, debounceMs: 100 });
      await s.load(['a', 'b']);
      s.object.a = 1;
      s.saveDebounced();
      s.saveDebounced();
      await vi.advanceTimersByTimeAsync(99);
      expect(st.sets).toBe(0);
      await vi.advanceTimersByTimeAsync(1);
      await s.flush();
      expect(st.data.a).toEqual({ a: 1 });
      const loop: Record<string, unknown> = {};
      loop.self = loop;
      s.object.b = loop;
      st.set = async () => {
        throw new Error('quota');
      };
      await s.flush();
      expect(warn.mock.calls.map((c) => c[0])).toEqual([expect.stringMatching(/settings of b cannot be saved/)]);
      s.object.b = 2;
      s.object.a = 3;
      await s.flush();
      expect(warn.mock.calls.at(-1)![0]).toMatch(/were not saved: quota/);
    } finally {
      vi.useRealTimers();
    }
  });

  it("starts with SillyTavern's containers, saves one only once changed, and a stored one replaces it", async () => {
    const st = memory({ 'Extension-Objective': { objective: { customPrompts: { default: 'x' } } } });
    const warn = vi.fn();
    const defaults = { objective: {}, variables: { global: {} }, memory: {} };
    const s = createExtensionSettings(st, { warn, defaults });
    await s.load(['Extension-Objective', 'Extension-MessageLimit']);
    expect(s.object.objective).toEqual({ customPrompts: { default: 'x' } });
    expect(s.object.variables).toEqual({ global: {} });
    (s.object.objective as Record<string, unknown>).task = 1;
    await s.flush();
    expect(st.data['Extension-Objective']).toEqual({ objective: { customPrompts: { default: 'x' }, task: 1 } });
    expect(st.data['Extension-MessageLimit']).toBeUndefined();
    expect(warn).not.toHaveBeenCalled();
    (s.object.variables as { global: Record<string, unknown> }).global.n = 2;
    s.object.messageLimit = { limit: 3 };
    await s.flush();
    expect(st.data['Extension-MessageLimit']).toEqual({ messageLimit: { limit: 3 } });
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0]![0])).toContain('variables');
    expect(defaults.variables).toEqual({ global: {} });
  });
});
