// Group chats in the list and the editor (issue 38), at 1280×800 and on a
// phone (390×844, touch): three characters made through the ABI; a group
// made in the New group dialog — members picked from a search, reordered
// with the move buttons, a drag of the grip and the arrow keys, one muted,
// the list strategy and a join mode with its prefix — is what
// api.groups.get answers; it shows among the characters with a collage of
// its members and a "Group" marker, search finds it by a member's name; it
// opens in a chat seeded with the members' greetings, New chat opens
// another, and the selection survives a reload; a name the host refuses
// is shown beside the field and changes nothing; an edit sends what
// changed; Delete with its chats removes both. The phone pass makes a
// group by taps in a full-screen editor with 44 px targets. Screenshots
// groups-ui-*. A member's own connection is set in its Reply settings
// panel and cleared again, and hearth.memberOverrides says exactly that.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { messageRow, openApp, screenshot, useHearth, waitFor } from './harness.mjs';

const PHONE = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true };

/** still waits until no animation runs but endless ones (spinners), for a screenshot. */
const still = (page) =>
  page.waitForFunction(() => document.getAnimations().every((a) => a.playState !== 'running' || a.effect?.getComputedTiming().iterations === Infinity));

/** memberOrder reads the editor's member rows, top to bottom, by avatar key. */
const memberOrder = (dialog) => dialog.locator('ol.members > li').evaluateAll((rows) => rows.map((r) => r.dataset.avatar));

/** groupOption is the character list's row of a group (role option, named "<name>, group…"). */
const groupOption = (page, name) => page.getByRole('option', { name: new RegExp(`^${name}, group`) });

/**
 * dialogProblems lists what is wrong with a dialog on a phone: it does not
 * fill the screen, something in it sticks out sideways, or a visible
 * control is smaller than 44×44 px.
 */
function dialogProblems(dialog) {
  return dialog.evaluate((el) => {
    const out = [];
    const box = el.getBoundingClientRect();
    if (box.left > 1 || box.top > 1 || box.right < window.innerWidth - 1 || box.bottom < window.innerHeight - 1) {
      out.push(`the dialog is ${Math.round(box.width)}×${Math.round(box.height)} at ${Math.round(box.left)},${Math.round(box.top)}, not the whole screen`);
    }
    for (const node of el.querySelectorAll('*')) {
      const r = node.getBoundingClientRect();
      if (r.width > 0 && r.right > box.right + 1) out.push(`<${node.tagName.toLowerCase()} class="${node.className?.baseVal ?? node.className}"> ends at ${Math.round(r.right)}`);
    }
    for (const c of el.querySelectorAll('button, input:not([type=hidden]), textarea, select')) {
      const r = c.getBoundingClientRect();
      if (r.width === 0 || r.height === 0 || getComputedStyle(c).visibility !== 'visible' || c.closest('.visually-hidden')) continue;
      if (r.width < 43.5 || r.height < 43.5) out.push(`${c.tagName.toLowerCase()} "${c.getAttribute('aria-label') || c.textContent.trim().slice(0, 30) || c.type}" ${Math.round(r.width)}×${Math.round(r.height)}`);
    }
    return out.slice(0, 12);
  });
}

describe('groups in the character list and the group editor', () => {
  const env = useHearth({ before, after });
  let page;
  /** cast are the three characters' avatar keys: Ann, Bram, Cleo. */
  let cast;
  let groupId;

  before(async () => {
    page = await openApp(env.browser, env.server.url, { theme: 'dark' });
    cast = await page.evaluate(async () => {
      const h = window.__HEARTH__.api;
      const out = [];
      for (const [name, greeting] of [
        ['Ann', 'Ann here, {{user}}.'],
        ['Bram', 'Bram nods.'],
        ['Cleo', 'Cleo waves at {{user}}.'],
      ]) {
        out.push((await h.characters.create({ name, first_mes: greeting })).avatar);
      }
      return out;
    });
    await page.getByRole('option', { name: 'Cleo' }).waitFor();
  });

  after(() => {
    assert.deepEqual(page?.errors ?? [], [], 'uncaught errors in the page');
  });

  it('makes a group in the New group dialog: members picked, reordered three ways, one muted, the list strategy', async () => {
    const [ann, bram, cleo] = cast;
    await page.getByRole('button', { name: 'New group' }).click();
    const dialog = page.getByRole('dialog', { name: 'New group' });
    await dialog.waitFor();

    // No members: the form says so beside the members and nothing is made.
    await dialog.getByRole('button', { name: 'Create group' }).click();
    await dialog.getByText('Add at least one member.').waitFor();
    assert.deepEqual(await page.evaluate(() => window.__HEARTH__.api.groups.list()), [], 'no group was made');

    await dialog.getByLabel('Name', { exact: true }).fill('Tavern');
    const search = dialog.getByRole('searchbox', { name: 'Search characters to add' });
    await search.fill('a');
    const offered = () => dialog.getByRole('list', { name: 'Characters to add' }).getByRole('button').evaluateAll((bs) => bs.map((b) => b.getAttribute('aria-label')));
    assert.deepEqual(await offered(), ['Add Ann', 'Add Bram'], 'the search keeps the characters whose names have an a');
    await dialog.getByRole('button', { name: 'Add Ann' }).click();
    await search.fill('');
    await dialog.getByRole('button', { name: 'Add Bram' }).click();
    await dialog.getByRole('button', { name: 'Add Cleo' }).click();
    assert.deepEqual(await memberOrder(dialog), [ann, bram, cleo]);
    await dialog.getByText('Every character is a member.').waitFor();
    assert.equal(await dialog.getByText('Add at least one member.').count(), 0, 'the error goes once members are added');

    // The move buttons; focus stays on the button that moved the member.
    await dialog.getByRole('button', { name: 'Move Cleo up' }).click();
    assert.deepEqual(await memberOrder(dialog), [ann, cleo, bram]);
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('aria-label')), 'Move Cleo up');
    assert.equal(await dialog.getByRole('button', { name: 'Move Ann up' }).isDisabled(), true, 'the first member cannot move up');

    // A drag of Bram's grip onto the top of the list.
    const grip = await dialog.getByRole('button', { name: /^Reorder Bram/ }).boundingBox();
    const first = await dialog.locator('ol.members > li').first().boundingBox();
    await page.mouse.move(grip.x + grip.width / 2, grip.y + grip.height / 2);
    await page.mouse.down();
    await page.mouse.move(grip.x + grip.width / 2, first.y + 4, { steps: 8 });
    await page.mouse.up();
    assert.deepEqual(await memberOrder(dialog), [bram, ann, cleo], 'the drag put Bram first');

    // The arrow keys on a grip: Cleo up one.
    await dialog.getByRole('button', { name: /^Reorder Cleo/ }).focus();
    await page.keyboard.press('ArrowUp');
    assert.deepEqual(await memberOrder(dialog), [bram, cleo, ann]);
    assert.match(await page.evaluate(() => document.activeElement?.getAttribute('aria-label')), /^Reorder Cleo/, 'focus stays on the grip');

    // Mute Ann; the list strategy; a join mode shows its prefix and suffix.
    const mute = dialog.getByRole('button', { name: 'Mute Ann' });
    await mute.click();
    assert.equal(await mute.getAttribute('aria-pressed'), 'true');
    await dialog.locator('ol.members').scrollIntoViewIfNeeded();
    await still(page);
    await screenshot(page, 'groups-ui-desktop-editor-members');
    await dialog.getByRole('radio', { name: /^List/ }).check();
    assert.equal(await dialog.getByLabel('Join prefix').count(), 0, 'no join fields in swap mode');
    await dialog.getByRole('radio', { name: /^Join, without muted/ }).check();
    await dialog.getByLabel('Join prefix').fill('[<FIELDNAME> of {{char}}:');
    await dialog.getByLabel('Join suffix').fill(']');
    await dialog.getByLabel(/Members may answer themselves/).check();
    await dialog.getByRole('spinbutton', { name: 'Auto-mode delay' }).fill('7');
    await still(page);
    await screenshot(page, 'groups-ui-desktop-editor');

    await dialog.getByRole('button', { name: 'Create group' }).click();
    await dialog.waitFor({ state: 'hidden' });
    const [made] = await page.evaluate(() => window.__HEARTH__.api.groups.list());
    groupId = made.id;
    const saved = await page.evaluate((id) => window.__HEARTH__.api.groups.get(id), groupId);
    assert.equal(saved.name, 'Tavern');
    assert.deepEqual(saved.members, [bram, cleo, ann]);
    assert.deepEqual(saved.disabled_members, [ann]);
    assert.equal(saved.activation_strategy, 1);
    assert.equal(saved.generation_mode, 1);
    assert.equal(saved.generation_mode_join_prefix, '[<FIELDNAME> of {{char}}:');
    assert.equal(saved.generation_mode_join_suffix, ']');
    assert.equal(saved.allow_self_responses, true);
    assert.equal(saved.auto_mode_delay, 7);
    assert.equal(saved.fav, false);
  });

  it('opens the new group in a chat seeded with every member’s greeting, and shows it in the list with a collage', async () => {
    const [ann, bram, cleo] = cast;
    const current = await waitFor(async () => {
      const c = await page.evaluate(() => window.__HEARTH__.api.chat.current());
      return c?.groupId ? c : null;
    }, 'the group chat to open');
    assert.equal(current.groupId, groupId);
    const messages = await page.evaluate((id) => window.__HEARTH__.api.chat.getStMessages(id), current.chatId);
    assert.deepEqual(
      messages.map((m) => [m.original_avatar, m.mes]),
      [
        [bram, 'Bram nods.'],
        [cleo, 'Cleo waves at User.'],
        [ann, 'Ann here, User.'],
      ],
      'the greetings of the members, in member order (the muted one too)',
    );
    await messageRow(page, 2).getByText('Ann here, User.').waitFor();

    const option = groupOption(page, 'Tavern');
    await option.waitFor();
    assert.equal(await option.getAttribute('aria-selected'), 'true', 'the group is the selection');
    assert.equal(await option.locator('.group-avatar').getAttribute('data-members'), '3');
    assert.equal(await option.locator('.group-avatar .cell').count(), 3, 'a collage of its three members');
    assert.match(await option.getAttribute('aria-label'), /^Tavern, group: 3 members: Bram, Cleo, Ann$/);
    assert.match(await option.textContent(), /Group\s*Bram, Cleo, Ann/, 'marked as a group, its members named');
    // The chat list shows the group's chat, under the group's header.
    const chats = page.locator('section[aria-label="Chats"]');
    await chats.getByRole('button', { name: 'Group actions for Tavern' }).waitFor();
    assert.equal(await chats.locator('.list > li.item').count(), 1);
    assert.equal(await chats.getByRole('button', { name: 'Import chat' }).count(), 0, 'no chat file import for a group');
  });

  it('starts another group chat with New chat, and remembers the group across a reload', async () => {
    const before = await page.evaluate(() => window.__HEARTH__.api.chat.current().chatId);
    await page.locator('section[aria-label="Chats"]').getByRole('button', { name: 'New chat' }).click();
    const opened = await waitFor(async () => {
      const c = await page.evaluate(() => window.__HEARTH__.api.chat.current());
      return c && c.chatId !== before && c.groupId ? c : null;
    }, 'a new group chat to open');
    assert.equal(opened.groupId, groupId);
    const list = await page.evaluate((id) => window.__HEARTH__.api.chat.list({ groupId: id }), groupId);
    assert.equal(list.length, 2);
    const messages = await page.evaluate((id) => window.__HEARTH__.api.chat.getStMessages(id), opened.chatId);
    assert.equal(messages.length, 3, 'seeded with three greetings');
    await waitFor(async () => (await page.locator('section[aria-label="Chats"] .list > li.item').count()) === 2, 'both chats listed');
    await still(page);
    await screenshot(page, 'groups-ui-desktop-list');

    await page.reload();
    await page.evaluate(() => window.__HEARTH__.ready);
    await groupOption(page, 'Tavern').and(page.locator('[aria-selected="true"]')).waitFor();
    await waitFor(async () => (await page.evaluate(() => window.__HEARTH__.api.chat.current()?.chatId)) === opened.chatId, 'the last group chat reopened');

    // A script opening a group chat while a character is selected: the group becomes the selection.
    await page.getByRole('option', { name: /^Cleo/ }).click();
    await page.getByRole('option', { name: /^Cleo/, selected: true }).waitFor();
    await page.evaluate((id) => window.__HEARTH__.api.chat.select(id), opened.chatId);
    await groupOption(page, 'Tavern').and(page.locator('[aria-selected="true"]')).waitFor();
    await page.locator('section[aria-label="Chats"]').getByRole('button', { name: 'Group actions for Tavern' }).waitFor();
  });

  it('finds the group by its name or a member’s name', async () => {
    const search = page.getByRole('searchbox', { name: 'Search characters by name or tag' });
    await search.fill('bram');
    await waitFor(async () => (await page.getByRole('listbox', { name: 'Character list' }).getByRole('option').count()) === 2, 'Bram and the group');
    await groupOption(page, 'Tavern').waitFor();
    await search.fill('tav');
    await waitFor(async () => (await page.getByRole('listbox', { name: 'Character list' }).getByRole('option').count()) === 1, 'only the group');
    await search.fill('');
  });

  it('edits the group: a name the host refuses shows beside it and changes nothing; a save sends what changed', async () => {
    const [ann, bram, cleo] = cast;
    await page.getByRole('button', { name: 'Group actions for Tavern' }).click();
    await page.getByRole('menuitem', { name: /^Edit group…/ }).click();
    const dialog = page.getByRole('dialog', { name: 'Edit Tavern' });
    await dialog.waitFor();
    assert.deepEqual(await memberOrder(dialog), [bram, cleo, ann]);
    assert.equal(await dialog.getByRole('button', { name: 'Mute Ann' }).getAttribute('aria-pressed'), 'true');
    assert.equal(await dialog.getByRole('radio', { name: /^List/ }).isChecked(), true);
    assert.equal(await dialog.getByRole('button', { name: 'Save' }).isDisabled(), true, 'nothing to save yet');

    const before = await page.evaluate((id) => window.__HEARTH__.api.groups.get(id), groupId);
    // 600 × "é" is 1,200 bytes: past the host's 1,024.
    await dialog.getByLabel('Name', { exact: true }).fill('é'.repeat(600));
    await dialog.getByRole('button', { name: 'Save' }).click();
    const error = dialog.locator('#ge-name-error');
    await error.waitFor();
    assert.match(await error.textContent(), /validation\./);
    assert.equal(await dialog.getByLabel('Name', { exact: true }).getAttribute('aria-invalid'), 'true');
    assert.deepEqual(await page.evaluate((id) => window.__HEARTH__.api.groups.get(id), groupId), before, 'the refused save changed nothing');

    await dialog.getByLabel('Name', { exact: true }).fill('Tavern crew');
    await dialog.getByRole('button', { name: 'Remove Bram' }).click();
    await dialog.getByRole('button', { name: 'Mute Ann' }).click();
    await dialog.getByRole('button', { name: 'Favourite' }).click();
    assert.equal(await dialog.getByRole('button', { name: 'Favourite' }).getAttribute('aria-pressed'), 'true');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'hidden' });
    const saved = await page.evaluate((id) => window.__HEARTH__.api.groups.get(id), groupId);
    assert.equal(saved.name, 'Tavern crew');
    assert.deepEqual(saved.members, [cleo, ann]);
    assert.deepEqual(saved.disabled_members, []);
    assert.equal(saved.fav, true);
    assert.equal(saved.activation_strategy, 1, 'untouched fields kept');
    const option = groupOption(page, 'Tavern crew');
    await option.waitFor();
    assert.match(await option.getAttribute('aria-label'), /favourite: 2 members: Cleo, Ann/);
    await waitFor(async () => (await option.locator('.group-avatar .cell').count()) === 2, 'a collage of two');

    // A member deleted with its character: the group shows one member fewer.
    await page.evaluate((a) => window.__HEARTH__.api.characters.delete(a), ann);
    await waitFor(async () => /1 member: Cleo/.test(await option.getAttribute('aria-label')), 'Ann gone from the group');
  });

  it('deletes the group with its chats after asking', async () => {
    await page.getByRole('button', { name: 'Group actions for Tavern crew' }).click();
    await page.getByRole('menuitem', { name: /^Delete group…/ }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete group' });
    await dialog.getByRole('checkbox', { name: 'Also delete its 2 chats' }).check();
    await dialog.getByRole('button', { name: 'Delete with chats' }).click();
    await dialog.waitFor({ state: 'hidden' });
    assert.deepEqual(await page.evaluate(() => window.__HEARTH__.api.groups.list()), []);
    assert.deepEqual(await page.evaluate((id) => window.__HEARTH__.api.chat.list({ groupId: id }), groupId), []);
    await waitFor(async () => (await groupOption(page, 'Tavern crew').count()) === 0, 'the group gone from the list');
    await page.getByRole('option', { selected: true }).waitFor();
    assert.equal(await page.evaluate(() => window.__HEARTH__.api.chat.current()?.groupId ?? null), null, 'no group chat open');
  });

  it('gives a member its own connection in Reply settings, and takes it back', async () => {
    const [, bram, cleo] = cast;
    const [near, far, group] = await page.evaluate(async (members) => {
      const h = window.__HEARTH__.api;
      const conn = (name) => h.connections.save({ name, provider: 'openai-compatible', baseUrl: 'http://127.0.0.1:9/v1', model: 'm' });
      return [await conn('Near'), await conn('Far'), await h.groups.create({ name: 'Duo', members, hearth: { note: 'kept' } })];
    }, [bram, cleo]);
    assert.notEqual(near.id, far.id);
    const option = groupOption(page, 'Duo');
    await option.click();
    await page.getByRole('button', { name: 'Group actions for Duo' }).click();
    await page.getByRole('menuitem', { name: /^Edit group…/ }).click();
    const dialog = page.getByRole('dialog', { name: 'Edit Duo' });
    await dialog.waitFor();

    const toggle = dialog.getByRole('button', { name: 'Reply settings for Cleo' });
    assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
    await toggle.click();
    assert.equal(await toggle.getAttribute('aria-expanded'), 'true');
    const panel = dialog.getByRole('group', { name: 'Reply settings for Cleo' });
    const connection = panel.getByLabel('Connection');
    assert.equal(await connection.inputValue(), '', 'the chat’s connection to start with');
    const offered = await connection.locator('option').allTextContents();
    assert.deepEqual(offered, ['The chat’s connection', 'Far', 'Near']);
    assert.equal(await panel.getByLabel('Preset').locator('option').first().textContent(), 'The chat’s preset');
    await connection.selectOption({ label: 'Far' });
    await dialog.locator(`li[data-avatar="${cleo}"] .override`).getByText('Far').waitFor();
    await still(page);
    await screenshot(page, 'groups-ui-desktop-reply-settings');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'hidden' });
    let saved = await page.evaluate((id) => window.__HEARTH__.api.groups.get(id), group.id);
    assert.deepEqual(saved.hearth, { note: 'kept', memberOverrides: { [cleo]: { connectionId: far.id } } }, 'exactly the chosen override, the block’s other key kept');

    await page.getByRole('button', { name: 'Group actions for Duo' }).click();
    await page.getByRole('menuitem', { name: /^Edit group…/ }).click();
    await dialog.waitFor();
    await dialog.locator(`li[data-avatar="${cleo}"] .override`).getByText('Far').waitFor();
    await dialog.getByRole('button', { name: 'Reply settings for Cleo' }).click();
    await panel.getByLabel('Connection').selectOption({ label: 'The chat’s connection' });
    assert.equal(await dialog.locator('.override').count(), 0, 'no badge once back to the chat’s');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'hidden' });
    saved = await page.evaluate((id) => window.__HEARTH__.api.groups.get(id), group.id);
    assert.deepEqual(saved.hearth, { note: 'kept' }, 'the entry is gone');

    await page.evaluate(async (ids) => {
      const h = window.__HEARTH__.api;
      await h.groups.delete(ids.group, { deleteChats: true });
      for (const id of ids.conns) await h.connections.delete(id);
    }, { group: group.id, conns: [near.id, far.id] });
    await waitFor(async () => (await groupOption(page, 'Duo').count()) === 0, 'the group gone from the list');
  });

  it('on a tablet’s avatar rail: the group’s collage and a 44 px New group', async () => {
    const context = await env.browser.newContext({ viewport: { width: 820, height: 1180 }, hasTouch: true, reducedMotion: 'reduce' });
    await context.addInitScript(() => localStorage.setItem('hearth.theme', 'dark'));
    try {
      const tablet = await openApp(context, env.server.url);
      await tablet.evaluate((members) => window.__HEARTH__.api.groups.create({ name: 'Rail crew', members }), cast.slice(1));
      const option = groupOption(tablet, 'Rail crew');
      await option.waitFor();
      const avatar = await option.locator('.group-avatar').boundingBox();
      const rail = await tablet.locator('aside[aria-label="Characters"]').boundingBox();
      assert.ok(avatar.x >= rail.x && avatar.x + avatar.width <= rail.x + rail.width, 'the collage sits in the rail');
      const nb = await tablet.getByRole('button', { name: 'New group' }).boundingBox();
      assert.ok(nb.width >= 43.5 && nb.height >= 43.5 && nb.x + nb.width <= rail.x + rail.width, `New group fits the rail: ${JSON.stringify(nb)}`);
      await still(tablet);
      await screenshot(tablet, 'groups-ui-tablet-rail');
      await tablet.evaluate(async () => {
        const h = window.__HEARTH__.api;
        for (const g of await h.groups.list()) await h.groups.delete(g.id, { deleteChats: true });
      });
    } finally {
      await context.close();
    }
  });

  it('on a phone: New group in reach, a full-screen editor with 44 px targets, move buttons by tap', async () => {
    const [, bram, cleo] = cast;
    const context = await env.browser.newContext({ ...PHONE, reducedMotion: 'reduce' });
    await context.addInitScript(() => localStorage.setItem('hearth.theme', 'dark'));
    try {
      const phone = await openApp(context, env.server.url);
      const newGroup = phone.getByRole('button', { name: 'New group' });
      await waitFor(
        async () => {
          if (await newGroup.isVisible()) return true;
          for (const back of ['Back to chats', 'Back to characters']) {
            const b = phone.getByRole('button', { name: back });
            if (await b.isVisible()) await b.tap().catch(() => {});
          }
          return false;
        },
        'the character list',
        { interval: 250 },
      );
      const nb = await newGroup.boundingBox();
      assert.ok(nb.width >= 43.5 && nb.height >= 43.5 && nb.y + nb.height <= 844, `New group is a 44 px target on screen: ${JSON.stringify(nb)}`);
      await newGroup.tap();
      const dialog = phone.getByRole('dialog', { name: 'New group' });
      await dialog.waitFor();
      await dialog.getByLabel('Name', { exact: true }).fill('Night shift');
      await dialog.getByRole('button', { name: 'Add Bram' }).tap();
      await dialog.getByRole('button', { name: 'Add Cleo' }).tap();
      await dialog.getByRole('button', { name: 'Move Cleo up' }).tap();
      assert.deepEqual(await memberOrder(dialog), [cleo, bram]);
      await dialog.getByRole('button', { name: 'Mute Bram' }).tap();
      await dialog.getByRole('radio', { name: /^Pooled/ }).tap();
      await still(phone);
      assert.deepEqual(await dialogProblems(dialog), [], 'the editor fills the phone, nothing sticks out, 44 px targets');
      await screenshot(phone, 'groups-ui-phone-editor');
      await dialog.getByRole('radio', { name: /^Join, with muted/ }).tap();
      await dialog.getByLabel('Join prefix').scrollIntoViewIfNeeded();
      await still(phone);
      assert.deepEqual(await dialogProblems(dialog), [], 'the join fields fit too');
      await screenshot(phone, 'groups-ui-phone-editor-join');
      await dialog.getByRole('button', { name: 'Create group' }).tap();
      await dialog.waitFor({ state: 'hidden' });
      const [made] = await phone.evaluate(() => window.__HEARTH__.api.groups.list());
      assert.deepEqual([made.name, made.members, made.disabled_members, made.activation_strategy, made.generation_mode], ['Night shift', [cleo, bram], [bram], 3, 2]);

      // The group's chat opens on the chat pane; back shows its chats, back again the list with the group.
      await messageRow(phone, 0).getByText('Cleo waves at User.').waitFor();
      await phone.getByRole('button', { name: 'Back to chats' }).tap();
      await phone.getByRole('button', { name: 'Group actions for Night shift' }).waitFor();
      await still(phone);
      await screenshot(phone, 'groups-ui-phone-chats');
      // Edit on the phone: the same full-screen editor, Delete… in reach beside Cancel and Save.
      await phone.getByRole('button', { name: 'Group actions for Night shift' }).tap();
      await phone.getByRole('menuitem', { name: /^Edit group…/ }).tap();
      const edit = phone.getByRole('dialog', { name: 'Edit Night shift' });
      await edit.waitFor();
      await edit.getByRole('button', { name: 'Move Bram up' }).tap();
      assert.deepEqual(await memberOrder(edit), [bram, cleo]);
      await still(phone);
      assert.deepEqual(await dialogProblems(edit), [], 'the edit dialog fits the phone');
      await screenshot(phone, 'groups-ui-phone-edit');
      await edit.getByRole('button', { name: 'Reply settings for Bram' }).tap();
      await edit.getByRole('group', { name: 'Reply settings for Bram' }).getByLabel('Preset').waitFor();
      await still(phone);
      assert.deepEqual(await dialogProblems(edit), [], 'the reply settings panel fits the phone, 44 px selects');
      await screenshot(phone, 'groups-ui-phone-reply-settings');
      await edit.getByRole('button', { name: 'Reply settings for Bram' }).tap();
      await edit.getByRole('button', { name: 'Save' }).tap();
      await edit.waitFor({ state: 'hidden' });
      assert.deepEqual((await phone.evaluate((id) => window.__HEARTH__.api.groups.get(id), made.id)).members, [bram, cleo]);
      await phone.getByRole('button', { name: 'Back to characters' }).tap();
      const option = groupOption(phone, 'Night shift');
      await option.waitFor();
      const box = await option.boundingBox();
      assert.ok(box.height >= 43.5 && box.x >= 0 && box.x + box.width <= 390, `the group row is a touch target on screen: ${JSON.stringify(box)}`);
      await still(phone);
      await screenshot(phone, 'groups-ui-phone-list');
      assert.deepEqual(phone.errors, [], 'uncaught errors on the phone');
    } finally {
      await context.close();
    }
  });
});
