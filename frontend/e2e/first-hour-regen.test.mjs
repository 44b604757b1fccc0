// The first hour, regenerate and undo (issue 39, items 1, 2 and the swipe
// counter of 10), against a real `hearth serve` and the scripted model:
// Regenerate from the composer's menu writes the new reply as the next
// swipe of the last one (the earlier text is still there behind ‹), and
// while that swipe streams its counter reads 2/2; after the user's own
// message Regenerate simply writes the reply. Ctrl+Z and Ctrl+Shift+Z say
// what they did in words ("Reply removed"), never a method name. Deleting
// a message shows "Message deleted" with an Undo button that brings it
// back; the reply menu's Undo and Redo say what they would take back and
// are disabled in a chat with nothing to undo. On a phone (390×844, touch)
// the toast's Undo is a 44×44 target and the menu's Undo is in reach.
// Screenshots at 1280×800 and 390×844.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { messageRow, openApp, pageUrl, screenshot, useHearth, waitFor } from './harness.mjs';
import { scriptedModel } from './scripted-model.mjs';

const PHONE = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true };

const chatOf = (page) => page.evaluate(() => window.__HEARTH__.getContext().chat.map((m) => ({ id: m.id, mes: m.mes, is_user: m.is_user, swipes: [...m.swipes], swipe_id: m.swipe_id })));

/** toast finds the notice whose text has text. */
const toast = (page, text) => page.getByRole('status').filter({ hasText: text });

/** dismissToasts closes every notice (tap: by touch). */
async function dismissToasts(page, { tap = false } = {}) {
  const shown = page.getByRole('status').filter({ has: page.getByRole('button', { name: 'Dismiss' }) });
  while ((await shown.count()) > 0) {
    const b = shown.first().getByRole('button', { name: 'Dismiss' });
    await (tap ? b.tap() : b.click());
  }
}

describe('first hour: regenerate keeps replies, undo is visible', () => {
  const env = useHearth({ before, after });
  let page;
  let llm;
  let chatId;
  let freshChatId;

  /** menuItem opens the composer's reply menu and finds an item in it. */
  async function menuItem(p, name, { tap = false } = {}) {
    const button = p.getByRole('button', { name: 'Reply actions' });
    await (tap ? button.tap() : button.click());
    return p.getByRole('menuitem', { name });
  }

  /**
   * deleteMessage deletes the message in row through its Delete button (on
   * hover with a mouse; on a touch screen behind the row's ⋯, in its
   * actions sheet) and confirms.
   */
  async function deleteMessage(p, row, { tap = false, shot = null } = {}) {
    const press = (l) => (tap ? l.tap() : l.click());
    if (!tap) await row.hover();
    const direct = row.getByRole('button', { name: 'Delete message' });
    if (await direct.isVisible()) await press(direct);
    else {
      await press(row.getByRole('button', { name: /^Actions for message \d+$/ }));
      const sheet = p.getByRole('dialog', { name: /^Message #\d+ from / });
      await press(sheet.getByRole('button', { name: 'Delete message', exact: true }));
    }
    const dialog = p.getByRole('dialog', { name: 'Delete message?' });
    await dialog.getByText('Undo brings it back.').waitFor();
    if (shot) await screenshot(p, shot);
    await press(dialog.getByRole('button', { name: 'Delete' }));
    await dialog.waitFor({ state: 'hidden' });
  }

  before(async () => {
    llm = await scriptedModel();
    const card = await env.server.invoke('characters.create', { name: 'Wren', description: 'Wren keeps the lighthouse.', first_mes: 'The lamp is lit, {{user}}.' });
    freshChatId = (await env.server.invoke('chat.create', { avatar: card.avatar })).chatId;
    chatId = (await env.server.invoke('chat.create', { avatar: card.avatar })).chatId;
    const conn = await env.server.invoke('connections.save', { name: 'Scripted', provider: 'openai-compatible', baseUrl: llm.url, model: 'scripted', apiKey: 'sk-e2e' });
    await env.server.invoke('connections.select', conn.id);
    page = await openApp(env.browser, env.server.url);
    await page.evaluate((id) => window.__HEARTH__.api.chat.select(id), chatId);
    await messageRow(page, 0).waitFor();
  });

  afterEach(async () => {
    llm.reset();
    await waitFor(async () => !(await env.server.invoke('generate.status')).generating, 'the reply to end');
  });

  after(async () => {
    llm?.release();
    await new Promise((r) => llm?.server.close(r) ?? r());
    assert.deepEqual(page?.errors ?? [], [], 'uncaught errors in the page');
  });

  /** outsideText moves focus off the composer, as a click on the chat's header does. */
  const outsideText = (p) => p.getByRole('region', { name: 'Chat' }).locator('header .titles').click();

  it('Regenerate writes the next swipe, counted 2/2 while it streams, and the earlier reply stays behind ‹', async () => {
    llm.next({ text: ['The storm ', 'is far out.'], delayMs: 20 });
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.fill('Is the storm close?');
    await box.press('Enter');
    const reply = messageRow(page, 2);
    await reply.getByText('The storm is far out.').waitFor();
    const swipes = reply.getByRole('group', { name: 'Swipes' });
    await swipes.getByText('1/1').waitFor();

    llm.next({ text: ['Hold on, ', 'the tide ', 'is turning.'], delayMs: 30, stallAt: 2 });
    await (await menuItem(page, /Regenerate/)).click();
    await llm.stalled();
    await waitFor(async () => /the tide/.test(await reply.innerText()), 'the new version streaming into the reply');
    // The version being written is counted: the second of two.
    await swipes.getByText('2/2').waitFor();
    assert.equal(await swipes.getByText('1/1').count(), 0);
    assert.equal(await messageRow(page, 3).count(), 0, 'no new message: the reply gets a new version');
    await page.mouse.move(0, 0);
    await screenshot(page, 'first-hour-regen-writing-desktop');
    llm.release();

    // The streamed text shows before the reply lands: wait for the chat itself.
    await waitFor(async () => (await chatOf(page))[2].swipes.length === 2, 'the new version in getContext().chat');
    await reply.getByText('Hold on, the tide is turning.').waitFor();
    await swipes.getByText('2/2').waitFor();
    let chat = await chatOf(page);
    assert.equal(chat.length, 3);
    assert.deepEqual({ swipes: chat[2].swipes, swipe_id: chat[2].swipe_id }, { swipes: ['The storm is far out.', 'Hold on, the tide is turning.'], swipe_id: 1 });
    assert.equal(llm.requests.at(-1).messages.some((m) => typeof m.content === 'string' && m.content.includes('The storm is far out.')), false, 'the reply being redone is not in its own prompt');

    const asked = llm.requests.length;
    await swipes.getByRole('button', { name: 'Previous swipe' }).click();
    await swipes.getByText('1/2').waitFor();
    await reply.getByText('The storm is far out.').waitFor();
    await swipes.getByRole('button', { name: 'Next swipe' }).click();
    await swipes.getByText('2/2').waitFor();
    assert.equal(llm.requests.length, asked, '‹ and › only switch versions');
    chat = await chatOf(page);
    assert.equal(chat[2].mes, 'Hold on, the tide is turning.');
  });

  it('Ctrl+Z and Ctrl+Shift+Z say what they did in words', async () => {
    await outsideText(page);
    const reply = messageRow(page, 2);
    // The last writes: ‹ then ›, then the regenerated reply before them.
    await page.keyboard.press('Control+z');
    await toast(page, 'Reply version switched back').first().waitFor();
    await reply.getByText('The storm is far out.').waitFor();
    await page.keyboard.press('Control+z');
    await waitFor(async () => (await toast(page, 'Reply version switched back').count()) === 2, 'the second step’s toast');
    await reply.getByText('Hold on, the tide is turning.').waitFor();
    await page.keyboard.press('Control+z');
    await toast(page, 'Reply removed').waitFor();
    await reply.getByRole('group', { name: 'Swipes' }).getByText('1/1').waitFor();
    await reply.getByText('The storm is far out.').waitFor();
    await page.keyboard.press('Control+Shift+Z');
    await toast(page, 'Reply restored').waitFor();
    await reply.getByRole('group', { name: 'Swipes' }).getByText('2/2').waitFor();
    assert.equal(await page.getByRole('status').filter({ hasText: /Undone:|Redone:|commit reply|commitReply/ }).count(), 0, 'no method names in the toasts');
    await screenshot(page, 'first-hour-regen-undo-toasts-desktop');
    await dismissToasts(page);
  });

  it('after the user’s own message, Regenerate writes the reply and loses nothing', async () => {
    await env.server.invoke('chat.addMessages', chatId, { is_user: true, name: 'User', mes: 'And the boats?' });
    await messageRow(page, 3).getByText('And the boats?').waitFor();
    llm.next({ text: ['The boats ', 'are in.'], delayMs: 20 });
    const item = await menuItem(page, /Regenerate/);
    assert.equal(await item.isDisabled(), false, 'Regenerate is offered after the user’s message');
    await item.click();
    await messageRow(page, 4).getByText('The boats are in.').waitFor();
    const chat = await chatOf(page);
    assert.equal(chat.length, 5);
    assert.deepEqual(chat[3], { id: chat[3].id, mes: 'And the boats?', is_user: true, swipes: ['And the boats?'], swipe_id: 0 });
    assert.equal(chat[2].swipes.length, 2, 'the earlier reply keeps both versions');
  });

  it('deleting a message says so with an Undo that brings it back; the menu’s Undo and Redo say what they would do', async () => {
    const before = await chatOf(page);
    const row = messageRow(page, 3);
    await deleteMessage(page, row, { shot: 'first-hour-regen-delete-confirm-desktop' });
    const deleted = toast(page, 'Message deleted');
    await deleted.waitFor();
    await waitFor(async () => (await chatOf(page)).length === 4, 'the message gone from getContext().chat');
    await page.mouse.move(0, 0);
    await screenshot(page, 'first-hour-regen-deleted-toast-desktop');
    await deleted.getByRole('button', { name: 'Undo' }).click();
    await toast(page, 'Message restored').waitFor();
    await messageRow(page, 3).getByText('And the boats?').waitFor();
    assert.deepEqual(await chatOf(page), before, 'the message is back, with its id, at its place');

    // The menu knows: Redo would delete it again, Undo would take back the reply before.
    const undo = await menuItem(page, /^Undo/);
    await waitFor(async () => /Last change: reply written/.test(await undo.innerText()), 'the Undo hint');
    const redo = page.getByRole('menuitem', { name: /^Redo/ });
    assert.match(await redo.innerText(), /Undone last: message deleted/);
    assert.equal(await redo.isDisabled(), false);
    await screenshot(page, 'first-hour-regen-menu-desktop');
    await redo.click();
    await toast(page, 'Message deleted again').waitFor();
    await waitFor(async () => (await chatOf(page)).length === 4, 'the redo to delete it again');
    await (await menuItem(page, /^Undo/)).click();
    await toast(page, 'Message restored').nth(1).waitFor();
    assert.deepEqual(await chatOf(page), before);
  });

  it('in a chat with nothing to undo, the menu’s Undo and Redo are disabled', async () => {
    await page.evaluate((id) => window.__HEARTH__.api.chat.select(id), freshChatId);
    await waitFor(() => page.evaluate((id) => window.__HEARTH__.getContext().getCurrentChatId() !== undefined && window.__HEARTH__.api.chat.current()?.chatId === id, freshChatId), 'the fresh chat');
    const undo = await menuItem(page, /^Undo/);
    await waitFor(() => undo.isDisabled(), 'Undo disabled');
    assert.match(await undo.innerText(), /Nothing to undo/);
    assert.equal(await page.getByRole('menuitem', { name: /^Redo/ }).isDisabled(), true);
    await page.keyboard.press('Escape');
    await page.evaluate((id) => window.__HEARTH__.api.chat.select(id), chatId);
    await messageRow(page, 4).waitFor();
  });

  it('on a phone, the toast’s Undo is a 44×44 target and the menu’s Undo is in reach', async () => {
    const context = await env.browser.newContext({ ...PHONE, reducedMotion: 'reduce' });
    await context.addInitScript(() => localStorage.setItem('hearth.theme', 'dark'));
    const phone = await context.newPage();
    phone.errors = [];
    phone.on('pageerror', (err) => phone.errors.push(err));
    try {
      await phone.goto(pageUrl(env.server.url));
      await phone.waitForFunction(() => typeof window.__HEARTH__ === 'object' && window.__HEARTH__ !== null);
      await phone.evaluate(() => window.__HEARTH__.ready);
      await phone.evaluate((id) => window.__HEARTH__.api.chat.select(id), chatId);
      const reply = messageRow(phone, 4);
      await reply.getByText('The boats are in.').waitFor();

      // Regenerate on the phone: the counter shows the version being written.
      llm.next({ text: ['The boats ', 'are tied ', 'fast.'], delayMs: 30, stallAt: 2 });
      await (await menuItem(phone, /Regenerate/, { tap: true })).tap();
      await llm.stalled();
      await reply.getByRole('group', { name: 'Swipes' }).getByText('2/2').waitFor();
      await waitFor(async () => /tied/.test(await reply.innerText()), 'the new version streaming on the phone');
      await screenshot(phone, 'first-hour-regen-writing-phone');
      llm.release();
      await waitFor(async () => (await chatOf(phone))[4].swipes.length === 2, 'the new version in the phone’s getContext().chat');
      await reply.getByText('The boats are tied fast.').waitFor();

      const before = await chatOf(phone);
      await deleteMessage(phone, messageRow(phone, 3), { tap: true, shot: 'first-hour-regen-delete-confirm-phone' });
      const deleted = toast(phone, 'Message deleted');
      await deleted.waitFor();
      const undo = deleted.getByRole('button', { name: 'Undo' });
      const box = await undo.boundingBox();
      assert.ok(box.width >= 43.5 && box.height >= 43.5, `the toast's Undo is ${box.width}×${box.height}`);
      await screenshot(phone, 'first-hour-regen-deleted-toast-phone');
      await undo.tap();
      await toast(phone, 'Message restored').waitFor();
      await messageRow(phone, 3).getByText('And the boats?').waitFor();
      assert.deepEqual(await chatOf(phone), before);

      // Again, and this time the reply menu's Undo, once the toast is gone.
      await deleteMessage(phone, messageRow(phone, 3), { tap: true });
      await toast(phone, 'Message deleted').waitFor();
      await dismissToasts(phone, { tap: true });
      const item = await menuItem(phone, /^Undo/, { tap: true });
      await waitFor(async () => /Last change: message deleted/.test(await item.innerText()), 'the phone menu’s Undo hint');
      const ib = await item.boundingBox();
      assert.ok(ib.height >= 43.5 && ib.y + ib.height <= 844, `the menu's Undo is ${ib.width}×${ib.height} at y ${ib.y}`);
      await screenshot(phone, 'first-hour-regen-menu-phone');
      await item.tap();
      await toast(phone, 'Message restored').waitFor();
      await messageRow(phone, 3).getByText('And the boats?').waitFor();
      assert.deepEqual(await chatOf(phone), before);
      assert.deepEqual(phone.errors, [], 'uncaught errors on the phone');
    } finally {
      await context.close();
    }
  });
});
