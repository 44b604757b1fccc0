// Undo and redo from the keyboard in the chat view: an edit made through the
// UI is undone with Ctrl+Z and redone with Ctrl+Shift+Z, in the DOM and in
// getContext().chat, and a second window on the chat follows both; Ctrl+Z
// typed into the composer stays the composer's. The toast is photographed
// at 1280×800 and on a phone at 390×844.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { messageRow, openApp, pageUrl, screenshot, useHearth, waitFor } from './harness.mjs';

const PHONE = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true };

const mesOf = (page, index) => page.evaluate((i) => window.__HEARTH__.getContext().chat[i]?.mes, index);

/** toast finds the notice whose text is text. */
const toast = (page, text) => page.getByRole('status').filter({ hasText: text });

describe('undo and redo in the chat view', () => {
  const env = useHearth({ before, after });
  let a;
  let b;
  let chatId;

  before(async () => {
    const card = await env.server.invoke('characters.create', { name: 'Ulla', first_mes: 'Good evening, {{user}}.' });
    chatId = (await env.server.invoke('chat.create', { avatar: card.avatar })).chatId;
    await env.server.invoke('chat.addMessages', chatId, { is_user: true, name: 'User', mes: 'The original words.' });
    a = await openApp(env.browser, env.server.url);
    b = await openApp(env.browser, env.server.url);
    for (const page of [a, b]) {
      await page.getByRole('option', { name: /Ulla/ }).click();
      await messageRow(page, 1).getByText('The original words.').waitFor();
      await waitFor(() => page.evaluate(() => window.__HEARTH__.getContext().chat.length === 2), 'the whole chat in getContext().chat');
    }
  });

  after(() => {
    assert.deepEqual(a?.errors ?? [], [], 'uncaught errors in window A');
    assert.deepEqual(b?.errors ?? [], [], 'uncaught errors in window B');
  });

  /** outsideText moves focus off the composer, as a click on the chat's header does. */
  const outsideText = (page) => page.getByRole('region', { name: 'Chat' }).locator('header .titles').click();

  it('Ctrl+Z undoes an edit made in the UI, in both windows', async () => {
    const row = messageRow(a, 1);
    await row.hover();
    await row.getByRole('button', { name: 'Edit message' }).click();
    const editor = row.getByRole('textbox', { name: 'Edit message' });
    await editor.fill('Edited words.');
    await editor.press('Enter');
    await messageRow(b, 1).getByText('Edited words.').waitFor();

    await outsideText(a);
    await a.keyboard.press('Control+z');
    await toast(a, 'Edit undone').waitFor();
    for (const [page, label] of [[a, 'A'], [b, 'B']]) {
      await messageRow(page, 1).getByText('The original words.').waitFor();
      await waitFor(async () => (await mesOf(page, 1)) === 'The original words.', `${label}'s getContext().chat to be undone`);
    }
    const [msg] = await env.server.invoke('chat.getStMessages', chatId, { start: 1, end: 2 });
    assert.equal(msg.mes, 'The original words.');
    assert.deepEqual(msg.swipes, ['The original words.']);
    await screenshot(a, 'undo-toast-desktop');
  });

  it('Ctrl+Shift+Z redoes it, in both windows', async () => {
    await a.keyboard.press('Control+Shift+Z');
    await toast(a, 'Edit redone').waitFor();
    for (const [page, label] of [[a, 'A'], [b, 'B']]) {
      await messageRow(page, 1).getByText('Edited words.').waitFor();
      await waitFor(async () => (await mesOf(page, 1)) === 'Edited words.', `${label}'s getContext().chat to be redone`);
    }
  });

  it('Ctrl+Z in the composer undoes the typing, not the chat', async () => {
    const box = a.getByRole('textbox', { name: 'Message' });
    await box.click();
    await a.keyboard.type('a draft');
    await a.keyboard.press('Control+z');
    await waitFor(async () => (await box.inputValue()) === '', 'the composer to undo its own typing');
    // Had the chat been undone, this redo would re-apply the edit; with
    // nothing undone since the last redo there is nothing to redo.
    await outsideText(a);
    await a.keyboard.press('Control+Shift+Z');
    await toast(a, 'Nothing to redo').waitFor();
    assert.equal(await mesOf(a, 1), 'Edited words.');
  });

  it('shows the toast on a phone', async () => {
    const context = await env.browser.newContext(PHONE);
    // The phone opens on its own on the newest chat of the newest character
    // (this one), showing the chat pane; so wait for ready only, then for
    // that, and tap through the lists if it ever stays on one.
    const phone = await context.newPage();
    phone.errors = [];
    phone.on('pageerror', (err) => phone.errors.push(err));
    try {
      await phone.goto(pageUrl(env.server.url));
      await phone.waitForFunction(() => typeof window.__HEARTH__ === 'object' && window.__HEARTH__ !== null);
      await phone.evaluate(() => window.__HEARTH__.ready);
      await waitFor(
        () => phone.evaluate((id) => window.__HEARTH__.api.chat.current()?.chatId === id && window.__HEARTH__.getContext().chat.length === 2, chatId),
        'the phone to open the chat',
      );
      const edited = messageRow(phone, 1).getByText('Edited words.');
      if (!(await edited.isVisible())) {
        const option = phone.getByRole('option', { name: /Ulla/ });
        if (await option.isVisible()) await option.tap();
        await phone.getByRole('region', { name: 'Chats' }).getByRole('button', { name: /Edited words/ }).tap();
      }
      await edited.waitFor();
      await env.server.invoke('chat.deleteMessages', chatId, 1);
      await messageRow(phone, 1).waitFor({ state: 'detached' });
      await phone.keyboard.press('Control+z');
      await toast(phone, 'Message restored').waitFor();
      await messageRow(phone, 1).getByText('Edited words.').waitFor();
      await screenshot(phone, 'undo-toast-phone');
      assert.deepEqual(phone.errors, [], 'uncaught errors on the phone');
    } finally {
      await context.close();
    }
  });
});
