import { afterEach, describe, expect, it, vi } from 'vitest';
import { createCharactersCache } from './characters-cache';
import { createChatCache } from './chat-cache';
import { createCall } from './host';
import { createContextLifecycle } from './context-lifecycle';
import { setupLifecycle, type LifecycleHost } from './context-lifecycle.fixture';
import { SYSTEM_USER_NAME } from './context-lifecycle-system';
import { chatRender } from './context-lifecycle-view';
import { tick } from './testing/fake-host';
import type { HearthAbi, HearthContext } from './types';

function oneChat(host: LifecycleHost): void {
  host.addChat('c1', 3).metadata = { note: 'kept' };
}

async function opened(): Promise<{ host: LifecycleHost; h: HearthAbi; ctx: HearthContext }> {
  const { host, h } = await setupLifecycle(oneChat);
  await h.api.chat.select('c1');
  return { host, h, ctx: h.getContext() };
}

/** hold makes every call of method wait until the returned release is called. */
function hold(host: LifecycleHost, method: string): () => void {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  host.gate = async (m) => {
    if (m === method) await opened;
  };
  return () => open();
}

afterEach(() => vi.restoreAllMocks());

describe('saveChat', () => {
  it('resolves once the writes under way are stored', async () => {
    const { host, ctx } = await opened();
    const release = hold(host, 'chat.addMessages');
    void ctx.addMessages({ mes: 'fire and forget' });
    let saved = false;
    const save = ctx.saveChat().then(() => (saved = true));
    await tick(10);
    expect(saved).toBe(false);
    release();
    await save;
    expect(host.chat('c1').messages.at(-1)!.mes).toBe('fire and forget');
    expect(ctx.chat.at(-1)!.mes).toBe('fire and forget');
  });

  it('does not wait for writes that start after it', async () => {
    const { host, ctx } = await opened();
    const save = ctx.saveChat();
    const release = hold(host, 'chat.updateMessages');
    const later = ctx.updateMessages({ index: 0, patch: { mes: 'later' } });
    await expect(save).resolves.toBeUndefined();
    release();
    await later;
  });

  it('waits for a write between its host call and the cache showing it, and for the deprecated calls', async () => {
    const { host, ctx } = await opened();
    host.lose = true; // the events never come: the write waits, then re-fetches
    void ctx.appendChatMessages([{ mes: 'appended' }]);
    await ctx.saveChat();
    expect(ctx.chat.at(-1)!.mes).toBe('appended');
  });

  it('resolves at once with nothing under way, and with no chat open', async () => {
    const { h } = await setupLifecycle(oneChat);
    await expect(h.getContext().saveChat()).resolves.toBeUndefined();
  });
});

describe('clearChat and printMessages', () => {
  it('clearChat hides the rows until printMessages, leaving the data alone', async () => {
    const { host, h, ctx } = await opened();
    const render = chatRender(ctx);
    const gens: number[] = [];
    const off = render.subscribe((g) => gens.push(g));
    const shown = () => h.api.chat.loaded()!.messages;
    expect(render.hidden('c1', shown())).toBe(false);
    await ctx.clearChat();
    expect(render.hidden('c1', shown())).toBe(true);
    expect(ctx.chat).toHaveLength(3);
    await ctx.printMessages();
    expect(render.hidden('c1', shown())).toBe(false);
    expect(gens).toEqual([0, 1, 2]);
    off();
    await ctx.clearChat();
    expect(gens).toHaveLength(3);
    expect(host.chat('c1').messages).toHaveLength(3);
  });

  it('clearChat({ clearData: true }) empties chat and chat_metadata for this window only', async () => {
    const { host, h, ctx } = await opened();
    const render = chatRender(ctx);
    const stored = host.calls.length;
    await ctx.clearChat({ clearData: true });
    expect([ctx.chat, ctx.chat_metadata, ctx.chatMetadata, ctx.getMessageCount(), ctx.getMessage(0)]).toEqual([[], {}, {}, 0, null]);
    expect(ctx.getCurrentChatId()).toBe('Seraphina - c1');
    expect(host.calls.length).toBe(stored);
    expect(host.chat('c1').messages).toHaveLength(3);
    // printMessages prints the empty in-memory chat, as SillyTavern does.
    await ctx.printMessages();
    expect(render.hidden('c1', h.api.chat.loaded()!.messages)).toBe(true);
    expect(ctx.chat).toEqual([]);
  });

  it('the next change to the chat shows it whole again', async () => {
    const { h, ctx } = await opened();
    await ctx.clearChat({ clearData: true });
    const index = await ctx.addMessages({ mes: 'after the clear' });
    expect(index).toBe(3);
    expect(ctx.chat.map((m) => m.mes)).toEqual(['m0', 'm1', 'm2', 'after the clear']);
    expect(ctx.chat_metadata).toEqual({ note: 'kept' });
    expect(chatRender(ctx).hidden('c1', h.api.chat.loaded()!.messages)).toBe(false);
  });

  it('a reload shows it again', async () => {
    const { h, ctx } = await opened();
    await ctx.clearChat({ clearData: true });
    await ctx.reloadCurrentChat();
    expect(ctx.chat).toHaveLength(3);
    expect(chatRender(ctx).hidden('c1', h.api.chat.loaded()!.messages)).toBe(false);
  });

  it('refuses malformed options, clearing nothing', async () => {
    const { ctx } = await opened();
    await expect(ctx.clearChat({ clearData: 1 as unknown as boolean })).rejects.toMatchObject({ code: 'validation.invalid_argument' });
    await expect(ctx.clearChat('all' as unknown as { clearData: boolean })).rejects.toMatchObject({ code: 'validation.invalid_argument' });
    expect(ctx.chat).toHaveLength(3);
  });

  it('clearData resets the extension prompts it is given', async () => {
    const { host } = await setupLifecycle(oneChat);
    const call = createCall(host);
    const cache = createChatCache(call, { progress() {}, changed() {}, applied() {} });
    const reset = vi.fn();
    const life = createContextLifecycle({ call, cache, characters: createCharactersCache(call), settleMs: 50, extensionPrompts: { reset } });
    await life.methods.clearChat();
    expect(reset).not.toHaveBeenCalled();
    await life.methods.clearChat({ clearData: true });
    expect(reset).toHaveBeenCalledTimes(1);
  });
});

describe('sendSystemMessage', () => {
  it('stores SillyTavern’s system message shape, by constant name or value', async () => {
    const { host, h, ctx } = await opened();
    const received = vi.fn();
    h.api.events.on('message_received', received);
    await ctx.sendSystemMessage('GENERIC', 'Plugin loaded successfully.');
    expect(ctx.chat[3]).toMatchObject({
      name: SYSTEM_USER_NAME,
      is_user: false,
      is_system: true,
      force_avatar: 'img/five.png',
      mes: 'Plugin loaded successfully.',
      extra: { type: 'generic', swipeable: false },
    });
    expect(host.chat('c1').messages[3]!.mes).toBe('Plugin loaded successfully.');
    await tick();
    expect(received).toHaveBeenCalledWith(expect.objectContaining({ index: 3 }));

    await ctx.sendSystemMessage('welcome_prompt', undefined, { bias: 'x', type: 'overridden' });
    expect(ctx.chat[4]).toMatchObject({ extra: { type: 'welcome_prompt', isSmallSys: true, uses_system_ui: true, bias: 'x' } });
    expect(ctx.chat[4]!.mes).not.toBe('');
  });

  it('NARRATOR and COMMENT take their shape from /sys and /comment and need a text', async () => {
    const { ctx } = await opened();
    await ctx.saveChatMetadata({ narrator_name: 'The Voice' });
    await ctx.sendSystemMessage('NARRATOR', 'Night falls.');
    expect(ctx.chat[3]).toMatchObject({ name: 'The Voice', is_system: false, mes: 'Night falls.', extra: { type: 'narrator' } });
    await ctx.sendSystemMessage('comment', 'A note.');
    expect(ctx.chat[4]).toMatchObject({ name: 'Note', is_system: true, force_avatar: 'img/quill.png', extra: { type: 'comment' } });
    await ctx.sendSystemMessage('ASSISTANT_MESSAGE', 'Hello from the assistant.');
    expect(ctx.chat[5]).toMatchObject({ name: 'Seraphina', is_system: false, extra: { type: 'assistant_message' } });
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    await ctx.sendSystemMessage('NARRATOR');
    expect(warn).toHaveBeenCalledTimes(1);
    expect(ctx.chat).toHaveLength(6);
  });

  it('an unknown type is ignored with a warning, as SillyTavern ignores it', async () => {
    const { host, ctx } = await opened();
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const before = host.calls.length;
    for (const type of ['nope', 'Generic', '', 3]) await expect(ctx.sendSystemMessage(type as string, 'x')).resolves.toBeUndefined();
    expect(warn).toHaveBeenCalledTimes(4);
    expect(host.calls.length).toBe(before);
  });

  it('refuses malformed text and extra, and needs an open chat', async () => {
    const { h, ctx } = await opened();
    await expect(ctx.sendSystemMessage('generic', 42 as unknown as string)).rejects.toMatchObject({ code: 'validation.invalid_argument' });
    await expect(ctx.sendSystemMessage('generic', 'x', [] as unknown as Record<string, unknown>)).rejects.toMatchObject({ code: 'validation.invalid_argument' });
    await expect(ctx.sendSystemMessage('generic', 'x'.repeat(100_001))).rejects.toMatchObject({ code: 'validation.invalid_argument' });
    expect(ctx.chat).toHaveLength(3);
    await h.api.chat.select(null);
    await expect(ctx.sendSystemMessage('generic', 'x')).rejects.toMatchObject({ code: 'chat.not_found' });
  });
});

describe('deprecated low-level calls', () => {
  it('warn once per name, naming the replacement', async () => {
    const { ctx } = await opened();
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    await ctx.addOneMessage({ mes: 'one' });
    await ctx.addOneMessage({ mes: 'two' });
    await ctx.deleteLastMessage();
    expect(warn.mock.calls.map((c) => c[0])).toEqual([
      'Hearth: getContext().addOneMessage() is deprecated, use addMessages() instead',
      'Hearth: getContext().deleteLastMessage() is deprecated, use deleteMessages(chat.length - 1) instead',
    ]);
  });

  it('addOneMessage stores a new message, and leaves one already in the chat', async () => {
    const { host, ctx } = await opened();
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    await ctx.addOneMessage({ is_user: true, mes: 'hi' }, { scroll: true });
    expect(ctx.chat.map((m) => m.mes)).toEqual(['m0', 'm1', 'm2', 'hi']);
    const adds = host.count('chat.addMessages');
    await ctx.addOneMessage(ctx.getMessage(1) as never);
    await ctx.addOneMessage({ ...ctx.chat[2]! });
    expect(host.count('chat.addMessages')).toBe(adds);
    await expect(ctx.addOneMessage('hi' as never)).rejects.toMatchObject({ code: 'validation.invalid_argument' });
  });

  it('deleteLastMessage and deleteMessage delete through deleteMessages', async () => {
    const { host, ctx } = await opened();
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    await ctx.deleteLastMessage();
    expect(ctx.chat.map((m) => m.mes)).toEqual(['m0', 'm1']);
    await ctx.deleteMessage(0);
    expect(ctx.chat.map((m) => m.mes)).toEqual(['m1']);
    await expect(ctx.deleteMessage(5)).rejects.toMatchObject({ code: 'message.index_out_of_range' });
    await ctx.deleteLastMessage();
    await expect(ctx.deleteLastMessage()).rejects.toMatchObject({ code: 'message.index_out_of_range' });
    expect(host.chat('c1').messages).toHaveLength(0);
  });

  it('deleteMessage with a swipe index deletes only that swipe', async () => {
    const { host, ctx } = await opened();
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    await ctx.deleteMessage(1, 0);
    expect(host.calls.filter((c) => c.method === 'chat.deleteMessages').at(-1)!.args).toEqual(['c1', 1, { swipe: 0 }]);
    await ctx.deleteMessage(0, null);
    expect(host.calls.filter((c) => c.method === 'chat.deleteMessages').at(-1)!.args).toEqual(['c1', 0, {}]);
  });

  it('updateMessageBlock stores only the fields that differ', async () => {
    const { host, ctx } = await opened();
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    await ctx.updateMessageBlock(1, { ...ctx.chat[1]!, mes: 'edited', extra: { model: 'x' } });
    expect(host.calls.filter((c) => c.method === 'chat.updateMessages').at(-1)!.args[1]).toEqual({ index: 1, patch: { mes: 'edited', extra: { model: 'x' } } });
    expect(ctx.chat[1]).toMatchObject({ mes: 'edited', swipes: ['edited'], extra: { model: 'x' } });
    const updates = host.count('chat.updateMessages');
    await ctx.updateMessageBlock(1, ctx.getMessage(1) as never);
    await ctx.updateMessageBlock(1, { ...ctx.chat[1]! });
    expect(host.count('chat.updateMessages')).toBe(updates);
    await expect(ctx.updateMessageBlock(9, { mes: 'x' })).rejects.toMatchObject({ code: 'message.index_out_of_range' });
  });

  it('patchChatMessages applies chat-array paths in one patch and resolves true', async () => {
    const { host, ctx } = await opened();
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    const ok = await ctx.patchChatMessages([
      { op: 'replace', path: '/0/mes', value: 'patched' },
      { op: 'remove', path: '/2' },
      { op: 'copy', from: '/0', path: '/-' },
    ]);
    expect(ok).toBe(true);
    expect(host.calls.filter((c) => c.method === 'chat.patch').at(-1)!.args[1]).toEqual([
      { op: 'replace', path: '/messages/0/mes', value: 'patched' },
      { op: 'remove', path: '/messages/2' },
      { op: 'copy', from: '/messages/0', path: '/messages/-' },
    ]);
    expect(ctx.chat.map((m) => m.mes)).toEqual(['patched', 'm1', 'patched']);
    expect(await ctx.patchChatMessages([])).toBe(false);
    const patches = host.count('chat.patch');
    for (const bad of ['nope', [{ op: 'remove', path: 'messages' }], [null], [{ op: 'copy', from: 3, path: '/0' }]]) {
      await expect(ctx.patchChatMessages(bad as never)).rejects.toMatchObject({ code: 'patch.invalid' });
    }
    expect(host.count('chat.patch')).toBe(patches);
    await expect(ctx.patchChatMessages([{ op: 'remove', path: '/9' }])).rejects.toMatchObject({ code: 'patch.invalid' });
    expect(ctx.chat).toHaveLength(3);
  });

  it('appendChatMessages stores the messages not yet in the chat', async () => {
    const { host, ctx } = await opened();
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    expect(await ctx.appendChatMessages([ctx.chat[0] as never, { mes: 'new one' }, { mes: 'new two' }])).toBe(true);
    expect(ctx.chat.map((m) => m.mes)).toEqual(['m0', 'm1', 'm2', 'new one', 'new two']);
    expect(host.calls.filter((c) => c.method === 'chat.addMessages').at(-1)!.args[1]).toHaveLength(2);
    expect(await ctx.appendChatMessages([])).toBe(false);
    await expect(ctx.appendChatMessages({ mes: 'x' } as never)).rejects.toMatchObject({ code: 'validation.invalid_argument' });
  });

  it('need an open chat', async () => {
    const { h } = await setupLifecycle(oneChat);
    const ctx = h.getContext();
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    for (const run of [
      () => ctx.addOneMessage({ mes: 'x' }),
      () => ctx.deleteLastMessage(),
      () => ctx.deleteMessage(0),
      () => ctx.updateMessageBlock(0, { mes: 'x' }),
      () => ctx.patchChatMessages([{ op: 'remove', path: '/0' }]),
      () => ctx.appendChatMessages([{ mes: 'x' }]),
    ]) {
      await expect(run()).rejects.toMatchObject({ code: 'chat.not_found' });
    }
  });
});
