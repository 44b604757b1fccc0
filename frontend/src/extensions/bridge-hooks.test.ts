// The frames' prompt hooks: real frame clients joined to the real bridge
// over a wire that clones and delays every message as postMessage does, and
// bare frames (FakeFrame) for what a hostile one posts.
import { describe, expect, it, vi } from 'vitest';
import type { FrameHookRequest } from '../abi/prompt-hooks';
import type { EventPayload } from '../abi/types';
import type { ExtensionPermission } from '../abi/types-extensions';
import { createBridge, type Bridge } from './bridge';
import { createFrameClient } from './frame/client';
import type { HearthFrameAbi } from './frame/types';
import type { HookPayload } from './protocol';
import { createRegistry, type ExtensionRegistry } from './registry';
import { entry, fakePage, FakeFrame, flush, send, wire, type FakeFrameGlobal, type FakePage } from './testing/fakes';

const READY = 'chat_completion_prompt_ready';
const HOOKS: ExtensionPermission = 'prompt.hooks';

const original = Object.freeze([
  Object.freeze({ role: 'system' as const, content: 'Be kind.' }),
  Object.freeze({ role: 'user' as const, content: 'Hi.' }),
]);

function request(fields: Partial<FrameHookRequest> = {}): FrameHookRequest {
  return { chat: structuredClone([...original]), original, dryRun: false, chatId: 'c1', generationId: 'g-1', ...fields };
}

interface World {
  page: FakePage;
  registry: ExtensionRegistry;
  bridge: Bridge;
  frames: Map<string, { g: FakeFrameGlobal; hearth: HearthFrameAbi; detach: () => void }>;
}

/** world runs a frame client for each extension (listed in load order), each granted its grant. */
async function world(exts: [id: string, grant: ExtensionPermission[]][], hookTimeoutMs?: number): Promise<World> {
  const page = fakePage(exts.map(([id, grant]) => entry(id, grant)));
  const registry = createRegistry(() => page.api.extensions.list());
  await registry.fresh();
  const bridge = createBridge({ api: page.api, capabilities: page.hearth.capabilities, registry, notify: vi.fn(), ...(hookTimeoutMs ? { hookTimeoutMs } : {}) });
  const frames: World['frames'] = new Map();
  // Started in the reverse of load order: the hooks go by the list, not by who came first.
  for (const [id] of [...exts].reverse()) {
    const g = wire(bridge, `/ext/${id}/index.html`);
    const detach = bridge.attach(id, g.contentWindow, { activate: null, onHello() {}, onActivated() {}, onFailed() {} });
    const hearth = createFrameClient(g);
    await hearth.ready;
    frames.set(id, { g, hearth, detach });
  }
  return { page, registry, bridge, frames };
}

function on(w: World, id: string, fn: (data: HookPayload) => unknown): void {
  w.frames.get(id)!.hearth.api.events.on(READY, fn as unknown as (p: EventPayload) => void);
}

/** sentKinds lists the kinds of message a frame client posted. */
const sentKinds = (w: World, id: string) => w.frames.get(id)!.g.sent.map((m) => m.kind);

describe('prompt hooks in frames', () => {
  it('hands each hooking frame, in load order, what the one before left, and returns the last', async () => {
    const w = await world([
      ['first', [HOOKS]],
      ['second', [HOOKS, 'chat.read']],
    ]);
    const seen: unknown[] = [];
    on(w, 'second', async (data) => {
      seen.push(['second', structuredClone(data)]);
      await new Promise((r) => setTimeout(r, 5));
      data.chat.push({ role: 'system', content: 'From second.' });
    });
    on(w, 'first', (data) => {
      seen.push(['first', structuredClone(data)]);
      (data.chat[1] as { content: string }).content += ' (in verse)';
    });
    await flush();
    expect(await w.bridge.promptHooks.wants()).toBe(true);
    const req = request();
    const r = await w.bridge.promptHooks.run(req, performance.now() + 1000);
    const firstLeft = [{ role: 'system', content: 'Be kind.' }, { role: 'user', content: 'Hi. (in verse)' }];
    expect(seen).toEqual([
      ['first', { chat: original, dryRun: false, chatId: 'c1', generationId: 'g-1' }],
      ['second', { chat: firstLeft, dryRun: false, chatId: 'c1', generationId: 'g-1' }],
    ]);
    expect(r).toEqual({ chat: [...firstLeft, { role: 'system', content: 'From second.' }], warnings: [] });
    expect(req.chat).toEqual(original); // the window's copy is not the frames' to change
  });

  it('returns the chat it was given when no frame changed it, and a dry run says so', async () => {
    const w = await world([['only', [HOOKS]]]);
    const dry: boolean[] = [];
    on(w, 'only', (data) => void dry.push(data.dryRun));
    await flush();
    const req = request({ dryRun: true });
    delete req.generationId;
    const r = await w.bridge.promptHooks.run(req, performance.now() + 1000);
    expect(r.chat).toBe(req.chat);
    expect(r.warnings).toEqual([]);
    expect(dry).toEqual([true]);
  });

  it('never hands the prompt to a frame without prompt.hooks, nor to one whose grant was revoked', async () => {
    const w = await world([
      ['nohooks', ['generate', 'chat.read']],
      ['hooker', [HOOKS]],
    ]);
    const calls: string[] = [];
    on(w, 'nohooks', () => void calls.push('nohooks'));
    on(w, 'hooker', (data) => {
      calls.push('hooker');
      data.chat.push({ role: 'system', content: 'hooked' });
    });
    await flush();
    let r = await w.bridge.promptHooks.run(request(), performance.now() + 1000);
    expect(calls).toEqual(['hooker']);
    expect(sentKinds(w, 'nohooks')).not.toContain('hookResult');
    expect((r.chat as unknown[]).length).toBe(3);

    // Revoked: the next prompt finds it out of the list.
    w.page.extensions[1] = entry('hooker', []);
    w.registry.invalidate();
    expect(await w.bridge.promptHooks.wants()).toBe(false);
    r = await w.bridge.promptHooks.run(request(), performance.now() + 1000);
    expect(calls).toEqual(['hooker']);
    expect(r.chat).toEqual(original);

    // A bare frame without the grant, subscribed: nothing of the prompt is posted to it.
    const bare = new FakeFrame();
    w.page.extensions.push(entry('bare', ['generate']));
    w.registry.invalidate();
    w.bridge.attach('bare', bare, { activate: null, onHello() {}, onActivated() {}, onFailed() {} });
    send(w.bridge, bare, { kind: 'hello', path: '/ext/bare/index.html' });
    send(w.bridge, bare, { kind: 'subscribe', type: READY });
    await w.bridge.promptHooks.run(request(), performance.now() + 1000);
    expect(bare.posted.map((m) => m.kind)).not.toContain('hook');
    expect(JSON.stringify(bare.posted)).not.toContain('Be kind.');
  });

  it('asks for nothing when no frame listens', async () => {
    const w = await world([['idle', [HOOKS]]]);
    expect(await w.bridge.promptHooks.wants()).toBe(false);
    const req = request();
    expect(await w.bridge.promptHooks.run(req, performance.now() + 1000)).toEqual({ chat: req.chat, warnings: [] });
    expect(sentKinds(w, 'idle')).not.toContain('hookResult');
  });

  it('skips a frame that runs out of time or throws, with a warning, and goes on with the next', async () => {
    const w = await world(
      [
        ['slow', [HOOKS]],
        ['thrower', [HOOKS]],
        ['last', [HOOKS]],
      ],
      50,
    );
    on(w, 'slow', async (data) => {
      data.chat.push({ role: 'system', content: 'too late' });
      await new Promise(() => {});
    });
    on(w, 'thrower', (data) => {
      data.chat.push({ role: 'system', content: 'half done' });
      throw new Error('the lamp went out');
    });
    on(w, 'last', (data) => void data.chat.push({ role: 'system', content: 'From last.' }));
    await flush();
    const t0 = performance.now();
    const r = await w.bridge.promptHooks.run(request(), t0 + 2000);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(45);
    expect(r.chat).toEqual([...original, { role: 'system', content: 'From last.' }]);
    expect(r.warnings).toHaveLength(2);
    expect(r.warnings[0]).toMatch(/^The extension slow's prompt hook was skipped: it did not answer within 0\.1 s$/);
    expect(r.warnings[1]).toBe("The extension thrower's prompt hook was skipped: it failed: the lamp went out");
  });

  it('skips the frames left once the time is up', async () => {
    const w = await world([
      ['slow', [HOOKS]],
      ['after', [HOOKS]],
    ]);
    const ran: string[] = [];
    on(w, 'slow', () => new Promise(() => void ran.push('slow')));
    on(w, 'after', () => void ran.push('after'));
    await flush();
    const r = await w.bridge.promptHooks.run(request(), performance.now() + 30);
    expect(ran).toEqual(['slow']);
    expect(r.warnings[1]).toBe('The extension after was skipped: the prompt hooks had no time left');
  });

  it('refuses what a frame answers that is not a prompt, and an answer from another frame', async () => {
    const w = await world([['honest', [HOOKS]]]);
    on(w, 'honest', (data) => void data.chat.push({ role: 'system', content: 'honest' }));
    const evil = new FakeFrame();
    const impostor = new FakeFrame();
    w.page.extensions.unshift(entry('evil', [HOOKS]), entry('impostor', [HOOKS]));
    await w.registry.fresh();
    for (const [id, f] of [['evil', evil], ['impostor', impostor]] as const) {
      w.bridge.attach(id, f, { activate: null, onHello() {}, onActivated() {}, onFailed() {} });
      send(w.bridge, f, { kind: 'hello', path: `/ext/${id}/index.html` });
      send(w.bridge, f, { kind: 'subscribe', type: READY });
    }
    await flush();
    const answers: unknown[] = [
      [{ role: 'tool', content: 'x' }],
      { not: 'a list' },
      Array.from({ length: original.length + 1001 }, () => ({ role: 'user', content: 'x' })),
      [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'file:///etc/passwd' } }] }],
    ];
    for (const bad of answers) {
      const running = w.bridge.promptHooks.run(request(), performance.now() + 2000);
      await vi.waitFor(() => expect(evil.of('hook').length).toBeGreaterThan(0));
      const hook = evil.of('hook').at(-1)!;
      expect(hook.payload).toEqual({ chat: original, dryRun: false, chatId: 'c1', generationId: 'g-1' });
      // The impostor answers the evil frame's hook first: not taken.
      send(w.bridge, impostor, { kind: 'hookResult', id: hook.id, ok: true, chat: [{ role: 'system', content: 'impostor' }] });
      send(w.bridge, evil, { kind: 'hookResult', id: hook.id, ok: true, chat: bad });
      await vi.waitFor(() => expect(impostor.of('hook').length).toBeGreaterThan(0));
      send(w.bridge, impostor, { kind: 'hookResult', id: impostor.of('hook').at(-1)!.id, ok: true, chat: original });
      const r = await running;
      expect(r.chat).toEqual([...original, { role: 'system', content: 'honest' }]);
      expect(r.warnings).toHaveLength(1);
      expect(r.warnings[0]).toMatch(/^The extension evil's prompt hook was skipped: what it answered is not a prompt: /);
      evil.posted.length = 0;
      impostor.posted.length = 0;
    }
    // A failure without a message, and a second answer to the same hook, change nothing either.
    const running = w.bridge.promptHooks.run(request(), performance.now() + 2000);
    await vi.waitFor(() => expect(evil.of('hook').length).toBe(1));
    const id = evil.of('hook')[0]!.id;
    send(w.bridge, evil, { kind: 'hookResult', id, ok: false, error: '   ' });
    send(w.bridge, evil, { kind: 'hookResult', id, ok: true, chat: [{ role: 'system', content: 'second answer' }] });
    await vi.waitFor(() => expect(impostor.of('hook').length).toBe(1));
    send(w.bridge, impostor, { kind: 'hookResult', id: impostor.of('hook')[0]!.id, ok: true, chat: original });
    const r = await running;
    expect(r.warnings).toEqual(["The extension evil's prompt hook was skipped: it failed: it reported a failure without a message"]);
    expect(JSON.stringify(r.chat)).not.toContain('second answer');
  });

  it('ends the hook of a frame that goes away', async () => {
    const w = await world([['leaving', [HOOKS]]]);
    on(w, 'leaving', () => new Promise(() => {}));
    await flush();
    const running = w.bridge.promptHooks.run(request(), performance.now() + 5000);
    await vi.waitFor(() => expect(w.frames.get('leaving')!.g.sent.length).toBeGreaterThan(0));
    await flush();
    w.frames.get('leaving')!.detach();
    const r = await running;
    expect(r.warnings).toEqual(["The extension leaving's prompt hook was skipped: its frame stopped before it answered"]);
    expect(r.chat).toEqual(original);
  });

  it('hands no frame a prompt the page’s listeners left broken', async () => {
    const w = await world([['hooker', [HOOKS]]]);
    const ran = vi.fn();
    on(w, 'hooker', ran);
    await flush();
    const r = await w.bridge.promptHooks.run(request({ chat: [{ role: 'narrator', content: 'x' }] }), performance.now() + 1000);
    expect(ran).not.toHaveBeenCalled();
    expect(r.warnings).toEqual(["No extension frame was given the prompt: what the page's listeners left is not a prompt (chat[0].role must be system, user or assistant)"]);
  });

  it('keeps the announcement of a prompt a frame hooked from its handlers, not other announcements', async () => {
    const w = await world([['both', [HOOKS, 'generate']]]);
    const heard: unknown[] = [];
    on(w, 'both', (data) => void heard.push(Object.isFrozen(data) ? ['announcement', data.generationId] : ['hook', data.generationId]));
    await flush();
    await w.bridge.promptHooks.run(request(), performance.now() + 1000);
    w.page.emit(READY, { chatId: 'c1', generationId: 'g-1', chat: original, dryRun: false, hooked: true } as unknown as EventPayload);
    w.page.emit(READY, { chatId: 'c1', generationId: 'g-2', chat: original, dryRun: false, hooked: true } as unknown as EventPayload);
    w.page.emit(READY, { chatId: 'c1', generationId: 'g-3', chat: original, dryRun: false } as unknown as EventPayload);
    await flush();
    expect(heard).toEqual([
      ['hook', 'g-1'],
      ['announcement', 'g-2'],
      ['announcement', 'g-3'],
    ]);
  });
});
