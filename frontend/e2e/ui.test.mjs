// Hearth's own UI in a browser against a real `hearth serve`: create a
// character with an avatar, open a chat, send/edit/swipe/delete/toggle
// through the controls a person uses, and check each result through
// window.__HEARTH__. Also: untrusted message HTML renders inert.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fromMoreSettings, messageRow, openApp, pngImage, screenshot, useHearth, waitFor } from './harness.mjs';

describe('the UI in a browser', () => {
  const env = useHearth({ before, after });
  let page;
  let avatar;

  before(async () => {
    page = await openApp(env.browser, env.server.url, { theme: 'dark' });
  });

  after(() => {
    assert.deepEqual(page?.errors ?? [], [], 'uncaught errors in the page');
  });

  /** chat reads getContext().chat in the page (plain copies). */
  const chat = () => page.evaluate(() => window.__HEARTH__.getContext().chat.map((m) => ({ ...m, extra: { ...m.extra } })));

  it('creates a character with an avatar through the New character dialog', async () => {
    await page.getByRole('button', { name: 'New character' }).click();
    const dialog = page.getByRole('dialog', { name: 'New character' });
    await dialog.waitFor();
    await dialog.getByLabel('Name', { exact: true }).fill('Ada');
    await dialog.getByLabel('Description').fill('A careful engineer who *loves* tests.');
    await dialog.getByLabel(/^Greeting/).fill('Hello {{user}}, I am {{char}}.');
    await dialog.locator('input[type=file]').setInputFiles({ name: 'ada.png', mimeType: 'image/png', buffer: await pngImage(64, 64) });
    await dialog.getByRole('button', { name: 'Remove picture' }).waitFor();
    await dialog.getByRole('button', { name: 'Create' }).click();
    await dialog.waitFor({ state: 'hidden' });

    const option = page.getByRole('option', { name: /Ada/ });
    await option.waitFor();
    const list = await page.evaluate(() => window.__HEARTH__.api.characters.list());
    assert.equal(list.length, 1);
    assert.equal(list[0].name, 'Ada');
    avatar = list[0].avatar;
    const card = await page.evaluate((a) => window.__HEARTH__.api.characters.get(a), avatar);
    assert.equal(card.description, 'A careful engineer who *loves* tests.');
    assert.equal(card.first_mes, 'Hello {{user}}, I am {{char}}.');

    // The uploaded picture is what the list shows.
    const img = option.locator('img');
    await waitFor(() => img.evaluate((el) => el.complete && el.naturalWidth), 'the avatar image to load');
    assert.equal(await img.evaluate((el) => el.naturalWidth), 64);
    const served = await page.evaluate(async (a) => {
      const res = await fetch(window.__HEARTH__.api.characters.avatarUrl(a));
      return { status: res.status, type: res.headers.get('content-type'), bytes: (await res.arrayBuffer()).byteLength };
    }, avatar);
    assert.equal(served.status, 200);
    assert.match(served.type, /^image\/png/);
  });

  it('creates a chat whose greeting swipes through its alternate greetings', async () => {
    await page.evaluate((a) => window.__HEARTH__.api.characters.update(a, { alternate_greetings: ['Alt greeting one', 'Alt greeting two'] }), avatar);
    await page.getByRole('option', { name: /Ada/ }).click();
    await page.getByRole('button', { name: 'New chat' }).click();
    const greeting = messageRow(page, 0);
    await greeting.getByText('Hello User, I am Ada.').waitFor();
    const swipes = greeting.getByRole('group', { name: 'Swipes' });
    await swipes.getByText('1/3').waitFor();
    assert.equal(await swipes.getByRole('button', { name: 'Previous swipe' }).isDisabled(), true);

    await swipes.getByRole('button', { name: 'Next swipe' }).click();
    await swipes.getByText('2/3').waitFor();
    await greeting.getByText('Alt greeting one').waitFor();
    await waitFor(async () => (await chat())[0].swipe_id === 1, 'swipe_id 1 in getContext().chat');
    assert.equal((await chat())[0].mes, 'Alt greeting one');

    await swipes.getByRole('button', { name: 'Next swipe' }).click();
    await swipes.getByText('3/3').waitFor();
    assert.equal(await swipes.getByRole('button', { name: 'Next swipe' }).isDisabled(), true);
    await waitFor(async () => (await chat())[0].mes === 'Alt greeting two', 'the third greeting in getContext().chat');

    await swipes.getByRole('button', { name: 'Previous swipe' }).click();
    await swipes.getByText('2/3').waitFor();
    await waitFor(async () => (await chat())[0].swipe_id === 1, 'swipe_id back to 1');
  });

  it('sends a message with Enter', async () => {
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.click();
    await box.fill('Hello there');
    await box.press('Enter');
    await messageRow(page, 1).getByText('Hello there').waitFor();
    await waitFor(async () => (await chat()).length === 2, 'two messages in getContext().chat');
    const [, m] = await chat();
    assert.equal(m.mes, 'Hello there');
    assert.equal(m.is_user, true);
    assert.equal(await box.inputValue(), '', 'the composer is cleared');
  });

  it('edits a message inline: Enter saves, Escape cancels', async () => {
    const row = messageRow(page, 1);
    await row.hover();
    await row.getByRole('button', { name: 'Edit message' }).click();
    const editor = row.getByRole('textbox', { name: 'Edit message' });
    await editor.fill('Hello there, edited');
    await editor.press('Enter');
    await editor.waitFor({ state: 'detached' });
    await row.getByText('Hello there, edited').waitFor();
    await waitFor(async () => (await chat())[1].mes === 'Hello there, edited', 'the edit in getContext().chat');

    await row.hover();
    await row.getByRole('button', { name: 'Edit message' }).click();
    await editor.fill('this must not be saved');
    await editor.press('Escape');
    await editor.waitFor({ state: 'detached' });
    await row.getByText('Hello there, edited').waitFor();
    const stored = await page.evaluate(
      async (id) => (await window.__HEARTH__.api.chat.getStMessages(id, { start: 1, end: 2 }))[0].mes,
      await page.evaluate(() => window.__HEARTH__.api.chat.current().chatId),
    );
    assert.equal(stored, 'Hello there, edited');
    assert.equal((await chat())[1].mes, 'Hello there, edited');
  });

  it('toggles exclude-from-prompt and hide-from-retrieval', async () => {
    const row = messageRow(page, 1);
    await row.hover();
    await row.getByRole('button', { name: 'Exclude from prompt' }).click();
    await row.getByRole('button', { name: 'Include in prompt', pressed: true }).waitFor();
    await row.getByText('excluded', { exact: true }).waitFor();
    await waitFor(async () => (await chat())[1].is_system === true, 'is_system true');

    await row.getByRole('button', { name: 'Include in prompt' }).click();
    await row.getByRole('button', { name: 'Exclude from prompt', pressed: false }).waitFor();
    await waitFor(async () => (await chat())[1].is_system === false, 'is_system false again');

    await row.getByRole('button', { name: 'Hide from retrieval' }).click();
    await row.getByRole('button', { name: 'Show to retrieval', pressed: true }).waitFor();
    await row.getByText('hidden', { exact: true }).waitFor();
    await waitFor(async () => (await chat())[1].extra.hidden === true, 'extra.hidden true');
    const hidden = await page.evaluate(async () => {
      const h = window.__HEARTH__;
      const { chatId } = h.api.chat.current();
      return h.api.chat.isMessageHidden(chatId, h.getContext().chat[1].id);
    });
    assert.equal(hidden, true);
    assert.equal((await chat())[1].is_system, false, 'hiding from retrieval does not exclude from the prompt');
  });

  it('renders untrusted HTML in messages without running it', async () => {
    const box = page.getByRole('textbox', { name: 'Message' });
    const text = 'Look <img src=x onerror="window.__pwned=1"> and <script>window.__pwned=2</script> **bold**';
    await box.fill(text);
    await box.press('Enter');
    const row = messageRow(page, 2);
    await row.locator('strong', { hasText: 'bold' }).waitFor();
    await page.evaluate(async () => {
      const h = window.__HEARTH__;
      await h.getContext().addMessages({
        mes: '<a href="javascript:window.__pwned=3">click me</a> <svg onload="window.__pwned=4"></svg> <iframe srcdoc="<script>parent.__pwned=5</script>"></iframe> <div style="background:url(javascript:window.__pwned=6)">styled</div>',
      });
    });
    const row3 = messageRow(page, 3);
    await row3.getByText('click me').waitFor();
    await row3.getByText('click me').click();
    // Any handler that slipped through would have run once every image in
    // the rows finished loading or failing.
    await waitFor(
      () => page.evaluate(() => [...document.querySelectorAll('article[aria-label^="Message 2 "] img, article[aria-label^="Message 3 "] img')].every((i) => i.complete)),
      'the images in the untrusted messages to settle',
    );
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    const report = await page.evaluate(() => {
      const rows = [...document.querySelectorAll('article[aria-label^="Message 2 "], article[aria-label^="Message 3 "]')];
      const attrs = rows.flatMap((r) => [...r.querySelectorAll('*')].flatMap((el) => [...el.attributes].map((a) => a.name)));
      return {
        pwned: window.__pwned,
        scripts: rows.reduce((n, r) => n + r.querySelectorAll('script, iframe').length, 0),
        handlers: attrs.filter((a) => a.startsWith('on')),
        jsLinks: rows.reduce((n, r) => n + [...r.querySelectorAll('[href]')].filter((a) => /javascript:/i.test(a.getAttribute('href'))).length, 0),
        pages: 1,
      };
    });
    assert.deepEqual(report, { pwned: undefined, scripts: 0, handlers: [], jsLinks: 0, pages: 1 });
    assert.equal(page.context().pages().length, 1, 'no window was opened');
    assert.equal((await chat())[2].mes, text, 'the stored text is kept verbatim');
  });

  it('deletes a message after confirming (Cancel keeps it)', async () => {
    await page.evaluate(() => window.__HEARTH__.getContext().addMessages({ is_user: true, mes: 'Delete me' }));
    const row = messageRow(page, 4);
    await row.getByText('Delete me').waitFor();

    await row.hover();
    await row.getByRole('button', { name: 'Delete message' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete message?' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    assert.equal((await chat()).length, 5);

    await row.hover();
    await row.getByRole('button', { name: 'Delete message' }).click();
    await dialog.getByRole('button', { name: 'Delete', exact: true }).click();
    await dialog.waitFor({ state: 'hidden' });
    await waitFor(async () => (await chat()).length === 4, 'four messages left');
    await page.getByText('Delete me').waitFor({ state: 'detached' });
    assert.ok((await chat()).every((m) => m.mes !== 'Delete me'));
  });

  it('switches between dark and light themes (screenshots)', async () => {
    await page.mouse.move(0, 0);
    assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), 'dark');
    await screenshot(page, 'ui-chat-dark');
    await fromMoreSettings(page, 'Switch to light theme');
    await waitFor(() => page.evaluate(() => document.documentElement.dataset.theme === 'light'), 'the light theme');
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    await screenshot(page, 'ui-chat-light');
    await fromMoreSettings(page, 'Switch to dark theme');
    await waitFor(() => page.evaluate(() => document.documentElement.dataset.theme === 'dark'), 'the dark theme again');
  });
});
