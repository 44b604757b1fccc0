import { describe, expect, it, vi } from 'vitest';
import { createPersonasApi } from './api-personas';
import type { ChatCache } from './chat-cache';
import type { PersonaCache } from './persona-cache';
import { tick } from './testing/fake-host';
import { setup } from './testing/setup';
import type { Persona } from './types';

function persona(id: string, name: string, flags: Partial<Persona> = {}): Persona {
  return { id, name, description: '', avatarUrl: null, position: 0, depth: 2, role: 0, lorebook: '', isDefault: false, isActive: false, createdAt: 1, updatedAt: 1, ...flags };
}

describe('api.personas', () => {
  it('calls personas.* with the arguments as given, re-reads the personas after a write, and is frozen', async () => {
    const calls: { method: string; args: unknown[] }[] = [];
    const order: string[] = [];
    const personas = { load: vi.fn(async () => void order.push('load')), ingest: vi.fn(), effective: vi.fn() } satisfies PersonaCache;
    const cache = { current: () => null, waitFor: vi.fn() } as unknown as ChatCache;
    const api = createPersonasApi(
      async (method, ...args) => {
        calls.push({ method, args });
        order.push(method);
        if (method === 'personas.lockToChat') return { revision: 3, persona: null };
        return method === 'personas.list' ? [] : null;
      },
      { personas, cache, settleMs: 10 },
    );
    await api.save({ name: 'Wren', avatar: null, position: 1 });
    await api.list();
    await api.get('p1');
    await api.setActive('p1');
    await api.setDefault(null);
    await api.active();
    await api.effective('c1');
    await api.effective();
    expect(await api.lockToChat('c1', null)).toEqual({ revision: 3, persona: null });
    await api.delete('p1');
    expect(calls).toEqual([
      { method: 'personas.save', args: [{ name: 'Wren', avatar: null, position: 1 }] },
      { method: 'personas.list', args: [] },
      { method: 'personas.get', args: ['p1'] },
      { method: 'personas.setActive', args: ['p1'] },
      { method: 'personas.setDefault', args: [null] },
      { method: 'personas.active', args: [] },
      { method: 'personas.effective', args: ['c1'] },
      { method: 'personas.effective', args: [] },
      { method: 'personas.lockToChat', args: ['c1', null] },
      { method: 'personas.delete', args: ['p1'] },
    ]);
    // Each write resolves after the re-read; reads and the lock of a chat
    // this window does not show wait for nothing.
    expect(order.filter((m) => m === 'load')).toHaveLength(4);
    expect(order.slice(0, 2)).toEqual(['personas.save', 'load']);
    expect(cache.waitFor).not.toHaveBeenCalled();
    expect(Object.isFrozen(api)).toBe(true);
  });

  it('keeps a write that succeeded when the re-read fails', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      const personas = { load: vi.fn(async () => Promise.reject(new Error('socket closed'))), ingest: vi.fn(), effective: vi.fn() } satisfies PersonaCache;
      const api = createPersonasApi(async () => persona('p1', 'Wren'), { personas, cache: {} as ChatCache, settleMs: 10 });
      await expect(api.save({ name: 'Wren' })).resolves.toMatchObject({ id: 'p1' });
      expect(warn).toHaveBeenCalledWith(expect.stringContaining('personas'), expect.any(Error));
    } finally {
      warn.mockRestore();
    }
  });
});

describe('getContext().name1', () => {
  const wren = persona('wren', 'Wren', { isActive: true });
  const ash = persona('ash', 'Ash', { isDefault: true });

  it('is "User" with no persona', async () => {
    const { h } = await setup((host) => host.addChat('c1', 1));
    await h.api.chat.select('c1');
    expect(h.getContext().name1).toBe('User');
  });

  it('follows the chat lock, else the active persona, else the default, at CHAT_CHANGED already', async () => {
    const { host, h } = await setup((host) => {
      host.personas = [wren, ash];
      host.addChat('c1', 1);
      host.addChat('c2', 1).metadata = { persona: 'ash' };
      host.addChat('c3', 1).metadata = { persona: 'user-default.png' };
    });
    const ctx = h.getContext();
    expect(ctx.name1).toBe('Wren');
    const seen: string[] = [];
    h.api.events.on(h.api.events.types.CHAT_CHANGED!, () => seen.push(ctx.name1));
    await h.api.chat.select('c2');
    await h.api.chat.select('c1');
    // A lock that names no persona (SillyTavern's avatar file names) is passed over.
    await h.api.chat.select('c3');
    expect(seen).toEqual(['Ash', 'Wren', 'Wren']);

    // Another window unsets the active persona: the default applies.
    host.personas = [persona('wren', 'Wren'), ash];
    host.push('persona_changed', { personaId: null, change: 'active', activeId: null, defaultId: 'ash' });
    expect(ctx.name1).toBe('Ash');
    await tick();
    expect(ctx.name1).toBe('Ash');
    expect(host.count('personas.list')).toBe(2);
  });

  it('names the locked persona once lockToChat resolves, and follows a lock made elsewhere', async () => {
    const { host, h } = await setup((host) => {
      host.personas = [wren, ash];
      host.addChat('c1', 1);
    });
    const ctx = h.getContext();
    await h.api.chat.select('c1');
    host.lose = true; // the event stream is late: the answer alone must do
    const lock = await h.api.personas.lockToChat('c1', 'ash');
    expect(lock).toEqual({ revision: 1, persona: ash });
    expect(ctx.chat_metadata).toEqual({ persona: 'ash' });
    expect(ctx.name1).toBe('Ash');
    host.lose = false;

    await host.invoke('chat.saveMetadata', ['c1', { persona: null }]);
    await tick();
    expect(ctx.name1).toBe('Wren');
    await expect(h.api.personas.lockToChat('c1', 'nobody')).rejects.toMatchObject({ code: 'persona.not_found' });
    expect(ctx.name1).toBe('Wren');
  });

  it('re-reads the list when a change arrives while it loads', async () => {
    const { host, h } = await setup((host) => (host.personas = [wren]));
    // The first re-read answers with the list as it was when asked, late.
    let hold: Promise<void> | null = null;
    let release!: () => void;
    const invoke = host.invoke.bind(host);
    host.invoke = async (method, args) => {
      const out = await invoke(method, args);
      if (method === 'personas.list' && hold) {
        const wait = hold;
        hold = null;
        await wait;
      }
      return out;
    };
    hold = new Promise<void>((r) => (release = r));
    host.push('persona_changed', { personaId: 'wren', change: 'saved', activeId: 'wren', defaultId: null });
    await tick();
    host.personas = [persona('wren', 'Wren the Second', { isActive: true })];
    host.push('persona_changed', { personaId: 'wren', change: 'saved', activeId: 'wren', defaultId: null });
    release();
    await tick();
    expect(h.getContext().name1).toBe('Wren the Second');
    expect(host.count('personas.list')).toBe(3);
  });
});
