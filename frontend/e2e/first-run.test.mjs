// The start screen's first-run checklist (stores/first-run): connect a
// model (the checklist's Add a connection… and Test), create a character, chat
// until the character replies. Each step ticks itself off from the app's
// state, and the list goes once all are done, for good; put away on a
// phone, it stays away after a reload.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { messageRow, openApp, screenshot, useHearth, waitFor } from './harness.mjs';
import { scriptedModel } from './scripted-model.mjs';

const PHONE = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true };

/** steps reads a checklist's steps as "Title (done)" / "Title (to do)". */
function steps(list) {
  return list.getByRole('heading', { level: 3 }).allTextContents();
}

describe('the first-run checklist', () => {
  const env = useHearth({ before, after });
  let llm;
  const pages = [];

  before(async () => {
    llm = await scriptedModel({ fallback: { text: ['The lamp ', 'is lit.'] } });
  });

  after(async () => {
    await new Promise((r) => llm?.server.close(r) ?? r());
    for (const p of pages) assert.deepEqual(p.errors, [], 'uncaught errors in the page');
  });

  it('on a phone, shows in the character list and stays away once hidden', async () => {
    const context = await env.browser.newContext({ ...PHONE, reducedMotion: 'reduce' });
    const phone = await openApp(context, env.server.url);
    pages.push(phone);
    const list = phone.locator('aside[aria-label="Characters"]').getByRole('region', { name: 'Get started' });
    await list.waitFor();
    assert.deepEqual(await steps(list), ['Connect a model (to do)', 'Create or import a character (to do)', 'Chat (to do)']);
    for (const button of await list.getByRole('button').all()) {
      const box = await button.boundingBox();
      assert.ok(box.width >= 43.5 && box.height >= 43.5, `${await button.getAttribute('aria-label') ?? await button.innerText()} is ${box.width}×${box.height}`);
    }
    await screenshot(phone, 'first-run-phone');
    await list.getByRole('button', { name: 'Hide Get started' }).tap();
    await list.waitFor({ state: 'detached' });
    await phone.reload();
    await phone.evaluate(() => window.__HEARTH__.ready);
    await phone.getByRole('button', { name: 'New character' }).waitFor();
    assert.equal(await phone.getByRole('region', { name: 'Get started' }).count(), 0, 'still hidden after a reload');
    await context.close();
  });

  it('ticks off a connection (tested from the list), a character and a reply, then goes', async () => {
    const page = await openApp(env.browser, env.server.url);
    pages.push(page);
    const list = page.getByRole('region', { name: 'Get started' });
    await list.waitFor();
    assert.deepEqual(await steps(list), ['Connect a model (to do)', 'Create or import a character (to do)', 'Chat (to do)']);
    await screenshot(page, 'first-run-start');

    // 1. A connection, added from the checklist's own button.
    await list.getByRole('button', { name: 'Add a connection…' }).click();
    const dialog = page.getByRole('dialog', { name: /^(Connections|Add connection)$/ });
    await dialog.getByRole('button', { name: 'Add connection' }).click();
    await dialog.getByLabel('Name', { exact: true }).fill('Scripted');
    await dialog.getByLabel('Server address', { exact: true }).fill(llm.url);
    await dialog.getByLabel('Model', { exact: true }).fill('scripted');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.getByRole('listitem').filter({ hasText: 'Scripted' }).getByText('In use').waitFor();
    await dialog.getByRole('button', { name: 'Done' }).click();
    await waitFor(async () => (await steps(list))[0] === 'Connect a model (done)', 'the connection step ticked');
    await list.getByText('Replies come from Scripted').waitFor();
    await list.getByRole('button', { name: 'Change connection…' }).waitFor();
    await list.getByRole('button', { name: 'Test' }).click();
    await list.getByRole('status').filter({ hasText: 'Connected · 1 model' }).waitFor();
    await screenshot(page, 'first-run-connected');

    // 2. A character, made elsewhere: the list follows the character list.
    const card = await env.server.invoke('characters.create', { name: 'Wren', first_mes: 'The lamp is lit, {{user}}.' });
    await waitFor(async () => (await steps(list))[1] === 'Create or import a character (done)', 'the character step ticked');
    assert.equal(await steps(list).then((s) => s[2]), 'Chat (to do)');

    // 3. A chat with a reply: the last step ticks and the list goes.
    await page.getByRole('option', { name: /Wren/ }).click();
    await page.getByRole('button', { name: 'Start a chat' }).click();
    await messageRow(page, 0).waitFor();
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.fill('Is the lamp lit?');
    await box.press('Enter');
    await messageRow(page, 2).getByText('The lamp is lit.').waitFor();
    const done = await page.evaluate(() => JSON.parse(localStorage.getItem('hearth.firstRun') ?? '{}'));
    assert.deepEqual(done, { replied: true, finished: true, dismissed: false });

    // Back on a start screen, there is no checklist; a reload does not bring it back either.
    await page.evaluate(() => window.__HEARTH__.api.chat.select(null));
    await page.getByRole('heading', { name: 'Wren' }).or(page.getByRole('heading', { name: 'Welcome to Hearth' })).first().waitFor();
    assert.equal(await list.count(), 0);
    await env.server.invoke('characters.delete', card.avatar, { deleteChats: true });
    await page.reload();
    await page.evaluate(() => window.__HEARTH__.ready);
    await page.getByRole('heading', { name: 'Welcome to Hearth' }).waitFor();
    assert.equal(await page.getByRole('region', { name: 'Get started' }).count(), 0, 'finished for good');
  });
});
