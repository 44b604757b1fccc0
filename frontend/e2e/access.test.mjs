// Who may do what to a served Hearth (security issue "Security II"): a
// loopback server needs its launch token even from this machine — a fresh
// browser gets the access-key form, the key from the serve-token file lets
// it in, a script without it is refused; a session behind a password (a LAN
// phone, here on loopback) can import and export SillyTavern libraries only
// under --library-root, through the UI and through window.__HEARTH__, and
// nothing outside is read or created; without a root the library screen
// says the feature is off. Screenshots `access-*`.
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { launchBrowser, openApp, repoRoot, screenshot, startHearth, waitFor } from './harness.mjs';

const FIXTURE = join(repoRoot, 'backend/library/testdata/default-user');
const PASSWORD = 'lan session password';

/** openLibrary opens the SillyTavern library dialog from the character list. */
async function openLibrary(page) {
  await page.getByRole('button', { name: 'Import', exact: true }).click();
  await page.getByRole('menuitem', { name: /^SillyTavern library…/ }).click();
  const dialog = page.getByRole('dialog', { name: 'SillyTavern library' });
  await dialog.waitFor();
  return dialog;
}

describe('a loopback server without a password', () => {
  let server;
  let browser;
  before(async () => {
    server = await startHearth();
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('refuses a script without its launch token and lets one with the serve-token file in', async () => {
    const call = (headers) =>
      fetch(`${server.url}/api/invoke`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...headers },
        body: JSON.stringify({ method: 'characters.list', args: [] }),
      });
    const stranger = await call({});
    assert.equal(stranger.status, 401);
    assert.equal((await stranger.json()).error.code, 'auth.denied');
    const file = join(server.dataDir, 'serve-token');
    assert.equal(statSync(file).mode & 0o777, 0o600);
    const token = readFileSync(file, 'utf8').trim();
    assert.equal(token, server.token, 'the file holds the token of the printed address');
    const owner = await call({ Authorization: `Bearer ${token}` });
    assert.equal(owner.status, 200);
    assert.deepEqual((await owner.json()).result, []);
  });

  it('shows a fresh browser the access-key form; the key lets it in and the address loses it', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    page.errors = [];
    page.on('pageerror', (err) => page.errors.push(err));
    await page.goto(`${server.url}/`);
    const key = page.getByLabel('Access key');
    await key.waitFor();
    await page.getByText('serve-token').waitFor();
    await key.fill('not the key');
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('alert').getByText('not the access key').waitFor();
    await screenshot(page, 'access-token-form');
    // The whole address pasted works too.
    await key.fill(`${server.url}/?token=${server.token}`);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('button', { name: 'New character' }).waitFor();
    assert.equal(await page.evaluate(async () => (await window.__HEARTH__.api.characters.list()).length), 0);

    // The printed address opens a second browser straight into the app, without the token left in it.
    const other = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const phone = await other.newPage();
    await phone.goto(`${server.url}/?token=${server.token}`);
    await phone.getByRole('button', { name: 'New character' }).waitFor();
    assert.equal(new URL(phone.url()).search, '', 'the token is gone from the address');
    await other.close();
    assert.deepEqual(page.errors, []);
    await context.close();
  });
});

describe('a password session (a LAN phone) with --library-root', () => {
  const root = mkdtempSync(join(tmpdir(), 'hearth-access-root-'));
  const outside = mkdtempSync(join(tmpdir(), 'hearth-access-outside-'));
  let server;
  let browser;
  let page;

  before(async () => {
    const pw = join(outside, 'password');
    writeFileSync(pw, `${PASSWORD}\n`, { mode: 0o600 });
    server = await startHearth(['--password-file', pw, '--library-root', root]);
    browser = await launchBrowser();
    cpSync(FIXTURE, join(root, 'st'), { recursive: true });
    cpSync(FIXTURE, join(outside, 'st'), { recursive: true });
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    page = await context.newPage();
    page.errors = [];
    page.on('pageerror', (err) => page.errors.push(err));
    await page.goto(`${server.url}/`);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('button', { name: 'New character' }).waitFor();
  });

  after(async () => {
    assert.deepEqual(page?.errors ?? [], [], 'uncaught errors in the page');
    await browser?.close();
    await server?.stop();
    rmSync(root, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  });

  it('cannot import from or export to a path outside the root, through the UI or the ABI', async () => {
    const dialog = await openLibrary(page);
    await dialog.getByRole('note').getByText(root).waitFor();
    const field = dialog.getByRole('textbox', { name: 'SillyTavern folder' });
    for (const path of [join(outside, 'st'), join(outside, 'missing'), '/etc', `${root}/../${outside.split('/').pop()}/st`]) {
      await field.fill(path);
      await dialog.getByRole('button', { name: 'Import library' }).click();
      const alert = dialog.getByRole('alert');
      await alert.waitFor();
      assert.match(await alert.innerText(), /only folders under|absolute|"\.\."/, `import of ${path}`);
    }
    await screenshot(page, 'access-lan-refused');

    await dialog.getByRole('tab', { name: 'Export for SillyTavern' }).click();
    const out = dialog.getByRole('textbox', { name: 'Export into the folder' });
    const target = join(outside, '.bashrc.d');
    await out.fill(target);
    await out.press('Enter');
    await dialog.getByRole('alert').getByText(/only folders under/).waitFor();
    assert.ok(!existsSync(target), 'nothing created outside the root');
    await dialog.getByRole('button', { name: 'Cancel' }).click();

    const refused = await page.evaluate(async (paths) => {
      const codes = [];
      for (const [op, path] of paths) {
        try {
          await window.__HEARTH__.api.library[op]({ path });
          codes.push('resolved');
        } catch (err) {
          codes.push(err.code);
        }
      }
      return codes;
    }, [
      ['importST', join(outside, 'st')],
      ['exportST', join(outside, 'out')],
      ['importST', 'st'],
    ]);
    assert.deepEqual(refused, ['library.path_not_allowed', 'library.path_not_allowed', 'validation.invalid_argument']);
    assert.ok(!existsSync(join(outside, 'out')));
    assert.equal(await page.evaluate(async () => (await window.__HEARTH__.api.characters.list()).length), 0, 'nothing imported');
  });

  it('imports and exports under the root, with the { path } form', async () => {
    const sum = await page.evaluate((path) => window.__HEARTH__.api.library.importST({ path }), join(root, 'st'));
    assert.equal(sum.imported.characters, 10);
    const exp = await page.evaluate((path) => window.__HEARTH__.api.library.exportST({ path }), join(root, 'out'));
    assert.equal(exp.folder, join(root, 'out'));
    assert.equal(statSync(join(root, 'out')).mode & 0o777, 0o700, 'the export is private to its owner');
    assert.equal(statSync(join(root, 'out', 'settings.json')).mode & 0o777, 0o600);
    assert.deepEqual(await page.evaluate(() => window.__HEARTH__.api.library.access()), { confined: true, roots: [root] });
  });
});

describe('a served library without --library-root', () => {
  it('says import and export by path are off, and offers no way to start one', async () => {
    const server = await startHearth();
    const browser = await launchBrowser();
    try {
      for (const [name, viewport] of [['desktop', { width: 1280, height: 800 }], ['phone', { width: 390, height: 844 }]]) {
        const context = await browser.newContext({ viewport, ...(name === 'phone' ? { isMobile: true, hasTouch: true, deviceScaleFactor: 2 } : {}) });
        const page = await openApp(context, server.url);
        const dialog = await openLibrary(page);
        await dialog.getByRole('note').getByText('--library-root').waitFor();
        const field = dialog.getByRole('textbox', { name: 'SillyTavern folder' });
        assert.ok(await field.isDisabled(), 'the path field is off');
        assert.ok(await dialog.getByRole('button', { name: 'Import library' }).isDisabled(), 'Import is off');
        await waitFor(() => page.evaluate(() => document.getAnimations().every((a) => a.playState !== 'running')), 'the dialog to settle');
        await screenshot(page, `access-library-off-${name}`);
        await context.close();
      }
    } finally {
      await browser.close();
      await server.stop();
    }
  });
});
