// A group chat in the chat view (issue 38), against a real `hearth serve`
// and the scripted model: three characters with pictures and a group made
// through the ABI, its chat opened from the group in the character list
// (a phone's by a script's api.chat.select). The
// header shows the group (its name, the members' collage, the members);
// each message row shows its speaker's name and picture; a message sent
// in the composer gets three replies one after another, the live row
// naming the member writing, the stop button staying a stop button
// between them; Stop mid-turn ends the whole turn; a muted member picked
// in the "Speak now" bar replies; a manual group's send only sends (the
// bar says you pick); the auto mode switch turns the members loose, and
// typing in the composer or leaving the chat turns it off with a notice.
// A deleted member's messages keep their name on a placeholder picture.
// Screenshots at 1280×800 and 390×844.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { messageRow, openApp, pngImage, screenshot, useHearth, waitFor } from './harness.mjs';
import { scriptedModel } from './scripted-model.mjs';

const PHONE = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true };

describe('group chat: speakers, turns, speak now, stop, auto mode', () => {
  const env = useHearth({ before, after });
  let page;
  let llm;
  let chatId;
  let otherChatId;
  let group;
  /** cast maps a member's name to its avatar key. */
  const cast = {};

  const box = () => page.getByRole('textbox', { name: 'Message' });
  const bar = (p = page) => p.getByRole('group', { name: 'Who speaks next' });
  const stored = () => env.server.invoke('chat.getStMessages', chatId);
  const idle = () => waitFor(async () => !(await env.server.invoke('generate.status')).generating, 'the generation to end');

  /** speakerOf reads a row's name and the picture beside it. */
  async function speakerOf(row) {
    return {
      name: await row.locator('.msg-name').innerText(),
      src: await row.locator('.msg-gutter img').getAttribute('src').catch(() => null),
    };
  }

  before(async () => {
    llm = await scriptedModel({ delayMs: 30 });
    const colours = { Ada: [0xd9, 0x77, 0x3a], Bo: [0x3a, 0x8f, 0xd9], Cy: [0x5c, 0xb8, 0x5c] };
    for (const [name, rgb] of Object.entries(colours)) {
      const image = (await pngImage(64, 64, rgb)).toString('base64');
      const c = await env.server.invoke('characters.create', { name, description: `${name} is at supper.`, first_mes: `${name} sits down.` }, { image });
      cast[name] = c.avatar;
    }
    group = await env.server.invoke('groups.create', { name: 'Supper Club', members: [cast.Ada, cast.Bo, cast.Cy], activation_strategy: 1 });
    chatId = (await env.server.invoke('chat.create', { groupId: group.id })).chatId;
    otherChatId = (await env.server.invoke('chat.create', { avatar: cast.Ada })).chatId;
    const conn = await env.server.invoke('connections.save', { name: 'Scripted', provider: 'openai-compatible', baseUrl: llm.url, model: 'scripted', apiKey: 'sk-e2e' });
    await env.server.invoke('connections.select', conn.id);
    page = await openApp(env.browser, env.server.url);
    // The group in the character list opens its chat.
    await page.getByRole('option', { name: /^Supper Club, group/ }).click();
    await messageRow(page, 2).waitFor();
    assert.equal(await page.evaluate(() => window.__HEARTH__.api.chat.current()?.chatId), chatId);
  });

  afterEach(async () => {
    await env.server.invoke('groups.setAutoMode', chatId, false).catch(() => {});
    llm.reset();
    await idle();
  });

  after(async () => {
    llm?.release();
    await new Promise((r) => llm?.server.close(r) ?? r());
    assert.deepEqual(page?.errors ?? [], [], 'uncaught errors in the page');
  });

  it('the header shows the group and its members; every greeting its speaker’s name and picture', async () => {
    const header = page.getByRole('region', { name: 'Chat', exact: true }).locator('header').first();
    await header.getByText('Supper Club', { exact: true }).waitFor();
    await header.getByText(/^Ada, Bo, Cy/).waitFor();
    assert.equal(await header.locator('.group-avatar').count(), 1, 'the members’ collage, not a character’s avatar');
    assert.equal(await header.locator('.group-avatar img').count(), 3);
    const rows = [];
    for (let i = 0; i < 3; i++) rows.push(await speakerOf(messageRow(page, i)));
    assert.deepEqual(rows, ['Ada', 'Bo', 'Cy'].map((n) => ({ name: n, src: `/api/avatar/${encodeURIComponent(cast[n])}` })));
    await page.locator(`article[aria-label="Message 1 from Bo"]`).waitFor();
    assert.equal(await box().getAttribute('placeholder'), 'Message Supper Club');
    for (const n of ['Ada', 'Bo', 'Cy']) await bar().getByRole('button', { name: `${n} speaks now`, exact: true }).waitFor();
  });

  it('a message sent in the composer gets three replies, one per member, each row its speaker’s', async () => {
    llm.next({ text: ['I brought ', 'soup.'] }, { text: ['I brought ', 'bread', ' and butter.'], stallAt: 1 }, { text: ['I brought pie.'] });
    await box().fill('Dinner, anyone?');
    await box().press('Enter');
    await llm.stalled();
    // Bo is writing: the live row names Bo, beside Bo's picture; Ada's reply is in.
    const live = page.locator('article[aria-label="Bo is replying"]');
    await live.waitFor();
    assert.equal(await live.locator('.msg-gutter img').getAttribute('src'), `/api/avatar/${encodeURIComponent(cast.Bo)}`);
    await messageRow(page, 4).getByText('I brought soup.').waitFor();
    await page.getByRole('button', { name: 'Stop generating' }).waitFor();
    assert.equal(await bar().getByRole('button', { name: 'Cy speaks now', exact: true }).isDisabled(), true, 'nobody can be asked mid-turn');
    await page.mouse.move(0, 0);
    await screenshot(page, 'groups-chat-turn-desktop');
    llm.release();

    await messageRow(page, 6).getByText('I brought pie.').waitFor();
    const rows = [];
    for (let i = 4; i <= 6; i++) rows.push(await speakerOf(messageRow(page, i)));
    assert.deepEqual(rows, ['Ada', 'Bo', 'Cy'].map((n) => ({ name: n, src: `/api/avatar/${encodeURIComponent(cast[n])}` })));
    await page.locator('article[aria-label="Message 6 from Cy"]').waitFor();
    await page.getByRole('button', { name: 'Send message' }).waitFor();
    assert.equal(llm.requests.length, 3);
    assert.equal(llm.requests[1].messages.at(-1).content, '[Write the next reply only as Bo.]');
    const st = await stored();
    assert.deepEqual(st.slice(4).map((m) => [m.name, m.original_avatar]), ['Ada', 'Bo', 'Cy'].map((n) => [n, cast[n]]));
    await screenshot(page, 'groups-chat-replies-desktop');
  });

  it('Stop while the second member writes ends the whole turn: the third never replies', async () => {
    const before = (await stored()).length;
    llm.next({ text: ['Cheers.'] }, { text: ['Let me ', 'think', ' about it.'], stallAt: 1 }, { text: ['Never said.'] });
    await box().fill('A toast?');
    await box().press('Enter');
    await llm.stalled();
    await page.locator('article[aria-label="Bo is replying"]').waitFor();
    await page.getByRole('button', { name: 'Stop generating' }).click();
    await idle();
    await page.getByRole('button', { name: 'Send message' }).waitFor();
    const st = await stored();
    assert.ok(st.length <= before + 3, `at most the message, Ada's reply and Bo's partial (got ${st.length - before})`);
    assert.equal(st[before + 1].name, 'Ada');
    assert.ok(!st.some((m) => m.mes === 'Never said.'), 'Cy never replied');
    assert.equal(llm.requests.length, 5, 'no third request');
    assert.equal(llm.pending(), 1);
  });

  it('a muted member picked in the bar replies (SillyTavern’s /trigger)', async () => {
    await env.server.invoke('groups.update', group.id, { disabled_members: [cast.Cy] });
    const chip = bar().getByRole('button', { name: 'Cy speaks now (muted)' });
    await chip.waitFor();
    await page.getByRole('region', { name: 'Chat', exact: true }).locator('header').getByText(/Cy \(muted\)/).waitFor();
    const before = (await stored()).length;
    llm.next({ text: ['Pie, ', 'anyone?'], stallAt: 1 });
    await chip.click();
    await llm.stalled();
    await page.locator('article[aria-label="Cy is replying"]').waitFor();
    llm.release();
    await page.locator(`article[aria-label="Message ${before} from Cy"]`).getByText('Pie, anyone?').waitFor();
    await idle();
    assert.equal((await stored()).length, before + 1, 'Cy alone replied');
  });

  it('in a manual group Send only sends, and the bar says you pick who replies', async () => {
    await env.server.invoke('groups.update', group.id, { activation_strategy: 2 });
    await bar().getByText('You pick who replies').waitFor();
    await waitFor(async () => /then pick who replies/.test((await box().getAttribute('placeholder')) ?? ''), 'the manual placeholder');
    const requests = llm.requests.length;
    const before = (await stored()).length;
    await box().fill('Who wants seconds?');
    await box().press('Enter');
    await page.locator(`article[aria-label="Message ${before} from User"]`).or(page.locator(`article[aria-label^="Message ${before} from "]`)).first().waitFor();
    await page.mouse.move(0, 0);
    await screenshot(page, 'groups-chat-manual-desktop');
    assert.equal((await env.server.invoke('generate.status')).generating, false);
    assert.equal(llm.requests.length, requests, 'nobody was asked');
    llm.next({ text: ['Me, please.'] });
    await bar().getByRole('button', { name: 'Bo speaks now', exact: true }).click();
    await page.locator(`article[aria-label="Message ${before + 1} from Bo"]`).getByText('Me, please.').waitFor();
    await env.server.invoke('groups.update', group.id, { activation_strategy: 1 });
  });

  it('the auto mode switch lets the members talk until you type, and leaving the chat turns it off', async () => {
    await env.server.invoke('groups.update', group.id, { auto_mode_delay: 1 });
    const auto = bar().getByRole('switch', { name: 'Auto mode' });
    assert.equal(await auto.getAttribute('aria-checked'), 'false');
    // The delay reaches the bar with GROUP_UPDATED, after the call above returned.
    await waitFor(async () => /every second until you type/.test((await auto.getAttribute('title')) ?? ''), 'the switch to say every second');
    assert.match(await auto.getAttribute('title'), /every second until you type/);
    const before = (await stored()).length;
    await auto.click();
    await waitFor(async () => (await auto.getAttribute('aria-checked')) === 'true', 'the switch on');
    assert.equal((await env.server.invoke('groups.autoMode', chatId)).on, true);
    // Within a second or so a turn starts by itself (the fallback script answers).
    await page.locator(`article[aria-label^="Message ${before} from "]`).waitFor();
    await screenshot(page, 'groups-chat-auto-desktop');

    await box().pressSequentially('W');
    await waitFor(async () => (await auto.getAttribute('aria-checked')) === 'false', 'the switch off once you type');
    await page.getByRole('status').filter({ hasText: 'Auto mode is off while you type.' }).waitFor();
    await waitFor(async () => !(await env.server.invoke('groups.autoMode', chatId)).on, 'auto mode off in the backend');
    await box().fill('');
    await idle();

    await auto.click();
    await waitFor(async () => (await env.server.invoke('groups.autoMode', chatId)).on, 'auto mode on again');
    await page.evaluate((id) => window.__HEARTH__.api.chat.select(id), otherChatId);
    await waitFor(async () => !(await env.server.invoke('groups.autoMode', chatId)).on, 'auto mode off after leaving the chat');
    await page.getByRole('status').filter({ hasText: 'Auto mode is off: you left the group chat.' }).waitFor();
    await idle();
    await page.evaluate((id) => window.__HEARTH__.api.chat.select(id), chatId);
    await bar().waitFor();
  });

  it('a deleted member’s messages keep their name on a placeholder; a phone fits the bar', async () => {
    await env.server.invoke('characters.delete', cast.Cy, { deleteChats: false });
    const cy = page.locator('article[aria-label="Message 2 from Cy"]');
    await cy.waitFor();
    await waitFor(async () => (await cy.locator('.msg-gutter img').count()) === 0, 'Cy’s picture gone');
    assert.equal(await cy.locator('.msg-gutter .avatar').innerText(), 'C');
    await bar().getByRole('button', { name: 'Cy speaks now', exact: false }).waitFor({ state: 'detached' });

    const context = await env.browser.newContext(PHONE);
    const phone = await openApp(context, env.server.url, { viewport: PHONE.viewport });
    await phone.evaluate((id) => window.__HEARTH__.api.chat.select(id), chatId);
    await messageRow(phone, 0).waitFor();
    await bar(phone).waitFor();
    const sizes = await bar(phone)
      .locator('button')
      .evaluateAll((els) => els.map((e) => e.getBoundingClientRect()).map((r) => ({ w: r.width, h: r.height })));
    assert.ok(sizes.length >= 3);
    for (const s of sizes) assert.ok(s.h >= 44 && s.w >= 44, `a 44 px target (${JSON.stringify(s)})`);
    assert.equal(await phone.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), true, 'nothing sideways');
    await screenshot(phone, 'groups-chat-phone');
    // A manual group on a phone keeps the words that say you pick.
    await env.server.invoke('groups.update', group.id, { activation_strategy: 2 });
    await bar(phone).getByText('Who replies?').waitFor();
    assert.equal(await bar(phone).getByText('You pick who replies').count(), 1, 'the whole sentence for screen readers');
    assert.equal(await phone.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), true, 'nothing sideways');
    await screenshot(phone, 'groups-chat-phone-manual');
    await env.server.invoke('groups.update', group.id, { activation_strategy: 1 });
    await messageRow(phone, 4).scrollIntoViewIfNeeded();
    await screenshot(phone, 'groups-chat-phone-replies');
    assert.deepEqual(phone.errors, []);
    await context.close();
  });
});
