import { describe, expect, it, vi } from 'vitest';
import type { ExtensionPermission } from '../abi/types-extensions';
import { createBridge } from './bridge';
import { createRegistry, MAX_AGE_MS } from './registry';
import { entry, fakePage, FakeFrame, flush, send } from './testing/fakes';

const MESSAGE = { chatId: 'c1', revision: 2, index: 0, id: 'm1' };

/** setup attaches one frame per grant (ids f0, f1, …), each past its hello. */
async function setup(grants: ExtensionPermission[][]) {
  const page = fakePage(grants.map((g, i) => entry(`f${i}`, g)));
  const clock = { t: 0 };
  const registry = createRegistry(() => page.api.extensions.list(), () => clock.t);
  await registry.fresh();
  const bridge = createBridge({ api: page.api, capabilities: page.hearth.capabilities, registry, notify: vi.fn(), now: () => clock.t });
  const frames = grants.map((_, i) => {
    const f = new FakeFrame();
    bridge.attach(`f${i}`, f, { activate: null, onHello() {}, onActivated() {}, onFailed() {} });
    send(bridge, f, { kind: 'hello', path: `/ext/f${i}/index.html` });
    return f;
  });
  return { page, bridge, frames, clock, registry };
}

describe('events to frames', () => {
  it('delivers an event only to frames that subscribed and hold its permission', async () => {
    const { page, bridge, frames } = await setup([['chat.read'], [], ['chat.read']]);
    for (const f of frames.slice(0, 2)) send(bridge, f, { kind: 'subscribe', type: 'message_sent' });
    page.emit('message_sent', MESSAGE);
    expect(frames[0]!.of('event')).toEqual([expect.objectContaining({ type: 'message_sent', payload: MESSAGE })]);
    // f1 subscribed without chat.read; f2 holds chat.read but did not subscribe.
    expect(frames[1]!.of('event')).toEqual([]);
    expect(frames[2]!.of('event')).toEqual([]);
  });

  it('never delivers a frame without chat.read any MESSAGE_* event, nor a "none" event to anyone', async () => {
    const { page, bridge, frames } = await setup([['chat.write', 'state', 'generate', 'agent', 'notify', 'ui.panel']]);
    const types = ['message_sent', 'message_received', 'message_edited', 'message_updated', 'message_deleted', 'message_swiped', 'extension_installed', 'library_progress', 'user_message_rendered'];
    for (const type of types) send(bridge, frames[0], { kind: 'subscribe', type });
    for (const type of types) page.emit(type, MESSAGE);
    expect(frames[0]!.of('event')).toEqual([]);
    // It does hear what its grant covers.
    send(bridge, frames[0], { kind: 'subscribe', type: 'chat_state_changed' });
    page.emit('chat_state_changed', { chatId: 'c1', namespace: 'x', revision: 1 });
    expect(frames[0]!.of('event').map((e) => e.type)).toEqual(['chat_state_changed']);
  });

  it('subscribes once in the window for twenty frames and leaves when the last one goes', async () => {
    const grants = Array.from({ length: 20 }, () => ['chat.read'] as ExtensionPermission[]);
    const { page, bridge, frames, registry } = await setup(grants);
    for (const f of frames) send(bridge, f, { kind: 'subscribe', type: 'message_received' });
    expect(page.pageSubs('message_received')).toBe(1);
    const get = vi.spyOn(registry, 'get');
    for (let i = 0; i < 50; i++) page.emit('message_received', { ...MESSAGE, index: i });
    for (const f of frames) expect(f.of('event')).toHaveLength(50);
    // Recipients were worked out once for the type, not per event and frame.
    expect(get.mock.calls.length).toBeLessThanOrEqual(20);
    for (const f of frames) send(bridge, f, { kind: 'unsubscribe', type: 'message_received' });
    expect(page.pageSubs('message_received')).toBe(0);
  });

  it('stops delivering after a revoke once its EXTENSION_GRANTED invalidated the copy', async () => {
    const { page, bridge, frames, registry } = await setup([['chat.read']]);
    send(bridge, frames[0], { kind: 'subscribe', type: 'message_sent' });
    page.emit('message_sent', MESSAGE);
    page.extensions[0]!.granted = [];
    registry.invalidate();
    page.emit('message_sent', { ...MESSAGE, index: 1 });
    page.emit('message_sent', { ...MESSAGE, index: 2 });
    await flush();
    expect(frames[0]!.of('event').map((e) => (e.payload as { index: number }).index)).toEqual([0]);
  });

  it('reads a copy older than MAX_AGE_MS again, even without an event', async () => {
    const { page, bridge, frames, clock } = await setup([['chat.read']]);
    send(bridge, frames[0], { kind: 'subscribe', type: 'message_sent' });
    page.extensions[0]!.granted = [];
    clock.t += MAX_AGE_MS + 1;
    page.emit('message_sent', MESSAGE);
    await flush();
    expect(frames[0]!.of('event')).toEqual([]);
  });

  it('delivers the next event to a frame granted the permission back, once the list is invalidated', async () => {
    const { page, bridge, frames, registry } = await setup([[]]);
    page.extensions[0]!.permissions = ['chat.read'];
    send(bridge, frames[0], { kind: 'subscribe', type: 'message_sent' });
    page.emit('message_sent', MESSAGE);
    page.extensions[0]!.granted = ['chat.read'];
    registry.invalidate();
    page.emit('message_sent', { ...MESSAGE, index: 1 });
    await flush();
    expect(frames[0]!.of('event').map((e) => (e.payload as { index: number }).index)).toEqual([1]);
  });

  it('reads the grant again when the list is invalidated while it is being read', async () => {
    const page = fakePage([entry('f0', ['chat.read'])]);
    const held: (() => void)[] = [];
    let hold = false;
    const registry = createRegistry(async () => {
      const got = await page.api.extensions.list();
      if (hold) await new Promise<void>((resolve) => held.push(resolve));
      return got;
    });
    await registry.fresh();
    const bridge = createBridge({ api: page.api, capabilities: page.hearth.capabilities, registry, notify: vi.fn() });
    const frame = new FakeFrame();
    bridge.attach('f0', frame, { activate: null, onHello() {}, onActivated() {}, onFailed() {} });
    send(bridge, frame, { kind: 'hello', path: '/ext/f0/index.html' });
    send(bridge, frame, { kind: 'subscribe', type: 'message_sent' });
    hold = true;
    registry.invalidate();
    page.emit('message_sent', MESSAGE);
    await flush();
    // The read under way saw chat.read; then came a revoke, and a message after it.
    expect(held).toHaveLength(1);
    page.extensions[0]!.granted = [];
    registry.invalidate();
    page.emit('message_sent', { ...MESSAGE, index: 1 });
    hold = false;
    held[0]!();
    await flush();
    await flush();
    // Both wait for the read after the revoke, and are held to it.
    expect(frame.of('event')).toEqual([]);
  });

  it('keeps the order of events queued while the grant is read again', async () => {
    const { page, bridge, frames, clock } = await setup([['chat.read']]);
    send(bridge, frames[0], { kind: 'subscribe', type: 'message_sent' });
    clock.t += MAX_AGE_MS + 1;
    for (let i = 0; i < 5; i++) page.emit('message_sent', { ...MESSAGE, index: i });
    expect(frames[0]!.of('event')).toEqual([]);
    await flush();
    page.emit('message_sent', { ...MESSAGE, index: 5 });
    expect(frames[0]!.of('event').map((e) => (e.payload as { index: number }).index)).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('forgets the subscriptions of a frame that says hello again (its page reloaded) and of a detached one', async () => {
    const { page, bridge, frames } = await setup([['chat.read']]);
    send(bridge, frames[0], { kind: 'subscribe', type: 'message_sent' });
    send(bridge, frames[0], { kind: 'hello', path: '/ext/f0/index.html' });
    page.emit('message_sent', MESSAGE);
    expect(frames[0]!.of('event')).toEqual([]);
    expect(page.pageSubs('message_sent')).toBe(0);
  });

  it('leaves APP_READY to the frame client', async () => {
    const { page, bridge, frames } = await setup([['chat.read']]);
    send(bridge, frames[0], { kind: 'subscribe', type: 'app_ready' });
    expect(page.pageSubs('app_ready')).toBe(0);
  });
});
