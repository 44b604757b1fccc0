// The first hour, connections and names (issue 39, items 5, 6 and parts of
// 10), against a real `hearth serve` and the scripted model server: the
// Add connection form offers the server's models to pick from before the
// first save, Enter in a form without a model saves nothing and says so
// beside the field, every field is reachable by its label, and a wrong
// address reads as a sentence ("Nothing answered at 127.0.0.1:…") in the
// test result and in a failed reply. A chat still named by its time stamp
// shows as a date wherever it is named (list, header, the delete dialog,
// the lorebook's check bar) while the API keeps the file name. A failed
// action's toast says what happened in words, its code folded under
// Details, and sits where it covers neither the lorebook's "Check
// activation" nor the dialog's buttons. GET /favicon.ico is an icon. Each
// screen at 1280×800 and 390×844.
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { fromMoreSettings, messageRow, openApp, screenshot, useHearth, waitFor } from './harness.mjs';
import { scriptedModel } from './scripted-model.mjs';

const PHONE = { width: 390, height: 844 };
const SIZES = [
  ['desktop', undefined],
  ['phone', PHONE],
];

/** unusedPort is a loopback port nothing listens on (bound, then let go). */
function unusedPort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** overlap reports whether two bounding boxes share any area. */
function overlap(a, b) {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

describe('first hour: connections, names and toasts', () => {
  const env = useHearth({ before, after });
  let llm;
  let deadPort;
  const pages = [];

  before(async () => {
    llm = await scriptedModel();
    deadPort = await unusedPort();
  });

  after(async () => {
    await new Promise((r) => (llm ? llm.server.close(r) : r()));
    await closeAll();
  });

  async function open(viewport) {
    const page = await openApp(env.browser, env.server.url, viewport ? { viewport } : {});
    pages.push(page);
    return page;
  }

  /** closeAll checks the pages opened so far threw nothing, and closes them (a test's pages stay open until the next test). */
  async function closeAll() {
    for (const p of pages.splice(0)) {
      assert.deepEqual(p.errors, [], 'uncaught errors in the page');
      await p.context().close();
    }
  }

  /** toCharacters goes back to the character list on a phone (where the Connections and More settings buttons are), from whichever pane shows. */
  async function toCharacters(page) {
    const characters = page.locator('.app > .pane').first();
    // A phone reopens the chat open last shortly after it starts; the list counts once it stays in front.
    const settled = async () => (await characters.evaluate((el) => !el.inert)) && (await page.waitForTimeout(400), await characters.evaluate((el) => !el.inert));
    await waitFor(async () => {
      if (await settled()) return true;
      for (const name of ['Back to chats', 'Back to characters']) {
        const back = page.getByRole('button', { name });
        if ((await back.isVisible()) && (await back.evaluate((el) => !el.closest('[inert]')))) {
          await back.click();
          break;
        }
      }
      return false;
    }, 'the character list');
    await waitFor(async () => (await characters.boundingBox())?.x === 0, 'the character list in place');
  }

  /** openChat opens the character's newest chat through the UI, as a person would, at either size. */
  async function openChat(page, character) {
    await toCharacters(page);
    await page.getByRole('option', { name: new RegExp(character) }).click();
    const composer = page.getByRole('textbox', { name: 'Message' });
    if (!(await composer.isVisible())) await page.getByRole('region', { name: 'Chats' }).locator('button.open').first().click();
    await composer.waitFor();
  }

  const connectionsDialog = (page) => page.getByRole('dialog', { name: /^(Connections|Add connection|Edit connection)$/ });

  /** addForm opens Connections and its Add connection form. */
  async function addForm(page) {
    await toCharacters(page);
    await page.getByRole('button', { name: 'Connections' }).click();
    const dialog = connectionsDialog(page);
    await dialog.getByRole('button', { name: 'Add connection' }).click();
    await page.getByRole('dialog', { name: 'Add connection' }).waitFor();
    return dialog;
  }

  async function closeDialog(page) {
    await page.keyboard.press('Escape');
    await page.keyboard.press('Escape');
    await connectionsDialog(page).waitFor({ state: 'hidden' });
  }

  it('ties every field of the Add connection form to its label', async () => {
    await closeAll();
    const page = await open();
    const dialog = await addForm(page);
    const fields = [
      ['Name', 'INPUT'],
      ['Provider', 'SELECT'],
      ['Server address', 'INPUT'],
      ['API key', 'INPUT'],
      ['Model', 'INPUT'],
    ];
    for (const [label, tag] of fields) {
      const field = dialog.getByLabel(label, { exact: true });
      assert.equal(await field.count(), 1, `one field is labelled “${label}”`);
      assert.equal(await field.evaluate((el) => el.tagName), tag, `“${label}” names the ${tag.toLowerCase()}`);
      await field.focus();
      assert.equal(await page.evaluate(() => document.activeElement?.labels?.[0]?.textContent?.trim()), label, `“${label}” is the focused field's label`);
    }
    // A click on a label focuses its field.
    await dialog.getByText('Server address', { exact: true }).click();
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'conn-baseUrl');
    // The placeholders read as examples, not values.
    for (const label of ['Name', 'Server address', 'Model']) {
      assert.match(await dialog.getByLabel(label, { exact: true }).getAttribute('placeholder'), /^e\.g\. /, `${label}'s placeholder is an example`);
    }
    await closeDialog(page);
  });

  it('lists the scripted server’s models in the Add connection form and picks one', async () => {
    await closeAll();
    const served = await (await fetch(`${llm.url}/models`)).json();
    const want = served.data.map((m) => m.id);
    for (const [size, viewport] of SIZES) {
      const page = await open(viewport);
      const dialog = await addForm(page);
      await dialog.getByLabel('Name', { exact: true }).fill(`Scripted ${size}`);
      await dialog.getByLabel('Server address', { exact: true }).fill(llm.url);
      // Leaving the address asks the server for its models, before anything is saved.
      await dialog.getByLabel('API key', { exact: true }).focus();
      const listbox = dialog.getByRole('listbox', { name: 'Models on the server' });
      await listbox.waitFor();
      assert.deepEqual(await listbox.getByRole('option').allInnerTexts(), want, 'the picker lists what the server lists');
      await dialog.getByText(`${want.length} ${want.length === 1 ? 'model' : 'models'} on the server`).waitFor();
      assert.equal((await page.evaluate(() => window.__HEARTH__.api.connections.list())).filter((c) => c.name === `Scripted ${size}`).length, 0, 'nothing saved yet');
      await screenshot(page, `first-hour-conn-models-${size}`);

      await listbox.getByRole('option', { name: 'scripted' }).click();
      assert.equal(await dialog.getByLabel('Model', { exact: true }).inputValue(), 'scripted');
      await listbox.waitFor({ state: 'hidden' });
      // The list opens again from the field's button, with the pick marked.
      await dialog.getByRole('button', { name: 'Show the server’s models' }).click();
      assert.equal(await listbox.getByRole('option', { name: 'scripted' }).getAttribute('aria-selected'), 'true');
      await page.keyboard.press('Escape');
      await listbox.waitFor({ state: 'hidden' });
      await page.getByRole('dialog', { name: 'Add connection' }).waitFor();

      await dialog.getByRole('button', { name: 'Save' }).click();
      const item = dialog.getByRole('listitem').filter({ hasText: `Scripted ${size}` });
      await item.getByRole('status').filter({ hasText: 'Connected · 1 model' }).waitFor();
      const saved = (await page.evaluate(() => window.__HEARTH__.api.connections.list())).find((c) => c.name === `Scripted ${size}`);
      assert.equal(saved.model, 'scripted');
      await closeDialog(page);
    }
  });

  it('does not save on Enter without a model, and says what is missing beside the field', async () => {
    await closeAll();
    const address = `http://127.0.0.1:${deadPort}/v1`;
    for (const [size, viewport] of SIZES) {
      const page = await open(viewport);
      const before = (await page.evaluate(() => window.__HEARTH__.api.connections.list())).length;
      const dialog = await addForm(page);

      // Enter in an empty form: each missing field says so.
      await dialog.getByLabel('Name', { exact: true }).press('Enter');
      await dialog.locator('#conn-name-error').filter({ hasText: 'Give the connection a name.' }).waitFor();
      await dialog.locator('#conn-baseUrl-error').filter({ hasText: 'Enter the server’s address' }).waitFor();
      await dialog.locator('#conn-model-error').filter({ hasText: 'Choose a model' }).waitFor();
      assert.equal(await page.evaluate(() => document.activeElement?.id), 'conn-name', 'the first missing field has the focus');

      await dialog.getByLabel('Name', { exact: true }).fill(`Nowhere ${size}`);
      await dialog.getByLabel('Server address', { exact: true }).fill(address);
      const model = dialog.getByLabel('Model', { exact: true });
      await model.focus();
      // The address was asked for its models on the way: nothing answered there, said in a sentence beside it.
      await dialog.locator('#conn-probe-error').filter({ hasText: `Nothing answered at 127.0.0.1:${deadPort}` }).waitFor();
      await model.press('Enter');
      const missing = dialog.locator('#conn-model-error');
      await missing.filter({ hasText: 'Choose a model: type its name, or load the server’s models to pick one.' }).waitFor();
      assert.equal(await model.getAttribute('aria-invalid'), 'true');
      assert.match(await model.getAttribute('aria-describedby'), /conn-model-error/);
      assert.equal(await dialog.locator('#conn-name-error').count(), 0, 'a fixed field no longer says it is missing');
      await page.getByRole('dialog', { name: 'Add connection' }).waitFor();
      assert.equal((await page.evaluate(() => window.__HEARTH__.api.connections.list())).length, before, 'Enter saved nothing');
      await screenshot(page, `first-hour-conn-missing-model-${size}`);

      // Typing a name by hand is enough.
      await model.fill('some-model');
      await model.press('Enter');
      const item = dialog.getByRole('listitem').filter({ hasText: `Nowhere ${size}` });
      await item.waitFor();
      assert.equal((await page.evaluate(() => window.__HEARTH__.api.connections.list())).length, before + 1);
      await closeDialog(page);
    }
  });

  it('tests a wrong address as a sentence, and a reply that fails on it says so in words, its code under Details', async () => {
    await closeAll();
    const sentence = `Nothing answered at 127.0.0.1:${deadPort}`;
    const card = await env.server.invoke('characters.create', { name: 'Orrin', first_mes: 'The lamps are low.' });
    await env.server.invoke('chat.create', { avatar: card.avatar });
    const nowhere = (await env.server.invoke('connections.list')).find((c) => c.name === 'Nowhere desktop');
    const direct = await env.server.invoke('connections.test', nowhere.id);
    assert.equal(direct.ok, false);
    assert.equal(direct.error.code, 'model.unreachable', 'the code is the one it always was');
    assert.equal(direct.error.message, sentence);
    await env.server.invoke('connections.select', nowhere.id);

    for (const [size, viewport] of SIZES) {
      const page = await open(viewport);
      await toCharacters(page);
      await page.getByRole('button', { name: 'Connections' }).click();
      const item = connectionsDialog(page).getByRole('listitem').filter({ hasText: 'Nowhere desktop' });
      await item.getByRole('button', { name: 'Test Nowhere desktop' }).click();
      const result = item.getByRole('status').filter({ hasText: sentence });
      await result.waitFor();
      assert.doesNotMatch(await result.innerText(), /dial tcp|connection refused|model\./, 'no Go error, no code');
      await result.scrollIntoViewIfNeeded();
      await screenshot(page, `first-hour-conn-wrong-address-${size}`);
      await closeDialog(page);

      await openChat(page, 'Orrin');
      await page.getByRole('textbox', { name: 'Message' }).fill(`Is anyone there? (${size})`);
      await page.getByRole('button', { name: 'Send message' }).click();
      const toast = page.getByRole('alert').filter({ hasText: sentence });
      await toast.waitFor();
      const text = await toast.innerText();
      assert.match(text, new RegExp(`^${sentence}\\. Is the server running, and is its address right in Connections\\?`));
      assert.doesNotMatch(text, /model\.unreachable/, 'the code is folded away');
      await toast.getByText('Details', { exact: true }).click();
      await toast.getByText('model.unreachable', { exact: true }).waitFor();
      await toast.getByRole('button', { name: 'Open Connections' }).waitFor();
      await screenshot(page, `first-hour-conn-reply-failed-${size}`);
      await toast.getByRole('button', { name: 'Dismiss' }).click();
      await toast.waitFor({ state: 'detached' });
    }
    await env.server.invoke('connections.select', null);
  });

  it('says “no connection” in words, with the code only under Details', async () => {
    await closeAll();
    await env.server.invoke('connections.select', null);
    const card = await env.server.invoke('characters.create', { name: 'Pell', first_mes: 'Kettle’s on.' });
    await env.server.invoke('chat.create', { avatar: card.avatar });
    for (const [size, viewport] of SIZES) {
      const page = await open(viewport);
      await openChat(page, 'Pell');
      await page.getByRole('textbox', { name: 'Message' }).fill(`Hello (${size})`);
      await page.getByRole('button', { name: 'Send message' }).click();
      const toast = page.getByRole('alert').filter({ hasText: 'No connection' });
      await toast.waitFor();
      assert.doesNotMatch(await toast.innerText(), /generate\.no_connection/);
      const details = toast.locator('details');
      assert.equal(await details.evaluate((d) => d.open), false, 'Details starts folded');
      await toast.getByText('Details', { exact: true }).click();
      await toast.getByText('generate.no_connection', { exact: true }).waitFor();
      await screenshot(page, `first-hour-conn-no-connection-${size}`);
      await toast.getByRole('button', { name: 'Dismiss' }).click();
    }
  });

  it('shows a chat named by its time stamp as a date everywhere, while the API keeps the file name', async () => {
    await closeAll();
    const card = await env.server.invoke('characters.create', { name: 'Ada', first_mes: 'Welcome to the valley.' });
    const made = await env.server.invoke('chat.create', { avatar: card.avatar });
    assert.match(made.fileName, /^Ada - \d{4}-\d{2}-\d{2}@\d{2}h\d{2}m\d{2}s\d{3}ms$/, 'a default name');
    await env.server.invoke('worldinfo.save', 'Valley', { entries: { 0: { uid: 0, key: ['falls'], content: 'The falls roar.', comment: 'The Falls' } } });

    for (const [size, viewport] of SIZES) {
      const page = await open(viewport);
      await toCharacters(page);
      const title = await page.evaluate((name) => {
        const [, y, mo, d, h, mi] = /(\d{4})-(\d{2})-(\d{2})@(\d{2})h(\d{2})m/.exec(name).map(Number);
        return new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', year: 'numeric', hour: 'numeric', minute: '2-digit' })
          .format(new Date(y, mo - 1, d, h, mi))
          .replace(/\s/g, ' ');
      }, made.fileName);
      await page.getByRole('option', { name: /Ada/ }).click();
      const chats = page.getByRole('region', { name: 'Chats' });
      const row = chats.getByRole('listitem').filter({ hasText: title });
      await row.waitFor();
      assert.doesNotMatch(await chats.innerText(), /@\d{2}h|\d{2}m\d{2}s/, 'no time stamp in the chat list');
      if (viewport) {
        await waitFor(async () => (await chats.boundingBox())?.x === 0, 'the chat list in place');
        await screenshot(page, 'first-hour-conn-chat-list-phone');
      }

      await row.getByText(title, { exact: true }).click();
      const header = page.getByRole('region', { name: 'Chat', exact: true }).locator('header .file');
      await header.filter({ hasText: title }).waitFor();
      assert.equal(await header.innerText(), title, 'the header names the chat by its date');
      assert.equal(await page.evaluate(() => window.__HEARTH__.getContext().getCurrentChatId()), made.fileName, 'getContext() keeps the stored file name');
      assert.equal((await page.evaluate((id) => window.__HEARTH__.api.chat.get(id), made.chatId)).fileName, made.fileName);
      await messageRow(page, 0).waitFor();
      await waitFor(async () => (await page.getByRole('region', { name: 'Chat', exact: true }).boundingBox())?.x === 0 || !viewport, 'the chat pane in place');
      await screenshot(page, `first-hour-conn-titles-${size}`);

      // The lorebook's check bar names the chat the same way.
      await toCharacters(page);
      await fromMoreSettings(page, /^Lorebooks…/);
      const lore = page.locator('dialog[open]').filter({ has: page.locator('.lb-root') });
      await lore.getByRole('button', { name: /Open Valley/ }).click();
      await lore.getByText(`Would these entries activate in “${title}” now?`).waitFor();
      await page.keyboard.press('Escape');
      await lore.waitFor({ state: 'hidden' });
    }

    // A name the user chose is shown as it is; the delete dialog names the chat as the list does.
    const page = await open();
    await toCharacters(page);
    await page.getByRole('option', { name: /Ada/ }).click();
    const chats = page.getByRole('region', { name: 'Chats' });
    const other = await env.server.invoke('chat.create', { avatar: card.avatar });
    await env.server.invoke('chat.rename', other.chatId, 'Evening by the falls');
    await chats.getByText('Evening by the falls', { exact: true }).waitFor();
    const stamped = chats.getByRole('listitem').filter({ hasNotText: 'Evening by the falls' }).first();
    const shown = await stamped.locator('.title').innerText();
    await stamped.hover();
    await stamped.getByRole('button', { name: `Delete chat ${shown}` }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete chat?' });
    await confirm.getByText(`“${shown}” and its 1 message will be deleted.`, { exact: false }).waitFor();
    assert.doesNotMatch(await confirm.innerText(), /@\d{2}h/);
    await confirm.getByRole('button', { name: 'Cancel' }).click();
  });

  it('keeps a toast off the lorebook’s Check activation and off the dialog’s buttons', async () => {
    await closeAll();
    const card = await env.server.invoke('characters.create', { name: 'Bree', first_mes: 'Mind the falls.' });
    const chatId = (await env.server.invoke('chat.create', { avatar: card.avatar })).chatId;
    for (const [size, viewport] of SIZES) {
      const page = await open(viewport);
      await page.evaluate((id) => window.__HEARTH__.api.chat.select(id), chatId);
      await page.getByRole('textbox', { name: 'Message' }).waitFor();
      await toCharacters(page);
      await fromMoreSettings(page, /^Lorebooks…/);
      const lore = page.locator('dialog[open]').filter({ has: page.locator('.lb-root') });
      // A failed import: an error toast while the dialog is open.
      const [chooser] = await Promise.all([page.waitForEvent('filechooser'), lore.getByRole('button', { name: 'Import' }).click()]);
      await chooser.setFiles({ name: 'Broken.json', mimeType: 'application/json', buffer: Buffer.from('{"entries": ') });
      const toast = page.getByRole('alert').filter({ hasText: 'Could not import Broken.json' });
      await toast.waitFor();
      await lore.getByRole('button', { name: /Open Valley/ }).click();
      const check = lore.getByRole('button', { name: 'Check activation' });
      await check.waitFor();
      await page.waitForTimeout(250); // the toast's slide-in
      const toastBox = await toast.boundingBox();
      const checkBox = await check.boundingBox();
      assert.ok(!overlap(toastBox, checkBox), `${size}: the toast ${JSON.stringify(toastBox)} covers Check activation ${JSON.stringify(checkBox)}`);
      for (const name of ['Library', 'Save']) {
        const box = await lore.getByRole('button', { name, exact: true }).boundingBox();
        assert.ok(!overlap(toastBox, box), `${size}: the toast ${JSON.stringify(toastBox)} covers ${name} ${JSON.stringify(box)}`);
      }
      const vp = page.viewportSize();
      assert.ok(toastBox.x >= 0 && toastBox.x + toastBox.width <= vp.width, `${size}: the toast is on screen`);
      // Check activation still works with the toast up.
      await check.click();
      await lore.getByText('This book is not used by this chat', { exact: false }).waitFor();
      await screenshot(page, `first-hour-conn-lorebook-toast-${size}`);
      // Once the dialog closes the toast goes back to its corner, where it can be dismissed.
      await page.keyboard.press('Escape');
      await lore.waitFor({ state: 'hidden' });
      await waitFor(async () => {
        const box = await toast.boundingBox();
        return box && box.y < 100;
      }, 'the toast back at the top');
      await toast.getByRole('button', { name: 'Dismiss' }).click();
      await toast.waitFor({ state: 'detached' });
    }
  });

  it('serves an icon for the browser tab', async () => {
    await closeAll();
    const res = await fetch(`${env.server.url}/favicon.ico`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^image\//);
    const bytes = Buffer.from(await res.arrayBuffer());
    assert.deepEqual([...bytes.subarray(0, 4)], [0, 0, 1, 0], 'an ICO file');
    const page = await open();
    const href = await page.evaluate(() => document.querySelector('link[rel="icon"]')?.href ?? null);
    assert.equal(href, `${env.server.url}/favicon.ico`);
    const touch = await page.evaluate(async () => {
      const link = document.querySelector('link[rel="apple-touch-icon"]');
      const r = await fetch(link.href);
      return { status: r.status, type: r.headers.get('content-type') };
    });
    assert.deepEqual(touch, { status: 200, type: 'image/png' });
  });
});
