import { get } from 'svelte/store';
import { describe, expect, it } from 'vitest';
import { createAutoModeStore } from './auto-mode';
import { createChatViewStore } from './chat';
import { createConfirm } from './confirm';
import { createFakeHearth, message } from './fake-hearth';
import { createToasts } from './toasts';

const flush = () => new Promise((r) => setTimeout(r, 0));

async function setup() {
  const fake = createFakeHearth();
  const toasts = createToasts(0);
  const chat = createChatViewStore(fake.hearth, toasts, createConfirm());
  chat.start();
  const auto = createAutoModeStore({ hearth: fake.hearth, toasts, view: chat.view });
  auto.start();
  /** open opens chatId, a group's chat when groupId is given. */
  const open = async (chatId: string, groupId: string | null) => {
    fake.owner.avatar = groupId ? null : 'Ann.png';
    fake.owner.groupId = groupId;
    fake.setLoaded({ chatId, start: 0, total: 1, messages: [message(`${chatId}-0`)] }, true);
    await chat.select(chatId);
    await flush();
  };
  const notices = () => get(toasts).map((t) => t.message);
  return { fake, chat, auto, open, notices };
}

describe('auto mode store', () => {
  it('reads a group chat’s auto mode when it opens, none for a character’s chat', async () => {
    const { fake, auto, open } = await setup();
    await open('c1', null);
    expect(get(auto.state)).toBeNull();
    expect(fake.groups.autoMode).not.toHaveBeenCalled();
    fake.groups.autoMode.mockResolvedValueOnce({ chatId: 'g1', on: true, delaySeconds: 8 });
    await open('g1', 'grp');
    expect(fake.groups.autoMode).toHaveBeenCalledWith('g1');
    expect(get(auto.state)).toEqual({ chatId: 'g1', on: true, delaySeconds: 8 });
  });

  it('toggles, follows other windows, and says why when it went off by itself', async () => {
    const { fake, auto, open, notices } = await setup();
    await open('g1', 'grp');
    await auto.set(true);
    expect(fake.groups.setAutoMode).toHaveBeenCalledWith('g1', true);
    expect(get(auto.state)?.on).toBe(true);
    fake.emit('group_auto_mode_changed', { chatId: 'g1', groupId: 'grp', on: true, delaySeconds: 5, reason: 'set' });
    fake.emit('group_auto_mode_changed', { chatId: 'other', groupId: 'x', on: false, delaySeconds: 5, reason: 'set' });
    expect(get(auto.state)?.on).toBe(true);

    fake.emit('group_auto_mode_changed', { chatId: 'g1', groupId: 'grp', on: false, delaySeconds: 5, reason: 'failed', error: { code: 'model.unavailable', message: '503' } });
    expect(get(auto.state)?.on).toBe(false);
    expect(notices()).toEqual(['Auto mode stopped: a reply failed. The model server is unavailable or overloaded; try again shortly.']);

    // Another window turns it on, then a script adds your message.
    fake.emit('group_auto_mode_changed', { chatId: 'g1', groupId: 'grp', on: true, delaySeconds: 3, reason: 'set' });
    expect(get(auto.state)).toEqual({ chatId: 'g1', on: true, delaySeconds: 3 });
    fake.emit('group_auto_mode_changed', { chatId: 'g1', groupId: 'grp', on: false, delaySeconds: 3, reason: 'user_message' });
    expect(notices()[1]).toBe('Auto mode is off: a message of yours was added.');

    // Turned off here: no notice when its event comes back.
    await auto.set(true);
    await auto.set(false);
    fake.emit('group_auto_mode_changed', { chatId: 'g1', groupId: 'grp', on: false, delaySeconds: 5, reason: 'set' });
    expect(notices()).toHaveLength(2);
  });

  it('typing turns it off, quietly, once', async () => {
    const { fake, auto, open, notices } = await setup();
    await open('g1', 'grp');
    auto.typed();
    expect(fake.groups.setAutoMode).not.toHaveBeenCalled();
    await auto.set(true);
    auto.typed();
    auto.typed();
    expect(fake.groups.setAutoMode).toHaveBeenLastCalledWith('g1', false);
    expect(fake.groups.setAutoMode).toHaveBeenCalledTimes(2);
    expect(get(auto.state)?.on).toBe(false);
    fake.emit('group_auto_mode_changed', { chatId: 'g1', groupId: 'grp', on: false, delaySeconds: 5, reason: 'set' });
    expect(notices()).toEqual(['Auto mode is off while you type.']);
  });

  it('leaving the chat turns it off', async () => {
    const { fake, auto, open, notices } = await setup();
    await open('g1', 'grp');
    await auto.set(true);
    await open('c2', null);
    expect(fake.groups.setAutoMode).toHaveBeenLastCalledWith('g1', false);
    expect(get(auto.state)).toBeNull();
    expect(notices()).toEqual(['Auto mode is off: you left the group chat.']);

    // Left while off: nothing to turn off.
    await open('g1', 'grp');
    await open('g2', 'grp');
    expect(fake.groups.setAutoMode).toHaveBeenCalledTimes(2);
  });
});
