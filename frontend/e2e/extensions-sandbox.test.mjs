// What must hold of sandboxed extensions (EXTENSIONS.md §1–4), in Chromium
// against `hearth serve`, nothing stubbed: the server serves /ext/<id>/…
// under the frame's CSP, the window's bridge answers the frames.
//
// The probe (fixtures/ext-probe: chat.read and notify) is driven through
// its own storage: the test writes { n, ops } under "command", the probe
// runs each named op in its frame and answers under "answer"; the events
// it hears it records under "received". Everything the test does besides
// goes through the page's window.__HEARTH__, as the UI's own calls do.
//
// A symlinked file and a zip bomb are refused by the same install path the
// bad packages here take; Go covers them (backend/extensions
// TestInstallRefusesBadPackages, FuzzReadZip), as a browser cannot build them.
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { call, messageRow, openApp, repoRoot, screenshot, startHearth, useHearth, waitFor, zip } from './harness.mjs';

const PHONE = { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true };

/** The library root the server may install from: copies of the fixtures and of the docs' example. */
const root = mkdtempSync(join(tmpdir(), 'hearth-sandbox-e2e-'));
for (const name of ['ext-probe', 'ext-throws', 'ext-hangs']) cpSync(join(repoRoot, 'frontend/e2e/fixtures', name), join(root, name), { recursive: true });
cpSync(join(repoRoot, 'docs/examples/word-count'), join(root, 'word-count'), { recursive: true });

const SAFE_MODE_REASON = 'Safe mode is on: every extension is off until you leave it.';

/** must is call that throws unless the call worked, and answers its value. */
async function must(p, method, ...args) {
  const r = await call(p, method, ...args);
  if (!r.ok) throw new Error(`${method}: ${r.code}: ${r.message}`);
  return r.value;
}

/** settle waits ms: only after a positive, to show that something that would have come before it did not. */
const settle = (ms) => new Promise((r) => setTimeout(r, ms));

/** everything under dir, as relative paths (to show that nothing was written). */
function tree(dir, prefix = '') {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const rel = prefix + d.name;
    return d.isDirectory() ? [rel + '/', ...tree(join(dir, d.name), rel + '/')] : [rel];
  });
}

describe('sandboxed extensions: what must hold', () => {
  const env = useHearth({ before, after, args: ['--library-root', root] });
  let page;
  let chatId;
  let commands = 0;

  /** storage reads key of extension id's storage through the page. */
  const storage = (key, id = 'probe', p = page) => must(p, 'extensions.storage.get', key, { extensionId: id });

  /** probe has the probe run ops in its frame and answers their outcomes by name. */
  async function probe(...ops) {
    const n = ++commands;
    await must(page, 'extensions.storage.set', 'command', { n, ops }, { extensionId: 'probe' });
    const answer = await waitFor(async () => {
      const a = await storage('answer');
      return a && a.n === n ? a : null;
    }, `the probe's answer to ${ops.join(', ')}`);
    return answer.results;
  }

  /** received is the events the probe heard, in order ({ event, text }). */
  const received = async () => (await storage('received')) ?? [];

  /** activated waits for the probe's activate hook to have run after time since. */
  const activated = (since = 0, p = page, what = 'the probe to activate') =>
    waitFor(async () => {
      const a = await storage('activated', 'probe', p);
      return a && a.at > since ? a : null;
    }, what);

  const entry = async (id, p = page) => (await must(p, 'extensions.list')).find((e) => e.id === id);

  const denied = (r, permission) => {
    assert.equal(r.ok, false, `refused: ${JSON.stringify(r)}`);
    assert.equal(r.code, 'auth.denied', JSON.stringify(r));
    assert.equal(r.permission, permission, JSON.stringify(r));
  };

  before(async () => {
    const context = await env.browser.newContext({ viewport: { width: 1280, height: 800 } });
    page = await openApp(context, env.server.url);
    // A character made in the UI, which opens its first chat (one chat: a
    // second "New chat" here would race the first for chat.current()).
    await page.getByRole('button', { name: 'New character' }).click();
    const dialog = page.getByRole('dialog', { name: 'New character' });
    await dialog.getByLabel('Name', { exact: true }).fill('Wren');
    await dialog.getByLabel(/^Greeting/).fill('The lamp is lit and the kettle is on.');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await messageRow(page, 0).getByText('The lamp is lit and the kettle is on.').waitFor();
    chatId = await waitFor(() => page.evaluate(() => window.__HEARTH__.api.chat.current()?.chatId), 'the chat to open');
    const wren = (await must(page, 'characters.list')).find((c) => c.name === 'Wren');
    assert.deepEqual((await must(page, 'chat.list', { avatar: wren.avatar })).map((c) => c.chatId), [chatId]);

    // The probe on; the broken two installed off (turned on later), their storage a neighbour's to guard.
    const probeEntry = await must(page, 'extensions.install', { path: join(root, 'ext-probe') }, { enable: true });
    assert.equal(probeEntry.status, 'active');
    assert.deepEqual(probeEntry.granted, ['chat.read', 'notify']);
    await must(page, 'extensions.install', { path: join(root, 'ext-throws') });
    await must(page, 'extensions.install', { path: join(root, 'ext-hangs') });
    await must(page, 'extensions.storage.set', 'secret', 'kept by broken-throws', { extensionId: 'broken-throws' });
    await activated();
  });

  after(() => {
    rmSync(root, { recursive: true, force: true });
    assert.deepEqual(page?.errors ?? [], [], 'uncaught errors in the page');
  });

  it('reads through its grant and is refused everything else', async () => {
    const consoleLines = [];
    const onConsole = (m) => consoleLines.push(m.text());
    page.on('console', onConsole);
    const r = await probe(
      'count',
      'characterCreate',
      'stateSet',
      'addMessage',
      'extensionsList',
      'extensionsInstall',
      'extensionsGrant',
      'otherStorage',
      'otherStorageSet',
      'fetchInvoke',
      'parentDocument',
      'parentHearth',
    );
    assert.deepEqual(r.count, { ok: true, value: await must(page, 'chat.count', chatId) });
    assert.equal(r.count.value, 1);
    denied(r.characterCreate, 'characters.write');
    denied(r.stateSet, 'state');
    denied(r.addMessage, 'chat.write');
    // Management is no permission's: refused whatever the grant.
    for (const [op, method] of [
      ['extensionsList', 'extensions.list'],
      ['extensionsInstall', 'extensions.install'],
      ['extensionsGrant', 'extensions.grant'],
    ]) {
      denied(r[op], null);
      assert.equal(r[op].message, `no extension may call ${method}`);
    }
    // Its own namespace, whatever extensionId it names.
    assert.deepEqual(r.otherStorage, { ok: true, value: null });
    assert.equal(r.otherStorageSet.ok, true);
    assert.equal(await storage('secret', 'broken-throws'), 'kept by broken-throws');
    assert.equal(await storage('secret', 'probe'), 'written by the probe');
    // The frame's CSP has connect-src 'none': not even the app's own API.
    assert.equal(r.fetchInvoke.ok, false, JSON.stringify(r.fetchInvoke));
    assert.equal(r.fetchInvoke.name, 'TypeError', JSON.stringify(r.fetchInvoke));
    page.off('console', onConsole);
    assert.ok(
      consoleLines.some((l) => /^Connecting to '[^']*\/api\/invoke' violates .*"connect-src 'none'"/.test(l)),
      `the CSP refused the fetch: ${JSON.stringify(consoleLines)}`,
    );
    // An opaque origin: the window's DOM and globals are out of reach.
    for (const op of ['parentDocument', 'parentHearth']) {
      assert.equal(r[op].ok, false, `${op}: ${JSON.stringify(r[op])}`);
      assert.equal(r[op].name, 'SecurityError', `${op}: ${JSON.stringify(r[op])}`);
    }
    // Nothing it tried left a trace.
    const names = (await must(page, 'characters.list')).map((c) => c.name);
    assert.deepEqual(names, ['Wren']);
    assert.equal(await must(page, 'chat.count', chatId), 1);
    assert.equal(await must(page, 'state.getChatState', chatId, 'probe'), null);
    assert.deepEqual((await entry('probe')).granted, ['chat.read', 'notify']);
  });

  it('cannot navigate the window it runs in', async (t) => {
    const navigations = [];
    const onNav = (f) => f === page.mainFrame() && navigations.push(f.url());
    page.on('framenavigated', onNav);
    const url = page.url();
    const r = await probe('topNavigation');
    t.diagnostic(`window.top.location.href = … in the frame: ${JSON.stringify(r.topNavigation)}`);
    // A later round trip through the same frame: a navigation it started would have begun by then.
    assert.equal((await probe('count')).count.ok, true);
    page.off('framenavigated', onNav);
    assert.deepEqual(navigations, []);
    assert.equal(page.url(), url);
    assert.equal(await page.evaluate(() => window.__HEARTH__.api.chat.current()?.chatId), chatId);
    await page.getByRole('textbox', { name: 'Message' }).fill('still here');
    await page.getByRole('textbox', { name: 'Message' }).fill('');
  });

  it('feels a revoke on its next call, and a grant back', async () => {
    await must(page, 'extensions.revoke', 'probe', ['chat.read']);
    denied((await probe('count')).count, 'chat.read');
    await must(page, 'extensions.grant', 'probe', ['chat.read']);
    assert.deepEqual((await probe('count')).count, { ok: true, value: 1 });
  });

  it('hears only the events its grant covers', async () => {
    const base = (await received()).length;
    // CHAT_STATE_CHANGED needs state, CHARACTER_CREATED characters.read: neither is the probe's.
    await must(page, 'state.setChatState', chatId, 'e2e', { mood: 'calm' });
    await must(page, 'characters.create', { name: 'Sable', first_mes: 'Hm.' });
    await must(page, 'chat.addMessages', chatId, [{ is_user: true, name: 'User', mes: 'One the probe may read.' }]);
    await waitFor(async () => (await received()).length > base, 'MESSAGE_SENT to reach the probe');
    await settle(300);
    assert.deepEqual((await received()).slice(base), [{ event: 'MESSAGE_SENT', text: 'One the probe may read.' }]);

    // Revoked: a message sent meanwhile never reaches it; granted back, the next one does.
    await must(page, 'extensions.revoke', 'probe', ['chat.read']);
    await must(page, 'chat.addMessages', chatId, [{ is_user: true, name: 'User', mes: 'One it may not.' }]);
    await must(page, 'extensions.grant', 'probe', ['chat.read']);
    await must(page, 'chat.addMessages', chatId, [{ is_user: true, name: 'User', mes: 'One it may again.' }]);
    await waitFor(async () => (await received()).length > base + 1, 'the next MESSAGE_SENT to reach the probe');
    await settle(300);
    assert.deepEqual((await received()).slice(base + 1), [{ event: 'MESSAGE_SENT', text: 'One it may again.' }]);
  });

  it('is held to its storage quota, keeping what it stored before', async () => {
    const r = await probe('quota');
    assert.equal(r.quota.ok, false);
    assert.equal(r.quota.code, 'extension.quota_exceeded', JSON.stringify(r.quota));
    const first = await page.evaluate(async () => {
      const v = await window.__HEARTH__.api.extensions.storage.get('big1', { extensionId: 'probe' });
      return typeof v === 'string' ? { length: v.length, xs: /^x*$/.test(v) } : v;
    });
    assert.deepEqual(first, { length: 6 << 20, xs: true });
    assert.equal(await storage('big2'), null);
    await must(page, 'extensions.storage.delete', 'big1', { extensionId: 'probe' });
  });

  it('marks a throwing and a hanging extension failed, and the app goes on', async () => {
    const started = Date.now();
    await must(page, 'extensions.enable', 'broken-throws');
    await must(page, 'extensions.enable', 'broken-hangs');
    const failed = (id) =>
      waitFor(async () => {
        const e = await entry(id);
        return e.status === 'failed' ? { ...e, after: Date.now() - started } : null;
      }, `${id} to be marked failed`);
    const [throws, hangs] = await Promise.all([failed('broken-throws'), failed('broken-hangs')]);
    assert.equal(throws.error, 'its activate hook (brokenActivate) failed: the probe broke on purpose');
    assert.equal(hangs.error, 'its activate hook (brokenActivate) did not finish within 5 s');
    assert.ok(hangs.after >= 5000, `the hang was given its 5 s (${hangs.after} ms)`);
    assert.equal(await page.locator('iframe[data-extension^="broken-"]').count(), 0);
    await page.getByText(/The extension Broken \(throws\) stopped/).first().waitFor();
    await page.getByText(/The extension Broken \(hangs\) stopped/).first().waitFor();

    // The app works: the chat opens from the list, the composer takes text, the probe still answers.
    await page.getByRole('option', { name: /Wren/ }).click();
    await messageRow(page, 0).getByText('The lamp is lit and the kettle is on.').waitFor();
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.fill('not sent');
    assert.equal(await box.inputValue(), 'not sent');
    await box.fill('');
    assert.equal((await probe('count')).count.ok, true);

    // A fresh load starts: the failed ones stay off, the probe runs again.
    const before = (await storage('activated')).at;
    await page.reload();
    await page.waitForFunction(() => typeof window.__HEARTH__ === 'object' && window.__HEARTH__ !== null);
    await page.evaluate(() => window.__HEARTH__.ready);
    await page.getByRole('button', { name: 'New character' }).waitFor();
    await activated(before, page, 'the probe to activate after the reload');
    assert.equal(await page.locator('iframe[data-extension^="broken-"]').count(), 0);
    assert.equal((await entry('broken-hangs')).status, 'failed');
    await must(page, 'chat.select', chatId);
    await messageRow(page, 0).getByText('The lamp is lit and the kettle is on.').waitFor();
  });

  it('runs nothing in safe mode, and starts the frame on leaving it', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'hearth-sandbox-safe-'));
    try {
      // A library where the probe is installed and on, then the same folder started with --safe-mode.
      const first = await startHearth(['--library-root', root], { dataDir });
      try {
        assert.equal((await first.invoke('extensions.install', { path: join(root, 'ext-probe') }, { enable: true })).status, 'active');
      } finally {
        await first.stop();
      }
      const safe = await startHearth(['--safe-mode', '--library-root', root], { dataDir });
      try {
        const context = await env.browser.newContext({ viewport: { width: 1280, height: 800 } });
        const requested = [];
        context.on('request', (req) => new URL(req.url()).pathname.startsWith('/ext/') && requested.push(req.url()));
        const p = await openApp(context, safe.url);
        assert.deepEqual(await must(p, 'extensions.safeMode'), { active: true, atStart: false, flag: true });
        const off = await entry('probe', p);
        assert.equal(off.enabled, true);
        assert.equal(off.status, 'disabled');
        assert.equal(off.error, SAFE_MODE_REASON);
        for (const file of ['index.html', 'manifest.json', 'probe.js']) {
          assert.equal((await fetch(`${safe.url}/ext/probe/${file}`)).status, 404, `/ext/probe/${file} in safe mode`);
        }
        // The page read the list above; a frame it would start comes right after that read.
        await settle(300);
        assert.equal(await p.locator('iframe[src^="/ext/"]').count(), 0);
        assert.deepEqual(requested, []);

        await must(p, 'extensions.setSafeMode', { active: false });
        const frame = p.locator('iframe[data-extension="probe"]');
        await frame.waitFor({ state: 'attached' });
        assert.equal(await frame.getAttribute('src'), '/ext/probe/index.html');
        await activated(0, p, 'the probe to activate once safe mode is left');
        assert.equal((await entry('probe', p)).status, 'active');
        // 203: the entry document as served (its policy and the frame client put in), not the file.
        assert.equal((await fetch(`${safe.url}/ext/probe/index.html`)).status, 203);
        assert.deepEqual(p.errors, []);
        await context.close();
      } finally {
        await safe.stop();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('shows the docs example: a word count panel from the chat header', async () => {
    const wc = await must(page, 'extensions.install', { path: join(root, 'word-count') }, { enable: true });
    assert.equal(wc.status, 'active');
    await must(page, 'chat.addMessages', chatId, [{ is_user: false, name: 'Wren', mes: 'Seven words are in this very reply.' }]);
    /** expected is what the panel should say of the chat the window shows. */
    const expected = (p) =>
      p.evaluate(() => {
        const chat = window.__HEARTH__.getContext().chat;
        const words = chat.reduce((n, m) => n + (String(m.mes ?? '').match(/\S+/g) || []).length, 0);
        return `${chat.length} messages, ${words} words.`;
      });
    await page.getByRole('button', { name: 'Word count (extension panel)' }).click();
    await page.getByRole('complementary', { name: 'Word count, an extension panel' }).waitFor();
    const now = page.frameLocator('iframe[data-extension="word-count"]').locator('#now');
    const want = await expected(page);
    // The greeting, three messages of the events step, and the reply above.
    assert.match(want, /^5 messages, \d+ words\.$/);
    await waitFor(async () => (await now.textContent()) === want, `the panel to say "${want}"`);
    // It follows the chat.
    await must(page, 'chat.addMessages', chatId, [{ is_user: true, name: 'User', mes: 'Two more.' }]);
    const next = await waitFor(async () => {
      const w = await expected(page);
      return w.startsWith('6 messages') ? w : null;
    }, 'the window to show the new message');
    await waitFor(async () => (await now.textContent()) === next, `the panel to say "${next}"`);
    await screenshot(page, 'extensions-sandbox-word-count');

    // The page's colour scheme is the window's (dark), which the frame client gives it.
    const schemes = {
      window: await page.evaluate(() => getComputedStyle(document.documentElement).colorScheme),
      panel: await now.evaluate((el) => getComputedStyle(el.ownerDocument.documentElement).colorScheme),
    };
    assert.deepEqual(schemes, { window: 'dark', panel: 'dark' });

    const context = await env.browser.newContext(PHONE);
    // The phone is in the light theme: the panel's page follows it.
    const phone = await openApp(context, env.server.url, { viewport: PHONE.viewport, theme: 'light' });
    await must(phone, 'chat.select', chatId);
    await phone.getByRole('button', { name: 'Word count (extension panel)' }).tap();
    await phone.getByRole('dialog', { name: 'Word count, an extension panel' }).waitFor();
    const phoneNow = phone.frameLocator('iframe[data-extension="word-count"]').locator('#now');
    await waitFor(async () => (await phoneNow.textContent()) === next, `the phone's panel to say "${next}"`);
    assert.equal(await phoneNow.evaluate((el) => getComputedStyle(el.ownerDocument.documentElement).colorScheme), 'light');
    await screenshot(phone, 'extensions-sandbox-word-count-phone');
    assert.deepEqual(phone.errors, []);
    await context.close();
  });

  it('refuses bad packages and installs nothing', async () => {
    const list = await must(page, 'extensions.list');
    const installed = tree(join(env.server.dataDir, 'extensions')).filter((f) => !f.startsWith('.staging/'));
    const data = tree(env.server.dataDir);
    const manifest = (extra = {}) =>
      JSON.stringify({ display_name: 'Bad', ...extra, hearth: { id: 'bad', mode: 'sandboxed', entry: 'index.html', permissions: ['chat.read'], ...extra.hearth } });
    const deep = `{"display_name":"Deep","hearth":{"id":"deep","mode":"sandboxed","entry":"index.html"},"x":${'['.repeat(100)}${']'.repeat(100)}}`;
    const cases = [
      ['zip slip', { 'manifest.json': manifest(), 'index.html': '<p>bad</p>', '../../evil.js': 'alert(1)' }, 'extension.invalid_package', 'file', '../../evil.js'],
      ['unknown permission', { 'manifest.json': manifest({ hearth: { permissions: ['chat.read', 'mind.control'] } }), 'index.html': '<p>bad</p>' }, 'extension.invalid_manifest', 'field', 'hearth.permissions[1]'],
      ['deep manifest', { 'manifest.json': deep, 'index.html': '<p>deep</p>' }, 'extension.invalid_manifest', 'field', 'manifest.json'],
    ];
    for (const [name, files, code, key, names] of cases) {
      const r = await call(page, 'extensions.install', { fileName: `${name.replace(/ /g, '-')}.zip`, base64: zip(files).toString('base64') }, { enable: true });
      assert.equal(r.ok, false, `${name} installed`);
      assert.equal(r.code, code, `${name}: ${r.code}: ${r.message}`);
      assert.equal(r.details?.[key], names, `${name} names ${JSON.stringify(r.details)}`);
    }
    assert.deepEqual(await must(page, 'extensions.list'), list);
    assert.deepEqual(
      tree(join(env.server.dataDir, 'extensions')).filter((f) => !f.startsWith('.staging/')),
      installed,
    );
    assert.deepEqual(
      tree(env.server.dataDir).filter((f) => /evil/.test(f)),
      data.filter((f) => /evil/.test(f)),
    );
  });
});
