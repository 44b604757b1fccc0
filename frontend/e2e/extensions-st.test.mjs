// SillyTavern extensions in Hearth (issue 37, EXTENSIONS.md §5): a fixture
// written the way SillyTavern third-party extensions are
// (fixtures/ext-st-classic: relative imports of script.js, extensions.js,
// utils.js, popup.js, group-chats.js and an unbacked slash-commands.js
// name; extension_settings; a settings drawer from a Handlebars template;
// an extensions-menu entry; event handlers reading live bindings; jQuery,
// toastr, a popup, translations from its manifest's i18n) loads in Chromium
// from `hearth serve`, nothing stubbed.
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fromMoreSettings, launchBrowser, messageRow, openApp, repoRoot, screenshot, startHearth, waitFor } from './harness.mjs';

const PHONE = { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true };
const SECRET = 'sk-hearth-e2e-SECRET-41f9';

const root = mkdtempSync(join(tmpdir(), 'hearth-st-e2e-'));
cpSync(join(repoRoot, 'frontend/e2e/fixtures/ext-st-classic'), join(root, 'st-classic'), { recursive: true });
const dataDir = mkdtempSync(join(tmpdir(), 'hearth-st-data-'));

const seen = (p) => p.evaluate(() => JSON.parse(JSON.stringify({ ...window.__stNotes, tryUnsupported: undefined })));

describe('SillyTavern extensions: the page tier', () => {
  let server;
  let browser;
  let page;

  before(async () => {
    server = await startHearth(['--library-root', root], { dataDir });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
    rmSync(root, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('loads nothing of the compat layer while no page extension is on', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    page = await openApp(context, server.url);
    const state = await page.evaluate(() => ({
      runtime: '__hearthStCompat' in window,
      jquery: typeof window.jQuery,
      toastr: typeof window.toastr,
      libs: window.SillyTavern.libs,
      fetched: performance.getEntriesByType('resource').filter((r) => /runtime-|\/script\.js|\/scripts\//.test(r.name)).map((r) => r.name),
      extras: window.SillyTavern.getContext().extensionSettings,
    }));
    assert.deepEqual(state, { runtime: false, jquery: 'undefined', toastr: 'undefined', libs: undefined, fetched: [], extras: undefined });
    // The compat modules refuse to run outside a window with page extensions, in words.
    const outside = await page.evaluate(() => import('/script.js').then(() => 'loaded', (e) => String(e.message)));
    assert.match(outside, /is for SillyTavern extensions, which load once one is turned on in Extensions/);
    await context.close();
  });

  it('loads a SillyTavern-style extension: settings drawer, menu, events, live bindings, popup, toastr', async () => {
    await server.invoke('connections.save', { name: 'Secret', provider: 'openai-compatible', baseUrl: 'http://127.0.0.1:9/v1', model: 'm', apiKey: SECRET });
    const ch = await server.invoke('characters.create', { name: 'Wren', first_mes: 'The lamp is lit and the kettle is on.' });
    const chat = await server.invoke('chat.create', { avatar: ch.avatar });
    const entry = await server.invoke('extensions.install', { path: join(root, 'st-classic') }, { enable: true });
    assert.equal(entry.id, 'st-classic');
    assert.equal(entry.mode, 'page');
    assert.equal(entry.status, 'active');

    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    page = await openApp(context, server.url);
    await page.waitForFunction(() => window.__stNotes?.ready === true);
    let s = await seen(page);
    assert.equal(s.installed, 1, 'the install hook ran on the first start');
    assert.equal(s.activated, 1, 'the activate hook ran');
    assert.equal(s.group, null, 'selected_group is null without group chats');
    assert.equal(s.folder, 'scripts/extensions/third-party/st-classic');
    assert.equal(await page.evaluate(() => typeof window.jQuery === 'function' && window.$ === window.jQuery && typeof window._.merge), 'function');
    assert.equal(await page.evaluate(() => typeof window.SillyTavern.libs.lodash.cloneDeep), 'function');
    assert.equal(await page.evaluate(() => typeof window.SillyTavern.libs.DOMPurify.sanitize), 'function');

    // An unbacked name links, and calling it throws ext.unsupported naming it.
    const refused = await page.evaluate(() => {
      try {
        window.__stNotes.tryUnsupported();
        return null;
      } catch (e) {
        return { name: e.name, code: e.code, details: e.details, message: e.message };
      }
    });
    assert.equal(refused.code, 'ext.unsupported');
    assert.deepEqual(refused.details, { name: 'sendNarratorMessage', module: '/scripts/slash-commands.js' });

    // Opening the chat: CHAT_CHANGED handlers read the live chat, name2 and this_chid.
    await page.evaluate((id) => window.__HEARTH__.api.chat.select(id), chat.chatId);
    await messageRow(page, 0).getByText('The lamp is lit and the kettle is on.').waitFor();
    await waitFor(async () => (await seen(page)).events.includes('CHAT_CHANGED'), 'CHAT_CHANGED to reach the extension');
    s = await seen(page);
    assert.equal(s.lens.at(-1), 1, 'chat held the greeting when CHAT_CHANGED ran');
    assert.equal(s.names.at(-1), 'Wren');
    assert.equal(s.chid, 0);
    // #chat .mes[mesid] .mes_text mirrors the rows.
    assert.equal((await page.locator('#chat .mes[mesid="0"] .mes_text').innerText()).trim(), 'The lamp is lit and the kettle is on.');

    // The drawer lives in the manager's Settings tab; it opens by its toggle and saves through extension_settings.
    await fromMoreSettings(page, 'Extensions…');
    const dialog = page.getByRole('dialog', { name: 'Extensions' });
    await dialog.getByRole('tab', { name: 'Settings' }).click();
    const drawer = dialog.locator('#extensions_settings .inline-drawer');
    await drawer.getByText('Classic Notes').click();
    await drawer.getByLabel('Note for everyone').fill('Bring the blue kettle');
    await drawer.getByLabel('Keep notes').uncheck();
    await screenshot(page, 'extensions-st-settings');
    const stored = await waitFor(async () => {
      const v = await server.invoke('extensions.storage.get', 'st.extension_settings', { extensionId: 'st-classic' });
      return v?.['st-classic']?.note === 'Bring the blue kettle' && v['st-classic'].enabled === false ? v : null;
    }, 'the settings to be saved in the extension\'s storage');
    assert.deepEqual(stored, { 'st-classic': { enabled: false, note: 'Bring the blue kettle' } });

    // A popup from the drawer: an input answered in the dialog.
    await drawer.getByText('Ask me something').click();
    const popup = page.locator('dialog.hearth-st-popup');
    await popup.getByText('kettle').waitFor();
    await popup.getByLabel('Your answer').fill('tea, always');
    await popup.getByRole('button', { name: 'OK' }).click();
    await waitFor(async () => (await seen(page)).answer === 'tea, always', 'the popup to answer');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });

    // The extensions menu by the composer: its entry fills #send_textarea, toastr shows a Hearth toast, the message sends.
    await page.getByRole('button', { name: 'Extensions menu' }).click();
    await screenshot(page, 'extensions-st-menu');
    await page.getByText('Insert the note').click();
    await page.getByText('Classic Notes: The note is in the message box').waitFor();
    assert.equal(await page.locator('#send_textarea').inputValue(), 'User notes: Bring the blue kettle');
    await page.locator('#send_textarea').press('Enter');
    await messageRow(page, 1).getByText('User notes: Bring the blue kettle').waitFor();
    await waitFor(async () => (await seen(page)).sent === 'User notes: Bring the blue kettle', 'MESSAGE_SENT to reach the extension');
    assert.equal((await seen(page)).lens.at(-1), 2);

    // No API key is reachable from page code.
    const reachable = await page.evaluate(async () => {
      const ctx = window.SillyTavern.getContext();
      const dump = [];
      for (const k of Object.keys(ctx)) {
        try {
          dump.push(JSON.stringify(ctx[k]));
        } catch {
          dump.push(String(ctx[k]));
        }
      }
      dump.push(JSON.stringify(ctx.extensionSettings), JSON.stringify(await window.__HEARTH__.api.connections.list()));
      const m = await import('/scripts/power-user.js');
      dump.push(JSON.stringify(m.power_user));
      dump.push(document.documentElement.outerHTML);
      return dump.join('\n');
    });
    assert.equal(reachable.includes(SECRET), false, 'the API key is reachable from page code');
    assert.deepEqual(page.errors.map(String), []);
    await context.close();
  });

  it('keeps the settings through a reload and a restart, and runs install only once', async () => {
    await server.stop();
    server = await startHearth(['--library-root', root], { dataDir });
    const context = await browser.newContext(PHONE);
    page = await openApp(context, server.url, PHONE);
    await page.waitForFunction(() => window.__stNotes?.ready === true);
    const s = await seen(page);
    assert.equal(s.installed, 0, 'install ran again after a restart');
    assert.equal(s.activated, 1);
    assert.equal(await page.evaluate(() => window.SillyTavern.getContext().extensionSettings['st-classic'].note), 'Bring the blue kettle');
    // The phone reopens the last chat; the manager is in the character list's header.
    for (const back of ['Back to chats', 'Back to characters']) {
      const b = page.getByRole('button', { name: back });
      if (await b.isVisible()) await b.tap();
    }
    await fromMoreSettings(page, 'Extensions…', { tap: true });
    const dialog = page.getByRole('dialog', { name: 'Extensions' });
    await dialog.getByRole('tab', { name: 'Settings' }).tap();
    const drawer = dialog.locator('#extensions_settings .inline-drawer');
    await drawer.getByText('Classic Notes').tap();
    assert.equal(await drawer.getByLabel('Note for everyone').inputValue(), 'Bring the blue kettle');
    assert.equal(await drawer.getByLabel('Keep notes').isChecked(), false);
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(width <= 390, `the settings tab scrolls sideways (${width} px)`);
    await screenshot(page, 'extensions-st-settings-phone');
    await context.close();
  });

  it("translates it for the window's locale from its manifest i18n: t`…`, its template and markup it adds later", async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'de-DE' });
    page = await openApp(context, server.url);
    await page.waitForFunction(() => window.__stNotes?.ready === true);
    const s = await seen(page);
    assert.equal(s.locale, 'de-de', "getCurrentLocale() is the browser's language, lowercased");
    assert.equal(s.title, 'Notizen von st-classic');
    const shown = await page.evaluate(() => ({
      label: document.querySelector('#st_notes_enabled + span')?.textContent,
      placeholder: document.querySelector('#st_notes_text')?.getAttribute('placeholder'),
      translate: window.SillyTavern.getContext().translate('Keep notes'),
      other: window.SillyTavern.getContext().translate('Ask me something'),
    }));
    assert.deepEqual(shown, { label: 'Notizen behalten', placeholder: 'Eine Notiz', translate: 'Notizen behalten', other: 'Ask me something' });
    // The menu entry was added as markup after the translations loaded; it shows translated.
    await page.getByRole('button', { name: 'Extensions menu' }).click();
    await page.getByText('Notiz einfügen').waitFor();
    await screenshot(page, 'extensions-st-i18n-menu');
    assert.deepEqual(page.errors.map(String), []);
    await context.close();
  });

  it('reports an extension whose script throws as failed and keeps the window working', async () => {
    const broken = join(root, 'st-broken');
    cpSync(join(repoRoot, 'frontend/e2e/fixtures/ext-st-classic'), broken, { recursive: true });
    const { writeFileSync } = await import('node:fs');
    writeFileSync(join(broken, 'index.js'), "import { nothingLikeThis } from '../../../../script.js';\nexport const x = nothingLikeThis;\n");
    await server.invoke('extensions.install', { path: broken }, { enable: true });
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    page = await openApp(context, server.url);
    await page.waitForFunction(() => window.__stNotes?.ready === true);
    await page.getByText(/Classic Notes failed to start/).waitFor();
    const e = await waitFor(async () => {
      const list = await server.invoke('extensions.list');
      const x = list.find((y) => y.id === 'st-broken');
      return x?.status === 'failed' ? x : null;
    }, 'the broken extension to be marked failed');
    assert.match(e.error, /nothingLikeThis/);
    await context.close();
  });
});
