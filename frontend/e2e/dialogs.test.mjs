// Dialogs live in App's dialog host, outside the panes (lib/mount-at-root):
// on a phone, a dialog opened from the character list stays interactive
// when the app slides another pane in under it (which makes the character
// pane inert and hidden). Also the sidebar header's menus: Connections and
// Personas as buttons, the rest under "More settings", and "Import".
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fromMoreSettings, openApp, screenshot, useHearth, waitFor } from './harness.mjs';

const PHONE = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true };

/** where tells of an element: inert (itself or an ancestor), visible, and in the dialog host. */
function where(locator) {
  return locator.evaluate((el) => ({
    inert: el.closest('[inert]') !== null,
    visible: getComputedStyle(el).visibility === 'visible',
    inHost: el.parentElement?.hasAttribute('data-dialog-host') ?? false,
  }));
}

describe('dialogs', () => {
  const env = useHearth({ before, after });
  let chats;
  const pages = [];

  before(async () => {
    const card = await env.server.invoke('characters.create', { name: 'Ada', first_mes: 'Hello, {{user}}.' });
    chats = [(await env.server.invoke('chat.create', { avatar: card.avatar })).chatId, (await env.server.invoke('chat.create', { avatar: card.avatar })).chatId];
  });

  after(() => {
    for (const p of pages) assert.deepEqual(p.errors, [], 'uncaught errors in the page');
  });

  it('on a phone, a dialog opened from the character list stays interactive after the pane switches', async () => {
    const context = await env.browser.newContext({ ...PHONE, reducedMotion: 'reduce' });
    const phone = await openApp(context, env.server.url);
    pages.push(phone);
    const characters = phone.locator('aside[aria-label="Characters"]');
    // The phone opens on Ada's last chat: back to the character list.
    await waitFor(
      async () => {
        if (await characters.getByRole('option', { name: /Ada/ }).isVisible()) return true;
        for (const back of ['Back to chats', 'Back to characters']) {
          const b = phone.getByRole('button', { name: back });
          if (await b.isVisible()) await b.tap().catch(() => {});
        }
        return false;
      },
      'the character list',
      { interval: 250 },
    );

    await phone.getByRole('button', { name: 'Personas' }).tap();
    const dialog = phone.getByRole('dialog', { name: 'Personas' });
    await dialog.waitFor();

    // A script opens another chat: the phone shows the chat pane; the character pane goes inert and hidden.
    const open = await phone.evaluate(() => window.__HEARTH__.api.chat.current()?.chatId ?? null);
    await phone.evaluate((id) => window.__HEARTH__.api.chat.select(id), chats.find((id) => id !== open));
    await waitFor(() => characters.evaluate((el) => el.closest('[inert]') !== null && getComputedStyle(el).visibility === 'hidden'), 'the character pane to go inert');
    const after = await where(phone.locator('dialog[open]'));
    assert.equal(after.inert, false, 'the dialog is not inert');
    assert.equal(after.visible, true, 'the dialog is visible');
    assert.equal(after.inHost, true, 'the dialog lives in the dialog host');

    // The dialog still takes taps and typing.
    await dialog.getByRole('button', { name: 'Add persona' }).tap();
    const form = phone.getByRole('dialog', { name: 'Add persona' });
    await form.waitFor();
    await form.getByRole('textbox', { name: 'Name', exact: true }).fill('Wren');
    await screenshot(phone, 'dialogs-phone-after-pane-switch');
    await form.getByRole('button', { name: 'Save' }).tap();
    await waitFor(async () => (await phone.evaluate(() => window.__HEARTH__.api.personas.list())).some((p) => p.name === 'Wren'), 'the persona saved');
    const list = phone.getByRole('dialog', { name: 'Personas' });
    await list.getByRole('listitem').filter({ hasText: 'Wren' }).waitFor();
    await list.getByRole('button', { name: 'Done' }).tap();
    await list.waitFor({ state: 'hidden' });
    // The chat pane is the one shown, and it takes focus again.
    await phone.getByRole('button', { name: 'Back to chats' }).waitFor();
    await context.close();
  });

  it('keeps Connections and Personas in the header and the rest under More settings, with room to spare at 1280×800', async () => {
    const page = await openApp(env.browser, env.server.url);
    pages.push(page);
    const header = page.locator('aside[aria-label="Characters"] > header');
    const names = await header.getByRole('button').evaluateAll((els) => els.map((el) => el.getAttribute('aria-label')));
    assert.deepEqual(names, ['Connections', 'Personas', 'More settings']);
    const room = await header.evaluate((h) => {
      const right = h.getBoundingClientRect().right;
      const last = [...h.querySelectorAll('button')].at(-1).getBoundingClientRect().right;
      const brand = h.querySelector('.brand').getBoundingClientRect().right;
      const first = h.querySelector('button').getBoundingClientRect().left;
      return { edge: right - last, between: first - brand };
    });
    assert.ok(room.edge >= 8, `the last button keeps clear of the column edge (${room.edge} px)`);
    assert.ok(room.between >= 24, `the name and the buttons keep apart (${room.between} px)`);

    await page.getByRole('button', { name: 'More settings' }).click();
    const items = await page.getByRole('menuitem').allInnerTexts();
    assert.deepEqual(
      items.map((t) => t.split('\n')[0]),
      ['Presets…', 'Lorebooks…', 'Extensions…', 'Export library for SillyTavern…', 'Switch to light theme'],
    );
    await screenshot(page, 'dialogs-more-settings');
    await page.keyboard.press('Escape');
    await fromMoreSettings(page, /^Presets…/);
    await page.getByRole('dialog', { name: 'Presets' }).waitFor();
    await page.keyboard.press('Escape');

    await page.getByRole('button', { name: 'Import', exact: true }).click();
    assert.deepEqual((await page.getByRole('menuitem').allInnerTexts()).map((t) => t.split('\n')[0]), ['Character cards…', 'SillyTavern library…']);
    await page.keyboard.press('Escape');
  });
});
