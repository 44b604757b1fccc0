// Attachments through the UI (1280×800 and 390×844): the composer's paperclip
// takes an image and a text file from the file chooser, shows them as chips
// (one removed again), and sends them with the message; the message shows
// the image (loaded from /api/media/…, content-addressed) and a download
// link for the file, and stores them in extra.media / extra.files. The prompt
// the next reply would send names the image for a model that cannot see.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { messageRow, openApp, pngImage, screenshot, useHearth, waitFor } from './harness.mjs';

describe('attachments in the UI', () => {
  const env = useHearth({ before, after });
  let page;
  let chatId;

  before(async () => {
    const card = await env.server.invoke('characters.create', { name: 'Mira', first_mes: 'Show me, {{user}}.' });
    chatId = (await env.server.invoke('chat.create', { avatar: card.avatar })).chatId;
    page = await openApp(env.browser, env.server.url);
    await page.evaluate((id) => window.__HEARTH__.api.chat.select(id), chatId);
    await messageRow(page, 0).waitFor();
  });

  after(async () => {
    assert.deepEqual(page?.errors ?? [], [], 'uncaught errors in the page');
  });

  it('attaches an image and a file, and sends them with the message', async () => {
    const png = await pngImage(48, 32, [0x3a, 0x77, 0xd9]);
    await page.locator('input[type=file][multiple]').setInputFiles([
      { name: 'map.png', mimeType: 'image/png', buffer: png },
      { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('north, then east') },
      { name: 'extra.txt', mimeType: 'text/plain', buffer: Buffer.from('not this one') },
    ]);
    const chips = page.getByRole('list', { name: 'Attachments' });
    await chips.getByText('extra.txt').waitFor();
    await chips.getByRole('button', { name: 'Remove extra.txt' }).click();
    await waitFor(async () => (await chips.getByRole('listitem').count()) === 2, 'two chips left');
    await screenshot(page, 'media-chips');

    await page.getByLabel('Message', { exact: true }).fill('Look at these');
    await page.getByLabel('Message', { exact: true }).press('Enter');
    const row = messageRow(page, 1);
    await row.waitFor();
    const img = row.locator('img[src^="/api/media/"]');
    await img.waitFor();
    await waitFor(() => img.evaluate((el) => el.complete && el.naturalWidth === 48), 'the image loaded');
    await row.getByRole('link', { name: /notes\.txt/ }).waitFor();
    assert.equal(await chips.count(), 0, 'the chips are gone once sent');

    const stored = await page.evaluate(() => window.__HEARTH__.getContext().chat[1].extra);
    assert.equal(stored.media.length, 1);
    assert.match(stored.media[0].url, /^\/api\/media\/[0-9a-f]{64}\.png$/);
    assert.deepEqual({ type: stored.media[0].type, title: stored.media[0].title, mime: stored.media[0].mime }, { type: 'image', title: 'map.png', mime: 'image/png' });
    assert.equal(stored.files.length, 1);
    assert.equal(stored.files[0].name, 'notes.txt');
    const file = await page.evaluate((u) => fetch(u).then(async (r) => ({ text: await r.text(), disp: r.headers.get('content-disposition') })), stored.files[0].url);
    assert.deepEqual(file, { text: 'north, then east', disp: 'attachment' });
    await screenshot(page, 'media-message');

    // SillyTavern's helpers: draw a message's media into an element an
    // extension owns (jQuery-style wrapper accepted), legacy extra.image
    // included and unsafe URLs left out.
    const drawn = await page.evaluate(() => {
      const ctx = window.SillyTavern.getContext();
      const div = document.createElement('div');
      const msg = structuredClone(ctx.chat[1]);
      msg.extra.image = 'javascript:alert(1)';
      msg.extra.media.push({ url: 'http://example.com/x.png', type: 'image' });
      ctx.appendMediaToMessage(msg, { 0: div });
      ctx.appendMediaToMessage(msg, div); // again: replaces, not adds
      return { imgs: [...div.querySelectorAll('img')].map((i) => i.getAttribute('src')), links: [...div.querySelectorAll('a')].map((a) => a.textContent) };
    });
    assert.deepEqual(drawn, { imgs: [stored.media[0].url], links: ['notes.txt'] });

    // No connection: the dry run still shows the prompt, where a model that
    // cannot see gets a line naming the image and the file.
    const dry = await page.evaluate((id) => window.__HEARTH__.api.generate.dryRun({ chatId: id }), chatId);
    const last = dry.chatCompletionPayload.messages.at(-1);
    assert.match(String(last.content), /image "map\.png" \(image\/png\) attached; this model cannot view images/);
    assert.match(String(last.content), /file "notes\.txt" \(text\/plain\) attached/);
  });

  it('fits a phone', async () => {
    const phone = await openApp(env.browser, env.server.url, { viewport: { width: 390, height: 844 } });
    await phone.evaluate((id) => window.__HEARTH__.api.chat.select(id), chatId);
    const img = messageRow(phone, 1).locator('img');
    await img.waitFor();
    await waitFor(async () => {
      const box = await img.boundingBox();
      return box !== null && box.x >= 0 && box.x + box.width <= 390;
    }, 'the image inside the screen');
    const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.equal(overflow, 0, 'nothing scrolls sideways');
    await screenshot(phone, 'media-phone');
    assert.deepEqual(phone.errors, [], 'uncaught errors in the phone page');
    await phone.close();
  });
});
