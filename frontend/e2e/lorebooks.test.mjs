// The Lorebooks dialog against a real `hearth serve`: create a book, add
// entries and set their fields (tag keys with a /regex/ key, @D with depth
// and role, order, probability, group, a tri-state override, sticky),
// duplicate and delete one, save, reload → all of it there; a field error
// from the host shown next to the field; import a SillyTavern world file
// from the file chooser and export it back byte for byte; "would this
// activate now?" against a chat whose message holds a key (not used by the
// chat → bind it → active); bind and unbind from the library; the last
// generation's activation; the dialog full-screen on a phone.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fromMoreSettings, messageRow, openApp, repoRoot, screenshot, useHearth, waitFor } from './harness.mjs';

const FIXTURE = join(repoRoot, 'backend/worldinfo/testdata/books/st_eldoria.json');
const PHONE = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true };

/** tinyModel answers every chat completion with one streamed sentence. */
function tinyModel() {
  const server = createServer(async (req, res) => {
    for await (const _ of req);
    if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not found"}}');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const chunk = (delta, finish = null) => `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'tiny', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    res.end(chunk({ content: 'The falls roar below.' }) + chunk({}, 'stop') + 'data: [DONE]\n\n');
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${server.address().port}/v1` })));
}

describe('lorebooks in the UI', () => {
  const env = useHearth({ before, after });
  let page;
  let chatId;
  let llm;

  before(async () => {
    llm = await tinyModel();
    const card = await env.server.invoke('characters.create', { name: 'Ada', first_mes: 'Welcome to the valley.' });
    chatId = (await env.server.invoke('chat.create', { avatar: card.avatar })).chatId;
    await env.server.invoke('chat.addMessages', chatId, { is_user: true, name: 'User', mes: 'Tell me about the Whispering Falls.' });
    const conn = await env.server.invoke('connections.save', { name: 'Tiny', provider: 'openai-compatible', baseUrl: llm.url, model: 'tiny', apiKey: 'sk-e2e' });
    await env.server.invoke('connections.select', conn.id);
    page = await openApp(env.browser, env.server.url, { theme: 'dark' });
    await page.evaluate((id) => window.__HEARTH__.api.chat.select(id), chatId);
  });

  after(async () => {
    llm?.server.close();
    assert.deepEqual(page?.errors ?? [], [], 'uncaught errors in the page');
  });

  const dialog = (p = page) => p.locator('dialog[open]').filter({ has: p.locator('.lb-root') });
  const entryList = (p = page) => dialog(p).getByRole('list', { name: 'Entry list' });
  const book = (name) => page.evaluate((n) => window.__HEARTH__.api.worldinfo.get(n), name);

  async function addKey(label, key) {
    const input = dialog().getByRole('textbox', { name: label });
    await input.fill(key);
    await input.press('Enter');
  }

  it('creates a book, adds entries with their fields, and saves', async () => {
    await fromMoreSettings(page, /^Lorebooks…/);
    await dialog().getByRole('heading', { name: 'Lorebooks' }).waitFor();
    await dialog().getByText('No lorebooks yet.', { exact: false }).waitFor();
    await screenshot(page, 'lorebooks-empty');

    await dialog().getByRole('button', { name: 'New book' }).click();
    await dialog().getByLabel('New lorebook’s name').fill('Valley');
    await dialog().getByRole('button', { name: 'Create' }).click();
    await dialog().getByRole('heading', { name: 'Valley' }).waitFor();

    await dialog().getByRole('button', { name: 'Entry', exact: true }).click();
    await addKey('Primary keys', 'Whispering Falls');
    await addKey('Primary keys', '/falls?/i');
    await addKey('Secondary keys', 'water, mist');
    await dialog().getByLabel('Title / memo').fill('The Falls');
    await dialog().getByLabel('Content', { exact: true }).fill('The Whispering Falls drop into the valley of {{char}}.');
    await dialog().getByLabel('Secondary key logic').selectOption({ label: 'NOT ANY' });
    await dialog().getByLabel('Position').selectOption({ label: 'In the chat at a depth (@D)' });
    await dialog().getByLabel(/^Depth/).fill('2');
    await dialog().getByLabel('Role').selectOption({ label: 'User' });
    await dialog().getByLabel(/^Order/).fill('250');
    await dialog().getByLabel(/^Groups/).fill('water');
    await dialog().getByLabel('Group weight').fill('50');
    await dialog().getByLabel('Case-sensitive').selectOption('yes');
    await dialog().getByLabel(/^Sticky/).fill('2');
    await dialog().getByLabel('Non-recursable', { exact: false }).check();
    await dialog().getByText('Unsaved changes').waitFor();
    await screenshot(page, 'lorebooks-entry-editor');

    await dialog().getByRole('button', { name: 'Entry', exact: true }).click();
    await addKey('Primary keys', 'Highmere');
    await dialog().getByLabel('Title / memo').fill('Capital');
    await dialog().getByLabel('Content', { exact: true }).fill('Highmere is the capital.');
    await dialog().getByLabel('Probability %').fill('80');
    // Duplicate, then delete the copy.
    await dialog().getByRole('button', { name: 'Duplicate entry' }).click();
    await entryList().getByRole('button', { name: /Capital \(copy\)/ }).waitFor();
    await dialog().getByRole('button', { name: 'Delete entry' }).click();
    await entryList().getByRole('button', { name: /Capital \(copy\)/ }).waitFor({ state: 'detached' });
    assert.equal(await entryList().getByRole('listitem').count(), 2);

    await dialog().getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved “Valley”').waitFor();
    const saved = await book('Valley');
    const entries = Object.values(saved.entries);
    assert.equal(entries.length, 2);
    const falls = entries.find((e) => e.comment === 'The Falls');
    assert.deepEqual(falls.key, ['Whispering Falls', '/falls?/i']);
    assert.deepEqual(falls.keysecondary, ['water', 'mist']);
    assert.equal(falls.selectiveLogic, 2);
    assert.equal(falls.position, 4);
    assert.equal(falls.depth, 2);
    assert.equal(falls.role, 1);
    assert.equal(falls.order, 250);
    assert.equal(falls.probability, 100);
    assert.equal(falls.group, 'water');
    assert.equal(falls.groupWeight, 50);
    assert.equal(falls.caseSensitive, true);
    assert.equal(falls.matchWholeWords, null);
    assert.equal(falls.sticky, 2);
    assert.equal(falls.excludeRecursion, true);
    assert.equal(entries.find((e) => e.comment === 'Capital').content, 'Highmere is the capital.');
    assert.equal(entries.find((e) => e.comment === 'Capital').probability, 80);
  });

  it('keeps all of it across a reload, and asks before unsaved changes are lost', async () => {
    await page.reload();
    await page.evaluate(() => window.__HEARTH__.ready);
    await fromMoreSettings(page, /^Lorebooks…/);
    await dialog().getByRole('button', { name: 'Open Valley' }).click();
    await dialog().getByRole('heading', { name: 'Valley' }).waitFor();
    // Highest order first: The Falls is shown.
    assert.equal(await dialog().getByLabel('Title / memo').inputValue(), 'The Falls');
    assert.equal(await dialog().getByLabel(/^Depth/).inputValue(), '2');
    assert.equal(await dialog().getByLabel('Role').inputValue(), '1');
    assert.equal(await dialog().getByLabel('Case-sensitive').inputValue(), 'yes');
    assert.equal(await dialog().getByLabel('Whole words').inputValue(), 'global');
    assert.equal(await dialog().getByRole('group', { name: 'Primary keys' }).getByRole('listitem').filter({ hasText: 'regex' }).count(), 1);

    await dialog().getByLabel(/^Order/).fill('10');
    await dialog().getByRole('button', { name: 'Library' }).click();
    const ask = page.getByRole('dialog', { name: 'Discard changes?' });
    await ask.getByRole('button', { name: 'Cancel' }).click();
    await dialog().getByRole('heading', { name: 'Valley' }).waitFor();
    await dialog().getByRole('button', { name: 'Library' }).click();
    await ask.getByRole('button', { name: 'Discard' }).click();
    await dialog().getByRole('heading', { name: 'Lorebooks' }).waitFor();
    assert.equal(Object.values((await book('Valley')).entries).find((e) => e.comment === 'The Falls').order, 250);
  });

  it('shows the host’s error next to the field it names', async () => {
    await dialog().getByRole('button', { name: 'Open Valley' }).click();
    // A key longer than the host allows (16 KiB): refused, named next to the keys.
    await addKey('Primary keys', 'k'.repeat(17 * 1024));
    await dialog().getByRole('button', { name: 'Save' }).click();
    const err = dialog().locator('#lb-err-key');
    await err.waitFor();
    assert.match(await err.textContent(), /key\[2\] is \d+ bytes; at most 16384/);
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'lb-key');
    await screenshot(page, 'lorebooks-field-error');
    const keys = dialog().getByRole('textbox', { name: 'Primary keys' });
    await keys.press('Backspace');
    await keys.fill('');
    await dialog().getByRole('button', { name: 'Save' }).click();
    await err.waitFor({ state: 'detached' });
    assert.deepEqual(Object.values((await book('Valley')).entries).find((e) => e.comment === 'The Falls').key, ['Whispering Falls', '/falls?/i']);
  });

  it('checks what would activate now, binds the book to the chat, and shows the last activation', async () => {
    await dialog().getByRole('button', { name: 'Check activation' }).click();
    await dialog().getByText('This book is not used by this chat', { exact: false }).waitFor();
    await screenshot(page, 'lorebooks-not-used');
    await dialog().getByRole('button', { name: 'Bind to this chat' }).click();
    await dialog().getByText(/1 of 2\s+entries would activate now/).waitFor();
    await entryList().getByRole('button', { name: /^Active:\s*The Falls/ }).waitFor();
    await entryList().getByRole('button', { name: /^Inactive:\s*Capital/ }).waitFor();
    await dialog().getByText('Would activate now', { exact: true }).waitFor();
    await screenshot(page, 'lorebooks-activation');
    assert.equal((await page.evaluate((id) => window.__HEARTH__.api.chat.getMetadata(id), chatId)).world_info, 'Valley');

    // The library's chat panel: unbind, bind again.
    await dialog().getByRole('button', { name: 'Library' }).click();
    const picker = dialog().getByLabel('Chat lorebook');
    assert.equal(await picker.inputValue(), 'Valley');
    await picker.selectOption('');
    await waitFor(async () => !(await page.evaluate((id) => window.__HEARTH__.api.chat.getMetadata(id), chatId)).world_info, 'the chat unbound');
    await picker.selectOption('Valley');
    await waitFor(async () => (await page.evaluate((id) => window.__HEARTH__.api.chat.getMetadata(id), chatId)).world_info === 'Valley', 'the chat bound again');
    await dialog().getByText('No reply in this chat has been generated with World Info yet.').waitFor();

    // A real generation: its activation shows as the last one, live.
    await page.evaluate((id) => window.__HEARTH__.api.generate.run({ chatId: id }), chatId);
    const last = dialog().getByLabel('Last activation');
    await last.getByText('1 entry activated', { exact: false }).waitFor();
    await last.getByRole('button', { name: 'The Falls' }).waitFor();
    assert.match(await last.textContent(), /Valley · keyed · in the chat at depth/);
    await screenshot(page, 'lorebooks-library');
    await last.getByRole('button', { name: 'The Falls' }).click();
    await dialog().getByRole('heading', { name: 'Valley' }).waitFor();
    assert.equal(await dialog().getByLabel('Title / memo').inputValue(), 'The Falls');
    await dialog().getByRole('button', { name: 'Library' }).click();

    // The reply itself keeps what its prompt carried, folded under it.
    await page.keyboard.press('Escape');
    await dialog().waitFor({ state: 'detached' });
    const reply = messageRow(page, 2);
    await reply.getByText('Lorebooks: 1 entry').click();
    await reply.locator('details.lore').getByText('The Falls').waitFor();
    assert.match(await reply.locator('details.lore').textContent(), /The Falls\s*· Valley · in the chat at depth/);
    await screenshot(page, 'lorebooks-reply');
    await fromMoreSettings(page, /^Lorebooks…/);
    await dialog().getByRole('heading', { name: 'Lorebooks' }).waitFor();
  });

  it('imports a SillyTavern world file and exports it back byte for byte; renames, selects globally and deletes', async () => {
    const [chooser] = await Promise.all([page.waitForEvent('filechooser'), dialog().getByRole('button', { name: 'Import' }).click()]);
    await chooser.setFiles(FIXTURE);
    await page.getByText('Imported “st_eldoria” (5 entries)').waitFor();
    const row = dialog().getByRole('listitem').filter({ has: page.getByRole('button', { name: 'Open st_eldoria' }) });

    const [download] = await Promise.all([page.waitForEvent('download'), row.getByRole('button', { name: 'Export st_eldoria' }).click()]);
    assert.equal(download.suggestedFilename(), 'st_eldoria.json');
    assert.equal(readFileSync(await download.path(), 'utf8'), readFileSync(FIXTURE, 'utf8'));

    // Opened and saved through the editor with one change, every other byte stays.
    await row.getByRole('button', { name: 'Open st_eldoria' }).click();
    await entryList().getByRole('button', { name: /Capital/ }).click();
    await dialog().getByLabel('Content', { exact: true }).fill('Highmere sits on seven bridges.');
    await dialog().getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved “st_eldoria”').waitFor();
    const exported = await page.evaluate(() => window.__HEARTH__.api.worldinfo.exportBook('st_eldoria'));
    const before = JSON.parse(readFileSync(FIXTURE, 'utf8'));
    const afterSave = JSON.parse(exported.text);
    before.entries['10'].content = 'Highmere sits on seven bridges.';
    assert.deepEqual(afterSave, before);
    await dialog().getByRole('button', { name: 'Library' }).click();

    // The same file again: asked whether to replace.
    const [again] = await Promise.all([page.waitForEvent('filechooser'), dialog().getByRole('button', { name: 'Import' }).click()]);
    await again.setFiles(FIXTURE);
    await page.getByRole('dialog', { name: 'Replace lorebook?' }).getByRole('button', { name: 'Replace' }).click();
    const original = readFileSync(FIXTURE, 'utf8');
    await waitFor(async () => (await page.evaluate(() => window.__HEARTH__.api.worldinfo.exportBook('st_eldoria'))).text === original, 'the book replaced by the file');

    await row.getByRole('checkbox', { name: 'Use st_eldoria in every chat' }).check();
    await waitFor(async () => (await page.evaluate(() => window.__HEARTH__.api.worldinfo.getSettings())).globalSelect.includes('st_eldoria'), 'the book selected globally');
    await row.getByRole('button', { name: 'Rename st_eldoria' }).click();
    await dialog().getByLabel('New name for “st_eldoria”').fill('Eldoria');
    await dialog().getByRole('button', { name: 'Rename', exact: true }).click();
    const renamed = dialog().getByRole('listitem').filter({ has: page.getByRole('button', { name: 'Open Eldoria' }) });
    await renamed.waitFor();
    assert.equal(await renamed.getByRole('checkbox', { name: 'Use Eldoria in every chat' }).isChecked(), true);
    assert.deepEqual((await page.evaluate(() => window.__HEARTH__.api.worldinfo.getSettings())).globalSelect, ['Eldoria']);

    await renamed.getByRole('button', { name: 'Delete Eldoria' }).click();
    await page.getByRole('dialog', { name: 'Delete lorebook' }).getByRole('button', { name: 'Delete' }).click();
    await renamed.waitFor({ state: 'detached' });
    await waitFor(async () => (await page.evaluate(() => window.__HEARTH__.api.worldinfo.getSettings())).globalSelect.length === 0, 'the global selection emptied');

    // The settings section saves; a value out of range is named next to its field.
    await dialog().getByText('Activation settings').click();
    await dialog().getByLabel(/^Scan depth/).fill('5');
    await dialog().getByLabel(/^Budget %/).fill('0');
    await dialog().getByRole('button', { name: 'Save settings' }).click();
    await dialog().locator('#wi-err-world_info_budget').getByText('must be between 1 and 100').waitFor();
    await dialog().getByLabel(/^Budget %/).fill('30');
    await dialog().getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('Saved the World Info settings').waitFor();
    const s = await page.evaluate(() => window.__HEARTH__.api.worldinfo.getSettings());
    assert.equal(s.world_info_depth, 5);
    assert.equal(s.world_info_budget, 30);
    await screenshot(page, 'lorebooks-settings');
  });

  it('looks right in the light theme', async () => {
    await page.evaluate(() => document.documentElement.setAttribute('data-theme', 'light'));
    await dialog().getByRole('button', { name: 'Open Valley' }).click();
    await dialog().getByRole('button', { name: 'Check activation' }).click();
    await dialog().getByText(/1 of 2\s+entries would activate now/).waitFor();
    await screenshot(page, 'lorebooks-light');
    await dialog().getByRole('button', { name: 'Library' }).click();
    await dialog().getByRole('button', { name: 'Done' }).click();
    await page.evaluate(() => document.documentElement.setAttribute('data-theme', 'dark'));
  });

  it('is full-screen and usable on a phone', async () => {
    const context = await env.browser.newContext(PHONE);
    const phone = await openApp(context, env.server.url, { theme: 'light' });
    try {
      // The chat pane may be showing (the last chat reopened): go back to the characters.
      for (const back of ['Back to chats', 'Back to characters']) {
        await phone.getByRole('button', { name: back }).click({ timeout: 2000 }).catch(() => {});
      }
      await fromMoreSettings(phone, /^Lorebooks…/);
      await dialog(phone).getByRole('heading', { name: 'Lorebooks' }).waitFor();
      // (once its opening animation is over)
      await waitFor(async () => {
        const box = await dialog(phone).boundingBox();
        return box && box.x === 0 && box.y === 0 && box.width === 390 && box.height === 844;
      }, 'the dialog to fill the screen');
      await screenshot(phone, 'lorebooks-phone-library');

      await dialog(phone).getByRole('button', { name: 'Open Valley' }).tap();
      await dialog(phone).getByRole('heading', { name: 'Valley' }).waitFor();
      await entryList(phone).waitFor();
      await screenshot(phone, 'lorebooks-phone-entries');
      await entryList(phone).getByRole('button', { name: /Capital/ }).tap();
      await dialog(phone).getByLabel('Title / memo').waitFor();
      assert.equal(await entryList(phone).isVisible(), false, 'the entry replaces the list');
      const overflow = await phone.evaluate(() => {
        const body = document.querySelector('dialog[open] .body');
        return body.scrollWidth - body.clientWidth;
      });
      assert.ok(overflow <= 0, `nothing scrolls sideways (${overflow} px)`);
      await dialog(phone).getByLabel('Content', { exact: true }).fill('Highmere, the capital, on the river.');
      await screenshot(phone, 'lorebooks-phone-entry');
      await dialog(phone).getByRole('button', { name: 'Save' }).tap();
      await phone.getByText('Saved “Valley”').waitFor();
      await dialog(phone).getByRole('button', { name: 'Entries' }).tap();
      await entryList(phone).waitFor();
      assert.deepEqual(phone.errors, [], 'uncaught errors on the phone');
    } finally {
      await context.close();
    }
  });
});
