import { describe, expect, it, vi } from 'vitest';
import { setupLifecycle, type LifecycleHost } from './context-lifecycle.fixture';
import { message, tick } from './testing/fake-host';

/** twoChats gives Seraphina chats c1 (3 messages, newest) and c2 (2), and a second character with one chat. */
function twoChats(host: LifecycleHost): void {
  host.characters.push({ avatar: 'Other.png', name: 'Other' });
  host.addChat('c2', 2);
  host.touch('c2');
  host.addChat('c1', 3);
  host.touch('c1');
  const o = host.addChat('o1', 1);
  o.avatar = 'Other.png';
  o.fileName = 'Other - first';
}

/** gateOn holds every call of method until the returned release is called. */
function gateOn(host: LifecycleHost, method: string): { release: () => void; held: () => number } {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  let held = 0;
  host.gate = async (m) => {
    if (m !== method) return;
    held++;
    await opened;
  };
  return { release: () => open(), held: () => held };
}

describe('getContext() chat lifecycle', () => {
  it('reloadCurrentChat re-reads the chat from the backend and fires CHAT_CHANGED once it is whole', async () => {
    const { host, h } = await setupLifecycle(twoChats);
    const ctx = h.getContext();
    await h.api.chat.select('c1');
    host.chat('c1').messages.push(message('written behind the window’s back'));
    const changed: unknown[] = [];
    h.api.events.on('chat_id_changed', (p) => changed.push([p.chatId, ctx.chat.length]));
    const gate = gateOn(host, 'chat.getStMessages');
    const pending = ctx.reloadCurrentChat();
    await tick();
    // As SillyTavern empties chat[] while it reloads.
    expect([ctx.chat.length, ctx.getCurrentChatId(), gate.held()]).toEqual([0, undefined, 1]);
    gate.release();
    await pending;
    expect(ctx.chat.map((m) => m.mes)).toEqual(['m0', 'm1', 'm2', 'written behind the window’s back']);
    expect(changed).toEqual([['c1', 4]]);
    expect(ctx.getCurrentChatId()).toBe('Seraphina - c1');
  });

  it('reloadCurrentChat does nothing with no chat open', async () => {
    const { host, h } = await setupLifecycle(twoChats);
    const before = host.calls.length;
    await expect(h.getContext().reloadCurrentChat()).resolves.toBeUndefined();
    expect(host.calls.length).toBe(before);
  });

  it('concurrent reloadCurrentChat calls run one after another', async () => {
    const { host, h } = await setupLifecycle(twoChats);
    const ctx = h.getContext();
    await h.api.chat.select('c1');
    const log: string[] = [];
    const gate = gateOn(host, 'chat.getStMessages');
    const held = host.gate!;
    host.gate = async (m, args) => {
      if (m === 'chat.get') log.push('get');
      await held(m, args);
    };
    const a = ctx.reloadCurrentChat().then(() => log.push('a done'));
    const b = ctx.reloadCurrentChat().then(() => log.push('b done'));
    await tick(10);
    // a is loading (held at its messages); b has not even asked for the chat.
    expect(log).toEqual(['get']);
    gate.release();
    await Promise.all([a, b]);
    const split = log.indexOf('a done');
    const first = log.slice(0, split);
    const second = log.slice(split + 1);
    expect(second.at(-1)).toBe('b done');
    expect(second.slice(0, -1)).toEqual(first); // b's reads all came after a finished
    expect(ctx.chat).toHaveLength(3);
  });

  it('a failed reload does not block the next one', async () => {
    const { host, h } = await setupLifecycle(twoChats);
    const ctx = h.getContext();
    await h.api.chat.select('c1');
    host.failures.set('chat.get', { code: 'transport.unavailable', message: 'down' });
    await expect(ctx.reloadCurrentChat()).rejects.toMatchObject({ code: 'transport.unavailable' });
    await ctx.reloadCurrentChat();
    expect(ctx.chat).toHaveLength(3);
  });

  it('reloadCurrentChat keeps whether the window chose its chat automatically', async () => {
    const { h } = await setupLifecycle(twoChats);
    const ctx = h.getContext();
    await h.api.chat.select('c1', { automatic: true });
    await ctx.reloadCurrentChat();
    // Still automatic: a later automatic choice may replace it.
    await h.api.chat.select('c2', { automatic: true });
    expect(ctx.getCurrentChatId()).toBe('Seraphina - c2');
    await h.api.chat.select('c1');
    await ctx.reloadCurrentChat();
    // Still explicit: an automatic choice yields to it.
    await expect(h.api.chat.select('c2', { automatic: true })).rejects.toMatchObject({ details: { reason: 'explicit' } });
    expect(ctx.getCurrentChatId()).toBe('Seraphina - c1');
  });

  it('a reload that another select() overtakes resolves, leaving the window on that chat', async () => {
    const { host, h } = await setupLifecycle(twoChats);
    const ctx = h.getContext();
    await h.api.chat.select('c1');
    const gate = gateOn(host, 'chat.getStMessages');
    const reload = ctx.reloadCurrentChat();
    await tick();
    const other = h.api.chat.select('c2');
    gate.release();
    await expect(reload).resolves.toBeUndefined();
    await other;
    expect(ctx.getCurrentChatId()).toBe('Seraphina - c2');
  });

  it('renameChat renames a chat of the current character, the open one showing its new name at once', async () => {
    const { host, h } = await setupLifecycle(twoChats);
    const ctx = h.getContext();
    await h.api.chat.select('c1');
    await ctx.renameChat('Seraphina - c1.jsonl', 'Evening talk');
    expect(ctx.getCurrentChatId()).toBe('Evening talk');
    expect(host.chat('c1').fileName).toBe('Evening talk');
    await ctx.renameChat('Seraphina - c2', 'Morning talk');
    expect(host.chat('c2').fileName).toBe('Morning talk');
    expect(ctx.getCurrentChatId()).toBe('Evening talk');
    await tick(); // the CHAT_RENAMED events change nothing more
    expect(ctx.getCurrentChatId()).toBe('Evening talk');
  });

  it('renameChat rejects unknown names, taken names, bad arguments and a window without a character', async () => {
    const { host, h } = await setupLifecycle(twoChats);
    const ctx = h.getContext();
    await expect(ctx.renameChat('Seraphina - c1', 'x')).rejects.toMatchObject({ code: 'character.not_found' });
    await h.api.chat.select('c1');
    await expect(ctx.renameChat('nope', 'x')).rejects.toMatchObject({ code: 'chat.not_found' });
    await expect(ctx.renameChat('Seraphina - c1', 'Seraphina - c2')).rejects.toMatchObject({ code: 'chat.name_taken' });
    const before = host.calls.length;
    for (const [a, b] of [
      ['', 'x'],
      ['Seraphina - c1', '  '],
      [1, 'x'],
      ['Seraphina - c1', null],
    ] as [string, string][]) {
      await expect(ctx.renameChat(a, b)).rejects.toMatchObject({ code: 'validation.invalid_argument' });
    }
    expect(host.calls.length).toBe(before);
    expect(ctx.getCurrentChatId()).toBe('Seraphina - c1');
  });

  it('openCharacterChat opens a chat of the current character, whole, after CHAT_CHANGED', async () => {
    const { h } = await setupLifecycle(twoChats);
    const ctx = h.getContext();
    await h.api.chat.select('c1');
    const changed = vi.fn();
    h.api.events.on('chat_id_changed', changed);
    await ctx.openCharacterChat('Seraphina - c2.jsonl');
    expect(changed).toHaveBeenCalledWith(expect.objectContaining({ chatId: 'c2' }));
    expect(ctx.getCurrentChatId()).toBe('Seraphina - c2');
    expect(ctx.chat.map((m) => m.mes)).toEqual(['m0', 'm1']);
  });

  it('openCharacterChat rejects a name the character has no chat by, changing nothing', async () => {
    const { h } = await setupLifecycle(twoChats);
    const ctx = h.getContext();
    await expect(ctx.openCharacterChat('Seraphina - c2')).rejects.toMatchObject({ code: 'character.not_found' });
    await h.api.chat.select('c1');
    await expect(ctx.openCharacterChat('Other - first')).rejects.toMatchObject({ code: 'chat.not_found' });
    await expect(ctx.openCharacterChat('')).rejects.toMatchObject({ code: 'validation.invalid_argument' });
    expect(ctx.getCurrentChatId()).toBe('Seraphina - c1');
    expect(ctx.chat).toHaveLength(3);
  });

  it('closeCurrentChat closes the chat and resolves true', async () => {
    const { h } = await setupLifecycle(twoChats);
    const ctx = h.getContext();
    await h.api.chat.select('c1');
    const changed = vi.fn();
    h.api.events.on('chat_id_changed', changed);
    await expect(ctx.closeCurrentChat()).resolves.toBe(true);
    expect([ctx.getCurrentChatId(), ctx.chat.length, ctx.characterId, h.api.chat.current()]).toEqual([undefined, 0, undefined, null]);
    expect(changed).toHaveBeenCalledTimes(1);
    await expect(ctx.closeCurrentChat()).resolves.toBe(true);
  });

  it('doNewChat starts and opens a new chat of the current character', async () => {
    const { host, h } = await setupLifecycle(twoChats);
    const ctx = h.getContext();
    await h.api.chat.select('c1');
    await ctx.doNewChat();
    expect(ctx.getCurrentChatId()).toBe('Seraphina - new 1');
    expect(ctx.chat.map((m) => m.mes)).toEqual(['Greetings.']);
    expect(host.chats.has('c1')).toBe(true);
    expect(host.calls.find((c) => c.method === 'chat.create')?.args).toEqual([{ avatar: 'Seraphina.png' }]);
  });

  it('doNewChat({ deleteCurrentChat: true }) deletes the old chat once the new one is open', async () => {
    const { host, h } = await setupLifecycle(twoChats);
    const ctx = h.getContext();
    await h.api.chat.select('c1');
    await ctx.doNewChat({ deleteCurrentChat: true });
    expect(ctx.getCurrentChatId()).toBe('Seraphina - new 1');
    expect(host.chats.has('c1')).toBe(false);
    const order = host.calls.map((c) => c.method).filter((m) => ['chat.create', 'chat.getStMessages', 'chat.delete'].includes(m));
    expect(order.slice(-3)).toEqual(['chat.create', 'chat.getStMessages', 'chat.delete']);
    await tick(); // CHAT_DELETED of the old chat does not close the new one
    expect(ctx.getCurrentChatId()).toBe('Seraphina - new 1');
    expect((await ctx.getPastCharacterChats()).map((c) => c.file_id)).toEqual(['Seraphina - new 1', 'Seraphina - c2']);
  });

  it('doNewChat with no character open does nothing, as in SillyTavern; bad options are refused', async () => {
    const { host, h } = await setupLifecycle(twoChats);
    const ctx = h.getContext();
    const before = host.calls.length;
    await expect(ctx.doNewChat({ deleteCurrentChat: true })).resolves.toBeUndefined();
    expect(host.calls.length).toBe(before);
    await h.api.chat.select('c1');
    await expect(ctx.doNewChat({ deleteCurrentChat: 'yes' as unknown as boolean })).rejects.toMatchObject({ code: 'validation.invalid_argument' });
    await expect(ctx.doNewChat(7 as unknown as { deleteCurrentChat: boolean })).rejects.toMatchObject({ code: 'validation.invalid_argument' });
    expect(host.count('chat.create')).toBe(0);
  });

  it('getPastCharacterChats lists the current character’s chats by default, or those of an index', async () => {
    const { h } = await setupLifecycle(twoChats);
    const ctx = h.getContext();
    expect(await ctx.getPastCharacterChats()).toEqual([]); // no character open
    await h.api.chat.select('c1');
    const mine = await ctx.getPastCharacterChats();
    expect(mine.map((c) => [c.file_name, c.file_id, c.chatId])).toEqual([
      ['Seraphina - c1.jsonl', 'Seraphina - c1', 'c1'],
      ['Seraphina - c2.jsonl', 'Seraphina - c2', 'c2'],
    ]);
    expect(mine[0]).toMatchObject({ file_size: '1.0 KB', mes: 'm2', messageCount: 3 });
    expect(typeof mine[0]!.last_mes).toBe('number');
    expect(ctx.characters.map((c) => c.avatar)).toEqual(['Seraphina.png', 'Other.png']);
    const other = [{ file_name: 'Other - first.jsonl', file_id: 'Other - first' }];
    expect(await ctx.getPastCharacterChats(1)).toMatchObject(other);
    expect(await ctx.getPastCharacterChats('1')).toMatchObject(other);
    expect(await ctx.getPastCharacterChats('Other.png')).toMatchObject(other);
    expect(await ctx.getPastCharacterChats(0)).toHaveLength(2);
    expect(await ctx.getPastCharacterChats(5)).toEqual([]);
    for (const bad of [-1, 1.5, NaN, '', {}, true]) {
      await expect(ctx.getPastCharacterChats(bad as number)).rejects.toMatchObject({ code: 'validation.invalid_argument' });
    }
  });

  it('deleteCharacterChat deletes by index or avatar, tolerating ".jsonl"', async () => {
    const { host, h } = await setupLifecycle(twoChats);
    const ctx = h.getContext();
    await h.api.chat.select('c1');
    await ctx.deleteCharacterChat(0, 'Seraphina - c2.jsonl');
    expect(host.chats.has('c2')).toBe(false);
    await ctx.deleteCharacterChat('1', 'Other - first');
    expect(host.chats.has('o1')).toBe(false);
    host.addChat('c3', 1);
    await ctx.deleteCharacterChat('Seraphina.png', 'Seraphina - c3.jsonl');
    expect(host.chats.has('c3')).toBe(false);
    expect(ctx.getCurrentChatId()).toBe('Seraphina - c1');
  });

  it('deleteCharacterChat of the open chat closes it by the time it resolves', async () => {
    const { host, h } = await setupLifecycle(twoChats);
    const ctx = h.getContext();
    await h.api.chat.select('c1');
    const changed = vi.fn();
    h.api.events.on('chat_id_changed', changed);
    await ctx.deleteCharacterChat(ctx.characterId!, 'Seraphina - c1.jsonl');
    expect([ctx.getCurrentChatId(), ctx.chat.length, h.api.chat.current()]).toEqual([undefined, 0, null]);
    expect(changed).toHaveBeenCalledTimes(1);
    await tick(); // the backend's CHAT_DELETED follows and changes nothing more
    expect(changed).toHaveBeenCalledTimes(1);
    expect(host.chats.has('c1')).toBe(false);
    // A closed-by-deletion window is no explicit choice: an automatic one may fill it.
    await h.api.chat.select('c2', { automatic: true });
    expect(ctx.getCurrentChatId()).toBe('Seraphina - c2');
  });

  it('deleteCharacterChat rejects unknown characters and chats, deleting nothing', async () => {
    const { host, h } = await setupLifecycle(twoChats);
    const ctx = h.getContext();
    await expect(ctx.deleteCharacterChat(7, 'Seraphina - c1')).rejects.toMatchObject({ code: 'character.not_found' });
    await expect(ctx.deleteCharacterChat(0, 'Seraphina - nope.jsonl')).rejects.toMatchObject({ code: 'chat.not_found' });
    await expect(ctx.deleteCharacterChat(1, 'Seraphina - c1')).rejects.toMatchObject({ code: 'chat.not_found' });
    await expect(ctx.deleteCharacterChat(0, '')).rejects.toMatchObject({ code: 'validation.invalid_argument' });
    await expect(ctx.deleteCharacterChat(-1, 'Seraphina - c1')).rejects.toMatchObject({ code: 'validation.invalid_argument' });
    expect(host.count('chat.delete')).toBe(0);
    expect(host.chats.size).toBe(3);
  });
});
