import { describe, expect, it, vi } from 'vitest';
import { createGroupsApi } from './api-groups';
import { tick } from './testing/fake-host';
import { setup } from './testing/setup';

describe('api.groups', () => {
  it('calls groups.* with the arguments as given, and is frozen', async () => {
    const calls: { method: string; args: unknown[] }[] = [];
    const api = createGroupsApi(async (method, ...args) => {
      calls.push({ method, args });
      return method === 'groups.list' ? [] : null;
    });
    await api.list();
    await api.get('1700000000000');
    await api.create({ members: ['Alice.png', 'Bob.png'], activation_strategy: 3 });
    await api.update('1700000000000', { disabled_members: ['Bob.png'] });
    await api.delete('1700000000000', { deleteChats: true });
    await api.setAutoMode('c1', true);
    await api.autoMode('c1');
    expect(calls).toEqual([
      { method: 'groups.list', args: [] },
      { method: 'groups.get', args: ['1700000000000'] },
      { method: 'groups.create', args: [{ members: ['Alice.png', 'Bob.png'], activation_strategy: 3 }] },
      { method: 'groups.update', args: ['1700000000000', { disabled_members: ['Bob.png'] }] },
      { method: 'groups.delete', args: ['1700000000000', { deleteChats: true }] },
      { method: 'groups.setAutoMode', args: ['c1', true] },
      { method: 'groups.autoMode', args: ['c1'] },
    ]);
    expect(Object.isFrozen(api)).toBe(true);
  });
});

describe("group events on SillyTavern's eventSource", () => {
  it('passes GROUP_UPDATED no argument and GROUP_CHAT_DELETED the file name, of any chat', async () => {
    const { host, h } = await setup((host) => host.addChat('c1', 1));
    await h.api.chat.select('c1');
    const es = h.getContext().eventSource;
    const updated = vi.fn();
    const chatDeleted = vi.fn();
    const structured = vi.fn();
    es.on('group_updated', updated);
    es.on('group_chat_deleted', chatDeleted);
    h.api.events.on('group_updated', structured);
    const group = { id: 'g1', name: 'Trio', members: ['Alice.png'] };
    host.push('group_updated', { groupId: 'g1', group });
    host.push('group_chat_deleted', { chatId: 'other-chat', revision: 3, groupId: 'g1', fileName: 'Trio - 2026-01-01@10h00m00s' });
    await tick();
    await vi.waitFor(() => expect(chatDeleted).toHaveBeenCalledOnce());
    expect(updated).toHaveBeenCalledExactlyOnceWith();
    expect(chatDeleted).toHaveBeenCalledExactlyOnceWith('Trio - 2026-01-01@10h00m00s');
    expect(structured).toHaveBeenCalledExactlyOnceWith({ groupId: 'g1', group });
  });
});
