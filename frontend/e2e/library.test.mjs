// The SillyTavern library screen (API.md "SillyTavern library"), through the
// UI: the character list's Import menu opens it; a copy of
// backend/library/testdata/default-user with a truncated card and a chat
// broken on line 3 is imported by its path, its real LIBRARY_PROGRESS events
// let through one at a time so the phases' bars are seen mid-way (and the
// dialog asks before closing meanwhile); the summary counts each kind, says
// the fixture's third-party extension came in turned off (and where to turn
// it on), lists the two failed items open and the skipped ones folded; the
// character list fills by itself. Importing again stores nothing and duplicates nothing; a
// folder that is not SillyTavern's, a missing path and an install with two
// users are refused next to the field (the users offered as folders); an
// export writes a SillyTavern user folder, and a non-empty folder is refused.
// A phone (390×844) gets a full-screen dialog. Screenshots `library-*`.
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fromMoreSettings, launchBrowser, openApp, repoRoot, screenshot, startHearth, tapCalls, useHearth, waitFor } from './harness.mjs';

const FIXTURE = join(repoRoot, 'backend/library/testdata/default-user');
const PHONE = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true };
const HEADLINE = 'Imported 10 characters, 4 chats, 4 group chats (21 messages), 5 lorebooks, 3 personas, 2 presets, 2 groups, 2 group files kept as they were.';
/** The fixture's extensions/Echo Notes, installed off. */
const EXTENSIONS = 'Extensions: 1 added, turned off — turn it on in Extensions…';

/** still waits until no animation runs (endless ones aside), for a screenshot of the end state. */
const still = (page) =>
  page.waitForFunction(() => document.getAnimations().every((a) => a.playState !== 'running' || a.effect?.getComputedTiming().iterations === Infinity));

/** libraryCopy copies the fixture library under dir and breaks two of its items, as TestImportBrokenItems does. */
function libraryCopy(dir) {
  const user = join(dir, 'default-user');
  cpSync(FIXTURE, user, { recursive: true });
  const good = readFileSync(join(FIXTURE, 'characters/v2_chara.png'));
  writeFileSync(join(user, 'characters/broken.png'), good.subarray(0, Math.floor(good.length / 2)));
  writeFileSync(join(user, 'chats/v1/broken.jsonl'), '{"chat_metadata":{}}\n{"mes":"ok"}\n{"mes":');
  return user;
}

/**
 * holdProgress takes the context's calls and events through the test
 * (tapCalls, set before the page opens): while holding, LIBRARY_PROGRESS
 * events are kept back until let through with next(); everything else
 * passes. answer(method) holds the answer of the next call of method.
 */
async function holdProgress(context) {
  const calls = await tapCalls(context);
  const gate = { holding: false, kept: [] };
  calls.tap({
    event(msg, deliver) {
      if (!gate.holding || msg?.type !== 'library_progress') return true;
      gate.kept.push({ payload: msg.payload, deliver });
      return false;
    },
  });
  return {
    hold: () => ((gate.holding = true), (gate.kept = [])),
    kept: () => gate.kept.map((k) => k.payload),
    /** settled waits until the last phase's end has come in (events may trail the call's answer). */
    settled: () => waitFor(() => gate.kept.some(({ payload: p }) => p.phase === 'extensions' && p.done === p.total), 'the import’s last progress event'),
    /** next lets the kept events through until one matches stop (all when none does); returns it. */
    next(stop = () => false) {
      while (gate.kept.length > 0) {
        const k = gate.kept.shift();
        k.deliver();
        if (stop(k.payload)) return k.payload;
      }
      return null;
    },
    release() {
      this.next();
      gate.holding = false;
    },
    /**
     * answer lets the next call of method reach the host but keeps its
     * answer from the page until release(); done resolves with the host's
     * result once it answered (the run is over there).
     */
    answer(method) {
      let release;
      let answered;
      let taken = false;
      const gate = new Promise((r) => (release = r));
      const done = new Promise((r) => (answered = r));
      const untap = calls.tap({
        async after(call, answer) {
          if (call.method !== method || taken) return;
          taken = true;
          answered(answer.result);
          await gate;
        },
      });
      return {
        done,
        release: async () => {
          release();
          untap();
        },
      };
    },
  };
}

/** openLibrary opens the Import menu and picks item (tap on a touch screen). */
async function openLibrary(page, item, touch = false) {
  const button = page.getByRole('button', { name: 'Import', exact: true });
  await (touch ? button.tap() : button.click());
  const entry = page.getByRole('menuitem', { name: item });
  await (touch ? entry.tap() : entry.click());
  const dialog = page.getByRole('dialog', { name: 'SillyTavern library' });
  await dialog.waitFor();
  return dialog;
}

/** counts are Hearth's characters and chats through the page's ABI. */
const counts = (page) =>
  page.evaluate(async () => {
    const list = await window.__HEARTH__.api.characters.list();
    return { characters: list.length, chats: list.reduce((n, c) => n + c.chatCount, 0), names: list.map((c) => c.name).sort() };
  });

/** fitsWidth checks nothing in the page scrolls sideways and the dialog stays on screen. */
async function fitsWidth(page, dialog, width) {
  const box = await dialog.boundingBox();
  assert.ok(box.x >= 0 && box.x + box.width <= width + 0.5, `the dialog fits: ${JSON.stringify(box)}`);
  const overflow = await dialog.evaluate((d) => [...d.querySelectorAll('*')].filter((el) => el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflowX !== 'hidden' && getComputedStyle(el).overflowX !== 'clip' && el.tagName !== 'INPUT').map((el) => el.className || el.tagName));
  assert.deepEqual(overflow, [], 'nothing in the dialog scrolls sideways');
}

describe('the SillyTavern library screen', () => {
  // Served, the library may use only the folders under --library-root.
  const tmp = mkdtempSync(join(tmpdir(), 'hearth-library-e2e-'));
  const env = useHearth({ before, after, args: ['--library-root', tmp] });
  let page;
  let events;

  before(async () => {
    const context = await env.browser.newContext({ viewport: { width: 1280, height: 800 } });
    events = await holdProgress(context);
    page = await openApp(context, env.server.url);
  });

  after(() => {
    rmSync(tmp, { recursive: true, force: true });
    assert.deepEqual(page?.errors ?? [], [], 'uncaught errors in the page');
  });

  it('imports a SillyTavern folder with progress by phase, a summary and the failed items; the character list fills', async () => {
    const folder = libraryCopy(join(tmp, 'st'));
    await page.getByText('No characters yet').waitFor();
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    const items = await page.getByRole('menuitem').allInnerTexts();
    assert.deepEqual(
      items.map((t) => t.split('\n')[0]),
      ['Character cards…', 'SillyTavern library…'],
    );
    await still(page);
    await screenshot(page, 'library-desktop-menu');
    await page.getByRole('menuitem', { name: /^SillyTavern library…/ }).click();
    const dialog = page.getByRole('dialog', { name: 'SillyTavern library' });
    await dialog.waitFor();
    assert.equal(await dialog.getByRole('tab', { name: 'Import from SillyTavern' }).getAttribute('aria-selected'), 'true');
    const field = dialog.getByRole('textbox', { name: 'SillyTavern folder' });
    await waitFor(() => field.evaluate((el) => el === document.activeElement), 'the path field to take focus');
    await dialog.getByText('machine Hearth runs on').waitFor();
    await dialog.getByRole('note').getByText(tmp).waitFor();
    assert.equal(await dialog.getByRole('button', { name: 'Browse…' }).count(), 0, 'no Browse… in a browser window');
    assert.ok(await dialog.getByRole('button', { name: 'Import library' }).isDisabled(), 'nothing to import without a path');
    await field.fill(folder);
    await still(page);
    await screenshot(page, 'library-desktop-idle');

    // The host imports at once; its progress events and its answer are let through bit by bit.
    events.hold();
    const answer = events.answer('library.importST');
    await dialog.getByRole('button', { name: 'Import library' }).click();
    const summary = await answer.done;
    assert.equal(summary.failed.length, 2);
    await events.settled();
    const phases = [...new Set(events.kept().map((p) => p.phase))];
    assert.deepEqual(phases, ['lorebooks', 'characters', 'chats', 'groups', 'group chats', 'group files', 'settings', 'personas', 'presets', 'extensions'], 'progress of every phase, in order');
    const at = events.next((p) => p.phase === 'chats' && p.current !== '');
    assert.ok(at, 'a progress event names a chat being imported');
    const chats = dialog.getByRole('progressbar', { name: 'Chats', exact: true });
    await waitFor(async () => (await chats.getAttribute('aria-valuetext')) === `${at.done} of ${at.total}`, 'the Chats bar to show the event');
    assert.equal(await dialog.getByRole('progressbar', { name: 'Characters' }).getAttribute('aria-valuenow'), '100');
    assert.equal(await dialog.getByRole('progressbar', { name: 'Presets' }).getAttribute('aria-valuetext'), 'waiting');
    await dialog.getByText(at.current).waitFor();
    assert.ok(await field.isDisabled(), 'the path is locked while it runs');
    await still(page);
    await screenshot(page, 'library-desktop-progress');

    // Escape asks first; Cancel keeps the dialog.
    await page.keyboard.press('Escape');
    const ask = page.getByRole('dialog', { name: 'Close while importing?' });
    await ask.waitFor();
    await ask.getByRole('button', { name: 'Cancel' }).click();
    await ask.waitFor({ state: 'hidden' });
    assert.ok(await dialog.isVisible(), 'the library dialog stays open');

    events.release();
    await answer.release();
    const headline = dialog.getByRole('status').filter({ hasText: 'Imported 10 characters' });
    await headline.waitFor();
    assert.equal((await headline.innerText()).trim(), HEADLINE);
    assert.equal((await dialog.getByText(/^Extensions: /).innerText()).trim(), EXTENSIONS);
    const installed = await page.evaluate(async () => (await window.__HEARTH__.api.extensions.list()).map((e) => [e.id, e.enabled, e.status]));
    assert.deepEqual(installed, [['Echo-Notes', false, 'disabled']], 'the extension is installed, turned off');
    const failed = dialog.getByRole('list', { name: 'Failed items' });
    await failed.waitFor();
    await failed.getByText('characters/broken.png').waitFor();
    await failed.getByText(/the PNG is truncated/).waitFor();
    await failed.getByText('chats/v1/broken.jsonl').waitFor();
    await failed.getByText(/line 3/).waitFor();
    assert.equal(await dialog.getByRole('list', { name: 'Skipped items' }).count(), 0, 'skipped items start folded');
    assert.equal(summary.skipped.length, 9, summary.skipped.map((s) => s.path).join(', '));
    await dialog.getByText('9 items skipped').click();
    await dialog.getByRole('list', { name: 'Skipped items' }).getByText('chats/Nobody/orphan.jsonl').waitFor();
    await dialog.getByText('Importing this folder again skips').waitFor();
    await still(page);
    await screenshot(page, 'library-desktop-summary');

    // The character list follows through host events.
    const got = await counts(page);
    assert.equal(got.characters, 10);
    assert.equal(got.chats, 4);
    for (const name of got.names) await page.getByRole('listbox', { name: 'Character list' }).getByRole('option', { name }).first().waitFor();
    // The groups come in too, listed among the characters.
    const groups = await page.evaluate(() => window.__HEARTH__.api.groups.list());
    assert.ok(groups.length > 0, 'the library holds groups');
    for (const g of groups) await page.getByRole('listbox', { name: 'Character list' }).getByRole('option', { name: new RegExp(`^${g.name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}, group`) }).waitFor();
    assert.equal(await page.getByRole('listbox', { name: 'Character list' }).getByRole('option').count(), 10 + groups.length);
    await dialog.getByRole('button', { name: 'Done' }).click();
    await dialog.waitFor({ state: 'hidden' });
  });

  it('importing the same folder again stores nothing and duplicates nothing', async () => {
    const before = await counts(page);
    const dialog = await openLibrary(page, /^SillyTavern library…/);
    // The last run's summary is still there; start over.
    await dialog.getByRole('button', { name: 'Import another folder' }).click();
    const field = dialog.getByRole('textbox', { name: 'SillyTavern folder' });
    assert.equal(await field.inputValue(), '');
    await field.fill(join(tmp, 'st', 'default-user'));
    await field.press('Enter');
    await dialog.getByRole('status').filter({ hasText: 'Nothing was imported.' }).waitFor();
    assert.equal((await dialog.getByText(/^Extensions: /).innerText()).trim(), 'Extensions: 1 skipped.');
    await dialog.getByRole('list', { name: 'Failed items' }).getByText('characters/broken.png').waitFor();
    await dialog.getByText(/items skipped$/).click();
    await dialog.getByRole('list', { name: 'Skipped items' }).getByText('already imported').first().waitFor();
    assert.deepEqual(await counts(page), before, 'the same characters and chats, nothing duplicated');
  });

  it('refuses a folder that is not SillyTavern’s, a missing path and an install with two users, next to the field', async () => {
    const dialog = page.getByRole('dialog', { name: 'SillyTavern library' });
    await dialog.getByRole('button', { name: 'Import another folder' }).click();
    const field = dialog.getByRole('textbox', { name: 'SillyTavern folder' });
    const plain = mkdtempSync(join(tmp, 'plain-'));
    await field.fill(plain);
    await dialog.getByRole('button', { name: 'Import library' }).click();
    const error = dialog.getByRole('alert');
    await error.getByText('This is not a SillyTavern folder.').waitFor();
    assert.equal(await field.getAttribute('aria-invalid'), 'true');
    assert.equal(await dialog.locator('section').count(), 0, 'no progress or summary');
    await waitFor(() => field.evaluate((el) => el === document.activeElement), 'the field to take focus back');
    await still(page);
    await screenshot(page, 'library-desktop-error');
    await field.fill(join(tmp, 'no such folder'));
    assert.equal(await error.count(), 0, 'typing clears the error');
    await field.press('Enter');
    await error.getByText('There is no folder at this path').waitFor();

    const install = join(tmp, 'install');
    for (const user of ['alice', 'bob']) {
      mkdirSync(join(install, 'data', user, 'characters'), { recursive: true });
      writeFileSync(join(install, 'data', user, 'settings.json'), '{}');
    }
    await field.fill(install);
    await field.press('Enter');
    await error.getByText(/2 users and no default-user/).waitFor();
    await error.getByRole('button', { name: /bob/ }).click();
    assert.equal(await field.inputValue(), join(install, 'data', 'bob'));
    assert.equal(await error.count(), 0);
    assert.equal((await counts(page)).characters, 10, 'nothing changed');
  });

  it('exports the library as a SillyTavern user folder, and refuses a folder that is not empty', async () => {
    // The export is in the header's More settings menu; it opens the dialog on its tab.
    const dialog = page.getByRole('dialog', { name: 'SillyTavern library' });
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    await fromMoreSettings(page, /^Export library for SillyTavern…/);
    await dialog.waitFor();
    assert.equal(await dialog.getByRole('tab', { name: 'Export for SillyTavern' }).getAttribute('aria-selected'), 'true');
    const field = dialog.getByRole('textbox', { name: 'Export into the folder' });
    await dialog.getByText('An empty or new folder').waitFor();
    mkdirSync(join(tmp, 'export'));
    await field.fill(join(tmp, 'export', 'missing', 'for-st'));
    await field.press('Enter');
    await dialog.getByRole('alert').getByText(/creates only/).waitFor();
    assert.ok(!existsSync(join(tmp, 'export', 'missing')), 'no chain of folders made');
    const out = join(tmp, 'export', 'for-st');
    await field.fill(out);
    await dialog.getByRole('button', { name: 'Export library' }).click();
    const headline = dialog.getByRole('status').filter({ hasText: 'Exported ' });
    await headline.waitFor();
    assert.match(await headline.innerText(), /^Exported 10 characters, 4 chats, 4 group chats \(21 messages\), \d+ lorebooks, 3 personas, 2 presets, 2 groups, 2 group files kept as they were\.$/);
    for (const dir of ['characters', 'chats', 'worlds']) assert.ok(existsSync(join(out, dir)), `${dir}/ exported`);
    assert.equal(readdirSync(join(out, 'characters')).filter((f) => f.endsWith('.png')).length, 10);
    await dialog.getByText('SillyTavern/data/default-user').first().waitFor();
    await still(page);
    await screenshot(page, 'library-desktop-export');

    await dialog.getByRole('button', { name: 'Export again' }).click();
    await field.fill(out);
    await field.press('Enter');
    await dialog.getByRole('alert').getByText('This folder is not empty.').waitFor();
    // The import tab kept its own state meanwhile.
    await dialog.getByRole('tab', { name: 'Import from SillyTavern' }).click();
    assert.equal(await dialog.getByRole('textbox', { name: 'SillyTavern folder' }).inputValue(), join(tmp, 'install', 'data', 'bob'));
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
  });

  it('on a phone: a full-screen dialog with touch-sized controls, its progress and summary', async () => {
    const server = await startHearth(['--library-root', tmp]);
    const browser = await launchBrowser();
    try {
      const context = await browser.newContext({ ...PHONE, reducedMotion: 'reduce' });
      await context.addInitScript(() => localStorage.setItem('hearth.theme', 'dark'));
      const phoneEvents = await holdProgress(context);
      const phone = await openApp(context, server.url, { theme: null });
      const dialog = await openLibrary(phone, /^SillyTavern library…/, true);
      await still(phone);
      const box = await dialog.boundingBox();
      assert.deepEqual([box.x, box.y, box.width, box.height].map(Math.round), [0, 0, 390, 844], 'the dialog fills the screen');
      const field = dialog.getByRole('textbox', { name: 'SillyTavern folder' });
      assert.notEqual(await field.evaluate((el) => el === document.activeElement), true, 'no keyboard pops up by itself');
      await field.fill(libraryCopy(join(tmp, 'phone')));
      for (const control of [dialog.getByRole('tab', { name: 'Import from SillyTavern' }), dialog.getByRole('tab', { name: 'Export for SillyTavern' }), dialog.getByRole('button', { name: 'Import library' }), field]) {
        const b = await control.boundingBox();
        assert.ok(b.height >= 43.5 && b.width >= 43.5, `a control is ${b.width}×${b.height}`);
      }
      await fitsWidth(phone, dialog, 390);
      await still(phone);
      await screenshot(phone, 'library-phone-idle');

      phoneEvents.hold();
      const answer = phoneEvents.answer('library.importST');
      await dialog.getByRole('button', { name: 'Import library' }).tap();
      await answer.done;
      await phoneEvents.settled();
      const at = phoneEvents.next((p) => p.phase === 'chats' && p.current !== '');
      await waitFor(async () => (await dialog.getByRole('progressbar', { name: 'Chats', exact: true }).getAttribute('aria-valuetext')) === `${at.done} of ${at.total}`, 'the Chats bar on the phone');
      await fitsWidth(phone, dialog, 390);
      await still(phone);
      await screenshot(phone, 'library-phone-progress');
      phoneEvents.release();
      await answer.release();
      await dialog.getByRole('status').filter({ hasText: HEADLINE }).waitFor();
      await dialog.getByText(EXTENSIONS).waitFor();
      await fitsWidth(phone, dialog, 390);
      const done = dialog.getByRole('button', { name: 'Done' });
      const d = await done.boundingBox();
      assert.ok(d.height >= 43.5 && d.y + d.height <= 844, `Done is reachable: ${JSON.stringify(d)}`);
      await still(phone);
      await screenshot(phone, 'library-phone-summary');
      await done.tap();
      await dialog.waitFor({ state: 'hidden' });
      assert.equal((await counts(phone)).characters, 10);
      // The first character is selected by itself and its chat opens, which a phone shows; back to the list.
      const list = phone.getByRole('listbox', { name: 'Character list' });
      await waitFor(
        async () => {
          // The ten characters and the library's groups, listed among them.
          if ((await list.getByRole('option').count()) === 10 + (await phone.evaluate(() => window.__HEARTH__.api.groups.list())).length) return true;
          for (const back of ['Back to chats', 'Back to characters']) {
            const b = phone.getByRole('button', { name: back });
            if (await b.isVisible()) await b.tap().catch(() => {});
          }
          return false;
        },
        'the character list with the 10 imported characters and the groups',
        { interval: 250 },
      );
      await still(phone);
      await screenshot(phone, 'library-phone-list');
      assert.deepEqual(phone.errors, [], 'uncaught errors on the phone');
    } finally {
      await browser.close();
      await server.stop();
    }
  });
});
