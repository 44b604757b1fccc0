// The first hour with characters (issue 39, items 8 and 9), at 1280×800 and
// 390×844: a character made in the editor ("New character" → Create) lands
// in its greeting chat at once, the phone showing the chat pane; its card
// exported as PNG without a picture is its initial on the list's colour at
// 400×600 (decoded here: not the old grey 64×64 square), a CJK-named one a
// silhouette; importing that card back asks instead of adding a duplicate
// silently — Cancel (once for two files) changes nothing, Keep both makes a
// second character, Replace updates the one there is in place, its chat
// kept; the question fits a phone. Screenshots first-hour-chars-*.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inflateSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { artifactsDir, messageRow, openApp, screenshot, useHearth, waitFor } from './harness.mjs';

const PHONE = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true };
const ASKED = 'Already in your characters';

/** decodePNG decodes an 8-bit RGB or RGBA PNG (what Go's encoder writes): its size and a pixel reader. */
function decodePNG(buf) {
  assert.deepEqual([...buf.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'a PNG');
  let pos = 8;
  let width = 0;
  let height = 0;
  let channels = 0;
  const idat = [];
  for (;;) {
    const len = buf.readUInt32BE(pos);
    const type = buf.toString('latin1', pos + 4, pos + 8);
    const data = buf.subarray(pos + 8, pos + 8 + len);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      assert.equal(data[8], 8, 'bit depth 8');
      assert.equal(data[12], 0, 'not interlaced');
      channels = { 2: 3, 6: 4 }[data[9]];
      assert.ok(channels, `colour type ${data[9]} is RGB or RGBA`);
    } else if (type === 'IDAT') {
      idat.push(data);
    } else if (type === 'IEND') {
      break;
    }
    pos += 12 + len;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  const px = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    for (let i = 0; i < stride; i++) {
      const a = i >= channels ? px[y * stride + i - channels] : 0;
      const b = y > 0 ? px[(y - 1) * stride + i] : 0;
      const c = i >= channels && y > 0 ? px[(y - 1) * stride + i - channels] : 0;
      let pred = 0;
      if (filter === 1) pred = a;
      else if (filter === 2) pred = b;
      else if (filter === 3) pred = (a + b) >> 1;
      else if (filter === 4) {
        const p = a + b - c;
        const pa = Math.abs(p - a);
        const pb = Math.abs(p - b);
        const pc = Math.abs(p - c);
        pred = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      }
      px[y * stride + i] = (line[i] + pred) & 0xff;
    }
  }
  const at = (x, y) => [...px.subarray((y * width + x) * channels, (y * width + x) * channels + 3)];
  return { width, height, at };
}

/** rgbOf reads a computed CSS colour ("rgb(r, g, b)"). */
const rgbOf = (css) => css.match(/\d+/g).slice(0, 3).map(Number);
const near = (a, b, tolerance = 2) => a.every((v, i) => Math.abs(v - b[i]) <= tolerance);

/** listAvatarColours is the background and letter colour the character list shows name's initial in. */
function listAvatarColours(page, name) {
  return page
    .getByRole('option', { name })
    .locator('.avatar')
    .evaluate((el) => ({ bg: getComputedStyle(el).backgroundColor, fg: getComputedStyle(el).color, text: el.textContent.trim() }));
}

/** inkCount counts the pixels of img near colour inside the box (x0, y0)–(x1, y1). */
function inkCount(img, colour, [x0, y0, x1, y1]) {
  let n = 0;
  for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) if (near(img.at(x, y), colour, 6)) n++;
  return n;
}

/** distinctColours counts the colours of img. */
function distinctColours(img) {
  const seen = new Set();
  for (let y = 0; y < img.height; y++) for (let x = 0; x < img.width; x++) seen.add(img.at(x, y).join());
  return seen.size;
}

/** createInEditor makes a character with "New character" → Create, as a person does. */
async function createInEditor(page, { name, description, greeting }, { tap = false, shot } = {}) {
  const press = (loc) => (tap ? loc.tap() : loc.click());
  await press(page.getByRole('button', { name: 'New character' }));
  const dialog = page.getByRole('dialog', { name: 'New character' });
  await dialog.getByLabel('Name', { exact: true }).fill(name);
  await dialog.getByLabel('Description').fill(description);
  await dialog.getByLabel(/^Greeting/).fill(greeting);
  if (shot) await screenshot(page, shot);
  await press(dialog.getByRole('button', { name: 'Create' }));
  await dialog.waitFor({ state: 'hidden' });
  const card = (await page.evaluate(() => window.__HEARTH__.api.characters.list())).find((c) => c.name === name);
  assert.ok(card, `${name} was created`);
  return card.avatar;
}

/** pickCards answers the Import menu's file chooser with files ({ name, mimeType, buffer }). */
async function pickCards(page, files, { tap = false } = {}) {
  const press = (loc) => (tap ? loc.tap() : loc.click());
  const [chooser] = await Promise.all([
    page.waitForEvent('filechooser'),
    (async () => {
      await press(page.getByRole('button', { name: 'Import', exact: true }));
      await press(page.getByRole('menuitem', { name: /^Character cards…/ }));
    })(),
  ]);
  await chooser.setFiles(files);
}

/** state is what Replace and Cancel must keep or change: every character's card, and the chats of avatar. */
async function state(page, avatar) {
  return page.evaluate(async (a) => {
    const h = window.__HEARTH__.api;
    const list = await h.characters.list();
    const cards = await Promise.all(list.map((c) => h.characters.get(c.avatar)));
    const chats = (await h.chat.list({ avatar: a })).map((c) => c.chatId);
    return { cards: cards.sort((x, y) => x.avatar.localeCompare(y.avatar)), chats };
  }, avatar);
}

/** still waits until no animation runs but endless ones (spinners), for a screenshot. */
const still = (page) =>
  page.waitForFunction(() => document.getAnimations().every((a) => a.playState !== 'running' || a.effect?.getComputedTiming().iterations === Infinity));

describe('first hour: characters', () => {
  const env = useHearth({ before, after });
  let page;
  let lumen;
  /** card is Lumen's card exported as PNG through the character menu. */
  let card;

  before(async () => {
    page = await openApp(env.browser, env.server.url, { theme: 'dark' });
  });

  after(() => {
    assert.deepEqual(page?.errors ?? [], [], 'uncaught errors in the page');
  });

  it('opens a character made in the editor in its greeting chat', async () => {
    lumen = await createInEditor(page, { name: 'Lumen', description: 'A lighthouse keeper.', greeting: 'Evening, {{user}}. The lamp is lit.' });
    await messageRow(page, 0).getByText('Evening, User. The lamp is lit.').waitFor();
    const chats = await page.evaluate((a) => window.__HEARTH__.api.chat.list({ avatar: a }), lumen);
    assert.equal(chats.length, 1, 'one chat was made with the character');
    assert.deepEqual(await page.evaluate(() => window.__HEARTH__.api.chat.current()), { chatId: chats[0].chatId, avatar: lumen, groupId: null });
    await page.getByRole('option', { name: 'Lumen', selected: true }).waitFor();
    await page.getByRole('textbox', { name: 'Message' }).waitFor();
    await still(page);
    await screenshot(page, 'first-hour-chars-desktop-new-chat');
  });

  it('on a phone, shows the new character’s greeting chat pane', async () => {
    const context = await env.browser.newContext({ ...PHONE, reducedMotion: 'reduce' });
    await context.addInitScript(() => localStorage.setItem('hearth.theme', 'dark'));
    try {
      const phone = await openApp(context, env.server.url);
      // The phone reopens Lumen's chat at start: go up to the character list.
      const newCharacter = phone.getByRole('button', { name: 'New character' });
      await waitFor(
        async () => {
          if (await newCharacter.isVisible()) return true;
          for (const back of ['Back to chats', 'Back to characters']) {
            const b = phone.getByRole('button', { name: back });
            if (await b.isVisible()) await b.tap().catch(() => {});
          }
          return false;
        },
        'the character list',
        { interval: 250 },
      );
      const avatar = await createInEditor(
        phone,
        { name: 'Maris', description: 'A ferry pilot.', greeting: 'All aboard, {{user}}!' },
        { tap: true, shot: 'first-hour-chars-phone-editor' },
      );
      await messageRow(phone, 0).getByText('All aboard, User!').waitFor();
      const chatPane = await phone.locator('section[aria-label="Chat"]').boundingBox();
      assert.ok(chatPane && chatPane.x >= -1 && chatPane.x + chatPane.width <= 391, `the chat pane is the one on screen: ${JSON.stringify(chatPane)}`);
      await phone.getByRole('button', { name: 'Back to chats' }).waitFor();
      assert.equal((await phone.evaluate(() => window.__HEARTH__.api.chat.current()))?.avatar, avatar);
      await still(phone);
      await screenshot(phone, 'first-hour-chars-phone-new-chat');
      // Back goes to that character's chats, which hold the one chat.
      await phone.getByRole('button', { name: 'Back to chats' }).tap();
      await phone.locator('section[aria-label="Chats"] [aria-current="true"]').waitFor();
      assert.deepEqual(phone.errors, [], 'uncaught errors on the phone');
    } finally {
      await context.close();
    }
  });

  it('exports a character without a picture as its initial on its colour, 400×600', async () => {
    await page.getByRole('option', { name: 'Lumen' }).click();
    await page.getByRole('button', { name: 'Character actions for Lumen' }).click();
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('menuitem', { name: /Export card as PNG/ }).click()]);
    card = readFileSync(await download.path());
    mkdirSync(artifactsDir, { recursive: true });
    writeFileSync(join(artifactsDir, 'first-hour-chars-exported-Lumen.png'), card);
    const img = decodePNG(card);
    assert.deepEqual([img.width, img.height], [400, 600], 'SillyTavern’s card size, not 64×64');
    assert.ok(distinctColours(img) >= 3, 'not one flat colour: a background, a letter and its smoothed edges');
    const { bg, fg, text } = await listAvatarColours(page, 'Lumen');
    assert.equal(text, 'L');
    for (const [x, y] of [
      [0, 0],
      [399, 0],
      [0, 599],
      [399, 599],
    ]) {
      assert.ok(near(img.at(x, y), rgbOf(bg)), `corner ${x},${y} is ${img.at(x, y)}, the list shows ${bg}`);
    }
    const grey = img.at(0, 0).every((v, _, all) => Math.abs(v - all[0]) < 8);
    assert.ok(!grey, `the picture is not grey: ${img.at(0, 0)}`);
    const letter = inkCount(img, rgbOf(fg), [100, 150, 300, 450]);
    assert.ok(letter > 2000, `the letter, in the list's letter colour ${fg}, is drawn in the middle (${letter} pixels)`);
    assert.equal(inkCount(img, rgbOf(fg), [0, 0, 400, 120]), 0, 'nothing but the colour at the top');

    // A name whose initial the font lacks still makes a clean picture: a silhouette, not a box.
    const tokyo = await page.evaluate(() => window.__HEARTH__.api.characters.create({ name: '東京', first_mes: 'こんにちは' }));
    const exported = await page.evaluate((a) => window.__HEARTH__.api.characters.exportCard(a, { format: 'png' }), tokyo.avatar);
    const cjk = Buffer.from(exported.base64, 'base64');
    writeFileSync(join(artifactsDir, 'first-hour-chars-exported-cjk.png'), cjk);
    const silhouette = decodePNG(cjk);
    assert.deepEqual([silhouette.width, silhouette.height], [400, 600]);
    const colours = await listAvatarColours(page, '東京');
    assert.ok(near(silhouette.at(0, 0), rgbOf(colours.bg)), `the CJK card's colour is the list's: ${silhouette.at(0, 0)} vs ${colours.bg}`);
    assert.ok(inkCount(silhouette, rgbOf(colours.fg), [60, 150, 340, 450]) > 10_000, 'a silhouette fills the middle');
    await page.evaluate((a) => window.__HEARTH__.api.characters.delete(a, { deleteChats: true }), tokyo.avatar);
  });

  it('asks when the exported card comes back; Cancel, once for two files, changes nothing', async () => {
    const lumenJson = await page.evaluate((a) => window.__HEARTH__.api.characters.exportCard(a, { format: 'json' }), lumen);
    const beforeImport = await state(page, lumen);
    await pickCards(page, [
      { name: 'Lumen.png', mimeType: 'image/png', buffer: card },
      { name: 'Lumen.json', mimeType: 'application/json', buffer: Buffer.from(lumenJson.base64, 'base64') },
    ]);
    const dialog = page.getByRole('dialog', { name: ASKED });
    await dialog.getByText('Lumen.png has the same name and the same description and first message as a character you already have.').waitFor();
    await dialog.getByText('1 chat', { exact: true }).waitFor();
    await dialog.getByText('puts the file’s card in its place and keeps its chat.').waitFor();
    await dialog.getByRole('button', { name: 'Replace' }).waitFor();
    await dialog.getByRole('button', { name: 'Keep both' }).waitFor();
    await still(page);
    await screenshot(page, 'first-hour-chars-desktop-duplicate');
    await dialog.getByRole('checkbox', { name: /Do the same for other matches in this import \(1 more file to go\)/ }).check();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await page.getByRole('status').filter({ hasText: 'Skipped 2 duplicates' }).waitFor();
    assert.deepEqual(await state(page, lumen), beforeImport, 'nothing changed');
  });

  it('Keep both makes a second Lumen', async () => {
    const beforeImport = await state(page, lumen);
    await pickCards(page, [{ name: 'Lumen.png', mimeType: 'image/png', buffer: card }]);
    const dialog = page.getByRole('dialog', { name: ASKED });
    await dialog.getByRole('button', { name: 'Keep both' }).click();
    await page.getByRole('status').filter({ hasText: 'Imported “Lumen”' }).waitFor();
    const list = await page.evaluate(() => window.__HEARTH__.api.characters.list());
    const lumens = list.filter((c) => c.name === 'Lumen');
    assert.equal(lumens.length, 2, 'two characters named Lumen');
    const copy = lumens.find((c) => c.avatar !== lumen);
    assert.equal(copy.hasImage, true, 'the copy has the card’s picture');
    const picture = page.getByRole('option', { name: 'Lumen', selected: true }).locator('img');
    await picture.evaluate((img) => img.complete || new Promise((r) => (img.onload = r)));
    // The 400×600 picture fills the round avatar, centred, not cropped from its top.
    const [img, circle] = await picture.evaluate((el) => [el.getBoundingClientRect().toJSON(), el.parentElement.getBoundingClientRect().toJSON()]);
    assert.deepEqual([img.top, img.height, img.width], [circle.top, circle.height, circle.width], 'the picture is the circle’s size');
    await still(page);
    await screenshot(page, 'first-hour-chars-desktop-kept-both');
    assert.deepEqual(await state(page, lumen).then((s) => s.chats), beforeImport.chats, 'the first Lumen keeps its chat');
    await page.evaluate((a) => window.__HEARTH__.api.characters.delete(a, { deleteChats: true }), copy.avatar);
  });

  it('Replace updates Lumen in place with the file’s fields, its chat kept', async () => {
    const beforeImport = await state(page, lumen);
    const newer = {
      spec: 'chara_card_v2',
      spec_version: '2.0',
      data: {
        name: 'Lumen',
        description: 'Keeper of the last lamp on the coast.',
        first_mes: 'Evening, {{user}}. The lamp is lit.',
        personality: 'patient',
        tags: ['lighthouse'],
        extensions: { e2e: { version: 2 } },
      },
    };
    await pickCards(page, [{ name: 'Lumen v2.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(newer)) }]);
    const dialog = page.getByRole('dialog', { name: ASKED });
    await dialog.getByText('Lumen v2.json has the same name and the same first message as a character you already have.').waitFor();
    assert.equal(await dialog.getByRole('checkbox').count(), 0, 'no "for all" with one file');
    await dialog.getByRole('button', { name: 'Replace' }).click();
    await page.getByRole('status').filter({ hasText: 'Replaced “Lumen”' }).waitFor();
    const afterReplace = await state(page, lumen);
    assert.deepEqual(
      afterReplace.cards.map((c) => c.avatar),
      beforeImport.cards.map((c) => c.avatar),
      'no character was added or removed',
    );
    assert.deepEqual(afterReplace.chats, beforeImport.chats, 'Lumen keeps its chat');
    const got = afterReplace.cards.find((c) => c.avatar === lumen);
    assert.equal(got.description, 'Keeper of the last lamp on the coast.');
    assert.equal(got.personality, 'patient');
    assert.deepEqual(got.tags, ['lighthouse']);
    assert.deepEqual(got.extensions.e2e, { version: 2 });
    assert.equal(got.hasImage, false, 'a JSON card brings no picture: Lumen keeps its initial');
    await page.getByRole('option', { name: 'Lumen', selected: true }).getByText('lighthouse').waitFor();
    await still(page);
    await screenshot(page, 'first-hour-chars-desktop-replaced');
  });

  it('asks in a dialog that fits a phone', async () => {
    const context = await env.browser.newContext({ ...PHONE, reducedMotion: 'reduce' });
    await context.addInitScript(() => localStorage.setItem('hearth.theme', 'dark'));
    try {
      const phone = await openApp(context, env.server.url);
      const importButton = phone.getByRole('button', { name: 'Import', exact: true });
      await waitFor(
        async () => {
          if (await importButton.isVisible()) return true;
          for (const back of ['Back to chats', 'Back to characters']) {
            const b = phone.getByRole('button', { name: back });
            if (await b.isVisible()) await b.tap().catch(() => {});
          }
          return false;
        },
        'the character list',
        { interval: 250 },
      );
      const beforeImport = await state(phone, lumen);
      await pickCards(phone, [{ name: 'Lumen.png', mimeType: 'image/png', buffer: card }], { tap: true });
      const dialog = phone.getByRole('dialog', { name: ASKED });
      await dialog.getByRole('button', { name: 'Replace' }).waitFor();
      const box = await dialog.boundingBox();
      assert.ok(box.x >= 0 && box.y >= 0 && box.x + box.width <= 390 && box.y + box.height <= 844, `the dialog fits: ${JSON.stringify(box)}`);
      for (const name of ['Cancel', 'Keep both', 'Replace']) {
        const b = await dialog.getByRole('button', { name }).boundingBox();
        assert.ok(b.height >= 43.5 && b.x >= 0 && b.x + b.width <= 390, `${name} is a 44 px target on screen: ${JSON.stringify(b)}`);
      }
      await still(phone);
      await screenshot(phone, 'first-hour-chars-phone-duplicate');
      await dialog.getByRole('button', { name: 'Cancel' }).tap();
      await dialog.waitFor({ state: 'hidden' });
      assert.deepEqual(await state(phone, lumen), beforeImport, 'Cancel changed nothing');
      assert.deepEqual(phone.errors, [], 'uncaught errors on the phone');
    } finally {
      await context.close();
    }
  });
});
