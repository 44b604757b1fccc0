import { describe, expect, it } from 'vitest';
import { createHearthAbi } from './abi';
import { install } from './install';
import { FakeHost } from './testing/fake-host';

const abi = () => createHearthAbi(new FakeHost(), { connected: new Promise(() => {}) });

describe('install', () => {
  it('publishes __HEARTH__ and frozen aliases sharing one getContext', () => {
    const w: Record<string, unknown> = {};
    const h = abi();
    install(w, h);
    expect(Object.keys(w).sort()).toEqual(['Luker', 'SillyTavern', '__HEARTH__']);
    const st = w.SillyTavern as { getContext: unknown };
    const luker = w.Luker as { getContext: unknown };
    expect(w.__HEARTH__).toBe(h);
    expect(st.getContext).toBe(h.getContext);
    expect(luker.getContext).toBe(h.getContext);
    expect(Object.isFrozen(st)).toBe(true);
    expect(() => {
      w.__HEARTH__ = {};
    }).toThrow(TypeError);
  });

  it('adds getContext to alias objects that already exist instead of replacing them', () => {
    const existing = { other: 1 };
    const w: Record<string, unknown> = { SillyTavern: existing };
    const h = abi();
    install(w, h);
    expect(w.SillyTavern).toBe(existing);
    expect((existing as unknown as { getContext: unknown }).getContext).toBe(h.getContext);
  });
});
