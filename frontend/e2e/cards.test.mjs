// Character card files through the UI (API.md "Card files"): "Character
// cards…" in the "Import" menu takes PNG, JSON and CHARX cards
// from the file chooser (several at once, with "Importing n of m…" while it
// works) and card files dropped on the character list (a drop target shows
// while they are dragged over it);
// a summary toast says how many made it in and names each file that did not,
// with its error, the cards' import warnings folded away; a broken file
// creates nothing. A single imported card is selected like a new character.
// A card that matches a character Hearth has asks first (Keep both here;
// first-hour-chars.test.mjs goes through every answer).
// The character's menu at the top of the chat list exports the card as PNG or
// JSON, and the downloaded PNG imports back to the same card. Screenshots at
// 1280×800 and 390×844 are artifacts.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openApp, pageUrl, repoRoot, screenshot, tapCalls, useHearth, waitFor } from './harness.mjs';

const FIXTURES = join(repoRoot, 'backend/cards/testdata/fixtures');
const PHONE = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true };

/** fixture reads a card file from the backend's fixtures as a file to hand the chooser. */
function fixture(name, as = name) {
  const buffer = readFileSync(join(FIXTURES, name));
  return { name: as, mimeType: name.endsWith('.png') ? 'image/png' : 'application/json', buffer };
}

/** truncated is a PNG card cut off inside its text chunk: no readable card. */
const truncated = (as) => ({ name: as, mimeType: 'image/png', buffer: readFileSync(join(FIXTURES, 'v3_both.png')).subarray(0, 1500) });

/** still waits until no animation runs (a spinner's endless turning aside), for a screenshot that shows the end state. */
const still = (page) =>
  page.waitForFunction(() => document.getAnimations().every((a) => a.playState !== 'running' || a.effect?.getComputedTiming().iterations === Infinity));

/** characters lists the characters through the page's ABI. */
const characters = (page) => page.evaluate(() => window.__HEARTH__.api.characters.list());

/**
 * pick answers the file chooser with files: click opens the Import menu, whose
 * "Character cards…" opens the chooser; it checks the chooser takes several.
 */
async function pick(page, click, files) {
  const choose = async () => {
    await click();
    await page.getByRole('menuitem', { name: /^Character cards…/ }).click();
  };
  const [chooser] = await Promise.all([page.waitForEvent('filechooser'), choose()]);
  assert.ok(chooser.isMultiple(), 'the file chooser takes several files');
  await chooser.setFiles(files);
}

/** downloaded runs click and returns the download it started: its suggested name and bytes. */
async function downloaded(page, click) {
  const [download] = await Promise.all([page.waitForEvent('download'), click()]);
  return { name: download.suggestedFilename(), bytes: readFileSync(await download.path()) };
}

/**
 * holdImport keeps the nth importCard call from now (through calls, the
 * page's tapCalls) from the host until release() is called, so a test can
 * see the progress it shows meanwhile; done() releases it and removes the
 * hold.
 */
function holdImport(calls, nth) {
  let seen = 0;
  let release;
  const gate = new Promise((r) => (release = r));
  const untap = calls.tap({
    async before(call) {
      if (call.method === 'characters.importCard' && ++seen === nth) await gate;
    },
  });
  return {
    release,
    done: async () => {
      release();
      untap();
    },
  };
}

/** dragFiles builds a DataTransfer holding files in the page, as a drag from the desktop carries them. */
function dragFiles(page, files) {
  return page.evaluateHandle((list) => {
    const dt = new DataTransfer();
    for (const f of list) dt.items.add(new File([Uint8Array.from(atob(f.base64), (c) => c.charCodeAt(0))], f.name, { type: f.mimeType }));
    return dt;
  }, files.map((f) => ({ name: f.name, mimeType: f.mimeType, base64: f.buffer.toString('base64') })));
}

/** avatarLoaded waits until the character row named name shows its picture, loaded. */
function avatarLoaded(page, name) {
  return waitFor(
    () => page.getByRole('option', { name }).locator('img').evaluate((img) => img.complete && img.naturalWidth > 0).catch(() => false),
    `${name}'s avatar image to load`,
  );
}

describe('character cards in the UI', () => {
  const env = useHearth({ before, after });
  let page;
  let pageCalls;
  const importButton = () => page.getByRole('button', { name: 'Import', exact: true });

  before(async () => {
    const context = await env.browser.newContext({ viewport: { width: 1280, height: 800 } });
    pageCalls = await tapCalls(context);
    page = await openApp(context, env.server.url);
  });

  after(() => {
    assert.deepEqual(page?.errors ?? [], [], 'uncaught errors in the page');
  });

  it('imports a PNG and a JSON card from the file chooser', async () => {
    await page.getByText('No characters yet').waitFor();
    await screenshot(page, 'cards-desktop-empty');
    await pick(page, () => importButton().click(), [fixture('v3_both.png', 'Kestrel.png'), fixture('v2.json', 'Seraphina.json')]);
    await page.getByRole('status').filter({ hasText: 'Imported 2 characters' }).waitFor();
    const list = await characters(page);
    assert.deepEqual(list.map((c) => c.name).sort(), ['Kestrel', 'Seraphina']);
    const kestrel = list.find((c) => c.name === 'Kestrel');
    assert.equal(kestrel.hasImage, true, 'the PNG became the avatar');
    assert.equal(list.find((c) => c.name === 'Seraphina').hasImage, false);
    await page.getByRole('option', { name: 'Kestrel' }).waitFor();
    await page.getByRole('option', { name: 'Seraphina' }).waitFor();
    await avatarLoaded(page, 'Kestrel');
    assert.equal(await page.getByRole('option', { name: 'Seraphina' }).locator('img').count(), 0, 'a JSON card has no picture: the initial shows');
    const card = await page.evaluate((a) => window.__HEARTH__.api.characters.get(a), kestrel.avatar);
    assert.equal(card.description, 'A sky pirate captain.');
    await still(page);
    await screenshot(page, 'cards-desktop-list');
  });

  it('selects a single imported card like a new character, its warnings folded away', async () => {
    await pick(page, () => importButton().click(), [fixture('card.charx', 'Corvid.charx')]);
    const toast = page.getByRole('status').filter({ hasText: 'Imported “Corvid”' });
    await toast.waitFor();
    await page.getByRole('option', { name: 'Corvid', selected: true }).waitFor();
    await page.getByRole('button', { name: 'Character actions for Corvid' }).waitFor();
    await avatarLoaded(page, 'Corvid');
    // The warning is there, but folded: one line until opened.
    const notes = toast.locator('details');
    assert.equal(await notes.locator('summary').innerText(), '1 import note');
    assert.equal(await notes.evaluate((d) => d.open), false);
    await notes.locator('summary').click();
    await toast.getByText(/is not in the archive; it was skipped/).waitFor();
    await toast.getByRole('button', { name: 'Dismiss' }).click();
    await toast.waitFor({ state: 'detached' });
  });

  it('shows a broken file’s error naming the file, and creates nothing', async () => {
    const before = await characters(page);
    await pick(page, () => importButton().click(), [truncated('Broken.png')]);
    const alert = page.getByRole('alert').filter({ hasText: 'Could not import Broken.png' });
    await alert.waitFor();
    assert.match(await alert.innerText(), /Could not import Broken\.png: the PNG is truncated/);
    assert.doesNotMatch(await alert.innerText(), /card\.invalid/, 'the code is folded under Details');
    await alert.getByText('Details', { exact: true }).click();
    await alert.getByText('card.invalid', { exact: true }).waitFor();
    assert.equal((await characters(page)).length, before.length, 'no character was created');
    await alert.getByRole('button', { name: 'Dismiss' }).click();
    await alert.waitFor({ state: 'detached' });
  });

  it('imports several files with progress, then sums up what made it and what failed', async () => {
    const before = await characters(page);
    const hold = holdImport(pageCalls, 3);
    try {
      await pick(page, () => importButton().click(), [
        fixture('v1_chara.png', 'Aria.png'),
        fixture('ccv3_broken.png'),
        truncated('Truncated.png'),
        fixture('messy.json'),
        { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('just some notes') },
      ]);
      // ccv3_broken.png holds Seraphina (its chara chunk), who is here already: keep both.
      const asked = page.getByRole('dialog', { name: 'Already in your characters' });
      await asked.getByText('ccv3_broken.png has the same name and the same description and first message').waitFor();
      await asked.getByRole('button', { name: 'Keep both' }).click();
      await asked.waitFor({ state: 'hidden' });
      const progress = page.locator('.sidebar footer [role=status]').filter({ hasText: 'Importing 3 of 5…' });
      await progress.waitFor();
      await still(page);
      await screenshot(page, 'cards-desktop-progress');
      hold.release();
    } finally {
      await hold.done();
    }
    const summary = page.getByRole('alert').filter({ hasText: 'Imported 3 characters; 2 files failed' });
    await summary.waitFor();
    const failures = summary.locator('ul.groups').first().locator('li');
    assert.equal(await failures.count(), 2);
    assert.match(await failures.nth(0).innerText(), /^Truncated\.png\nthe PNG is truncated/);
    assert.match(await failures.nth(1).innerText(), /^notes\.txt\nHearth reads character cards from PNG, JSON and CHARX files/);
    const notes = summary.locator('details');
    assert.match(await notes.locator('summary').innerText(), /^\d+ import notes$/);
    assert.equal(await notes.evaluate((d) => d.open), false, 'the warnings are folded away');
    const after = await characters(page);
    const made = after.filter((c) => !before.some((b) => b.avatar === c.avatar)).map((c) => c.name);
    assert.deepEqual(made.sort(), ['Aria', 'Messy', 'Seraphina'], 'the readable cards made it in (ccv3_broken.png from its chara chunk)');
    await still(page);
    await screenshot(page, 'cards-desktop-summary');
    await notes.locator('summary').click();
    await summary.getByText(/the ccv3 chunk could not be read/).waitFor();
    await summary.getByText('messy.json').waitFor();
    await still(page);
    await screenshot(page, 'cards-desktop-summary-notes');
    // It stays until dismissed: it lists what to read.
    await summary.getByRole('button', { name: 'Dismiss' }).click();
    await summary.waitFor({ state: 'detached' });
  });

  it('imports card files dropped on the character list, with a drop target while dragging', async () => {
    const list = page.getByRole('listbox', { name: 'Character list' });
    const target = page.locator('.sidebar .drop');
    // Dragging text is no import: no target.
    const text = await page.evaluateHandle(() => {
      const dt = new DataTransfer();
      dt.setData('text/plain', 'hello');
      return dt;
    });
    await list.dispatchEvent('dragenter', { dataTransfer: text });
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    assert.equal(await target.count(), 0, 'no drop target for text');
    await list.dispatchEvent('dragleave', { dataTransfer: text });

    // Files in and out again: the target shows, then goes.
    const files = await dragFiles(page, [fixture('risu_assets.png', 'Risu.png')]);
    await list.dispatchEvent('dragenter', { dataTransfer: files });
    await list.dispatchEvent('dragover', { dataTransfer: files });
    await target.getByText('Drop to import').waitFor();
    await list.dispatchEvent('dragleave', { dataTransfer: files });
    await target.waitFor({ state: 'detached' });

    // In, over a row (entering a child first, as a real drag does), and dropped.
    const row = page.getByRole('option', { name: 'Kestrel' });
    await list.dispatchEvent('dragenter', { dataTransfer: files });
    await row.dispatchEvent('dragenter', { dataTransfer: files });
    await list.dispatchEvent('dragleave', { dataTransfer: files });
    await row.dispatchEvent('dragover', { dataTransfer: files });
    await target.getByText('Drop to import').waitFor();
    await still(page);
    await screenshot(page, 'cards-desktop-drop');
    await row.dispatchEvent('drop', { dataTransfer: files });
    await target.waitFor({ state: 'detached' });
    await page.getByRole('status').filter({ hasText: 'Imported “Risu”' }).waitFor();
    await page.getByRole('option', { name: 'Risu', selected: true }).waitFor();
    await avatarLoaded(page, 'Risu');
  });

  it('exports the card as PNG from the character menu, and the file imports back to the same card', async () => {
    const kestrel = (await characters(page)).find((c) => c.name === 'Kestrel');
    await page.getByRole('option', { name: 'Kestrel' }).click();
    const trigger = page.getByRole('button', { name: 'Character actions for Kestrel' });
    await trigger.click();
    const menu = page.getByRole('menu', { name: 'Character actions for Kestrel' });
    await menu.getByRole('menuitem', { name: /Export card as PNG/ }).waitFor();
    await still(page);
    await screenshot(page, 'cards-desktop-menu');
    const file = await downloaded(page, () => menu.getByRole('menuitem', { name: /Export card as PNG/ }).click());
    await page.getByRole('status').filter({ hasText: `Exported “Kestrel” as ${file.name}` }).waitFor();
    assert.equal(file.name, 'Kestrel.png');
    assert.deepEqual([...file.bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'a PNG');
    const api = await page.evaluate((a) => window.__HEARTH__.api.characters.exportCard(a, { format: 'png' }), kestrel.avatar);
    assert.equal(file.bytes.toString('base64'), api.base64, 'the download is what exportCard returns');
    const [original, back] = await page.evaluate(
      async ({ avatar, base64 }) => {
        const h = window.__HEARTH__.api.characters;
        const again = await h.importCard({ fileName: 'Kestrel again.png', base64 });
        return [await h.get(avatar), again];
      },
      { avatar: kestrel.avatar, base64: file.bytes.toString('base64') },
    );
    assert.notEqual(back.avatar, original.avatar, 'a new character');
    for (const key of ['name', 'description', 'personality', 'scenario', 'first_mes']) assert.equal(back[key], original[key], key);
    assert.deepEqual(back.tags, original.tags);
    assert.equal(back.hasImage, true);
    assert.deepEqual(back.importWarnings, []);
  });

  it('exports the card as JSON', async () => {
    await page.getByRole('button', { name: 'Character actions for Kestrel' }).click();
    const item = page.getByRole('menuitem', { name: /Export card as JSON/ });
    const file = await downloaded(page, () => item.click());
    assert.equal(file.name, 'Kestrel.json');
    const json = JSON.parse(file.bytes.toString('utf8'));
    assert.equal(json.name, 'Kestrel');
    assert.equal(json.data?.name, 'Kestrel');
    assert.equal(json.description, 'A sky pirate captain.');
    await page.getByRole('status').filter({ hasText: 'Exported “Kestrel” as Kestrel.json' }).waitFor();
  });

  it('on a phone: the import entry, the drop target, a mixed import and the character menu fit', async () => {
    const context = await env.browser.newContext({ ...PHONE, reducedMotion: 'reduce' });
    await context.addInitScript(() => localStorage.setItem('hearth.theme', 'dark'));
    const phone = await context.newPage();
    phone.errors = [];
    phone.on('pageerror', (err) => phone.errors.push(err));
    try {
      await phone.goto(pageUrl(env.server.url));
      await phone.waitForFunction(() => typeof window.__HEARTH__ === 'object' && window.__HEARTH__ !== null);
      await phone.evaluate(() => window.__HEARTH__.ready);
      const button = phone.getByRole('button', { name: 'Import', exact: true });
      // The phone opens on one pane; go back to the character list from wherever it is.
      await waitFor(
        async () => {
          if (await button.isVisible()) return true;
          for (const back of ['Back to chats', 'Back to characters']) {
            const b = phone.getByRole('button', { name: back });
            if (await b.isVisible()) await b.tap().catch(() => {});
          }
          return false;
        },
        'the character list with its Import menu',
        { interval: 250 },
      );
      for (const name of ['Import', 'New character']) {
        const box = await phone.getByRole('button', { name, exact: true }).boundingBox();
        assert.ok(box.width >= 43.5 && box.height >= 43.5, `${name} is ${box.width}×${box.height}`);
        assert.ok(box.x >= 0 && box.x + box.width <= 390, `${name} is on screen`);
      }
      await still(phone);
      await screenshot(phone, 'cards-phone-list');

      const list = phone.getByRole('listbox', { name: 'Character list' });
      const files = await dragFiles(phone, [fixture('pygmalion.json')]);
      await list.dispatchEvent('dragenter', { dataTransfer: files });
      await list.dispatchEvent('dragover', { dataTransfer: files });
      await phone.locator('.sidebar .drop').getByText('Drop to import').waitFor();
      await still(phone);
      await screenshot(phone, 'cards-phone-drop');
      await list.dispatchEvent('dragleave', { dataTransfer: files });
      await phone.locator('.sidebar .drop').waitFor({ state: 'detached' });

      await pick(phone, () => button.tap(), [fixture('pygmalion.json'), fixture('v3_future.json'), truncated('Cut short.png')]);
      const summary = phone.getByRole('alert').filter({ hasText: 'Imported 2 characters; 1 file failed' });
      await summary.waitFor();
      const box = await summary.boundingBox();
      assert.ok(box.x >= 0 && box.x + box.width <= 390, `the summary fits: ${JSON.stringify(box)}`);
      await summary.getByText('Cut short.png').waitFor();
      await still(phone);
      await screenshot(phone, 'cards-phone-summary');
      await summary.getByRole('button', { name: 'Dismiss' }).tap();

      await phone.getByRole('option', { name: 'Pyg' }).tap();
      const trigger = phone.getByRole('button', { name: 'Character actions for Pyg' });
      await trigger.tap();
      const item = phone.getByRole('menuitem', { name: /Export card as JSON/ });
      await item.waitFor();
      for (const it of await phone.getByRole('menuitem').all()) {
        const b = await it.boundingBox();
        assert.ok(b.height >= 43.5 && b.x >= 0 && b.x + b.width <= 390, `a menu item fits and is tall enough: ${JSON.stringify(b)}`);
      }
      const t = await trigger.boundingBox();
      assert.ok(t.height >= 43.5, `the character menu button is ${t.height} px tall`);
      await still(phone);
      await screenshot(phone, 'cards-phone-menu');
      const file = await downloaded(phone, () => item.tap());
      assert.equal(file.name, 'Pyg.json');
      assert.equal(JSON.parse(file.bytes.toString('utf8')).name, 'Pyg');
      await phone.getByRole('status').filter({ hasText: 'Exported “Pyg” as Pyg.json' }).waitFor();
      assert.deepEqual(phone.errors, [], 'uncaught errors on the phone');
    } finally {
      await context.close();
    }
  });

  it('on a tablet’s avatar rail: Import is a 44 px button, and the drop target and progress fit the rail', async () => {
    const context = await env.browser.newContext({ viewport: { width: 820, height: 1180 }, isMobile: true, hasTouch: true, reducedMotion: 'reduce' });
    await context.addInitScript(() => localStorage.setItem('hearth.theme', 'dark'));
    const tabletCalls = await tapCalls(context);
    const tablet = await context.newPage();
    tablet.errors = [];
    tablet.on('pageerror', (err) => tablet.errors.push(err));
    try {
      await tablet.goto(pageUrl(env.server.url));
      await tablet.evaluate(() => window.__HEARTH__.ready);
      const button = tablet.getByRole('button', { name: 'Import', exact: true });
      await button.waitFor();
      const rail = await tablet.locator('aside.sidebar').boundingBox();
      const box = await button.boundingBox();
      assert.ok(box.width >= 43.5 && box.height >= 43.5 && box.x >= rail.x && box.x + box.width <= rail.x + rail.width, `Import fits the rail: ${JSON.stringify(box)}`);
      const hold = holdImport(tabletCalls, 1);
      try {
        await pick(tablet, () => button.tap(), [fixture('v3.json'), fixture('v1.json')]);
        // Both are characters the desktop imported (Kestrel, Aria): keep both, once for the two.
        const asked = tablet.getByRole('dialog', { name: 'Already in your characters' });
        await asked.getByText('v3.json has the same name').waitFor();
        await asked.getByRole('checkbox', { name: /Do the same for other matches/ }).check();
        await asked.getByRole('button', { name: 'Keep both' }).tap();
        await asked.waitFor({ state: 'hidden' });
        const progress = tablet.locator('.sidebar footer [role=status]').filter({ hasText: 'Importing 1 of 2…' });
        await progress.waitFor();
        const p = await progress.boundingBox();
        assert.ok(p.x >= rail.x && p.x + p.width <= rail.x + rail.width, `the progress fits the rail: ${JSON.stringify(p)}`);
        const list = tablet.getByRole('listbox', { name: 'Character list' });
        const files = await dragFiles(tablet, [fixture('v3.json')]);
        await list.dispatchEvent('dragenter', { dataTransfer: files });
        const drop = tablet.locator('.sidebar .drop');
        await drop.waitFor();
        const d = await drop.boundingBox();
        assert.ok(d.x >= rail.x && d.x + d.width <= rail.x + rail.width, `the drop target fits the rail: ${JSON.stringify(d)}`);
        await still(tablet);
        await screenshot(tablet, 'cards-tablet-rail');
        await list.dispatchEvent('dragleave', { dataTransfer: files });
        hold.release();
      } finally {
        await hold.done();
      }
      await tablet.getByRole('status').filter({ hasText: 'Imported 2 characters' }).waitFor();
      assert.deepEqual(tablet.errors, [], 'uncaught errors on the tablet');
    } finally {
      await context.close();
    }
  });
});
