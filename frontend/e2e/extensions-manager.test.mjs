// The extension manager (components/extensions, EXTENSIONS.md §1–4),
// opened from the sidebar header's More settings menu. At 1280×800: a
// sandboxed package uploaded as a .zip from the file chooser is installed
// off, its permissions asked about in words before it is turned on; then
// one permission revoked and granted back, turned off from the keyboard,
// removed with its stored data. A script's install shows up live. Refused
// .zips (not a zip, a bad manifest, too large) and a plain-http address are
// said in sentences, the codes folded away. A page-tier .zip dropped on the
// dialog warns of full access. On a phone (390×844): the list with a failed
// extension, the install tab and the remove dialog fit, with 44 px targets.
// Safe mode is left out: its host side is not in every build yet.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fromMoreSettings, launchBrowser, openApp, screenshot, startHearth, tapCalls, useHearth, waitFor, zip } from './harness.mjs';

const PHONE = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true };

/** A sandboxed extension, in a single top folder as GitHub's archives have it. */
const MOOD = zip({
  'mood-tracker-main/manifest.json': JSON.stringify({
    display_name: 'Mood Tracker',
    version: '1.2.0',
    author: 'Ada Lovelace',
    hearth: { id: 'mood-tracker', mode: 'sandboxed', entry: 'index.html', permissions: ['chat.read', 'state'] },
  }),
  'mood-tracker-main/index.html': '<!doctype html><title>Mood</title><p>Mood</p>',
});

/** A SillyTavern-style (page tier) extension. */
const CLASSIC = zip({
  'manifest.json': JSON.stringify({ display_name: 'Classic Quick Replies', version: '0.9.1', author: 'ST Fan', js: 'index.js' }),
  'index.js': 'export {};',
});

/** A manifest asking for a permission that does not exist. */
const CAMERA = zip({
  'manifest.json': JSON.stringify({ display_name: 'Peeker', hearth: { id: 'peeker', mode: 'sandboxed', entry: 'index.html', permissions: ['camera'] } }),
  'index.html': '<p>hi</p>',
});

describe('the extension manager', () => {
  const env = useHearth({ before, after });
  const pages = [];
  let dir;
  const file = (name, data) => {
    const path = join(dir, name);
    writeFileSync(path, data);
    return path;
  };

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'hearth-ext-e2e-'));
  });

  after(() => {
    rmSync(dir, { recursive: true, force: true });
    for (const p of pages) assert.deepEqual(p.errors, [], 'uncaught errors in the page');
  });

  /** choose picks files in the file chooser the button opens. */
  async function choose(page, button, files) {
    const [chooser] = await Promise.all([page.waitForEvent('filechooser'), button.click()]);
    await chooser.setFiles(files);
  }

  const list = () => env.server.invoke('extensions.list');
  const one = async (id) => (await list()).find((e) => e.id === id);

  it('installs an uploaded .zip off, asks in words, then manages it: revoke, grant back, off, remove with its data', async () => {
    const page = await openApp(env.browser, env.server.url);
    pages.push(page);
    await fromMoreSettings(page, /^Extensions…/);
    const dialog = page.getByRole('dialog', { name: 'Extensions' });
    await dialog.getByText('No extensions yet.').waitFor();
    await dialog.getByRole('tab', { name: 'Add extension' }).click();
    await screenshot(page, 'extensions-install-desktop');

    // An address is checked before anything is sent.
    const address = dialog.getByRole('textbox', { name: 'From the web' });
    await address.fill('http://example.com/mood.zip');
    await dialog.getByRole('button', { name: 'Install', exact: true }).first().click();
    await dialog.getByRole('alert').filter({ hasText: 'Only https:// addresses can be installed' }).waitFor();
    assert.equal(await address.getAttribute('aria-invalid'), 'true');
    await address.fill('github.com/me/mood');
    await address.press('Enter');
    await dialog.getByRole('alert').filter({ hasText: '“github.com/me/mood” is not a web address' }).waitFor();
    await address.fill('');

    // The .zip, from the file chooser: installed off, then asked about.
    await choose(page, dialog.getByRole('button', { name: 'Choose a .zip…' }), file('mood-tracker.zip', MOOD));
    await dialog.getByRole('heading', { name: 'Turn on “Mood Tracker”?' }).waitFor();
    const asks = dialog.getByRole('list', { name: 'What Mood Tracker asks for' });
    assert.deepEqual(
      (await asks.getByRole('listitem').allInnerTexts()).map((t) => t.split('\n')[0]),
      ['Read your chats', 'Keep its own notes in chat state'],
    );
    await dialog.getByRole('region', { name: 'Turn on “Mood Tracker”?' }).getByText('Allow:', { exact: true }).waitFor();
    assert.deepEqual(await one('mood-tracker').then((e) => [e.enabled, e.granted]), [false, ['chat.read', 'state']], 'installed off, granted what it declares');
    await screenshot(page, 'extensions-review-desktop');
    await dialog.getByRole('button', { name: 'Turn it on' }).click();

    // The list: name, version, author, tier, status, and the Details opened on it.
    const card = dialog.getByRole('listitem').filter({ has: page.getByText('Mood Tracker', { exact: true }) });
    const toggle = card.getByRole('switch', { name: 'Enable Mood Tracker' });
    await waitFor(() => toggle.isChecked(), 'the switch on');
    await waitFor(async () => (await one('mood-tracker')).enabled, 'the extension enabled');
    assert.equal(await dialog.getByRole('tab', { name: /^Installed/ }).getAttribute('aria-selected'), 'true');
    for (const text of ['v1.2.0', 'by Ada Lovelace', 'Sandboxed', 'Active']) await card.getByText(text, { exact: true }).waitFor();
    const perms = card.getByRole('list', { name: 'Permissions of Mood Tracker' });
    await perms.waitFor();
    await card.getByText('From the uploaded file mood-tracker.zip').waitFor();
    await screenshot(page, 'extensions-list-desktop');

    // Revoke one permission, then grant it back.
    await perms.getByRole('button', { name: 'Revoke: Read your chats' }).click();
    await waitFor(async () => JSON.stringify((await one('mood-tracker')).granted) === '["state"]', 'chat.read revoked');
    await perms.getByRole('button', { name: 'Grant back: Read your chats' }).waitFor();
    await perms.getByText('Revoked', { exact: true }).waitFor();
    await screenshot(page, 'extensions-revoked-desktop');
    await perms.getByRole('button', { name: 'Grant back: Read your chats' }).click();
    await waitFor(async () => (await one('mood-tracker')).granted.includes('chat.read'), 'chat.read granted back');
    await perms.getByRole('button', { name: 'Revoke: Read your chats' }).click();
    await waitFor(async () => JSON.stringify((await one('mood-tracker')).granted) === '["state"]', 'chat.read revoked again');
    // The server has it; the card too once the call has answered (the switch is off limits until then).
    await perms.getByRole('button', { name: 'Grant back: Read your chats' }).waitFor();
    await waitFor(async () => (await toggle.getAttribute('aria-disabled')) === null, 'the switch free again');

    // Off from the keyboard: the switch is a checkbox.
    await toggle.focus();
    await page.keyboard.press('Space');
    await waitFor(async () => !(await one('mood-tracker')).enabled, 'the extension disabled');
    await card.getByText('Off', { exact: true }).waitFor();
    assert.equal(await toggle.isChecked(), false);

    // Remove, with its stored data.
    await env.server.invoke('extensions.storage.set', 'mood', { v: 1 }, { extensionId: 'mood-tracker' });
    await card.getByRole('button', { name: 'Remove…' }).click();
    const confirm = page.getByRole('dialog', { name: 'Remove extension' });
    await confirm.getByText('Remove “Mood Tracker”?').waitFor();
    await confirm.getByRole('checkbox', { name: 'Also delete its stored data' }).check();
    await screenshot(page, 'extensions-remove-desktop');
    await confirm.getByRole('button', { name: 'Remove with its data' }).click();
    await confirm.waitFor({ state: 'hidden' });
    await dialog.getByText('No extensions yet.').waitFor();
    assert.deepEqual(await list(), []);

    // A script installs it again: the open manager follows, and the storage is gone.
    await env.server.invoke('extensions.install', { fileName: 'mood-tracker.zip', base64: MOOD.toString('base64') });
    await card.waitFor();
    assert.equal(await env.server.invoke('extensions.storage.get', 'mood', { extensionId: 'mood-tracker' }), null, 'clean removed the storage');
    await env.server.invoke('extensions.remove', 'mood-tracker', { clean: true });
    await dialog.getByText('No extensions yet.').waitFor();
  });

  it('keeps keyboard focus on the switch and on a permission’s button through their calls and the list’s refresh', async () => {
    await env.server.invoke('extensions.install', { fileName: 'mood-tracker.zip', base64: MOOD.toString('base64') }, { enable: true });
    const context = await env.browser.newContext({ viewport: { width: 1280, height: 800 } });
    const { tap } = await tapCalls(context);
    // What reached the page: the event types pushed, and how many list answers came after each.
    const seen = [];
    tap({
      after: (call) => void (call.method === 'extensions.list' && seen.push('list')),
      event: (msg) => void (typeof msg?.type === 'string' && seen.push(msg.type)),
    });
    /** refreshedAfter: since seen[from], the page has had the event named, and a list read answered after it. */
    const refreshedAfter = (type, from) => {
      const at = seen.indexOf(type, from);
      return at >= 0 && seen.indexOf('list', at) > at;
    };
    const page = await openApp(context, env.server.url);
    pages.push(page);
    await fromMoreSettings(page, /^Extensions…/);
    const dialog = page.getByRole('dialog', { name: 'Extensions' });
    const card = dialog.getByRole('listitem').filter({ has: page.getByText('Mood Tracker', { exact: true }) });
    const toggle = card.getByRole('switch', { name: 'Enable Mood Tracker' });
    await waitFor(() => toggle.isChecked(), 'the switch on');
    await card.getByText('Details of Mood Tracker').click();
    const perms = card.getByRole('list', { name: 'Permissions of Mood Tracker' });
    await perms.waitFor();

    /** focused: el is the element that has the keyboard focus. */
    const focused = (el) => el.evaluate((node) => node.isConnected && node === document.activeElement);
    /** tabTo presses Tab from the Installed tab until target has the focus. */
    const tabTo = async (target) => {
      await dialog.getByRole('tab', { name: /^Installed/ }).focus();
      for (let i = 0; i < 20 && !(await target.evaluate((node) => node === document.activeElement)); i++) await page.keyboard.press('Tab');
      assert.ok(await target.evaluate((node) => node === document.activeElement), 'reached with Tab');
    };
    /** hold keeps calls to method at the host until the returned release is called. */
    const hold = (method) => {
      let release;
      const held = new Promise((r) => (release = r));
      const untap = tap({ before: (call) => (call.method === method ? held : undefined) });
      return () => {
        release();
        untap();
      };
    };

    // The switch, off with Space: it stays focused while the call runs (a second Space is ignored), and after the refresh.
    await tabTo(toggle);
    const box = await toggle.elementHandle();
    let release = hold('extensions.disable');
    let mark = seen.length;
    await page.keyboard.press('Space');
    await card.getByRole('status', { name: 'Turning off' }).waitFor();
    assert.equal(await toggle.getAttribute('aria-disabled'), 'true', 'busy, said so');
    assert.ok(await focused(box), 'the switch keeps the focus while its call runs');
    await page.keyboard.press('Space');
    assert.equal(await toggle.isChecked(), false, 'a press while busy changes nothing');
    release();
    await waitFor(async () => !(await one('mood-tracker')).enabled, 'the extension disabled');
    await card.getByText('Off', { exact: true }).waitFor();
    await waitFor(() => refreshedAfter('extension_disabled', mark), 'the list read again after EXTENSION_DISABLED');
    await waitFor(async () => (await toggle.getAttribute('aria-disabled')) === null, 'the switch free again');
    assert.ok(await focused(box), 'the same switch still has the focus');
    assert.equal(await toggle.isChecked(), false);
    mark = seen.length;
    await page.keyboard.press('Space');
    await waitFor(async () => (await one('mood-tracker')).enabled, 'on again from the keyboard');
    await waitFor(() => refreshedAfter('extension_enabled', mark), 'the list read again after EXTENSION_ENABLED');
    await waitFor(() => toggle.isChecked(), 'the switch on');
    assert.ok(await focused(box), 'the switch still has the focus');

    // Revoke with Enter: the same button, now Grant back, keeps the focus; and back again.
    const revoke = perms.getByRole('button', { name: 'Revoke: Read your chats' });
    await tabTo(revoke);
    const button = await revoke.elementHandle();
    release = hold('extensions.revoke');
    mark = seen.length;
    await page.keyboard.press('Enter');
    await perms.getByRole('status', { name: 'Working' }).waitFor();
    assert.equal(await revoke.getAttribute('aria-disabled'), 'true', 'busy, said so');
    assert.ok(await focused(button), 'Revoke keeps the focus while its call runs');
    release();
    await waitFor(async () => JSON.stringify((await one('mood-tracker')).granted) === '["state"]', 'chat.read revoked');
    const grantBack = perms.getByRole('button', { name: 'Grant back: Read your chats' });
    await grantBack.waitFor();
    await waitFor(() => refreshedAfter('extension_granted', mark), 'the list read again after EXTENSION_GRANTED');
    await waitFor(async () => (await grantBack.getAttribute('aria-disabled')) === null, 'the button free again');
    assert.ok(await grantBack.evaluate((node) => node === document.activeElement), 'Grant back has the focus');
    assert.ok(await focused(button), 'and it is the same button');
    mark = seen.length;
    await page.keyboard.press('Enter');
    await waitFor(async () => (await one('mood-tracker')).granted.includes('chat.read'), 'chat.read granted back');
    await revoke.waitFor();
    await waitFor(() => refreshedAfter('extension_granted', mark), 'the list read again after EXTENSION_GRANTED');
    await waitFor(async () => (await revoke.getAttribute('aria-disabled')) === null, 'the button free again');
    assert.ok(await focused(button), 'Revoke has the focus again');
    await context.close();
    await env.server.invoke('extensions.remove', 'mood-tracker', { clean: true });
  });

  it('shows an install under way, and says why a package was refused, in sentences with the code folded away', async () => {
    const context = await env.browser.newContext({ viewport: { width: 1280, height: 800 } });
    const { tap } = await tapCalls(context);
    const page = await openApp(context, env.server.url);
    pages.push(page);
    await fromMoreSettings(page, /^Extensions…/);
    const dialog = page.getByRole('dialog', { name: 'Extensions' });
    await dialog.getByRole('tab', { name: 'Add extension' }).click();
    const pick = dialog.getByRole('button', { name: 'Choose a .zip…' });

    // The first install is held at the host until its progress has been seen.
    let release;
    const held = new Promise((r) => (release = r));
    const untap = tap({ before: (call) => (call.method === 'extensions.install' ? held : undefined) });
    await choose(page, pick, file('broken.zip', Buffer.from('this is not a zip archive at all')));
    await dialog.getByRole('status').filter({ hasText: 'Installing broken.zip…' }).waitFor();
    assert.equal(await pick.isDisabled(), true, 'no second install meanwhile');
    await dialog.getByRole('tab', { name: 'Add extension' }).getByRole('status', { name: 'Installing' }).waitFor();
    await screenshot(page, 'extensions-progress-desktop');
    release();
    untap();
    const note = dialog.getByRole('alert').filter({ hasText: 'Could not install broken.zip' });
    await note.waitFor();
    const said = await note.innerText();
    assert.match(said, /^Could not install broken\.zip\. It is not a zip archive: /);
    assert.doesNotMatch(said, /extension\.invalid_package/, 'the code stays folded away');
    await note.getByText('Details', { exact: true }).click();
    await note.getByText('extension.invalid_package').waitFor();
    await screenshot(page, 'extensions-error-desktop');

    await choose(page, pick, file('peeker.zip', CAMERA));
    await dialog
      .getByRole('alert')
      .filter({ hasText: 'The package’s manifest.json has a problem with hearth.permissions[0]: unknown permission "camera".' })
      .waitFor();

    // Too large to upload: refused before it is read or sent.
    await choose(page, pick, file('huge.zip', Buffer.alloc(46 * 1024 * 1024 + 1)));
    await dialog.getByRole('alert').filter({ hasText: 'huge.zip is 46.0 MiB; an uploaded package can be at most 46 MiB.' }).waitFor();
    await choose(page, pick, file('notes.txt', 'hello'));
    await dialog.getByRole('alert').filter({ hasText: 'notes.txt is not a .zip file.' }).waitFor();
    assert.deepEqual(await list(), [], 'nothing was installed');
    // A browser cannot upload a folder, and this server has no --library-root: the tab says so.
    await dialog.getByText('A browser can upload files but not folders').waitFor();
    await context.close();
  });

  it('takes a .zip dropped on the dialog, and warns that a page extension has full access', async () => {
    const page = await openApp(env.browser, env.server.url);
    pages.push(page);
    await fromMoreSettings(page, /^Extensions…/);
    const dialog = page.getByRole('dialog', { name: 'Extensions' });
    await dialog.getByText('No extensions yet.').waitFor();
    const files = await page.evaluateHandle((b64) => {
      const dt = new DataTransfer();
      const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
      dt.items.add(new File([bytes], 'classic-quick-replies.zip', { type: 'application/zip' }));
      return dt;
    }, CLASSIC.toString('base64'));
    await dialog.dispatchEvent('dragenter', { dataTransfer: files });
    await dialog.dispatchEvent('dragover', { dataTransfer: files });
    await dialog.getByText('Drop to install').waitFor();
    await screenshot(page, 'extensions-drop-desktop');
    await dialog.dispatchEvent('drop', { dataTransfer: files });
    const review = dialog.getByRole('region', { name: 'Turn on “Classic Quick Replies”?' });
    await review.waitFor();
    await review.getByText('Runs with full access to your chats, characters and settings.').waitFor();
    assert.equal(await dialog.getByText('Drop to install').count(), 0, 'the drop target went');
    await screenshot(page, 'extensions-review-page-desktop');
    await dialog.getByRole('button', { name: 'Keep it off' }).click();
    const card = dialog.getByRole('listitem').filter({ has: page.getByText('Classic Quick Replies', { exact: true }) });
    await card.getByText('Full access', { exact: true }).waitFor();
    await card.getByText('Off', { exact: true }).waitFor();
    assert.equal((await one('classic-quick-replies')).enabled, false);
    const toggle = card.getByRole('switch', { name: 'Enable Classic Quick Replies' });
    assert.equal(await toggle.isChecked(), false);

    // A page extension runs from the window's load: turning it on says so, and offers the reload.
    await toggle.click();
    await waitFor(async () => (await one('classic-quick-replies')).enabled, 'the page extension enabled');
    await page.getByText('“Classic Quick Replies” starts the next time Hearth loads.').waitFor();
    await page.getByRole('button', { name: 'Reload now' }).waitFor();
    await toggle.click();
    await waitFor(async () => !(await one('classic-quick-replies')).enabled, 'the page extension disabled');
    await page.getByText('“Classic Quick Replies” stops the next time Hearth loads.').waitFor();
  });

  it('on a phone: the list with a failed extension, the install tab and the remove dialog fit, with 44 px targets', async () => {
    await env.server.invoke('extensions.install', { fileName: 'mood-tracker.zip', base64: MOOD.toString('base64') }, { enable: true });
    await env.server.invoke('extensions.reportFailure', 'mood-tracker', 'TypeError: Cannot read properties of undefined (reading "mood")\n    at activate (index.js:12:7)');
    const context = await env.browser.newContext({ ...PHONE, reducedMotion: 'reduce' });
    const phone = await openApp(context, env.server.url);
    pages.push(phone);
    await fromMoreSettings(phone, /^Extensions…/, { tap: true });
    const dialog = phone.getByRole('dialog', { name: 'Extensions' });
    const card = dialog.getByRole('listitem').filter({ has: phone.getByText('Mood Tracker', { exact: true }) });
    await card.getByText('Failed: TypeError: Cannot read properties of undefined (reading "mood")').waitFor();
    await card.getByText('Details of Mood Tracker').tap();
    await card.getByLabel('The whole error').waitFor();
    await card.getByRole('list', { name: 'Permissions of Mood Tracker' }).waitFor();

    /** fits checks the open dialog: it fills the screen, nothing sticks out sideways, every control in view is 44×44 px. */
    const fits = async (what) => {
      // A dialog pops in (scaled a little); measure it once it has settled.
      await phone.waitForFunction(() => document.getAnimations().every((a) => a.playState !== 'running'));
      const box = await phone.locator('dialog[open]').last().boundingBox();
      assert.ok(box.x >= 0 && box.y >= 0 && box.x + box.width <= 390.5 && box.y + box.height <= 844.5, `${what}: the dialog fits (${JSON.stringify(box)})`);
      const problems = await phone.evaluate(() => {
        const out = [];
        const dlg = [...document.querySelectorAll('dialog[open]')].at(-1);
        const body = dlg.querySelector('.body');
        if (body.scrollWidth > body.clientWidth + 1) out.push(`the dialog scrolls sideways (${body.scrollWidth} > ${body.clientWidth})`);
        for (const el of dlg.querySelectorAll('button, input:not([type=hidden]), summary, [role=tab]')) {
          const r = el.getBoundingClientRect();
          if (r.width === 0 || r.height === 0 || r.bottom < 0 || r.top > innerHeight) continue;
          if (r.right > innerWidth + 0.5) out.push(`${el.tagName} "${el.textContent.trim().slice(0, 30)}" ends at ${Math.round(r.right)}`);
          if (r.width < 43.5 || r.height < 43.5) out.push(`${el.tagName} "${el.getAttribute('aria-label') || el.textContent.trim().slice(0, 30)}" is ${Math.round(r.width)}×${Math.round(r.height)}`);
        }
        return out;
      });
      assert.deepEqual(problems, [], what);
    };
    await fits('the list');
    await screenshot(phone, 'extensions-list-phone');
    await card.getByRole('button', { name: 'Remove…' }).scrollIntoViewIfNeeded();
    await screenshot(phone, 'extensions-details-phone');

    await dialog.getByRole('tab', { name: 'Add extension' }).tap();
    await dialog.getByRole('button', { name: 'Choose a .zip…' }).waitFor();
    await fits('the install tab');
    await screenshot(phone, 'extensions-install-phone');

    await dialog.getByRole('tab', { name: /^Installed/ }).tap();
    await card.getByRole('button', { name: 'Remove…' }).tap();
    const confirm = phone.getByRole('dialog', { name: 'Remove extension' });
    await confirm.getByRole('checkbox', { name: 'Also delete its stored data' }).waitFor();
    await fits('the remove dialog');
    await screenshot(phone, 'extensions-remove-phone');
    await confirm.getByRole('button', { name: 'Remove', exact: true }).tap();
    await confirm.waitFor({ state: 'hidden' });
    await card.waitFor({ state: 'detached' });
    assert.deepEqual((await list()).map((e) => e.id), ['classic-quick-replies']);
    await context.close();
  });
});

describe('the extension manager on a server with --library-root', () => {
  let root;
  let server;
  let browser;

  before(async () => {
    root = mkdtempSync(join(tmpdir(), 'hearth-ext-root-'));
    server = await startHearth(['--library-root', root]);
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it('installs a folder under the root by its path, updates it from there, and refuses one outside', async () => {
    const folder = join(root, 'weather');
    mkdirSync(folder);
    const manifest = (version) =>
      JSON.stringify({ display_name: 'Weather', version, hearth: { id: 'weather', mode: 'sandboxed', entry: 'index.html', permissions: ['notify', 'network'], network: ['https://api.weather.example'] } });
    writeFileSync(join(folder, 'manifest.json'), manifest('1.0.0'));
    writeFileSync(join(folder, 'index.html'), '<p>sunny</p>');

    const page = await openApp(browser, server.url);
    await fromMoreSettings(page, /^Extensions…/);
    const dialog = page.getByRole('dialog', { name: 'Extensions' });
    await dialog.getByRole('tab', { name: 'Add extension' }).click();
    const path = dialog.getByRole('textbox', { name: 'From a folder on the server' });
    await dialog.getByText(`A folder under ${root}`).waitFor();

    await path.fill('/etc');
    await path.press('Enter');
    const refused = dialog.getByRole('alert').filter({ hasText: `Could not install /etc. This server reads folders only under ${root} (its --library-root).` });
    await refused.waitFor();
    assert.doesNotMatch(await refused.innerText(), /library\.path_not_allowed/, 'the code stays folded away');

    await path.fill(folder);
    await path.press('Enter');
    const review = dialog.getByRole('region', { name: 'Turn on “Weather”?' });
    await review.waitFor();
    assert.deepEqual(
      (await review.getByRole('listitem').allInnerTexts()).map((t) => t.split('\n')[0]),
      ['Show notifications', 'Talk to: api.weather.example'],
    );
    await screenshot(page, 'extensions-review-folder-desktop');
    await dialog.getByRole('button', { name: 'Turn it on' }).click();
    const card = dialog.getByRole('listitem').filter({ has: page.getByText('Weather', { exact: true }) });
    await card.getByText(`From the folder ${folder}`).waitFor();
    await card.getByText('v1.0.0', { exact: true }).waitFor();

    writeFileSync(join(folder, 'manifest.json'), manifest('1.1.0'));
    await card.getByRole('button', { name: 'Update' }).click();
    await card.getByText('v1.1.0', { exact: true }).waitFor();
    const [e] = await server.invoke('extensions.list');
    assert.deepEqual([e.version, e.enabled], ['1.1.0', true], 'updated, still on');
    assert.deepEqual(page.errors, [], 'uncaught errors in the page');
  });
});
