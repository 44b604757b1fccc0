// SillyTavern JSONL chat files through the UI (HOST-ABI §3.8): a chat's
// "Export" (row action on a laptop, the ⋯ sheet on a phone) downloads
// exactly what api.chat.exportJsonl returns; "Import chat" takes a file
// from the file chooser, stores it with every unknown key and opens it; a
// malformed file shows an error toast naming its line and creates nothing.
// Screenshots of the row actions, the phone sheet and both toasts are
// artifacts.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { messageRow, openApp, pageUrl, repoRoot, screenshot, useHearth, waitFor } from './harness.mjs';

const FIXTURE = readFileSync(join(repoRoot, 'backend/chats/testdata/unknown_keys.jsonl'), 'utf8');
const PHONE = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true };

/** still waits until no animation runs (a toast sliding in), for a screenshot that shows the end state. */
const still = (page) => page.waitForFunction(() => document.getAnimations().every((a) => a.playState !== 'running'));

/** lines decodes JSONL text, one object per line. */
const lines = (text) => text.split('\n').map((l) => JSON.parse(l));

/** chatsOf lists the character's chats through the page's ABI. */
const chatsOf = (page, avatar) => page.evaluate((a) => window.__HEARTH__.api.chat.list({ avatar: a }), avatar);

/** downloaded runs click and returns the download it started: its suggested name and text. */
async function downloaded(page, click) {
  const [download] = await Promise.all([page.waitForEvent('download'), click()]);
  return { name: download.suggestedFilename(), text: readFileSync(await download.path(), 'utf8') };
}

/** pick answers the file chooser that click opens with one file. */
async function pick(page, click, name, text) {
  const [chooser] = await Promise.all([page.waitForEvent('filechooser'), click()]);
  await chooser.setFiles({ name, mimeType: 'application/jsonl', buffer: Buffer.from(text, 'utf8') });
}

describe('JSONL chat files in the UI', () => {
  const env = useHearth({ before, after });
  let page;
  let avatar;
  let chatId;

  before(async () => {
    const card = await env.server.invoke('characters.create', { name: 'Seraphina', first_mes: 'Welcome, {{user}}.' });
    avatar = card.avatar;
    chatId = (await env.server.invoke('chat.create', { avatar }, { fileName: 'Lantern night' })).chatId;
    await env.server.invoke('chat.addMessages', chatId, [
      { name: 'User', is_user: true, mes: 'Hello "there"\nsecond line', extra: { x_custom: { a: [1, { b: null }] } } },
      { mes: 'Hi.', swipes: ['Hi.', 'Hey.'], swipe_id: 0, x_top: '猫' },
    ]);
    page = await openApp(env.browser, env.server.url);
    await page.getByRole('option', { name: /Seraphina/ }).click();
    await page.locator('li.item', { hasText: 'Lantern night' }).waitFor();
  });

  after(() => {
    assert.deepEqual(page?.errors ?? [], [], 'uncaught errors in the page');
  });

  it("exports a chat from its row actions: the download is api.chat.exportJsonl's file", async () => {
    const row = page.locator('li.item', { hasText: 'Lantern night' });
    await row.hover();
    const button = row.getByRole('button', { name: 'Export chat Lantern night' });
    await button.waitFor();
    await screenshot(page, 'jsonl-desktop-row-actions');
    const file = await downloaded(page, () => button.click());
    const api = await page.evaluate((id) => window.__HEARTH__.api.chat.exportJsonl(id), chatId);
    assert.equal(api.fileName, 'Lantern night.jsonl');
    assert.equal(file.name, api.fileName);
    assert.equal(file.text, api.text, 'the download is byte for byte what exportJsonl returns');
    const [header, ...msgs] = lines(file.text);
    assert.deepEqual(Object.keys(header).slice(0, 4), ['user_name', 'character_name', 'create_date', 'chat_metadata']);
    assert.equal(header.character_name, 'Seraphina');
    assert.equal(msgs.length, 3);
    assert.deepEqual(msgs[1].extra.x_custom, { a: [1, { b: null }] });
    assert.equal(msgs[2].x_top, '猫');
    assert.ok(msgs.every((m) => !('id' in m)), 'no Hearth ids in the file');
    await page.getByRole('status').filter({ hasText: 'Exported “Lantern night”' }).waitFor();
  });

  it('imports a file through the file chooser and opens it', async () => {
    await pick(page, () => page.getByRole('button', { name: 'Import chat' }).click(), 'Unknown keys.jsonl', FIXTURE);
    const toast = page.getByRole('status').filter({ hasText: 'Imported “Unknown keys” (8 messages)' });
    await toast.waitFor();
    const opened = await waitFor(
      () =>
        page.evaluate(async () => {
          const cur = window.__HEARTH__.api.chat.current();
          if (!cur) return null;
          const chat = await window.__HEARTH__.api.chat.get(cur.chatId);
          return chat.fileName === 'Unknown keys' && window.__HEARTH__.getContext().chat.length === 8 ? chat : null;
        }),
      'the imported chat to be open',
    );
    assert.equal(opened.messageCount, 8);
    await messageRow(page, 7).filter({ hasText: 'A hidden aside' }).waitFor();
    const mes = await page.evaluate(() => window.__HEARTH__.getContext().chat[3].mes);
    assert.equal(mes, 'Thank you. 谢谢你。ありがとう 🌲');
    await screenshot(page, 'jsonl-desktop-imported');
    // Unknown keys made it in, and come back out.
    const out = lines((await page.evaluate((id) => window.__HEARTH__.api.chat.exportJsonl(id), opened.chatId)).text);
    const want = lines(FIXTURE.trimEnd());
    assert.deepEqual(out[0], want[0]);
    assert.deepEqual(out[2].x_message_unknown, want[2].x_message_unknown);
    assert.deepEqual(out[3].swipe_info[1].x_info_key, want[3].swipe_info[1].x_info_key);
  });

  it('imports the same file again under a numbered name', async () => {
    await pick(page, () => page.getByRole('button', { name: 'Import chat' }).click(), 'Unknown keys.jsonl', FIXTURE);
    await page.getByRole('status').filter({ hasText: 'Imported “Unknown keys (2)”' }).waitFor();
    await waitFor(async () => (await chatsOf(page, avatar)).some((c) => c.fileName === 'Unknown keys (2)'), 'the second import in the list');
  });

  it('shows a malformed file’s error naming its line, and creates nothing', async () => {
    const before = await chatsOf(page, avatar);
    const current = await page.evaluate(() => window.__HEARTH__.api.chat.current()?.chatId);
    const bad = FIXTURE.split('\n');
    bad[6] = '{"name":"Seraphina","mes":"cut off';
    await pick(page, () => page.getByRole('button', { name: 'Import chat' }).click(), 'Broken.jsonl', bad.join('\n'));
    const alert = page.getByRole('alert').filter({ hasText: 'line 7' });
    await alert.waitFor();
    assert.match(await alert.innerText(), /Could not import Broken\.jsonl: line 7/);
    assert.doesNotMatch(await alert.innerText(), /validation\.invalid_argument/, 'the code is folded under Details');
    await alert.getByText('Details', { exact: true }).click();
    await alert.getByText('validation.invalid_argument', { exact: true }).waitFor();
    await still(page);
    await screenshot(page, 'jsonl-desktop-error');
    const afterList = await chatsOf(page, avatar);
    assert.deepEqual(
      afterList.map((c) => c.chatId).sort(),
      before.map((c) => c.chatId).sort(),
      'no chat was created',
    );
    assert.equal(await page.evaluate(() => window.__HEARTH__.api.chat.current()?.chatId), current, 'the open chat stayed');
  });

  it('on a phone, the ⋯ sheet exports, and Import chat is a full-size button', async () => {
    const context = await env.browser.newContext({ ...PHONE, reducedMotion: 'reduce' });
    const phone = await context.newPage();
    phone.errors = [];
    phone.on('pageerror', (err) => phone.errors.push(err));
    try {
      // On a phone the app opens on one pane, which may be the chat the
      // server's data leads it to; go to the chat list from wherever it is.
      await phone.goto(pageUrl(env.server.url));
      await phone.waitForFunction(() => typeof window.__HEARTH__ === 'object' && window.__HEARTH__ !== null);
      await phone.evaluate(() => window.__HEARTH__.ready);
      const option = phone.getByRole('option', { name: /Seraphina/ });
      const importButton = phone.getByRole('button', { name: 'Import chat' });
      const backToChats = phone.getByRole('button', { name: 'Back to chats' });
      await option.or(importButton).or(backToChats).first().waitFor();
      // The chat restored at start-up may still be opening, and moves the
      // pane when it does: tap only on a pane that stayed put since the last
      // look, and stop on the chat list once it has held for a look too.
      let seen = '';
      await waitFor(
        async () => {
          const now = (await importButton.isVisible())
            ? 'chats'
            : (await backToChats.isVisible())
              ? 'chat'
              : (await option.isVisible())
                ? 'characters'
                : '';
          const held = now !== '' && now === seen;
          seen = now;
          if (!held) return false;
          if (now === 'chats') return true;
          await (now === 'chat' ? backToChats : option).tap().catch(() => {});
          seen = '';
          return false;
        },
        'the chat list with Import chat',
        { interval: 400 },
      );
      const box = await importButton.boundingBox();
      assert.ok(box.width >= 43.5 && box.height >= 43.5, `Import chat is ${box.width}×${box.height}`);
      await phone.getByRole('button', { name: 'Actions for chat Lantern night' }).tap();
      const sheet = phone.getByRole('dialog');
      await sheet.getByRole('button', { name: 'Export chat' }).waitFor();
      await still(phone);
      await screenshot(phone, 'jsonl-phone-sheet');
      const file = await downloaded(phone, () => sheet.getByRole('button', { name: 'Export chat' }).tap());
      const api = await phone.evaluate((id) => window.__HEARTH__.api.chat.exportJsonl(id), chatId);
      assert.equal(file.name, 'Lantern night.jsonl');
      assert.equal(file.text, api.text);
      await phone.getByRole('status').filter({ hasText: 'Exported “Lantern night”' }).waitFor();
      await still(phone);
      await screenshot(phone, 'jsonl-phone-exported');
      assert.deepEqual(phone.errors, [], 'uncaught errors on the phone');
    } finally {
      await context.close();
    }
  });
});
