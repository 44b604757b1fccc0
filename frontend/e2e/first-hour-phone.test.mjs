// The first hour on a phone (issue 39, item 7) and beside the agent panel
// (item 10). On a phone (390×844, touch): a sideways swipe on a message
// never leaves the chat; on the last reply it moves between its swipes
// (left: the next one, and a new one past the last, as › does; right: the
// previous one); a swipe from the screen's left edge still goes back. A
// message's actions are one ⋯ per message, opening a sheet of named,
// touch-sized actions (Edit edits); New chat sits at the bottom of the
// chats pane, under the thumb, below the list's last row. At 1280×800 with
// the agent panel open, the chat header shows the chat's whole name and a
// message's actions never cover its sender's name. Swipes are real touch
// sequences (CDP Input.dispatchTouchEvent); screenshots at both sizes.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { messageRow, openApp, screenshot, useHearth, waitFor } from './harness.mjs';
import { scriptedModel } from './scripted-model.mjs';

const PHONE = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true };
const NAME = 'Seraphina Blackwood';

/** settle waits two animation frames (layout after a change). */
const settle = (page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));

/** chatOf reads getContext().chat in the page (plain copies). */
const chatOf = (page) => page.evaluate(() => window.__HEARTH__.getContext().chat.map((m) => ({ mes: m.mes, swipes: m.swipes.length, swipe_id: m.swipe_id, is_system: m.is_system })));

const currentChat = (page) => page.evaluate(() => window.__HEARTH__.api.chat.current()?.chatId ?? null);

/** paneShown names the one pane a phone shows: the pane on screen that is not inert. */
function paneShown(page) {
  return page.evaluate(() => {
    const panes = { characters: 'aside[aria-label="Characters"]', chats: 'section[aria-label="Chats"]', chat: 'section[aria-label="Chat"]' };
    const shown = [];
    for (const [name, sel] of Object.entries(panes)) {
      const el = document.querySelector(sel);
      if (!el || el.closest('[inert]')) continue;
      const r = el.getBoundingClientRect();
      if (r.right > 1 && r.left < window.innerWidth - 1 && getComputedStyle(el).visibility === 'visible') shown.push(name);
    }
    return shown.join(',');
  });
}

/**
 * touchSwipe drags one finger from one point to another in steps, as a
 * touch screen reports it (touchStart, touchMove…, touchEnd). The finger
 * rests a moment before it lifts, so no fling follows (a tap during a
 * fling only stops it, as on a phone).
 */
async function touchSwipe(page, from, to, { steps = 12 } = {}) {
  const cdp = await page.context().newCDPSession(page);
  const at = (x, y) => [{ x, y, id: 1, radiusX: 4, radiusY: 4, force: 1 }];
  try {
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: at(from.x, from.y) });
    for (let i = 1; i <= steps; i++) {
      const x = from.x + ((to.x - from.x) * i) / steps;
      const y = from.y + ((to.y - from.y) * i) / steps;
      await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: at(x, y) });
    }
    await page.waitForTimeout(120);
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: at(to.x, to.y) });
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
  } finally {
    await cdp.detach();
  }
}

/** middleOf is the centre of a row's text (a point to put a finger on). */
async function middleOf(row) {
  const box = await row.locator('.body').boundingBox();
  return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
}

/** stays checks, for a while, that check() keeps holding (nothing happened late). */
async function stays(page, check, what) {
  for (let i = 0; i < 6; i++) {
    assert.ok(await check(), what);
    await page.waitForTimeout(50);
  }
}

/** overlaps is true when two boxes share some area. */
const overlaps = (a, b) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

describe('first hour on a phone (390×844, touch)', () => {
  const env = useHearth({ before, after });
  let llm;
  let page;
  let avatar;
  let chatId;

  before(async () => {
    llm = await scriptedModel();
    const conn = await env.server.invoke('connections.save', { name: 'Scripted', provider: 'openai-compatible', baseUrl: llm.url, model: 'scripted', apiKey: 'sk-e2e' });
    await env.server.invoke('connections.select', conn.id);
    const card = await env.server.invoke('characters.create', { name: NAME, first_mes: 'Welcome to the lighthouse, {{user}}.' });
    avatar = card.avatar;
    chatId = (await env.server.invoke('chat.create', { avatar })).chatId;
    await env.server.invoke('chat.addMessages', chatId, [
      { is_user: true, name: 'User', mes: 'What is this place?' },
      { is_user: false, name: NAME, mes: 'A lighthouse, dark for thirty years.' },
    ]);
    await env.server.invoke('chat.updateMessages', chatId, { index: 2, patch: { swipes: ['A lighthouse, dark for thirty years.', 'A lighthouse that came back to life tonight.'], swipe_id: 0 } });
    const context = await env.browser.newContext({ ...PHONE, reducedMotion: 'reduce' });
    page = await openApp(context, env.server.url);
    await page.evaluate((id) => window.__HEARTH__.api.chat.select(id), chatId);
    await messageRow(page, 2).getByText('dark for thirty years').waitFor();
    await waitFor(async () => (await paneShown(page)) === 'chat', 'the chat pane');
  });

  after(async () => {
    llm?.release();
    await new Promise((r) => llm?.server.close(r) ?? r());
    assert.deepEqual(page?.errors ?? [], [], 'uncaught errors in the page');
  });

  it('a sideways swipe on a message stays in the chat; on the last reply it moves between its swipes', async () => {
    const last = messageRow(page, 2);
    let p = await middleOf(last);

    // A right swipe across a message, away from the edge: the chat stays (it used to go back to the list).
    await touchSwipe(page, { x: 100, y: p.y }, { x: 340, y: p.y });
    await stays(page, async () => (await paneShown(page)) === 'chat', 'the chat stays after a right swipe on a message');

    // Finger to the left: the next swipe.
    await touchSwipe(page, { x: 330, y: p.y }, { x: 120, y: p.y + 6 });
    await waitFor(async () => (await chatOf(page))[2]?.swipe_id === 1, 'swipe_id 1 after a left swipe');
    await last.getByText('came back to life tonight').waitFor();
    await last.getByRole('group', { name: 'Swipes' }).getByText('2/2').waitFor();
    assert.equal(await paneShown(page), 'chat');

    // Finger to the right: the previous one, still in the chat.
    p = await middleOf(last);
    await touchSwipe(page, { x: 100, y: p.y }, { x: 330, y: p.y - 4 });
    await waitFor(async () => (await chatOf(page))[2]?.swipe_id === 0, 'swipe_id 0 after a right swipe');
    await last.getByText('dark for thirty years').waitFor();

    // A right swipe on the first swipe, or either swipe on an earlier message, changes nothing and never leaves the chat.
    p = await middleOf(last);
    await touchSwipe(page, { x: 100, y: p.y }, { x: 340, y: p.y });
    const user = await middleOf(messageRow(page, 1));
    await touchSwipe(page, { x: 90, y: user.y }, { x: 350, y: user.y });
    await touchSwipe(page, { x: 330, y: user.y }, { x: 80, y: user.y });
    await stays(page, async () => (await paneShown(page)) === 'chat' && (await chatOf(page))[2]?.swipe_id === 0, 'still the chat, on the first swipe');
    assert.deepEqual(
      (await chatOf(page)).map((m) => m.swipe_id),
      [0, 0, 0],
    );

    // A scroll (the finger going up) is no swipe.
    p = await middleOf(last);
    await touchSwipe(page, { x: 300, y: p.y }, { x: 250, y: p.y - 120 });
    await stays(page, async () => (await chatOf(page))[2]?.swipe_id === 0, 'a scroll changed no swipe');
  });

  it('a left swipe on the last reply’s last swipe asks for a new one, as › does', async () => {
    const last = messageRow(page, 2);
    let p = await middleOf(last);
    await touchSwipe(page, { x: 330, y: p.y }, { x: 120, y: p.y });
    await waitFor(async () => (await chatOf(page))[2]?.swipe_id === 1, 'on the last swipe');
    llm.next({ text: ['A lighthouse ', 'for lost ', 'travellers.'] });
    p = await middleOf(last);
    await touchSwipe(page, { x: 330, y: p.y }, { x: 120, y: p.y });
    await waitFor(async () => {
      const m = (await chatOf(page))[2];
      return m?.swipes === 3 && m.swipe_id === 2 && m.mes === 'A lighthouse for lost travellers.';
    }, 'a third swipe written by the model');
    await last.getByRole('group', { name: 'Swipes' }).getByText('3/3').waitFor();
    await waitFor(async () => !(await env.server.invoke('generate.status')).generating, 'the reply to end');
    assert.equal((await chatOf(page)).length, 3, 'no new message: a swipe of the last one');
    assert.equal(await paneShown(page), 'chat');
  });

  it('a wide code block in the last reply scrolls sideways under the finger, and swipes nothing', async () => {
    const wide = `Look:\n\n\`\`\`\n${'beam '.repeat(60)}\n\`\`\``;
    await env.server.invoke('chat.updateMessages', chatId, { index: 2, patch: { mes: wide } });
    const pre = messageRow(page, 2).locator('pre');
    await pre.waitFor();
    const box = await pre.boundingBox();
    const y = box.y + box.height / 2;
    await touchSwipe(page, { x: 330, y }, { x: 120, y });
    await waitFor(() => pre.evaluate((el) => el.scrollLeft > 0), 'the code block scrolled sideways');
    await stays(page, async () => {
      const m = (await chatOf(page))[2];
      return m?.swipes === 3 && m.swipe_id === 2 && (await paneShown(page)) === 'chat';
    }, 'no swipe asked for, still the chat');
    assert.equal((await env.server.invoke('generate.status')).generating, false, 'no reply being written');
  });

  it('a swipe from the screen’s left edge goes back to the chat list', async () => {
    const p = await middleOf(messageRow(page, 2));
    await touchSwipe(page, { x: 6, y: p.y }, { x: 260, y: p.y });
    await waitFor(async () => (await paneShown(page)) === 'chats', 'the chats pane after an edge swipe');
    assert.equal(await currentChat(page), chatId, 'the chat stays open behind the list');
    assert.equal((await chatOf(page))[2]?.swipe_id, 2, 'the edge swipe changed no swipe');
    await page.getByRole('button', { name: /^Actions for chat / }).first().waitFor();
    await page.locator('section[aria-label="Chats"] button.open').first().tap();
    await waitFor(async () => (await paneShown(page)) === 'chat', 'back in the chat');
  });

  it('shows a message’s actions from its ⋯, named and touch-sized; Edit edits', async () => {
    const row = messageRow(page, 1);
    // No permanent row of icons: the toolbar is gone, one ⋯ per message instead.
    assert.equal(await page.getByRole('toolbar', { name: 'Message actions' }).count(), 0, 'no visible toolbar of icons');
    const more = row.getByRole('button', { name: 'Actions for message 1' });
    const mb = await more.boundingBox();
    assert.ok(mb.width >= 43.5 && mb.height >= 43.5, `⋯ is ${mb.width}×${mb.height}`);
    const buttonsInRows = await page.evaluate(() =>
      [...document.querySelectorAll('article[aria-label^="Message "] button')].filter((b) => b.getBoundingClientRect().width > 0 && !b.closest('[role=group]')).length,
    );
    assert.equal(buttonsInRows, 3, 'one ⋯ per message besides the swipe buttons');
    await settle(page);
    await screenshot(page, 'first-hour-phone-chat');

    await more.tap();
    const sheet = page.getByRole('dialog', { name: 'Message #1 from User' });
    await sheet.waitFor();
    // Measured once the dialog's opening animation (a scale) has ended.
    await sheet.evaluate((el) =>
      Promise.all(el.ownerDocument.getAnimations().filter((a) => a.effect?.getTiming().iterations !== Infinity).map((a) => a.finished)),
    );
    const names = ['Edit message', 'Exclude from prompt', 'Hide from retrieval', 'Create checkpoint', 'Branch from here', 'Delete message'];
    for (const name of names) {
      const b = await sheet.getByRole('button', { name, exact: true }).boundingBox();
      assert.ok(b && b.width >= 43.5 && b.height >= 43.5, `${name} is touch-sized: ${JSON.stringify(b)}`);
      assert.ok(b.y + b.height <= 844, `${name} is on screen`);
    }
    await settle(page);
    await screenshot(page, 'first-hour-phone-actions');

    await sheet.getByRole('button', { name: 'Edit message' }).tap();
    await sheet.waitFor({ state: 'hidden' });
    const editor = row.getByRole('textbox', { name: 'Edit message' });
    await editor.waitFor();
    await editor.fill('What is this place, exactly?');
    await row.getByRole('button', { name: 'Save' }).tap();
    await editor.waitFor({ state: 'detached' });
    await row.getByText('What is this place, exactly?').waitFor();
    await waitFor(async () => (await chatOf(page))[1]?.mes === 'What is this place, exactly?', 'the edit in getContext().chat');

    // A toggle reads the other way once used.
    await more.tap();
    await sheet.getByRole('button', { name: 'Exclude from prompt' }).tap();
    await waitFor(async () => (await chatOf(page))[1]?.is_system === true, 'the message excluded');
    await row.getByText('excluded').waitFor();
    await more.tap();
    await sheet.getByRole('button', { name: 'Include in prompt' }).tap();
    await waitFor(async () => (await chatOf(page))[1]?.is_system === false, 'the message included again');
  });

  it('puts New chat at the bottom of the chats pane, below the last row, and it starts a chat', async () => {
    for (let i = 1; i <= 12; i++) await env.server.invoke('chat.create', { avatar }, { fileName: `Old night ${String(i).padStart(2, '0')}` });
    await page.getByRole('button', { name: 'Back to chats' }).tap();
    await waitFor(async () => (await paneShown(page)) === 'chats', 'the chats pane');
    const list = page.locator('section[aria-label="Chats"] ul.list');
    await waitFor(async () => (await list.locator('> li').count()) === 13, 'thirteen chats listed');
    const button = page.getByRole('button', { name: 'New chat' });
    const b = await button.boundingBox();
    assert.ok(b.y >= 844 * 0.75 && b.y + b.height <= 844, `New chat is in the lower quarter: ${JSON.stringify(b)}`);
    assert.ok(b.width >= 390 / 2 && b.height >= 43.5, `New chat is a wide, thumb-sized bar: ${JSON.stringify(b)}`);
    // A finger scrolls the list up and down as ever (the page pans vertically).
    await touchSwipe(page, { x: 200, y: 600 }, { x: 205, y: 250 });
    await waitFor(() => list.evaluate((el) => el.scrollTop > 100), 'the list scrolled by touch');
    assert.equal(await paneShown(page), 'chats');
    // Scrolled to its end, the list's last row sits above the button, not under it.
    await list.evaluate((el) => (el.scrollTop = el.scrollHeight));
    await settle(page);
    const lastRow = await list.locator('> li').last().boundingBox();
    assert.ok(lastRow.y + lastRow.height <= b.y + 0.5, `the last row (${JSON.stringify(lastRow)}) ends above New chat (${b.y})`);
    await screenshot(page, 'first-hour-phone-chats');

    const before = (await env.server.invoke('chat.list', { avatar })).length;
    await button.tap();
    await waitFor(async () => (await paneShown(page)) === 'chat', 'the new chat shown');
    await waitFor(async () => {
      const id = await currentChat(page);
      return id && id !== chatId && (await env.server.invoke('chat.list', { avatar })).length === before + 1;
    }, 'a new chat created and open');
    await messageRow(page, 0).getByText('Welcome to the lighthouse, User.').waitFor();
  });
});

describe('first hour at 1280×800 with the agent panel open', () => {
  const env = useHearth({ before, after });
  let page;

  before(async () => {
    const card = await env.server.invoke('characters.create', { name: NAME, first_mes: 'Welcome to the lighthouse, {{user}}.' });
    const chat = await env.server.invoke('chat.create', { avatar: card.avatar });
    await env.server.invoke('chat.addMessages', chat.chatId, [
      { is_user: true, name: 'User', mes: 'What is this place?' },
      { is_user: false, name: NAME, mes: 'A lighthouse, dark for thirty years, until tonight.' },
    ]);
    page = await openApp(env.browser, env.server.url);
    await page.evaluate((id) => window.__HEARTH__.api.chat.select(id), chat.chatId);
    await messageRow(page, 2).getByText('dark for thirty years').waitFor();
  });

  after(() => {
    assert.deepEqual(page?.errors ?? [], [], 'uncaught errors in the page');
  });

  /** nameFits is true when the chat header shows the character's whole name. */
  const nameFits = () =>
    page
      .locator('section[aria-label="Chat"] > header')
      .getByText(NAME, { exact: true })
      .evaluate((el) => el.scrollWidth <= el.clientWidth && el.getBoundingClientRect().width > 0);

  /** visibleControls lists the boxes of the row's controls a person can see (not its swipe buttons). */
  const visibleControls = (row) =>
    row.evaluate((article) =>
      [...article.querySelectorAll('button')]
        .filter((b) => {
          if (b.closest('[role=group]')) return false;
          const r = b.getBoundingClientRect();
          if (r.width === 0) return false;
          for (let el = b; el && el !== article; el = el.parentElement) if (Number(getComputedStyle(el).opacity) < 0.5) return false;
          return true;
        })
        .map((b) => {
          const r = b.getBoundingClientRect();
          return { name: b.getAttribute('aria-label'), x: r.x, y: r.y, width: r.width, height: r.height };
        }),
    );

  it('keeps the chat’s name whole in the header and the actions off the sender’s name', async () => {
    assert.ok(await nameFits(), 'the name fits without the agent panel');
    await page.getByRole('button', { name: 'Agent panel', exact: true }).click();
    await page.getByRole('complementary', { name: 'Agent panel' }).waitFor();
    await settle(page);
    assert.ok(await nameFits(), `the header shows "${NAME}" whole beside the agent panel`);

    const row = messageRow(page, 2);
    await row.hover();
    await settle(page);
    const name = await row.locator('.msg-name').boundingBox();
    const controls = await visibleControls(row);
    assert.ok(controls.length > 0, 'the hovered message shows a way to its actions');
    for (const c of controls) assert.ok(!overlaps(c, name), `${c.name} (${JSON.stringify(c)}) clears the sender's name (${JSON.stringify(name)})`);
    await screenshot(page, 'first-hour-phone-desktop-agent');

    // Every action is still there, in the sheet the ⋯ opens.
    await row.getByRole('button', { name: 'Actions for message 2' }).click();
    const sheet = page.getByRole('dialog', { name: `Message #2 from ${NAME}` });
    await sheet.getByRole('button', { name: 'Hide from retrieval' }).click();
    await sheet.waitFor({ state: 'hidden' });
    await row.getByText('hidden', { exact: true }).waitFor();

    // Without the panel, the mouse's toolbar of icons as before.
    await page.getByRole('button', { name: 'Agent panel', exact: true }).click();
    await page.getByRole('complementary', { name: 'Agent panel' }).waitFor({ state: 'detached' });
    await row.hover();
    const toolbar = row.getByRole('toolbar', { name: 'Message actions' });
    await waitFor(async () => (await toolbar.evaluate((el) => getComputedStyle(el).opacity)) === '1', 'the toolbar on hover');
    const wide = await visibleControls(row);
    const wideName = await row.locator('.msg-name').boundingBox();
    for (const c of wide) assert.ok(!overlaps(c, wideName), `${c.name} clears the sender's name at full width`);
    await screenshot(page, 'first-hour-phone-desktop');
  });
});
