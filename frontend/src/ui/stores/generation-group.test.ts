// Group turns in the generation store: several members reply one after
// another (GROUP_WRAPPER_STARTED, GROUP_MEMBER_DRAFTED and a generation
// each, GROUP_WRAPPER_FINISHED), the chat stays busy in between, each live
// row names its member, and a stop ends the whole turn.
import { get } from 'svelte/store';
import { describe, expect, it } from 'vitest';
import { message } from './fake-hearth';
import { flush, reply, setup } from './generation.fixture';

const started = (type = 'normal') => ({ chatId: 'c1', selected_group: 'grp', type });
const drafted = (avatar: string, type = 'normal') => ({ chatId: 'c1', groupId: 'grp', avatar, type });

describe('generation store in a group chat', () => {
  it('follows a turn of three members: each row names its member, and the chat stays busy between them', async () => {
    const { fake, gen, commit } = await setup();
    expect(await gen.send('Dinner, anyone?')).toBe(true);
    await flush();
    fake.emit('group_wrapper_started', started());
    expect(get(gen.turn)).toMatchObject({ chatId: 'c1', own: true });
    expect(get(gen.running)).toMatchObject({ generationId: 'g-1', member: null });
    // Drafted after start answered, before its generation started: the member is that generation's.
    fake.emit('group_member_drafted', drafted('Ada.png'));
    expect(get(gen.running)).toMatchObject({ generationId: 'g-1', member: 'Ada.png' });
    fake.emit('generation_started', { chatId: 'c1', generationId: 'g-1', type: 'normal' });
    expect(get(gen.running)).toMatchObject({ generationId: 'g-1', member: 'Ada.png' });
    expect(get(gen.turn)).toMatchObject({ next: null, spoken: 1 });

    fake.emit('stream_token_received', { chatId: 'c1', generationId: 'g-1', text: 'Soup.' });
    fake.emit('generation_ended', { chatId: 'c1', generationId: 'g-1', index: 2, swipeId: 0 });
    await commit(reply('r1', 'g-1', { name: 'Ada', original_avatar: 'Ada.png' }));
    expect(get(gen.running)).toBeNull();
    expect(get(gen.busy), 'between two members the turn goes on').toBe(true);

    fake.emit('group_member_drafted', drafted('Bo.png'));
    expect(get(gen.running)).toMatchObject({ generationId: null, member: 'Bo.png', own: true, type: 'normal' });
    expect(get(gen.display)).toEqual({ mode: 'row', replaces: null });
    fake.emit('generation_started', { chatId: 'c1', generationId: 'g-2', type: 'normal' });
    expect(get(gen.running)).toMatchObject({ generationId: 'g-2', member: 'Bo.png', own: true });
    fake.emit('stream_token_received', { chatId: 'c1', generationId: 'g-2', text: 'Bread.' });
    expect(get(gen.live).text).toBe('Bread.');

    // The next member is drafted before the last reply reached the view: it shows once that has.
    fake.emit('generation_ended', { chatId: 'c1', generationId: 'g-2', index: 3, swipeId: 0 });
    fake.emit('group_member_drafted', drafted('Cy.png'));
    expect(get(gen.running)).toMatchObject({ generationId: 'g-2', member: 'Bo.png' });
    await commit(reply('r2', 'g-2', { name: 'Bo', original_avatar: 'Bo.png' }));
    expect(get(gen.running)).toMatchObject({ generationId: null, member: 'Cy.png' });
    fake.emit('generation_started', { chatId: 'c1', generationId: 'g-3', type: 'normal' });
    fake.emit('generation_ended', { chatId: 'c1', generationId: 'g-3', index: 4, swipeId: 0 });
    fake.emit('group_wrapper_finished', started());
    expect(get(gen.turn)).toBeNull();
    expect(get(gen.busy), 'the last reply is still on its way').toBe(true);
    await commit(reply('r3', 'g-3', { name: 'Cy', original_avatar: 'Cy.png' }));
    expect(get(gen.running)).toBeNull();
    expect(get(gen.busy)).toBe(false);
    expect(fake.generate.start).toHaveBeenCalledTimes(1);
  });

  it('speak now asks for that member, and a manual group’s send only sends', async () => {
    const { fake, gen } = await setup();
    expect(await gen.send('Just saying.', [], { reply: false })).toBe(true);
    expect(fake.chat.addMessages).toHaveBeenCalledWith('c1', { is_user: true, name: 'Me', mes: 'Just saying.' });
    expect(fake.generate.start).not.toHaveBeenCalled();
    expect(await gen.send('', [], { reply: false }), 'an empty send asks nobody').toBe(false);

    expect(await gen.speakNow('Cy.png')).toBe(true);
    expect(fake.generate.start).toHaveBeenCalledWith({ chatId: 'c1', type: 'normal', memberAvatar: 'Cy.png' });
    expect(get(gen.running)).toMatchObject({ member: 'Cy.png', own: true });
    expect(await gen.speakNow('Bo.png'), 'busy').toBe(false);
  });

  it('says so when nobody was drafted', async () => {
    const { fake, gen, toastTexts } = await setup();
    fake.generate.start.mockResolvedValueOnce({ generationId: '' });
    await gen.send('');
    await flush();
    expect(get(gen.running)).toBeNull();
    expect(toastTexts()).toEqual(['null: Nobody was picked to reply — choose who speaks next.']);
    fake.emit('group_wrapper_started', started());
    fake.emit('group_wrapper_finished', started());
    expect(get(gen.busy)).toBe(false);
  });

  it('a stop between two members stops the next as it starts, and ends the turn', async () => {
    const { fake, gen, commit } = await setup();
    await gen.send('Go on.');
    await flush();
    fake.emit('group_wrapper_started', started());
    fake.emit('group_member_drafted', drafted('Ada.png'));
    fake.emit('generation_started', { chatId: 'c1', generationId: 'g-1', type: 'normal' });
    fake.emit('generation_ended', { chatId: 'c1', generationId: 'g-1', index: 2, swipeId: 0 });
    await commit(reply('r1', 'g-1'));
    expect(get(gen.running)).toBeNull();

    await gen.stop();
    expect(get(gen.stopping)).toBe(true);
    expect(fake.generate.stop).not.toHaveBeenCalled();
    fake.emit('group_member_drafted', drafted('Bo.png'));
    expect(get(gen.running)).toMatchObject({ member: 'Bo.png', stopping: true });
    fake.emit('generation_started', { chatId: 'c1', generationId: 'g-2', type: 'normal' });
    expect(fake.generate.stop).toHaveBeenCalledWith('g-2');
    fake.emit('generation_stopped', { chatId: 'c1', generationId: 'g-2', index: null });
    fake.emit('group_wrapper_finished', started());
    expect(get(gen.busy)).toBe(false);
    expect(get(gen.stopping)).toBe(false);
  });

  it('a stop while a member writes stops that generation (the backend ends the turn with it)', async () => {
    const { fake, gen } = await setup();
    await gen.send('Hi all');
    await flush();
    fake.emit('group_wrapper_started', started());
    fake.emit('group_member_drafted', drafted('Ada.png'));
    fake.emit('generation_started', { chatId: 'c1', generationId: 'g-1', type: 'normal' });
    await gen.stop();
    expect(fake.generate.stop).toHaveBeenCalledWith('g-1');
    expect(get(gen.stopping)).toBe(true);
    fake.emit('generation_stopped', { chatId: 'c1', generationId: 'g-1', index: null });
    fake.emit('group_wrapper_finished', started());
    expect(get(gen.busy)).toBe(false);
  });

  it('shows a turn another window or auto mode runs, with each member, leaving its failures to it', async () => {
    const { fake, gen, toastTexts } = await setup([message('m0', { is_user: true }), message('m1', { name: 'Ada', original_avatar: 'Ada.png' })]);
    fake.emit('group_wrapper_started', started('swipe'));
    expect(get(gen.turn)).toMatchObject({ own: false, type: 'swipe' });
    expect(get(gen.busy)).toBe(true);
    fake.emit('group_member_drafted', drafted('Ada.png', 'swipe'));
    expect(get(gen.running)).toMatchObject({ member: 'Ada.png', own: false });
    expect(get(gen.display)).toEqual({ mode: 'inplace', targetId: 'm1', type: 'swipe' });
    fake.emit('generation_started', { chatId: 'c1', generationId: 'x-1', type: 'swipe' });
    expect(get(gen.running)).toMatchObject({ generationId: 'x-1', member: 'Ada.png', own: false });
    fake.emit('generation_ended', { chatId: 'c1', generationId: 'x-1', index: null, error: { code: 'model.timeout', message: 'late' } });
    fake.emit('group_wrapper_finished', started('swipe'));
    expect(toastTexts()).toEqual([]);
    expect(get(gen.busy)).toBe(false);
  });

  it('keeps a failed member’s text as that member’s message', async () => {
    const { fake, gen } = await setup();
    fake.characters.push({ avatar: 'Bo.png', name: 'Bo' });
    await gen.speakNow('Bo.png');
    await flush();
    fake.emit('group_wrapper_started', started());
    fake.emit('group_member_drafted', drafted('Bo.png'));
    fake.emit('generation_started', { chatId: 'c1', generationId: 'g-1', type: 'normal' });
    fake.emit('stream_token_received', { chatId: 'c1', generationId: 'g-1', text: 'I was say' });
    fake.emit('generation_ended', { chatId: 'c1', generationId: 'g-1', index: null, text: 'I was say', error: { code: 'model.unavailable', message: '503' } });
    fake.emit('group_wrapper_finished', started());
    expect(get(gen.failed)).toMatchObject({ member: 'Bo.png', text: 'I was say' });
    expect(await gen.keepFailed()).toBe(true);
    expect(fake.chat.addMessages).toHaveBeenLastCalledWith('c1', { is_user: false, name: 'Bo', mes: 'I was say', original_avatar: 'Bo.png' });
  });

  it('a quiet or impersonating turn shows no row', async () => {
    const { fake, gen } = await setup();
    fake.emit('group_wrapper_started', started('quiet'));
    fake.emit('group_member_drafted', drafted('Ada.png', 'quiet'));
    expect(get(gen.turn)).toBeNull();
    expect(get(gen.running)).toBeNull();
    expect(get(gen.busy)).toBe(false);
  });

  it('a stop in a turn whose end was missed frees the chat once nothing generates there', async () => {
    const { fake, gen } = await setup();
    fake.emit('group_wrapper_started', started());
    expect(get(gen.busy)).toBe(true);
    const asked = fake.generate.status.mock.calls.length;
    await gen.stop();
    await flush();
    expect(get(gen.busy), 'not at once: members have a gap between them').toBe(true);
    await new Promise((r) => setTimeout(r, 60));
    expect(fake.generate.status.mock.calls.length).toBe(asked + 1);
    expect(get(gen.busy)).toBe(false);
  });
});
