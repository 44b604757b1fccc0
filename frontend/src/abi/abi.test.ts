import { describe, expect, it, vi } from 'vitest';
import { createHearthAbi } from './abi';
import { FakeHost, tick } from './testing/fake-host';
import { setup } from './testing/setup';
import type { EventHandler } from './transport';
import type { EventPayload } from './types';

describe('ready and capabilities', () => {
  it('waits for connected, then loads capabilities, event types and characters', async () => {
    const host = new FakeHost();
    let connect!: () => void;
    const h = createHearthAbi(host, { connected: new Promise<void>((r) => (connect = r)) });
    expect(() => h.capabilities()).toThrow(expect.objectContaining({ code: 'host.not_ready' }) as Error);
    await tick();
    expect(host.calls).toEqual([]);
    connect();
    await h.ready;
    expect(h.abiVersion).toBe(1);
    expect(h.capabilities()).toMatchObject({ abiVersion: 1, namespaces: { chat: 1 }, features: ['chat.revision'] });
    expect(h.capabilities().methods).toContain('chat.get');
    expect(h.api.events.types).toMatchObject({
      CHAT_CHANGED: 'chat_id_changed',
      HEARTH_TEST: 'hearth_test',
      APP_READY: 'app_ready',
      CHAT_LOAD_PROGRESS: 'chat_load_progress',
      USER_MESSAGE_RENDERED: 'user_message_rendered',
      CHARACTER_MESSAGE_RENDERED: 'character_message_rendered',
    });
    expect(h.getContext().eventTypes).toBe(h.api.events.types);
    expect(h.getContext().event_types).toBe(h.api.events.types);
    expect(h.getContext().characters.map((c) => c.name)).toEqual(['Seraphina']);
  });

  it('starts with the readable cards when one card cannot be read', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      const { h } = await setup((host) => {
        host.characters.push({ avatar: 'Broken.png', name: 'Broken' });
        const invoke = host.invoke.bind(host);
        host.invoke = async (method, args) => {
          if (method === 'characters.get' && args[0] === 'Broken.png') throw new RangeError('Maximum call stack size exceeded');
          return invoke(method, args);
        };
      });
      expect(h.getContext().characters.map((c) => c.name)).toEqual(['Seraphina']);
      expect(warn).toHaveBeenCalledWith(expect.stringContaining('"Broken.png"'), expect.objectContaining({ message: 'Maximum call stack size exceeded' }));
    } finally {
      warn.mockRestore();
    }
  });

  it('starts with a card nested far deeper than recursion allows, and freezes it', async () => {
    const deepCard = (name: string) => {
      const card: Record<string, unknown> = { avatar: 'Seraphina.png', name, extensions: {} };
      let at = card.extensions as Record<string, unknown>;
      for (let i = 0; i < 50_000; i++) at = (at.x = {}) as Record<string, unknown>;
      return { card, leaf: at };
    };
    const stored = deepCard('Seraphina');
    let deliver: EventHandler | null = null;
    const { h } = await setup((host) => {
      // Straight from the transport, as JSON.parse would hand it over (the
      // fake's JSON round trip could not copy it: JSON.stringify recurses).
      const invoke = host.invoke.bind(host);
      host.invoke = async (method, args) => (method === 'characters.get' ? stored.card : invoke(method, args));
      const subscribe = host.subscribe.bind(host);
      host.subscribe = (handler) => {
        deliver = handler;
        return subscribe(handler);
      };
    });
    expect(h.getContext().characters[0]).toBe(stored.card);
    expect(Object.isFrozen(stored.leaf)).toBe(true);
    const edited = deepCard('Deep');
    deliver!({ type: 'character_edited', payload: { avatar: 'Seraphina.png', character: edited.card } });
    expect(h.getContext().characters[0]!.name).toBe('Deep');
    expect(Object.isFrozen(edited.leaf)).toBe(true);
  });

  it('freezes the public objects', async () => {
    const { h } = await setup();
    for (const o of [h, h.api, h.api.chat, h.api.characters, h.api.events, h.getContext(), h.getContext().eventSource, h.capabilities()]) {
      expect(Object.isFrozen(o)).toBe(true);
    }
    expect(h.api.characters.avatarUrl('Sera phina/#1.png')).toBe('/api/avatar/Sera%20phina%2F%231.png');
  });
});

describe('api.events', () => {
  it('fans out every backend event with its structured payload, for any chat', async () => {
    const { host, h } = await setup();
    const got: EventPayload[] = [];
    h.api.events.on('chat_created', (p) => got.push(p));
    host.push('chat_created', { chatId: 'other', revision: 0, chat: { chatId: 'other' } });
    host.push('character_edited', { avatar: 'Seraphina.png', character: { avatar: 'Seraphina.png', name: 'Sera' } });
    expect(got).toEqual([{ chatId: 'other', revision: 0, chat: { chatId: 'other' } }]);
    expect(Object.isFrozen(got[0])).toBe(true);
    expect(h.getContext().characters[0]!.name).toBe('Sera');
  });

  it('has idempotent unsubscribes, safe to call late', async () => {
    const { host, h } = await setup();
    const seen = vi.fn();
    const off = h.api.events.on('x', seen);
    host.push('x', {});
    off();
    off();
    host.push('x', {});
    const twice = vi.fn();
    const offA = h.api.events.on('x', twice);
    h.api.events.off('x', twice);
    offA();
    h.api.events.off('x', twice);
    host.push('x', {});
    expect(seen).toHaveBeenCalledOnce();
    expect(twice).not.toHaveBeenCalled();
    const once = vi.fn();
    const offOnce = h.api.events.once('x', once);
    host.push('x', { n: 1 });
    host.push('x', { n: 2 });
    offOnce();
    expect(once).toHaveBeenCalledExactlyOnceWith({ n: 1 });
  });

  it('isolates a throwing handler and validates arguments', async () => {
    const { host, h } = await setup();
    const err = vi.spyOn(console, 'error').mockImplementation(() => {});
    const after = vi.fn();
    h.api.events.on('x', () => {
      throw new Error('bad handler');
    });
    h.api.events.on('x', after);
    host.push('x', {});
    expect(after).toHaveBeenCalledOnce();
    err.mockRestore();
    expect(() => h.api.events.on('', () => {})).toThrow(expect.objectContaining({ code: 'validation.invalid_argument' }) as Error);
    expect(() => h.api.events.on('x', 5 as unknown as () => void)).toThrow(/handler must be a function/);
  });
});

describe('APP_READY', () => {
  it('fires once ready and re-fires for late subscribers on both fan-outs', async () => {
    const host = new FakeHost();
    const h = createHearthAbi(host, { connected: Promise.resolve() });
    const es = h.getContext().eventSource;
    const early = vi.fn();
    es.on('app_ready', early);
    await h.ready;
    await tick();
    expect(early).toHaveBeenCalledOnce();
    const late = vi.fn();
    es.on(h.api.events.types.APP_READY!, late);
    expect(late).toHaveBeenCalledOnce();
    const lateOnce = vi.fn();
    es.once('app_ready', lateOnce);
    expect(lateOnce).toHaveBeenCalledOnce();
    const structured = vi.fn();
    h.api.events.on('app_ready', structured);
    expect(structured).toHaveBeenCalledExactlyOnceWith({});
  });
});

describe('eventSource fed from the backend', () => {
  it('passes SillyTavern positional arguments and delivers the current chat in order, one event at a time', async () => {
    const { host, h } = await setup((host) => host.addChat('c1', 3));
    await h.api.chat.select('c1');
    const es = h.getContext().eventSource;
    const log: string[] = [];
    es.on('message_received', async (index, type) => {
      log.push(`received:${String(index)}:${String(type)}:start`);
      await new Promise((r) => setTimeout(r, 20));
      log.push(`received:${String(index)}:end`);
    });
    es.on('message_sent', (index) => void log.push(`sent:${String(index)}`));
    es.on('message_deleted', (length) => void log.push(`deleted:${String(length)}`));
    es.on('message_edited', (index) => void log.push(`edited:${String(index)}`));
    es.on('message_updated', (index) => void log.push(`updated:${String(index)}`));
    es.on('message_swipe_deleted', (arg) => void log.push(`swipe_deleted:${JSON.stringify(arg)}`));
    await h.api.chat.addMessages('c1', [{ mes: 'a' }, { mes: 'b', is_user: true }]);
    await h.api.chat.updateMessages('c1', { index: 0, patch: { mes: 'z' } });
    await h.api.chat.deleteMessages('c1', [0, 1]);
    const c = host.chat('c1');
    c.messages[0] = { ...c.messages[0]!, swipes: ['x'], swipe_id: 0 };
    host.commit(c, [['message_swipe_deleted', { index: 0, messageId: 0, id: c.messages[0].id, swipeId: 1, newSwipeId: 0, stMessage: c.messages[0] }]]);
    await tick();
    expect(log).toEqual(['received:3:normal:start']);
    await vi.waitFor(() => expect(log).toHaveLength(7), { timeout: 2000 });
    expect(log).toEqual([
      'received:3:normal:start',
      'received:3:end',
      'sent:4',
      'edited:0',
      'updated:0',
      'deleted:3',
      'swipe_deleted:{"messageId":0,"swipeId":1,"newSwipeId":0}',
    ]);
  });

  it('hears events of other chats only on api.events, and chat-less events on both', async () => {
    const { host, h } = await setup((host) => {
      host.addChat('c1', 1);
      host.addChat('c2', 1);
    });
    await h.api.chat.select('c1');
    const es = vi.fn();
    const structured = vi.fn();
    h.getContext().eventSource.on('message_received', es);
    h.getContext().eventSource.on('character_edited', es);
    h.api.events.on('message_received', structured);
    await h.api.chat.addMessages('c2', { mes: 'elsewhere' });
    await tick();
    host.push('character_edited', { avatar: 'Seraphina.png', character: { avatar: 'Seraphina.png', name: 'S' } });
    await tick();
    expect(structured).toHaveBeenCalledOnce();
    expect(structured.mock.calls[0]![0]).toMatchObject({ chatId: 'c2', index: 1, revision: 1 });
    expect(es).toHaveBeenCalledOnce();
    expect(es.mock.calls[0]![0]).toMatchObject({ avatar: 'Seraphina.png' });
  });

  it('mirrors the UI’s *_RENDERED emits to api.events', async () => {
    const { h } = await setup((host) => host.addChat('c1', 2));
    await h.api.chat.select('c1');
    const got = vi.fn();
    h.api.events.on('character_message_rendered', got);
    await h.getContext().eventSource.emit('character_message_rendered', 1, 'normal');
    expect(got).toHaveBeenCalledWith({ chatId: 'c1', index: 1, type: 'normal' });
  });
});
