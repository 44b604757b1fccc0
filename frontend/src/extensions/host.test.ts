import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { get, writable, type Readable } from 'svelte/store';
import type { ExtensionEntry } from '../abi/types-extensions';
import { createExtensionHost, type ExtensionHost, type FrameSpec } from './host';
import { entry, fakePage, FakeFrame, send, type FakePage } from './testing/fakes';

interface Made {
  spec: FrameSpec;
  frame: FakeFrame;
  shown: boolean;
  removed: boolean;
  load(): void;
}

function fakeDom() {
  const made: Made[] = [];
  return {
    made,
    live: () => made.filter((m) => !m.removed),
    dom: {
      create(spec: FrameSpec) {
        const loads: (() => void)[] = [];
        const m: Made = { spec, frame: new FakeFrame(), shown: false, removed: false, load: () => loads.forEach((fn) => fn()) };
        made.push(m);
        return {
          window: m.frame,
          onLoad: (fn: () => void) => void loads.push(fn),
          show: (v: boolean) => void (m.shown = v),
          remove: () => void (m.removed = true),
        };
      },
    },
  };
}

interface Setup {
  page: FakePage;
  host: ExtensionHost;
  dom: ReturnType<typeof fakeDom>;
  notices: { info: ReturnType<typeof vi.fn>; failure: ReturnType<typeof vi.fn> };
  manifests: Record<string, unknown>;
}

const settle = () => vi.advanceTimersByTimeAsync(1);

async function setup(extensions: ExtensionEntry[], manifests: Record<string, unknown> = {}, theme?: Readable<'dark' | 'light'>): Promise<Setup> {
  const page = fakePage(extensions);
  (page.api.events as { types: Record<string, string> }).types = { ...page.api.events.types, EXTENSION_SAFE_MODE: 'extension_safe_mode' };
  const notices = { info: vi.fn(), failure: vi.fn() };
  const host = createExtensionHost({
    hearth: page.hearth,
    notices,
    ...(theme ? { theme } : {}),
    readManifest: async (id) => {
      const m = manifests[id] ?? {};
      if (m instanceof Error) throw m;
      return m;
    },
  });
  const target = { addEventListener: vi.fn(), removeEventListener: vi.fn() };
  host.start(target);
  const dom = fakeDom();
  host.attachDom(dom.dom);
  await settle();
  return { page, host, dom, notices, manifests };
}

/** hello answers for the frame made for id as its frame client would. */
function hello(s: Setup, id: string): Made {
  const m = s.dom.live().find((x) => x.spec.id === id)!;
  send(s.host.bridge()!, m.frame, { kind: 'hello', path: `/ext/${id}/index.html` });
  return m;
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('the extension host', () => {
  it('starts a frame for each active sandboxed extension, hidden unless it has a granted panel', async () => {
    const s = await setup([
      entry('demo', ['chat.read']),
      entry('stpage', [], { mode: 'page', entry: '', js: 'index.js' }),
      entry('off', [], { enabled: false, status: 'disabled' }),
      entry('blocked', [], { status: 'blocked', error: 'needs x' }),
      entry('broken', [], { status: 'failed', error: 'boom' }),
      entry('mood', ['ui.panel'], { panel: { title: 'Mood', icon: 'img/icon.svg' }, entry: 'ui/panel.html' }),
      entry('nopanel', [], { permissions: ['ui.panel'], panel: { title: 'Nope' } }),
    ]);
    expect(s.dom.made.map((m) => m.spec)).toEqual([
      { id: 'demo', src: '/ext/demo/index.html', panel: false, title: 'demo' },
      { id: 'mood', src: '/ext/mood/ui/panel.html', panel: true, title: 'Mood' },
      { id: 'nopanel', src: '/ext/nopanel/index.html', panel: false, title: 'nopanel' },
    ]);
    expect(get(s.host.panels)).toEqual([{ id: 'mood', title: 'Mood', icon: '/ext/mood/img/icon.svg' }]);
  });

  it('shows one panel at a time and closes a panel whose frame went away', async () => {
    const s = await setup([entry('mood', ['ui.panel'], { panel: { title: 'Mood' } }), entry('dice', ['ui.panel'], { panel: {} })]);
    expect(get(s.host.panels).map((p) => p.title)).toEqual(['Mood', 'dice']);
    s.host.setPanel('dice');
    expect(get(s.host.openPanel)).toBe('dice');
    expect(s.dom.made.map((m) => [m.spec.id, m.shown])).toEqual([
      ['mood', false],
      ['dice', true],
    ]);
    s.host.setPanel('nobody');
    expect(get(s.host.openPanel)).toBeNull();
    s.host.setPanel('dice');
    s.page.extensions[1]!.status = 'disabled';
    s.page.emit('extension_disabled', { id: 'dice' });
    await settle();
    expect(get(s.host.openPanel)).toBeNull();
    expect(get(s.host.panels).map((p) => p.id)).toEqual(['mood']);
  });

  it('welcomes a frame with the activate hook its manifest names, and runs it once activated', async () => {
    const s = await setup([entry('demo', [])], { demo: { hooks: { activate: 'startDemo' } } });
    const m = hello(s, 'demo');
    expect(m.frame.of('welcome')[0]).toMatchObject({ activate: 'startDemo' });
    m.load();
    await vi.advanceTimersByTimeAsync(4000);
    send(s.host.bridge()!, m.frame, { kind: 'activated' });
    await vi.advanceTimersByTimeAsync(20_000);
    expect(s.host.frames()).toEqual([{ id: 'demo', state: 'running', panel: false }]);
    expect(s.page.api.extensions.reportFailure).not.toHaveBeenCalled();
  });

  it('welcomes a frame started by an install, an update or an enable with that hook before activate, and a plain start with none', async () => {
    const hooks = { hooks: { activate: 'go', install: 'onInstall', update: 'onUpdate', enable: 'onEnable' } };
    const s = await setup([entry('a', []), entry('b', [], { enabled: false, status: 'disabled' })], { a: hooks, b: hooks, c: hooks });
    expect(hello(s, 'a').frame.of('welcome')[0]).toMatchObject({ activate: 'go', startHook: null });
    s.page.extensions[1] = entry('b', []);
    s.page.emit('extension_enabled', { id: 'b' });
    await settle();
    expect(hello(s, 'b').frame.of('welcome')[0]).toMatchObject({ startHook: { reason: 'enable', name: 'onEnable' } });
    s.page.extensions[0] = entry('a', [], { updatedAt: 2 });
    s.page.emit('extension_installed', { id: 'a', mode: 'sandboxed', enabled: true, updated: true });
    await settle();
    expect(hello(s, 'a').frame.of('welcome')[0]).toMatchObject({ startHook: { reason: 'update', name: 'onUpdate' } });
    s.page.extensions.push(entry('c', []));
    s.page.emit('extension_installed', { id: 'c', mode: 'sandboxed', enabled: true, updated: false });
    await settle();
    const c = hello(s, 'c');
    expect(c.frame.of('welcome')[0]).toMatchObject({ startHook: { reason: 'install', name: 'onInstall' } });
    // Two hooks: 5 s each.
    c.load();
    await vi.advanceTimersByTimeAsync(9000);
    expect(s.page.api.extensions.reportFailure).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1100);
    expect(s.page.api.extensions.reportFailure).toHaveBeenCalledWith('c', 'its install hook (onInstall) and activate hook (go) did not finish within 10 s');
  });

  it('welcomes frames with the window\'s theme and tells them when it changes', async () => {
    const theme = writable<'dark' | 'light'>('light');
    const s = await setup([entry('demo', [])], {}, theme);
    const m = hello(s, 'demo');
    expect(m.frame.of('welcome')[0]).toMatchObject({ theme: 'light' });
    theme.set('dark');
    expect(m.frame.of('theme')).toEqual([expect.objectContaining({ theme: 'dark' })]);
  });

  it('reports and removes a frame that does not activate within 5 s of its load; the others go on', async () => {
    const s = await setup([entry('slow', []), entry('fine', [])], { slow: { hooks: { activate: 'start' } } });
    const slow = hello(s, 'slow');
    const fine = hello(s, 'fine');
    send(s.host.bridge()!, fine.frame, { kind: 'activated' });
    await vi.advanceTimersByTimeAsync(3000);
    slow.load();
    await vi.advanceTimersByTimeAsync(4999);
    expect(slow.removed).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(slow.removed).toBe(true);
    expect(s.page.api.extensions.reportFailure).toHaveBeenCalledWith('slow', 'its activate hook (start) did not finish within 5 s');
    expect(s.notices.failure).toHaveBeenCalledWith(expect.stringContaining('The extension slow stopped'));
    expect(s.host.frames()).toEqual([{ id: 'fine', state: 'running', panel: false }]);
    // Its frame is forgotten by the bridge too.
    send(s.host.bridge()!, slow.frame, { kind: 'activated' });
    expect(s.host.bridge()!.stats().reasons.source).toBe(1);
  });

  it('reports a frame whose page never says hello within 5 s', async () => {
    const s = await setup([entry('silent', [])]);
    await vi.advanceTimersByTimeAsync(5000);
    expect(s.page.api.extensions.reportFailure).toHaveBeenCalledWith('silent', expect.stringContaining('did not start within 5 s'));
    expect(s.dom.made[0]!.removed).toBe(true);
  });

  it('reports what the frame says went wrong, and a manifest it cannot read', async () => {
    const s = await setup([entry('demo', []), entry('nomanifest', [])], { nomanifest: new Error('its manifest.json could not be read (HTTP 404)') });
    expect(s.page.api.extensions.reportFailure).toHaveBeenCalledWith('nomanifest', 'its manifest.json could not be read (HTTP 404)');
    expect(s.dom.made.map((m) => m.spec.id)).toEqual(['demo']);
    const m = hello(s, 'demo');
    send(s.host.bridge()!, m.frame, { kind: 'failed', error: 'its activate hook (go) failed: nope' });
    expect(m.removed).toBe(true);
    await settle();
    expect(s.page.api.extensions.reportFailure).toHaveBeenCalledWith('demo', 'its activate hook (go) failed: nope');
  });

  it('reports nothing of a frame whose extension failed elsewhere while it started', async () => {
    // Installed on, then marked failed by another window before this one read its manifest (now a 404).
    let answer: (m: unknown) => void = () => {};
    const page = fakePage([entry('late', [])]);
    const notices = { info: vi.fn(), failure: vi.fn() };
    const host = createExtensionHost({ hearth: page.hearth, notices, readManifest: () => new Promise((resolve) => (answer = resolve)) });
    host.start({ addEventListener: vi.fn(), removeEventListener: vi.fn() });
    host.attachDom(fakeDom().dom);
    await settle();
    page.extensions[0] = entry('late', [], { status: 'failed', error: 'TypeError: x is undefined' });
    answer(Promise.reject(new Error('its manifest.json could not be read (HTTP 404)')));
    await settle();
    expect(page.api.extensions.reportFailure).not.toHaveBeenCalled();
    expect(notices.failure).not.toHaveBeenCalled();
  });

  it('reports nothing of a frame whose extension was updated while it started, and starts the new one', async () => {
    const s = await setup([entry('moved', [])]);
    // Updated elsewhere: the old frame's page never says hello (its files changed under it).
    s.page.extensions[0] = entry('moved', [], { updatedAt: 2 });
    await vi.advanceTimersByTimeAsync(5000);
    expect(s.page.api.extensions.reportFailure).not.toHaveBeenCalled();
    expect(s.dom.made.map((m) => [m.spec.id, m.removed])).toEqual([
      ['moved', true],
      ['moved', false],
    ]);
  });

  it('adds and removes frames as extensions are enabled, disabled, removed, updated and put in safe mode', async () => {
    const s = await setup([entry('a', []), entry('b', [], { enabled: false, status: 'disabled' })]);
    const ids = () => s.dom.live().map((m) => m.spec.id);
    expect(ids()).toEqual(['a']);
    s.page.extensions[1] = entry('b', []);
    s.page.emit('extension_enabled', { id: 'b' });
    await settle();
    expect(ids()).toEqual(['a', 'b']);
    s.page.extensions[0] = entry('a', [], { updatedAt: 2 });
    s.page.emit('extension_installed', { id: 'a', mode: 'sandboxed', enabled: true, updated: true });
    await settle();
    expect(s.dom.made.filter((m) => m.spec.id === 'a').map((m) => m.removed)).toEqual([true, false]);
    s.page.extensions.splice(1, 1);
    s.page.emit('extension_removed', { id: 'b', clean: false });
    await settle();
    expect(ids()).toEqual(['a']);
    s.page.extensions[0]!.status = 'disabled';
    s.page.emit('extension_safe_mode', { active: true, atStart: false });
    await settle();
    expect(ids()).toEqual([]);
  });

  it('holds a frame’s next event to the grant after EXTENSION_GRANTED, not the one it read before', async () => {
    const s = await setup([entry('demo', ['chat.read'])]);
    const frame = hello(s, 'demo').frame;
    send(s.host.bridge()!, frame, { kind: 'subscribe', type: 'message_sent' });
    s.page.emit('message_sent', { chatId: 'c1', index: 0 });
    // Revoked in another window or the console: the event says so before the next message.
    s.page.extensions[0]!.granted = [];
    s.page.emit('extension_granted', { id: 'demo', granted: [] });
    s.page.emit('message_sent', { chatId: 'c1', index: 1 });
    await settle();
    expect(frame.of('event').map((e) => (e.payload as { index: number }).index)).toEqual([0]);
    // Granted back: the next one arrives.
    s.page.extensions[0]!.granted = ['chat.read'];
    s.page.emit('extension_granted', { id: 'demo', granted: ['chat.read'] });
    s.page.emit('message_sent', { chatId: 'c1', index: 2 });
    await settle();
    expect(frame.of('event').map((e) => (e.payload as { index: number }).index)).toEqual([0, 2]);
    expect(s.dom.live().map((m) => m.spec.id)).toEqual(['demo']);
  });

  it('keeps an extension that failed here off, even when the failure could not be recorded, until it is enabled again', async () => {
    const s = await setup([entry('flaky', [])]);
    vi.mocked(s.page.api.extensions.reportFailure).mockRejectedValue(new Error('offline'));
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    await vi.advanceTimersByTimeAsync(5000);
    s.page.emit('extension_installed', { id: 'other', mode: 'page', enabled: false, updated: false });
    await settle();
    expect(s.dom.live()).toEqual([]);
    s.page.emit('extension_enabled', { id: 'flaky' });
    await settle();
    expect(s.dom.live().map((m) => m.spec.id)).toEqual(['flaky']);
    warn.mockRestore();
  });

  it('removes every frame when its place goes away, and starts them again when it comes back', async () => {
    const page = fakePage([entry('a', [])]);
    const host = createExtensionHost({ hearth: page.hearth, notices: { info() {}, failure() {} }, readManifest: async () => ({}) });
    host.start({ addEventListener() {}, removeEventListener() {} });
    await settle();
    const first = fakeDom();
    const detach = host.attachDom(first.dom);
    await settle();
    expect(first.live()).toHaveLength(1);
    detach();
    expect(first.live()).toHaveLength(0);
    const second = fakeDom();
    host.attachDom(second.dom);
    await settle();
    expect(second.live()).toHaveLength(1);
  });

  it('shows ui.notify messages under the extension’s name', async () => {
    const s = await setup([entry('demo', ['notify'], { displayName: 'Mood tracker' })]);
    const m = hello(s, 'demo');
    send(s.host.bridge()!, m.frame, { kind: 'call', id: 1, method: 'ui.notify', args: ['Saved'] });
    await settle();
    expect(s.notices.info).toHaveBeenCalledWith('Mood tracker: Saved');
  });
});
