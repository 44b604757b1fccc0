// The frame client against the real bridge, over a wire that copies every
// message with structuredClone and delivers it on a later task, as
// postMessage does.
import { describe, expect, it, vi } from 'vitest';
import type { ExtensionPermission } from '../../abi/types-extensions';
import { createBridge, type Bridge } from '../bridge';
import type { StartHook } from '../protocol';
import { createRegistry } from '../registry';
import { entry, fakePage, flush, wire, type FakeFrameGlobal, type FakePage } from '../testing/fakes';
import { createFrameClient } from './client';
import type { FrameNamespace, HearthFrameAbi } from './types';

interface Setup {
  page: FakePage;
  bridge: Bridge;
  g: FakeFrameGlobal;
  hearth: HearthFrameAbi;
  activated: ReturnType<typeof vi.fn>;
  failed: string[];
}

async function setup(grant: ExtensionPermission[], activate: string | null = null, prepare?: (g: FakeFrameGlobal) => void, startHook: StartHook | null = null): Promise<Setup> {
  const page = fakePage([entry('demo', grant)]);
  const registry = createRegistry(() => page.api.extensions.list());
  await registry.fresh();
  const bridge = createBridge({ api: page.api, capabilities: page.hearth.capabilities, registry, notify: vi.fn() });
  const g = wire(bridge);
  prepare?.(g);
  const activated = vi.fn();
  const failed: string[] = [];
  bridge.attach('demo', g.contentWindow, { activate, startHook, onHello() {}, onActivated: activated, onFailed: (e) => void failed.push(e) });
  const hearth = createFrameClient(g);
  return { page, bridge, g, hearth, activated, failed };
}

function ns(h: HearthFrameAbi, name: string): FrameNamespace {
  return h.api[name] as FrameNamespace;
}

describe('the frame client', () => {
  it('says hello, then builds __HEARTH__ from the welcome', async () => {
    const s = await setup(['chat.read']);
    expect(s.g.sent[0]).toEqual({ protocol: 'hearth.ext', v: 1, kind: 'hello', path: '/ext/demo/index.html' });
    expect(() => s.hearth.capabilities()).toThrow(expect.objectContaining({ code: 'host.not_ready' }) as Error);
    expect(s.hearth.extension).toBeNull();
    expect(Object.keys(s.hearth.api)).toEqual(['events']);
    await s.hearth.ready;
    expect(s.hearth.abiVersion).toBe(1);
    expect(s.hearth.extension).toEqual({ id: 'demo', permissions: ['chat.read'] });
    expect(typeof ns(s.hearth, 'chat').getMessages).toBe('function');
    expect(typeof (ns(s.hearth, 'extensions').storage as FrameNamespace).get).toBe('function');
    expect(ns(s.hearth, 'state').updateChatState).toBeUndefined();
    expect(s.hearth.capabilities()).toMatchObject({ abiVersion: 1, ui: ['ui.notify'], features: ['chat.revision'] });
    expect(Object.isFrozen(s.hearth.api)).toBe(true);
  });

  it('takes the window\'s theme as its page\'s color-scheme, at the welcome and when it changes', async () => {
    const s = await setup([]);
    const root = s.g.document.documentElement!;
    expect(root.style.colorScheme).toBe('');
    await s.hearth.ready;
    expect(root.style.colorScheme).toBe('dark');
    s.bridge.setTheme('light');
    await flush();
    expect(root.style.colorScheme).toBe('light');
    expect(root.dataset.hearthTheme).toBe('light');
  });

  it('calls the page api and settles with its answer', async () => {
    const s = await setup(['chat.read']);
    await s.hearth.ready;
    const chat = ns(s.hearth, 'chat') as Record<string, (...a: unknown[]) => Promise<unknown>>;
    await expect(chat.getMessages!('c1', { tail: 2 })).resolves.toEqual([{ id: 'm1', chatId: 'c1', content: 'hi' }]);
    expect(s.page.calls).toEqual([['chat.getMessages', ['c1', { tail: 2 }]]]);
  });

  it('rejects with a HostError of the same code, message and details', async () => {
    const s = await setup(['chat.read']);
    await s.hearth.ready;
    const chat = ns(s.hearth, 'chat') as Record<string, (...a: unknown[]) => Promise<unknown>>;
    const err = (await chat.addMessages!('c1', { mes: 'x' }).catch((e: unknown) => e)) as Error & { code: string; details: unknown };
    expect(err).toBeInstanceOf(Error);
    expect(err.name).toBe('HostError');
    expect(err.code).toBe('auth.denied');
    expect(err.details).toEqual({ permission: 'chat.write', method: 'chat.addMessages' });
    const missing = (await chat.get!('c9').catch((e: unknown) => e)) as { code: string; message: string; details: unknown };
    expect(missing).toMatchObject({ code: 'chat.not_found', message: 'no chat c9', details: { chatId: 'c9' } });
  });

  it('rejects arguments that cannot be copied, without posting them', async () => {
    const s = await setup(['chat.write']);
    await s.hearth.ready;
    const chat = ns(s.hearth, 'chat') as Record<string, (...a: unknown[]) => Promise<unknown>>;
    await expect(chat.addMessages!('c1', { mes: 'x', fn: () => 1 })).rejects.toMatchObject({ code: 'validation.invalid_argument' });
    expect(s.page.calls).toEqual([]);
  });

  it('routes ui.notify to the window', async () => {
    const s = await setup(['notify']);
    await expect(s.hearth.ui.notify('Saved')).resolves.toBeUndefined();
  });

  it('subscribes on the first handler of a type and leaves on the last', async () => {
    const s = await setup(['chat.read']);
    const seen: unknown[] = [];
    const h = (p: unknown) => void seen.push(p);
    s.hearth.api.events.on('message_sent', h);
    s.hearth.api.events.once('message_sent', () => seen.push('once'));
    await s.hearth.ready;
    await flush();
    expect(s.g.sent.filter((m) => m.kind === 'subscribe')).toEqual([expect.objectContaining({ type: 'message_sent' })]);
    s.page.emit('message_sent', { chatId: 'c1', index: 3 });
    s.page.emit('message_sent', { chatId: 'c1', index: 4 });
    await flush();
    expect(seen).toEqual([{ chatId: 'c1', index: 3 }, 'once', { chatId: 'c1', index: 4 }]);
    expect(Object.isFrozen(seen[0])).toBe(true);
    s.hearth.api.events.off('message_sent', h);
    expect(s.g.sent.filter((m) => m.kind === 'unsubscribe')).toEqual([expect.objectContaining({ type: 'message_sent' })]);
    expect(s.hearth.api.events.types.MESSAGE_SENT).toBe('message_sent');
  });

  it('fires APP_READY after the handshake, and again for handlers added later', async () => {
    const s = await setup([]);
    const early = vi.fn();
    s.hearth.api.events.on('app_ready', early);
    await s.hearth.ready;
    expect(early).toHaveBeenCalledTimes(1);
    const late = vi.fn();
    s.hearth.api.events.on('app_ready', late);
    expect(late).toHaveBeenCalledTimes(1);
    expect(s.g.sent.some((m) => m.kind === 'subscribe')).toBe(false);
  });

  it('ignores messages that do not come from its parent', async () => {
    const s = await setup([]);
    s.g.fire('message', { source: {}, origin: 'http://127.0.0.1:8080', data: { protocol: 'hearth.ext', v: 1, kind: 'welcome', extension: { id: 'evil', permissions: ['agent'] }, capabilities: { methods: [], ui: [], eventTypes: {} }, activate: null } });
    await s.hearth.ready;
    expect(s.hearth.extension?.id).toBe('demo');
  });
});

describe('activation', () => {
  it('reports activated once the page has loaded, when there is no hook', async () => {
    const s = await setup([]);
    await flush();
    expect(s.activated).not.toHaveBeenCalled();
    s.g.loaded();
    await flush();
    expect(s.activated).toHaveBeenCalledTimes(1);
  });

  it('awaits the activate hook with __HEARTH__ before reporting activated', async () => {
    let done!: () => void;
    const hook = vi.fn(() => new Promise<void>((r) => (done = r)));
    const s = await setup([], 'startMood', (g) => (g.startMood = hook));
    s.g.loaded();
    await flush();
    expect(hook).toHaveBeenCalledWith(s.hearth);
    expect(s.activated).not.toHaveBeenCalled();
    done();
    await flush();
    expect(s.activated).toHaveBeenCalledTimes(1);
    expect(s.failed).toEqual([]);
  });

  it('runs the hook for why the frame started before activate, and names it when it fails', async () => {
    const order: string[] = [];
    const s = await setup(
      [],
      'go',
      (g) => {
        g.onInstall = async () => void order.push('install');
        g.go = async () => void order.push('activate');
      },
      { reason: 'install', name: 'onInstall' },
    );
    s.g.loaded();
    await flush();
    expect(order).toEqual(['install', 'activate']);
    expect(s.activated).toHaveBeenCalledTimes(1);
    const t = await setup(
      [],
      'go',
      (g) => {
        g.onUpdate = () => {
          throw new Error('old data');
        };
        g.go = vi.fn();
      },
      { reason: 'update', name: 'onUpdate' },
    );
    t.g.loaded();
    await flush();
    expect(t.failed).toEqual(['its update hook (onUpdate) failed: old data']);
    expect(t.g.go).not.toHaveBeenCalled();
  });

  it('reports a hook that throws, or that is not a function', async () => {
    const s = await setup([], 'startMood', (g) => {
      g.startMood = async () => {
        throw new Error('no storage');
      };
    });
    s.g.loaded();
    await flush();
    expect(s.failed).toEqual(['its activate hook (startMood) failed: no storage']);
    const t = await setup([], 'missing');
    t.g.loaded();
    await flush();
    expect(t.failed).toEqual([expect.stringContaining('"missing", which is not a function')]);
    expect(t.activated).not.toHaveBeenCalled();
  });

  it('reports an uncaught error while the page starts', async () => {
    const s = await setup([]);
    s.g.fire('error', { message: 'Uncaught ReferenceError: x is not defined', error: new ReferenceError('x is not defined') });
    s.g.loaded();
    await flush();
    expect(s.failed).toEqual(['an uncaught error while it started: x is not defined']);
    expect(s.activated).not.toHaveBeenCalled();
    // After it settled, later errors are the extension's own business.
    s.g.fire('unhandledrejection', { reason: new Error('later') });
    await flush();
    expect(s.failed).toHaveLength(1);
  });
});

describe('prompt hooks', () => {
  /** hook posts a 'hook' message to the frame as the window would. */
  function hook(s: Setup, message: Record<string, unknown>): void {
    s.g.contentWindow.postMessage({ protocol: 'hearth.ext', v: 1, kind: 'hook', ...message }, '*');
  }
  const results = (s: Setup) => s.g.sent.filter((m) => m.kind === 'hookResult');

  it('awaits its handlers in order on the payload and answers with what they left', async () => {
    const s = await setup(['prompt.hooks']);
    await s.hearth.ready;
    const order: string[] = [];
    s.hearth.api.events.on('chat_completion_prompt_ready', async (p) => {
      const data = p as unknown as { chat: unknown[] };
      await new Promise((r) => setTimeout(r, 5));
      order.push('first');
      data.chat.push('first');
    });
    s.hearth.api.events.on('chat_completion_prompt_ready', (p) => {
      const data = p as unknown as { chat: unknown[] };
      order.push('second');
      data.chat = [...data.chat, 'second'];
    });
    hook(s, { id: 7, type: 'chat_completion_prompt_ready', payload: { chat: [], dryRun: true, chatId: 'c1' } });
    await vi.waitFor(() => expect(results(s)).toHaveLength(1));
    expect(order).toEqual(['first', 'second']);
    expect(results(s)[0]).toMatchObject({ id: 7, ok: true, chat: ['first', 'second'] });
  });

  it('answers a failure when a handler throws or leaves what cannot be copied', async () => {
    const s = await setup(['prompt.hooks']);
    await s.hearth.ready;
    let mode = 'throw';
    s.hearth.api.events.on('chat_completion_prompt_ready', (p) => {
      if (mode === 'throw') throw new Error('no oil');
      (p as unknown as { chat: unknown }).chat = [() => 1];
    });
    hook(s, { id: 1, type: 'chat_completion_prompt_ready', payload: { chat: [], dryRun: false, chatId: 'c1' } });
    await vi.waitFor(() => expect(results(s)).toHaveLength(1));
    mode = 'uncloneable';
    hook(s, { id: 2, type: 'chat_completion_prompt_ready', payload: { chat: [], dryRun: false, chatId: 'c1' } });
    await vi.waitFor(() => expect(results(s)).toHaveLength(2));
    expect(results(s)[0]).toMatchObject({ id: 1, ok: false, error: 'no oil' });
    expect(results(s)[1]).toMatchObject({ id: 2, ok: false, error: expect.stringMatching(/cannot be copied to the window/) as string });
  });

  it('ignores a hook for another event type, or without a chat', async () => {
    const s = await setup(['prompt.hooks']);
    await s.hearth.ready;
    const ran = vi.fn();
    s.hearth.api.events.on('message_sent', ran);
    s.hearth.api.events.on('chat_completion_prompt_ready', ran);
    hook(s, { id: 1, type: 'message_sent', payload: { chat: [], dryRun: false, chatId: 'c1' } });
    hook(s, { id: 2, type: 'chat_completion_prompt_ready', payload: { chat: 'text' } });
    hook(s, { id: 3, type: 'chat_completion_prompt_ready', payload: null });
    hook(s, { id: '4', type: 'chat_completion_prompt_ready', payload: { chat: [] } });
    await flush();
    expect(ran).not.toHaveBeenCalled();
    expect(results(s)).toEqual([]);
  });
});
