import { describe, expect, it, vi } from 'vitest';
import { tick } from './testing/fake-host';
import { setup } from './testing/setup';

describe('getContext()', () => {
  it('describes the current chat and character', async () => {
    const { h } = await setup((host) => {
      host.characters.unshift({ avatar: 'Other.png', name: 'Other' });
      host.addChat('c1', 3).metadata = { note: 'n' };
    });
    const ctx = h.getContext();
    expect(h.getContext()).toBe(ctx);
    expect([ctx.name2, ctx.characterId, ctx.getCurrentChatId(), ctx.getMessageCount()]).toEqual(['', undefined, undefined, 0]);
    await h.api.chat.select('c1');
    expect(ctx.name1).toBe('User');
    expect(ctx.name2).toBe('Seraphina');
    expect(ctx.characterId).toBe(1);
    expect(ctx.characters[ctx.characterId!]!.name).toBe('Seraphina');
    expect(ctx.chat_metadata).toEqual({ note: 'n' });
    expect(ctx.chatMetadata).toBe(ctx.chat_metadata);
    expect(ctx.getMessageCount()).toBe(3);
  });

  it('getMessage returns a read-only Proxy whose writes name updateMessages', async () => {
    const { h } = await setup((host) => host.addChat('c1', 3));
    const ctx = h.getContext();
    expect(ctx.getMessage(0)).toBeNull();
    await h.api.chat.select('c1');
    const m = ctx.getMessage(1)!;
    expect(m.mes).toBe('m1');
    expect(m.swipes).toEqual(['m1']);
    const writes: [string, () => unknown][] = [
      ['set', () => ((m as { mes: string }).mes = 'x')],
      ['delete', () => delete (m as { mes?: string }).mes],
      ['nested set', () => ((m.extra as Record<string, unknown>).model = 'x')],
      ['nested array write', () => ((m.swipes as string[])[0] = 'x')],
      ['array push', () => (m.swipes as string[]).push('x')],
    ];
    for (const [what, write] of writes) {
      expect(write, what).toThrow(/updateMessages/);
    }
    expect(ctx.getMessage(1)!.mes).toBe('m1');
    for (const bad of [3, -1, 1.5, NaN, '1' as unknown as number]) expect(ctx.getMessage(bad)).toBeNull();
  });

  it('keeps chat read-only', async () => {
    const { h } = await setup((host) => host.addChat('c1', 2));
    await h.api.chat.select('c1');
    const chat = h.getContext().chat as unknown as { mes: string }[];
    expect(() => chat.push({ mes: 'x' })).toThrow(TypeError);
    expect(() => (chat[0]!.mes = 'x')).toThrow(TypeError);
    expect(h.getContext().chat[0]!.mes).toBe('m0');
    expect(structuredClone(h.getContext().chat)).toHaveLength(2);
  });

  it('writes persist, then show in the cache before they resolve, then fire events', async () => {
    const { host, h } = await setup((host) => host.addChat('c1', 2));
    await h.api.chat.select('c1');
    const ctx = h.getContext();
    const sent = vi.fn();
    ctx.eventSource.on('message_sent', sent);

    const index = await ctx.addMessages({ is_user: true, mes: 'hello' }, { scroll: true });
    expect(index).toBe(2);
    expect(ctx.chat[2]!.mes).toBe('hello');
    expect(host.chat('c1').messages[2]!.mes).toBe('hello');
    await tick();
    expect(sent).toHaveBeenCalledWith(2);

    expect(await ctx.addMessages([{ mes: 'a' }, { mes: 'b' }])).toEqual([3, 4]);
    expect(ctx.chat.map((m) => m.mes).slice(3)).toEqual(['a', 'b']);

    await ctx.updateMessages({ index: 0, patch: { mes: 'zero' } }, { rerender: true });
    expect(ctx.chat[0]!.mes).toBe('zero');

    const deleted = await ctx.deleteMessages([1, 3]);
    expect((deleted as { mes: string }[]).map((m) => m.mes)).toEqual(['m1', 'a']);
    expect(ctx.chat.map((m) => m.mes)).toEqual(['zero', 'hello', 'b']);
    const one = await ctx.deleteMessages(2, { swipe: 1 });
    expect(one).toMatchObject({ mes: 'b' });
    expect(host.calls.filter((c) => c.method !== 'chat.get').map((c) => c.args.slice(2)).slice(-5)).toEqual([
      [{}],
      [{}],
      [{}],
      [{}],
      [{ swipe: 1 }],
    ]);

    expect(await ctx.saveChatMetadata({ mood: 'calm' })).toBe(true);
    expect(ctx.chat_metadata).toEqual({ mood: 'calm' });
  });

  it('a silent write sends no events, so the cache re-fetches before the write resolves', async () => {
    const { host, h } = await setup((host) => host.addChat('c1', 2));
    await h.api.chat.select('c1');
    const ctx = h.getContext();
    const received = vi.fn();
    ctx.eventSource.on('message_received', received);
    await ctx.addMessages({ mes: 'quiet' }, { silent: true });
    expect(ctx.chat.map((m) => m.mes)).toEqual(['m0', 'm1', 'quiet']);
    expect(h.api.chat.loaded()?.revision).toBe(host.chat('c1').revision);
    await tick();
    expect(received).not.toHaveBeenCalled();
  });

  it('re-fetches when a write’s events never arrive', async () => {
    const { host, h } = await setup((host) => host.addChat('c1', 2));
    await h.api.chat.select('c1');
    host.lose = true;
    await h.getContext().updateMessages({ index: 1, patch: { mes: 'one' } });
    expect(h.getContext().chat[1]!.mes).toBe('one');
  });

  it('rejects writes when no chat is open', async () => {
    const { h } = await setup();
    await expect(h.getContext().addMessages({ mes: 'x' })).rejects.toMatchObject({ code: 'chat.not_found' });
    await expect(h.getContext().saveChatMetadata()).rejects.toMatchObject({ code: 'chat.not_found' });
  });

  it('passes backend errors through as HostErrors', async () => {
    const { h } = await setup((host) => host.addChat('c1', 2));
    await h.api.chat.select('c1');
    await expect(h.getContext().updateMessages({ index: 9, patch: { mes: 'x' } })).rejects.toMatchObject({
      name: 'HostError',
      code: 'message.index_out_of_range',
    });
  });
});
