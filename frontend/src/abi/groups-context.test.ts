// getContext().groups / groupId / selected_group, and the group-chats.js
// live bindings that follow them (HOST-ABI §5.1, §9).
import { describe, expect, it, vi } from 'vitest';
import { createBacking } from '../extensions/st/backing';
import { createLocale } from '../extensions/st/i18n';
import { createExtensionSettings } from '../extensions/st/settings';
import { tick } from './testing/fake-host';
import { setup } from './testing/setup';

const trio = { id: 'g1', name: 'Trio', members: ['Seraphina.png'], disabled_members: [], chat_id: 'gc', chats: ['gc'] };
const memory = () => ({ get: async () => null, set: async () => {} });

describe('getContext() groups', () => {
  it('names the open chat’s group in groupId and selected_group, null for a character’s chat', async () => {
    const { h } = await setup((host) => {
      host.groups = [trio];
      host.addChat('c1', 1);
      const gc = host.addChat('gc', 2);
      gc.avatar = null;
      gc.groupId = 'g1';
    });
    const ctx = h.getContext();
    expect([ctx.groupId, ctx.selected_group]).toEqual([null, null]);
    await h.api.chat.select('gc');
    expect([ctx.groupId, ctx.selected_group]).toEqual(['g1', 'g1']);
    expect(ctx.characterId).toBeUndefined();
    await h.api.chat.select('c1');
    expect([ctx.groupId, ctx.selected_group]).toEqual([null, null]);
  });

  it('loads the groups at start and keeps them from GROUP_* events, frozen', async () => {
    const { host, h } = await setup((host) => {
      host.groups = [trio];
    });
    const ctx = h.getContext();
    expect(ctx.groups.map((g) => g.id)).toEqual(['g1']);
    expect(Object.isFrozen(ctx.groups)).toBe(true);
    expect(Object.isFrozen(ctx.groups[0])).toBe(true);
    host.push('group_created', { groupId: 'g2', group: { ...trio, id: 'g2', name: 'Duo' } });
    host.push('group_updated', { groupId: 'g1', group: { ...trio, name: 'Trio renamed', chat_id: 'next' } });
    await tick();
    expect(ctx.groups.map((g) => [g.id, g.name, g.chat_id])).toEqual([
      ['g1', 'Trio renamed', 'next'],
      ['g2', 'Duo', 'gc'],
    ]);
    host.push('group_deleted', { groupId: 'g1', deleteChats: false });
    await tick();
    expect(ctx.groups.map((g) => g.id)).toEqual(['g2']);
  });

  it('passes GROUP_CHAT_CREATED no argument on the eventSource, the payload on api.events', async () => {
    const { host, h } = await setup((host) => host.addChat('c1', 1));
    await h.api.chat.select('c1');
    const st = vi.fn();
    const structured = vi.fn();
    h.getContext().eventSource.on('group_chat_created', st);
    h.api.events.on('group_chat_created', structured);
    const payload = { chatId: 'other', revision: 0, groupId: 'g1', fileName: '2026-01-01@10h00m00s000ms' };
    host.push('group_chat_created', payload);
    await vi.waitFor(() => expect(st).toHaveBeenCalledOnce());
    expect(st).toHaveBeenCalledExactlyOnceWith();
    expect(structured).toHaveBeenCalledExactlyOnceWith(payload);
  });

  it('moves group-chats.js’s groups and selected_group with the context', async () => {
    const { host, h } = await setup((host) => {
      host.groups = [trio];
      const gc = host.addChat('gc', 1);
      gc.avatar = null;
      gc.groupId = 'g1';
    });
    const backing = createBacking({ hearth: h, settings: createExtensionSettings(memory()), locale: createLocale('en') });
    const before = backing.live()['/scripts/group-chats.js']!;
    expect(before.selected_group).toBeNull();
    expect((before.groups as { id: string }[]).map((g) => g.id)).toEqual(['g1']);
    await h.api.chat.select('gc');
    host.push('group_deleted', { groupId: 'g1', deleteChats: false });
    await tick();
    const after = backing.live()['/scripts/group-chats.js']!;
    expect(after.selected_group).toBe('g1');
    expect(after.groups).toEqual([]);
  });

  it('hands group turn events to SillyTavern listeners as it does: the drafted member by its index in characters', async () => {
    const { host, h } = await setup((host) => {
      host.characters.push({ avatar: 'Ann.png', name: 'Ann', description: '' });
      host.groups = [{ ...trio, members: ['Seraphina.png', 'Ann.png'] }];
      const gc = host.addChat('gc', 1);
      gc.avatar = null;
      gc.groupId = 'g1';
    });
    await h.api.chat.select('gc');
    const es = h.getContext().eventSource;
    const calls: unknown[][] = [];
    for (const type of ['group_wrapper_started', 'group_member_drafted', 'group_wrapper_finished']) es.on(type, (...args: unknown[]) => void calls.push([type, ...args]));
    const structured = vi.fn();
    h.api.events.on('group_member_drafted', structured);
    host.push('group_wrapper_started', { chatId: 'gc', selected_group: 'g1', type: 'normal' });
    host.push('group_member_drafted', { chatId: 'gc', groupId: 'g1', avatar: 'Ann.png', type: 'normal' });
    host.push('group_wrapper_finished', { chatId: 'gc', selected_group: 'g1', type: 'normal' });
    await vi.waitFor(() => expect(calls).toHaveLength(3));
    const ann = h.getContext().characters.findIndex((c) => c.avatar === 'Ann.png');
    expect(ann).toBeGreaterThan(0);
    expect(calls).toEqual([
      ['group_wrapper_started', { selected_group: 'g1', type: 'normal' }],
      ['group_member_drafted', ann],
      ['group_wrapper_finished', { selected_group: 'g1', type: 'normal' }],
    ]);
    expect(structured).toHaveBeenCalledExactlyOnceWith({ chatId: 'gc', groupId: 'g1', avatar: 'Ann.png', type: 'normal' });
  });

  it('moves is_group_generating with the group turn', async () => {
    const { h } = await setup();
    const backing = createBacking({ hearth: h, settings: createExtensionSettings(memory()), locale: createLocale('en') });
    expect(backing.live()['/scripts/group-chats.js']!.is_group_generating).toBe(false);
    backing.setGroupGenerating(true);
    expect(backing.live()['/scripts/group-chats.js']!.is_group_generating).toBe(true);
    backing.setGroupGenerating(false);
    expect(backing.live()['/scripts/group-chats.js']!.is_group_generating).toBe(false);
  });
});
