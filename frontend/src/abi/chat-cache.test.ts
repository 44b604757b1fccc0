import { describe, expect, it, vi } from 'vitest';
import { SUPERSEDED } from './chat-cache';
import { IN_FLIGHT } from './chat-load';
import { message, tick, type FakeHost } from './testing/fake-host';
import { setup } from './testing/setup';
import type { EventPayload, HearthAbi } from './types';

const mes = (list: readonly { mes: string }[]) => list.map((m) => m.mes);

/** expectInSync checks the window cache and getContext() against the fake backend. */
function expectInSync(h: HearthAbi, host: FakeHost, chatId: string): void {
  const c = host.chat(chatId);
  expect(mes(h.getContext().chat)).toEqual(mes(c.messages));
  expect(h.getContext().chat.map((m) => m.id)).toEqual(c.messages.map((m) => m.id));
  expect(h.api.chat.loaded()).toMatchObject({ chatId, start: 0, total: c.messages.length, revision: c.revision });
  expect(h.getContext().chat_metadata).toEqual(c.metadata);
}

/** hold parks calls matching pred until release() is called. */
function hold(host: FakeHost, pred: (method: string, args: unknown[]) => boolean) {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let held = 0;
  host.gate = async (method, args) => {
    if (!pred(method, args)) return;
    held++;
    await gate;
  };
  return {
    release: () => {
      host.gate = null;
      release();
    },
    held: () => held,
  };
}

const isPage = (method: string, args: unknown[]) => method === 'chat.getStMessages' && typeof (args[1] as { before?: number })?.before === 'number';

describe('select: windowed loading', () => {
  it('shows the tail first with whole-chat indexes, fills backwards, then fires CHAT_CHANGED with the whole chat', async () => {
    const { host, h } = await setup((host) => host.addChat('c1', 30));
    const log: string[] = [];
    const windows: { start: number; total: number; mes: string[] }[] = [];
    h.api.events.on('chat_load_progress', (p) => {
      const l = h.api.chat.loaded()!;
      expect(p).toMatchObject({ chatId: 'c1', start: l.start, total: 30, revision: 0 });
      windows.push({ start: l.start, total: l.total, mes: mes(l.messages) });
      expect(h.getContext().chat).toHaveLength(0);
      expect(h.api.chat.current()).toEqual({ chatId: 'c1', avatar: 'Seraphina.png', groupId: null });
      log.push(`progress ${l.start}`);
      if (l.start === 20) setTimeout(() => log.push('a timer ran'), 0);
    });
    h.api.events.on('chat_id_changed', (p) => {
      log.push(`changed ${String(p.chatId)}`);
      expect(h.getContext().chat).toHaveLength(30);
    });
    h.getContext().eventSource.on('chat_id_changed', (chatId) => {
      log.push(`es changed ${String(chatId)}`);
      expect(h.getContext().getMessageCount()).toBe(30);
    });
    await h.api.chat.select('c1');
    await tick();
    expect(log).toEqual(['progress 20', 'a timer ran', 'progress 13', 'progress 6', 'progress 0', 'changed c1', 'es changed c1']);
    for (const w of windows) {
      expect(w.mes).toEqual(Array.from({ length: w.total - w.start }, (_, i) => `m${w.start + i}`));
    }
    const reads = host.calls.filter((c) => c.method === 'chat.getStMessages').map((c) => c.args[1]);
    expect(reads).toEqual([{ start: 20, end: 30 }, { before: 20, limit: 7 }, { before: 13, limit: 7 }, { before: 6, limit: 6 }]);
    expectInSync(h, host, 'c1');
    expect(h.getContext().getCurrentChatId()).toBe('Seraphina - c1');
    expect(Object.isFrozen(h.getContext().chat)).toBe(true);
    expect(Object.isFrozen(h.getContext().chat[0])).toBe(true);
  });

  it('keeps the next pages on their way while one is applied, never more than IN_FLIGHT', async () => {
    const { host, h } = await setup((host) => host.addChat('c1', 30));
    const gate = hold(host, isPage);
    const selecting = h.api.chat.select('c1');
    await vi.waitFor(() => expect(gate.held()).toBe(IN_FLIGHT));
    await tick();
    expect(gate.held()).toBe(IN_FLIGHT);
    gate.release();
    await selecting;
    expectInSync(h, host, 'c1');
  });

  it('loads an empty chat', async () => {
    const { host, h } = await setup((host) => host.addChat('c0', 0));
    await h.api.chat.select('c0');
    expectInSync(h, host, 'c0');
  });

  it('rejects an unknown chat and keeps the current one', async () => {
    const { h } = await setup((host) => host.addChat('c1', 2));
    await h.api.chat.select('c1');
    await expect(h.api.chat.select('nope')).rejects.toMatchObject({ code: 'chat.not_found' });
    expect(h.api.chat.current()?.chatId).toBe('c1');
    expect(h.getContext().chat).toHaveLength(2);
    await expect(h.api.chat.select(42 as unknown as string)).rejects.toMatchObject({ code: 'validation.invalid_argument' });
  });

  it('select(null) closes the chat and fires CHAT_CHANGED without a chat id', async () => {
    const { h } = await setup((host) => host.addChat('c1', 2));
    await h.api.chat.select('c1');
    const structured = vi.fn();
    const st = vi.fn();
    h.api.events.on('chat_id_changed', structured);
    h.getContext().eventSource.on('chat_id_changed', st);
    await h.api.chat.select(null);
    await tick();
    expect(structured).toHaveBeenCalledWith({});
    expect(st).toHaveBeenCalledWith(undefined);
    expect(h.api.chat.current()).toBeNull();
    expect(h.api.chat.loaded()).toBeNull();
    expect(h.getContext().chat).toEqual([]);
    expect(h.getContext().getCurrentChatId()).toBeUndefined();
  });

  it('a newer select cancels an older one still loading', async () => {
    const { host, h } = await setup((host) => {
      host.addChat('c1', 30);
      host.addChat('c2', 5);
    });
    const changed: EventPayload[] = [];
    h.api.events.on('chat_id_changed', (p) => changed.push(p));
    const gate = hold(host, isPage);
    const first = h.api.chat.select('c1');
    await vi.waitFor(() => expect(gate.held()).toBeGreaterThanOrEqual(1));
    const second = h.api.chat.select('c2');
    gate.release();
    await expect(first).rejects.toMatchObject({ code: SUPERSEDED });
    await second;
    expect(changed).toEqual([{ chatId: 'c2' }]);
    expectInSync(h, host, 'c2');
  });

  it('a failed newer select leaves no half-loaded chat behind', async () => {
    const { host, h } = await setup((host) => host.addChat('c1', 30));
    const gate = hold(host, isPage);
    const first = h.api.chat.select('c1');
    await vi.waitFor(() => expect(gate.held()).toBeGreaterThanOrEqual(1));
    const second = h.api.chat.select('missing');
    await expect(second).rejects.toMatchObject({ code: 'chat.not_found' });
    gate.release();
    await expect(first).rejects.toMatchObject({ code: SUPERSEDED });
    expect(h.api.chat.current()).toBeNull();
    expect(h.api.chat.loaded()).toBeNull();
  });

  it('starts over when the chat changes while pages load, without replaying what the load already holds', async () => {
    const { host, h } = await setup((host) => host.addChat('c1', 30));
    const received = vi.fn();
    h.getContext().eventSource.on('message_received', received);
    const gate = hold(host, isPage);
    const selecting = h.api.chat.select('c1');
    await vi.waitFor(() => expect(gate.held()).toBeGreaterThanOrEqual(1));
    await h.api.chat.addMessages('c1', { mes: 'during load' });
    await h.api.chat.deleteMessages('c1', 3);
    await tick();
    gate.release();
    await selecting;
    expectInSync(h, host, 'c1');
    expect(h.getContext().chat.at(-1)?.mes).toBe('during load');
    await tick();
    expect(received).not.toHaveBeenCalled();
  });

  it('starts over when a silent change happened during the load', async () => {
    const { host, h } = await setup((host) => host.addChat('c1', 30));
    const gate = hold(host, isPage);
    const selecting = h.api.chat.select('c1');
    await vi.waitFor(() => expect(gate.held()).toBeGreaterThanOrEqual(1));
    await h.api.chat.addMessages('c1', { mes: 'quiet' }, { silent: true });
    gate.release();
    await selecting;
    expectInSync(h, host, 'c1');
  });
});

describe('the live cache', () => {
  it('applies message, delete, patch and metadata events in revision order', async () => {
    const { host, h } = await setup((host) => host.addChat('c1', 5));
    await h.api.chat.select('c1');
    await h.api.chat.addMessages('c1', [{ mes: 'a' }, { mes: 'b', is_user: true }]);
    await tick();
    expectInSync(h, host, 'c1');
    await h.api.chat.updateMessages('c1', [{ index: 0, patch: { mes: 'zero' } }, { index: 6, patch: { mes: 'B' } }]);
    await tick();
    expectInSync(h, host, 'c1');
    await h.api.chat.deleteMessages('c1', [1, 3]);
    await tick();
    expectInSync(h, host, 'c1');
    await h.api.chat.saveMetadata('c1', { note: 'kept' });
    await tick();
    expectInSync(h, host, 'c1');

    const c = host.chat('c1');
    const added = message('patched in');
    c.messages.splice(1, 1, added);
    c.metadata = { note: 'kept', mood: 'calm' };
    host.commit(c, [
      [
        'chat_patched',
        {
          ops: [
            { op: 'remove', path: '/messages/1' },
            { op: 'add', path: '/messages/1', value: added },
            { op: 'add', path: '/metadata/mood', value: 'calm' },
          ],
          length: c.messages.length,
        },
      ],
    ]);
    await tick();
    expectInSync(h, host, 'c1');
    expect(host.count('chat.get')).toBe(2);
  });

  it('ignores events it already has and resyncs on a revision gap', async () => {
    const { host, h } = await setup((host) => host.addChat('c1', 5));
    await h.api.chat.select('c1');
    const c = host.chat('c1');
    await h.api.chat.addMessages('c1', { mes: 'six' });
    await tick();
    const before = h.getContext().chat;
    const six = before[5]!;
    host.push('message_received', { chatId: 'c1', revision: 1, index: 5, id: six.id, stMessage: six, type: 'normal' });
    host.push('message_received', { chatId: 'c1', revision: 0, index: 5, id: 'old', stMessage: message('old') });
    expect(h.getContext().chat).toBe(before);
    const gets = host.count('chat.get');

    host.lose = true;
    await h.api.chat.addMessages('c1', { mes: 'lost' });
    host.lose = false;
    await h.api.chat.addMessages('c1', { mes: 'after the gap' });
    await tick(10);
    expect(host.count('chat.get')).toBeGreaterThan(gets);
    expectInSync(h, host, 'c1');
    expect(c.revision).toBe(3);
  });

  it('finishes a resync that a failed select interrupted', async () => {
    const { host, h } = await setup((host) => host.addChat('c1', 20));
    await h.api.chat.select('c1');
    const gate = hold(host, isPage);
    host.lose = true;
    await h.api.chat.addMessages('c1', { mes: 'lost' });
    host.lose = false;
    await h.api.chat.addMessages('c1', { mes: 'gap' });
    await vi.waitFor(() => expect(gate.held()).toBeGreaterThanOrEqual(1));
    await expect(h.api.chat.select('missing')).rejects.toMatchObject({ code: 'chat.not_found' });
    gate.release();
    await vi.waitFor(() => expectInSync(h, host, 'c1'));
    expect(h.api.chat.current()?.chatId).toBe('c1');
  });

  it('resyncs when an event does not fit the cache', async () => {
    const { host, h } = await setup((host) => host.addChat('c1', 3));
    await h.api.chat.select('c1');
    const c = host.chat('c1');
    c.messages[1] = { ...c.messages[1]!, mes: 'changed' };
    host.commit(c, [['message_edited', { index: 1, id: 'not-the-id', stMessage: { ...c.messages[1], id: 'not-the-id' } }]]);
    const progress = vi.fn();
    h.api.events.on('chat_load_progress', progress);
    await tick(10);
    expectInSync(h, host, 'c1');
    expect(progress).toHaveBeenCalledWith({ chatId: 'c1', start: 0, total: 3, revision: 1 });
  });

  it('follows renames and closes when the chat is deleted', async () => {
    const { host, h } = await setup((host) => host.addChat('c1', 3));
    await h.api.chat.select('c1');
    host.push('chat_renamed', { chatId: 'c1', revision: 0, oldFileName: 'Seraphina - c1', fileName: 'Forest talk' });
    expect(h.getContext().getCurrentChatId()).toBe('Forest talk');
    const changed = vi.fn();
    const deleted = vi.fn();
    h.api.events.on('chat_id_changed', changed);
    h.getContext().eventSource.on('chat_deleted', deleted);
    host.push('chat_deleted', { chatId: 'c1', revision: 0, fileName: 'Forest talk', avatar: 'Seraphina.png' });
    expect(h.api.chat.current()).toBeNull();
    expect(changed).toHaveBeenCalledWith({});
    await tick();
    expect(deleted).toHaveBeenCalledWith(expect.objectContaining({ chatId: 'c1' }));
  });
});

describe('select: automatic choices yield to explicit ones', () => {
  const isGet = (method: string) => method === 'chat.get';

  it('an automatic select made while an explicit one is under way changes nothing', async () => {
    const { host, h } = await setup((host) => {
      host.addChat('c1', 30);
      host.addChat('c2', 5);
    });
    const gate = hold(host, isGet);
    const explicit = h.api.chat.select('c1');
    await vi.waitFor(() => expect(gate.held()).toBe(1));
    await expect(h.api.chat.select('c2', { automatic: true })).rejects.toMatchObject({
      code: SUPERSEDED,
      details: { reason: 'explicit' },
    });
    gate.release();
    await explicit;
    expectInSync(h, host, 'c1');
    expect(host.calls.some((c) => c.args[0] === 'c2')).toBe(false);
  });

  it('an automatic select does not replace a chat an explicit select opened', async () => {
    const { host, h } = await setup((host) => {
      host.addChat('c1', 3);
      host.addChat('c2', 3);
    });
    await h.api.chat.select('c1');
    const changed = vi.fn();
    h.api.events.on('chat_id_changed', changed);
    await expect(h.api.chat.select(null, { automatic: true })).rejects.toMatchObject({ code: SUPERSEDED });
    await expect(h.api.chat.select('c2', { automatic: true })).rejects.toMatchObject({ code: SUPERSEDED });
    expectInSync(h, host, 'c1');
    expect(changed).not.toHaveBeenCalled();
  });

  it('an explicit select replaces an automatic one still loading', async () => {
    const { host, h } = await setup((host) => {
      host.addChat('c1', 30);
      host.addChat('c2', 5);
    });
    const gate = hold(host, isPage);
    const automatic = h.api.chat.select('c1', { automatic: true });
    await vi.waitFor(() => expect(gate.held()).toBeGreaterThanOrEqual(1));
    const explicit = h.api.chat.select('c2');
    gate.release();
    await expect(automatic).rejects.toMatchObject({ code: SUPERSEDED });
    await explicit;
    expectInSync(h, host, 'c2');
  });

  it('automatic selects replace each other, and replace nothing once an explicit choice was made', async () => {
    const { host, h } = await setup((host) => {
      host.addChat('c1', 3);
      host.addChat('c2', 3);
    });
    await h.api.chat.select('c1', { automatic: true });
    await h.api.chat.select('c2', { automatic: true });
    expectInSync(h, host, 'c2');
    await h.api.chat.select(null);
    await expect(h.api.chat.select('c1', { automatic: true })).rejects.toMatchObject({ code: SUPERSEDED });
    expect(h.api.chat.current()).toBeNull();
  });

  it('the explicit choice lapses when it fails or its chat is deleted', async () => {
    const { host, h } = await setup((host) => {
      host.addChat('c1', 3);
      host.addChat('c2', 3);
    });
    await expect(h.api.chat.select('missing')).rejects.toMatchObject({ code: 'chat.not_found' });
    await h.api.chat.select('c1', { automatic: true });
    await h.api.chat.select('c1');
    host.push('chat_deleted', { chatId: 'c1', revision: 0, fileName: 'Seraphina - c1', avatar: 'Seraphina.png' });
    expect(h.api.chat.current()).toBeNull();
    await h.api.chat.select('c2', { automatic: true });
    expectInSync(h, host, 'c2');
  });

  it('a failed explicit select keeps the explicit chat it did not replace', async () => {
    const { host, h } = await setup((host) => {
      host.addChat('c1', 3);
      host.addChat('c2', 3);
    });
    await h.api.chat.select('c1');
    await expect(h.api.chat.select('missing')).rejects.toMatchObject({ code: 'chat.not_found' });
    await expect(h.api.chat.select('c2', { automatic: true })).rejects.toMatchObject({ code: SUPERSEDED });
    expectInSync(h, host, 'c1');
  });

  it('deleting the current chat does not cancel a newer select under way', async () => {
    const { host, h } = await setup((host) => {
      host.addChat('c1', 3);
      host.addChat('c2', 3);
    });
    await h.api.chat.select('c1');
    const gate = hold(host, isGet);
    const next = h.api.chat.select('c2');
    await vi.waitFor(() => expect(gate.held()).toBe(1));
    host.push('chat_deleted', { chatId: 'c1', revision: 0, fileName: 'Seraphina - c1', avatar: 'Seraphina.png' });
    gate.release();
    await next;
    expectInSync(h, host, 'c2');
    await expect(h.api.chat.select('c1', { automatic: true })).rejects.toMatchObject({ code: SUPERSEDED });
  });

  it('refuses options that are not an object with a boolean automatic', async () => {
    const { h } = await setup((host) => host.addChat('c1', 3));
    await expect(h.api.chat.select('c1', 'yes' as never)).rejects.toMatchObject({ code: 'validation.invalid_argument' });
    await expect(h.api.chat.select('c1', { automatic: 1 } as never)).rejects.toMatchObject({ code: 'validation.invalid_argument' });
    expect(h.api.chat.current()).toBeNull();
  });
});
