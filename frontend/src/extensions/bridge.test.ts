import { describe, expect, it, vi } from 'vitest';
import type { ExtensionPermission } from '../abi/types-extensions';
import { createBridge, type Bridge, type FrameHooks } from './bridge';
import { CALL_RATE, IN_FLIGHT, QUEUED } from './rate-limit';
import { createRegistry, type ExtensionRegistry } from './registry';
import { entry, fakePage, FakeFrame, flush, send, type FakePage } from './testing/fakes';

interface Setup {
  page: FakePage;
  bridge: Bridge;
  frame: FakeFrame;
  hooks: FrameHooks & { failed: string[] };
  detach: () => void;
  notify: ReturnType<typeof vi.fn>;
  clock: { t: number };
  registry: ExtensionRegistry;
}

/** setup attaches one frame of the extension "demo" (granted grant) and says hello for it. */
async function setup(grant: ExtensionPermission[], opts: { hello?: boolean } = {}): Promise<Setup> {
  const page = fakePage([entry('demo', grant), entry('other', ['chat.read'])]);
  const clock = { t: 0 };
  const registry = createRegistry(() => page.api.extensions.list(), () => clock.t);
  await registry.fresh();
  const notify = vi.fn();
  const bridge = createBridge({ api: page.api, capabilities: page.hearth.capabilities, registry, notify, now: () => clock.t });
  const failed: string[] = [];
  const hooks = { activate: 'start', onHello: vi.fn(), onActivated: vi.fn(), onFailed: (e: string) => void failed.push(e), failed };
  const frame = new FakeFrame();
  const detach = bridge.attach('demo', frame, hooks);
  if (opts.hello !== false) send(bridge, frame, { kind: 'hello', path: '/ext/demo/index.html' });
  return { page, bridge, frame, hooks, detach, notify, clock, registry };
}

/** callAndWait sends call id and waits for its answer. */
async function callAndWait(s: Setup, id: number, method: string, args: unknown[] = []) {
  send(s.bridge, s.frame, { kind: 'call', id, method, args });
  await flush();
  return s.frame.result(id);
}

describe('the bridge refuses what is not a frame of its own', () => {
  it('ignores messages from windows it did not attach, from a real origin, and of another shape', async () => {
    const s = await setup(['chat.read']);
    const before = s.frame.posted.length;
    const stranger = new FakeFrame();
    send(s.bridge, stranger, { kind: 'call', id: 1, method: 'chat.getMessages', args: ['c1'] });
    s.bridge.onMessage({ source: null, origin: 'null', data: { protocol: 'hearth.ext', v: 1, kind: 'hello', path: '/ext/demo/x' } });
    send(s.bridge, s.frame, { kind: 'call', id: 2, method: 'chat.getMessages', args: ['c1'] }, 'http://127.0.0.1:8080');
    send(s.bridge, s.frame, { protocol: 'hearth.ext', v: 2, kind: 'call', id: 3, method: 'chat.getMessages', args: [] });
    send(s.bridge, s.frame, { protocol: 'other', v: 1, kind: 'call', id: 4, method: 'chat.getMessages', args: [] });
    s.bridge.onMessage({ source: s.frame as unknown as MessageEventSource, origin: 'null', data: 'hello' });
    s.bridge.onMessage({ source: s.frame as unknown as MessageEventSource, origin: 'null', data: [1, 2] });
    await flush();
    expect(s.frame.posted.length).toBe(before);
    expect(stranger.posted).toEqual([]);
    expect(s.page.calls).toEqual([]);
    expect(s.bridge.stats().reasons).toEqual({ source: 2, origin: 1, shape: 4 });
  });

  it('ignores malformed calls and subscriptions', async () => {
    const s = await setup(['chat.read']);
    const bad: Record<string, unknown>[] = [
      { kind: 'call', id: -1, method: 'chat.getMessages', args: [] },
      { kind: 'call', id: 1.5, method: 'chat.getMessages', args: [] },
      { kind: 'call', id: '7', method: 'chat.getMessages', args: [] },
      { kind: 'call', id: 8, method: 'chat.getMessages', args: 'c1' },
      { kind: 'call', id: 9, method: 'chat.getMessages', args: Array(17).fill(0) },
      { kind: 'call', id: 10, method: '__proto__.x', args: [] },
      { kind: 'call', id: 11, method: 'chat', args: [] },
      { kind: 'call', id: 12, method: `chat.${'x'.repeat(100)}`, args: [] },
      { kind: 'subscribe', type: '' },
      { kind: 'subscribe', type: 'x'.repeat(129) },
      { kind: 'unsubscribe', type: 42 },
      { kind: 'bogus' },
    ];
    for (const m of bad) send(s.bridge, s.frame, { protocol: 'hearth.ext', v: 1, ...m });
    await flush();
    expect(s.frame.of('result')).toEqual([]);
    expect(s.page.calls).toEqual([]);
    expect(s.bridge.stats().ignored).toBe(bad.length);
  });

  it('answers nothing before the hello', async () => {
    const s = await setup(['chat.read'], { hello: false });
    send(s.bridge, s.frame, { kind: 'call', id: 1, method: 'chat.getMessages', args: ['c1'] });
    await flush();
    expect(s.frame.posted).toEqual([]);
    expect(s.bridge.stats().reasons).toEqual({ 'before-hello': 1 });
  });

  it('refuses oversized or non-JSON arguments before any api call', async () => {
    const s = await setup(['chat.write']);
    let deep: unknown = 'leaf';
    for (let i = 0; i < 40; i++) deep = [deep];
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const cases: unknown[][] = [['c1', deep], ['c1', 'x'.repeat((8 << 20) + 1)], ['c1', Array(250_001).fill(0)], ['c1', new Map()], ['c1', cyclic], ['c1', new Date()]];
    let id = 1;
    for (const args of cases) {
      const r = await callAndWait(s, id++, 'chat.addMessages', args);
      expect(r).toMatchObject({ ok: false, error: { code: 'validation.invalid_argument' } });
    }
    expect(s.page.calls).toEqual([]);
    expect(s.bridge.stats().reasons['call-bounds']).toBe(cases.length);
  });

  it('forgets a detached frame: its messages are ignored and its answers dropped', async () => {
    const s = await setup(['chat.read']);
    let release!: () => void;
    s.page.api.chat.getMessages = (async () => {
      await new Promise<void>((r) => (release = r));
      return [];
    }) as never;
    send(s.bridge, s.frame, { kind: 'call', id: 1, method: 'chat.getMessages', args: ['c1'] });
    await flush();
    s.detach();
    release();
    await flush();
    expect(s.frame.result(1)).toBeUndefined();
    send(s.bridge, s.frame, { kind: 'call', id: 2, method: 'chat.getMessages', args: ['c1'] });
    expect(s.bridge.stats().reasons.source).toBe(1);
  });

  it('fails a frame that loaded a page of another package', async () => {
    const s = await setup(['chat.read'], { hello: false });
    send(s.bridge, s.frame, { kind: 'hello', path: '/ext/other/index.html' });
    expect(s.hooks.failed).toEqual([expect.stringContaining('/ext/other/index.html')]);
    expect(s.frame.posted).toEqual([]);
  });
});

describe('the handshake', () => {
  it('welcomes the frame with its grant, the methods offered and the activate hook', async () => {
    const s = await setup(['chat.read', 'notify']);
    const [w] = s.frame.of('welcome');
    expect(w).toMatchObject({ extension: { id: 'demo', permissions: ['chat.read', 'notify'] }, activate: 'start', capabilities: { abiVersion: 1, ui: ['ui.notify'] } });
    expect(w!.capabilities.methods).toEqual(expect.arrayContaining(['chat.getMessages', 'chat.current', 'extensions.install', 'extensions.storage.get']));
    expect(w!.capabilities.methods).not.toContain('state.updateChatState');
    expect(w!.capabilities.methods).not.toContain('events.on');
    expect(w!.capabilities.eventTypes.MESSAGE_SENT).toBe('message_sent');
    expect(s.hooks.onHello).toHaveBeenCalledTimes(1);
  });

  it('passes activated and failed on to the host', async () => {
    const s = await setup([]);
    send(s.bridge, s.frame, { kind: 'activated' });
    send(s.bridge, s.frame, { kind: 'failed', error: 'x'.repeat(5000) });
    expect(s.hooks.onActivated).toHaveBeenCalledTimes(1);
    expect(s.hooks.failed[0]).toHaveLength(2000);
  });
});

describe('calls', () => {
  it('makes a granted call on the page api and posts its answer', async () => {
    const s = await setup(['chat.read']);
    expect(await callAndWait(s, 1, 'chat.getMessages', ['c1', { tail: 5 }])).toEqual({
      protocol: 'hearth.ext',
      v: 1,
      kind: 'result',
      id: 1,
      ok: true,
      value: [{ id: 'm1', chatId: 'c1', content: 'hi' }],
    });
    expect(s.page.calls).toEqual([['chat.getMessages', ['c1', { tail: 5 }]]]);
    // A method that answers synchronously in the page answers the frame all the same.
    expect(await callAndWait(s, 2, 'chat.current')).toMatchObject({ ok: true, value: { chatId: 'c1' } });
  });

  it('denies a call outside the grant with the permission and the method', async () => {
    const s = await setup(['chat.read']);
    const r = await callAndWait(s, 1, 'chat.addMessages', ['c1', { mes: 'hi' }]);
    expect(r).toMatchObject({ ok: false, error: { code: 'auth.denied', details: { permission: 'chat.write', method: 'chat.addMessages' } } });
    expect(s.page.calls).toEqual([]);
  });

  it('feels a revoke on the very next call after its event invalidated the copy', async () => {
    const s = await setup(['chat.read', 'chat.write']);
    expect(await callAndWait(s, 1, 'chat.addMessages', ['c1', { mes: 'a' }])).toMatchObject({ ok: true, value: 3 });
    s.page.extensions[0]!.granted = ['chat.read'];
    s.registry.invalidate();
    expect(await callAndWait(s, 2, 'chat.addMessages', ['c1', { mes: 'b' }])).toMatchObject({ ok: false, error: { code: 'auth.denied', details: { permission: 'chat.write' } } });
    s.page.extensions[0]!.granted = ['chat.read', 'chat.write'];
    s.registry.invalidate();
    expect(await callAndWait(s, 3, 'chat.addMessages', ['c1', { mes: 'c' }])).toMatchObject({ ok: true });
    expect(s.page.calls.map(([m]) => m)).toEqual(['chat.addMessages', 'chat.addMessages']);
  });

  it('tells the frame when its grant changed', async () => {
    const s = await setup(['chat.read', 'chat.write']);
    s.page.extensions[0]!.granted = ['chat.read'];
    s.registry.invalidate();
    await callAndWait(s, 1, 'chat.current');
    await callAndWait(s, 2, 'chat.current');
    expect(s.frame.of('grant')).toEqual([expect.objectContaining({ permissions: ['chat.read'] })]);
  });

  it('denies every call once the extension is no longer active', async () => {
    const s = await setup(['chat.read']);
    s.page.extensions[0]!.status = 'disabled';
    s.registry.invalidate();
    expect(await callAndWait(s, 1, 'chat.getMessages', ['c1'])).toMatchObject({ ok: false, error: { code: 'auth.denied' } });
    expect(await callAndWait(s, 2, 'extensions.storage.get', ['k'])).toMatchObject({ ok: false, error: { code: 'auth.denied' } });
    expect(s.page.calls).toEqual([]);
  });

  it('denies extension management, connections, unknown and callback methods whatever the grant', async () => {
    const all: ExtensionPermission[] = ['chat.read', 'chat.write', 'state', 'characters.read', 'characters.write', 'worldinfo.read', 'worldinfo.write', 'generate', 'prompt.hooks', 'agent', 'ui.panel', 'notify', 'network'];
    const s = await setup(all);
    const methods = ['extensions.install', 'extensions.grant', 'extensions.list', 'connections.list', 'chat.delete', 'chat.select', 'chat.nope', 'state.updateChatState', 'events.on'];
    let id = 1;
    for (const m of methods) {
      const r = await callAndWait(s, id++, m, [{ path: '/x' }]);
      expect(r, m).toMatchObject({ ok: false, error: { code: 'auth.denied', details: { method: m, permission: null } } });
    }
    expect(s.page.calls).toEqual([]);
  });

  it('keeps storage to the extension’s own namespace, whatever opts the frame passes', async () => {
    const s = await setup([]);
    await callAndWait(s, 1, 'extensions.storage.get', ['k', { extensionId: 'other' }]);
    await callAndWait(s, 2, 'extensions.storage.set', ['k', { v: 1 }, { extensionId: 'other' }, 'extra']);
    await callAndWait(s, 3, 'extensions.storage.delete', ['k']);
    expect(await callAndWait(s, 4, 'extensions.storage.list', [])).toMatchObject({ ok: true, value: ['a'] });
    expect(s.page.calls).toEqual([
      ['extensions.storage.get', ['k', { extensionId: 'demo' }]],
      ['extensions.storage.set', ['k', { v: 1 }, { extensionId: 'demo' }]],
      ['extensions.storage.delete', ['k', { extensionId: 'demo' }]],
      ['extensions.storage.list', [undefined, { extensionId: 'demo' }]],
    ]);
  });

  it('rejects with the page’s error code, message and details', async () => {
    const s = await setup(['chat.read']);
    expect(await callAndWait(s, 1, 'chat.get', ['c9'])).toMatchObject({
      ok: false,
      error: { code: 'chat.not_found', message: 'no chat c9', details: { chatId: 'c9' } },
    });
  });

  it('rejects an answer that cannot be copied to the frame', async () => {
    const s = await setup(['state']);
    expect(await callAndWait(s, 1, 'state.getChatState', ['c1', 'ns'])).toMatchObject({
      ok: false,
      error: { code: 'extension.uncloneable', details: { method: 'state.getChatState' } },
    });
  });

  it('limits each frame to 100 calls a second in bursts of 200', async () => {
    const s = await setup(['chat.read']);
    for (let i = 1; i <= CALL_RATE.burst + 5; i++) send(s.bridge, s.frame, { kind: 'call', id: i, method: 'chat.current', args: [] });
    await flush(30);
    const limited = s.frame.of('result').filter((r) => !r.ok);
    expect(limited).toHaveLength(5);
    expect(limited[0]).toMatchObject({ id: CALL_RATE.burst + 1, error: { code: 'extension.rate_limited', details: { limit: 100, burst: 200 } } });
    expect(limited[0]!.ok === false && limited[0]!.error.message).toContain('100 calls a second');
    s.clock.t += 1000;
    for (let i = 1; i <= 100; i++) send(s.bridge, s.frame, { kind: 'call', id: 1000 + i, method: 'chat.current', args: [] });
    await flush(30);
    expect(s.frame.of('result').filter((r) => r.id > 1000 && r.ok)).toHaveLength(100);
  });

  it('runs IN_FLIGHT calls of a frame at once, queues QUEUED more and refuses the rest', async () => {
    const s = await setup(['generate']);
    const ends: (() => void)[] = [];
    s.page.api.generate.run = (() => new Promise<void>((r) => ends.push(r))) as never;
    let id = 0;
    while (id < IN_FLIGHT + QUEUED + 1) {
      for (let i = 0; i < 100 && id < IN_FLIGHT + QUEUED + 1; i++) send(s.bridge, s.frame, { kind: 'call', id: ++id, method: 'generate.run', args: [{}] });
      s.clock.t += 1000;
      await flush(5);
    }
    await flush(20);
    expect(ends).toHaveLength(IN_FLIGHT);
    expect(s.frame.of('result')).toEqual([
      expect.objectContaining({ id: IN_FLIGHT + QUEUED + 1, ok: false, error: expect.objectContaining({ code: 'extension.rate_limited', details: { inFlight: IN_FLIGHT, queued: QUEUED } }) }),
    ]);
    ends.splice(0).forEach((end) => end());
    await flush(20);
    expect(ends).toHaveLength(IN_FLIGHT);
    expect(s.frame.of('result').filter((r) => r.ok)).toHaveLength(IN_FLIGHT);
  });

  it('shows ui.notify messages with the notify permission only', async () => {
    const s = await setup(['notify']);
    expect(await callAndWait(s, 1, 'ui.notify', ['Saved'])).toMatchObject({ ok: true });
    expect(s.notify).toHaveBeenCalledWith(expect.objectContaining({ id: 'demo' }), 'Saved');
    expect(await callAndWait(s, 2, 'ui.notify', [42])).toMatchObject({ ok: false, error: { code: 'validation.invalid_argument' } });
    const t = await setup([]);
    expect(await callAndWait(t, 1, 'ui.notify', ['Saved'])).toMatchObject({ ok: false, error: { code: 'auth.denied', details: { permission: 'notify' } } });
    expect(t.notify).not.toHaveBeenCalled();
  });
});
