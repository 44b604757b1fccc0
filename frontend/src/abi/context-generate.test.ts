import { describe, expect, it } from 'vitest';
import { setupLifecycle } from './context-lifecycle.fixture';

async function open() {
  const { host, h } = await setupLifecycle((host) => host.addChat('c1', 4));
  await h.api.chat.select('c1');
  return { host, h, ctx: h.getContext() };
}

function lastCall(host: { calls: { method: string; args: unknown[] }[] }, method: string) {
  return [...host.calls].reverse().find((c) => c.method === method);
}

describe('extension prompts', () => {
  it('are registered in the window and sent with every generation, filters evaluated then', async () => {
    const { host, h, ctx } = await open();
    let allow = false;
    ctx.setExtensionPrompt('b-note', 'in chat', 1, 2, false, 1);
    ctx.setExtensionPrompt('a-gated', 'only when allowed', 0, 0, false, 0, () => allow);
    ctx.setExtensionPrompt('thrower', 'never', 0, 0, false, 0, () => {
      throw new Error('boom');
    });
    expect(Object.keys(ctx.extensionPrompts).sort()).toEqual(['a-gated', 'b-note', 'thrower']);
    expect(Object.isFrozen(ctx.extensionPrompts)).toBe(true);

    // The window sends its prompt hooks with every call: none here.
    await h.api.generate.dryRun({ chatId: 'c1' });
    expect(lastCall(host, 'generate.dryRun')!.args[0]).toEqual({
      chatId: 'c1',
      hooks: {},
      extensionPrompts: [{ key: 'b-note', value: 'in chat', position: 1, depth: 2, scan: false, role: 1 }],
    });
    allow = true;
    // A prompt passed in the options wins over the window's by key.
    await h.api.generate.start({ chatId: 'c1', extensionPrompts: [{ key: 'b-note', value: 'given', position: 0 }] });
    expect(lastCall(host, 'generate.start')!.args[0]).toEqual({
      chatId: 'c1',
      hooks: {},
      extensionPrompts: [
        { key: 'a-gated', value: 'only when allowed', position: 0, depth: 0, scan: false, role: 0 },
        { key: 'b-note', value: 'given', position: 0 },
      ],
    });
    ctx.setExtensionPrompt('b-note', '', 0, 0);
    expect(Object.keys(ctx.extensionPrompts).sort()).toEqual(['a-gated', 'thrower']);
    await ctx.clearChat({ clearData: true });
    expect(ctx.extensionPrompts).toEqual({});
  });

  it('refuses bad positions, depths and roles', async () => {
    const { ctx } = await open();
    expect(() => ctx.setExtensionPrompt('k', 'v', 3, 0)).toThrow(/position/);
    expect(() => ctx.setExtensionPrompt('k', 'v', 1, -1)).toThrow(/depth/);
    expect(() => ctx.setExtensionPrompt('k', 'v', 1, 1.5)).toThrow(/depth/);
    expect(() => ctx.setExtensionPrompt('k', 'v', 1, 0, false, 7)).toThrow(/role/);
    expect(() => ctx.setExtensionPrompt('', 'v', 1, 0)).toThrow(/key/);
    expect(() => ctx.setExtensionPrompt('k', 'v', 1, 'two' as never)).toThrow(/depth/);
    // A string of digits is its number, as SillyTavern reads these with Number() (an input's .val()).
    expect(ctx.extensionPrompts).toEqual({});
    ctx.setExtensionPrompt('typed', 'v', '1' as never, ' 4 ' as never);
    expect(ctx.extensionPrompts.typed).toMatchObject({ position: 1, depth: 4 });
  });
});

describe('getContext() generation', () => {
  it('generate, generateQuietPrompt and dry runs go to api.generate for the current chat', async () => {
    const { host, ctx } = await open();
    const text = await ctx.generateQuietPrompt('Summarize.');
    expect(text).toBe('reply to {"chatId":"c1","type":"quiet","quietPrompt":"Summarize.","hooks":{},"extensionPrompts":[]}');
    await ctx.generateQuietPrompt({ quietPrompt: 'Again.' });
    expect(lastCall(host, 'generate.run')!.args[0]).toMatchObject({ type: 'quiet', quietPrompt: 'Again.' });
    await expect(ctx.generateQuietPrompt('  ')).rejects.toMatchObject({ code: 'validation.invalid_argument' });
    await ctx.generate('impersonate');
    expect(lastCall(host, 'generate.run')!.args[0]).toMatchObject({ chatId: 'c1', type: 'impersonate' });
    await ctx.generate('normal', undefined, true);
    expect(lastCall(host, 'generate.dryRun')!.args[0]).toMatchObject({ chatId: 'c1', type: 'normal' });
  });

  it('stopGeneration stops only this chat’s generation, known from the events', async () => {
    const { host, ctx } = await open();
    expect(await ctx.stopGeneration()).toBe(false);
    expect(lastCall(host, 'generate.stop')).toBeUndefined();
    host.push('generation_started', { chatId: 'other', generationId: 'g-other', type: 'normal' });
    expect(await ctx.stopGeneration()).toBe(false);
    host.push('generation_started', { chatId: 'c1', generationId: 'g-c1', type: 'normal' });
    expect(ctx.swipe.isAllowed()).toBe(false);
    expect(ctx.swipe.state()).toBe('generating');
    expect(await ctx.stopGeneration()).toBe(true);
    expect(lastCall(host, 'generate.stop')!.args).toEqual(['g-c1']);
    host.push('generation_stopped', { chatId: 'c1', generationId: 'g-c1', index: 3 });
    expect(ctx.swipe.isAllowed()).toBe(true);
    expect(ctx.swipe.state()).toBe('none');
  });

  it('swipe.right past the last swipe of the last reply generates a swipe; elsewhere it navigates', async () => {
    const { host, h } = await setupLifecycle((host) => host.addChat('c1', 3));
    await h.api.chat.select('c1');
    const ctx = h.getContext();
    // Message 2 is the character's reply, with one swipe.
    await ctx.swipe.right();
    expect(lastCall(host, 'generate.run')!.args[0]).toMatchObject({ chatId: 'c1', type: 'swipe' });
    await ctx.swipe.left().catch(() => {});
    expect(lastCall(host, 'chat.swipe')?.args.slice(1)).toEqual([2, { direction: 'left' }]);
    await ctx.swipe.to(null, 'right', { forceSwipeId: 0 }).catch(() => {});
    expect(lastCall(host, 'chat.swipe')?.args.slice(1)).toEqual([2, { to: 0 }]);
    await expect(ctx.swipe.to(null, 'up' as 'left')).rejects.toMatchObject({ code: 'validation.invalid_argument' });
  });

  it('swipe.hide/show tell the UI, and online_status/maxContext follow the backend', async () => {
    const { host, h, ctx } = await open();
    const seen: unknown[] = [];
    h.api.events.on('swipe_ui_changed', (p) => seen.push(p));
    ctx.swipe.hide({ hideCounters: true });
    expect(ctx.swipe.hidden()).toEqual({ hidden: true, hideCounters: true });
    ctx.swipe.show();
    expect(ctx.swipe.hidden()).toEqual({ hidden: false, hideCounters: false });
    expect(seen).toHaveLength(2);

    expect(ctx.online_status).toBe('no_connection');
    expect(ctx.maxContext).toBe(8192);
    host.activeConnection = { id: 'x', name: 'Local', model: 'llama-3' };
    host.maxContext = 32768;
    host.push('connections_changed', {});
    host.push('oai_preset_changed_after', { presetId: 'p' });
    await expect.poll(() => ctx.online_status).toBe('llama-3');
    await expect.poll(() => ctx.maxContext).toBe(32768);
  });
});
