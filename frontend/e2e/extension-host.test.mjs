// Sandboxed extensions in a real browser: three packages installed through
// api.extensions run in <iframe sandbox="allow-scripts"> frames, talk to the
// window through the frame client (/ext-runtime/frame.js) and the bridge, and
// show a panel beside the chat (a sheet on a phone).
// The server serves each package at /ext/<id>/<path> with the frame client's
// script first in <head>, under the frame's CSP.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openApp, screenshot, useHearth, waitFor } from './harness.mjs';

const root = mkdtempSync(join(tmpdir(), 'hearth-ext-e2e-'));

const PACKAGES = {
  mood: {
    'manifest.json': JSON.stringify({
      display_name: 'Mood tracker',
      version: '1.0.0',
      hooks: { activate: 'startMood' },
      hearth: { id: 'mood', mode: 'sandboxed', entry: 'index.html', permissions: ['chat.read', 'ui.panel', 'notify'], panel: { title: 'Mood', icon: 'icon.svg' } },
    }),
    'index.html': `<!doctype html><html><head><meta charset="utf-8"><link rel="stylesheet" href="style.css"><script src="mood.js"></script></head>
<body><h1>How it feels</h1><p id="count">…</p><ol id="log"></ol>
<button id="save">Save mood</button> <button id="grant">Ask for more</button><p id="denied"></p></body></html>`,
    'style.css': `:root { color-scheme: dark; font: 14px/1.45 system-ui, sans-serif; }
body { margin: 0; padding: 14px 16px; color: #e8e2da; background: transparent; }
h1 { margin: 0 0 8px; font-size: 16px; } ol { padding-left: 20px; color: #c9c1b6; }
button { font: inherit; padding: 6px 12px; border: 1px solid #6b5a48; border-radius: 8px; background: #2c241d; color: #f0e6da; }
#denied { color: #f0a08a; font-size: 12px; }`,
    'icon.svg': '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><circle cx="12" cy="12" r="10" fill="#e0a458"/><circle cx="9" cy="10" r="1.4" fill="#3a2a1a"/><circle cx="15" cy="10" r="1.4" fill="#3a2a1a"/><path d="M8 15c2 2 6 2 8 0" stroke="#3a2a1a" stroke-width="1.6" fill="none" stroke-linecap="round"/></svg>',
    'mood.js': `async function startMood(hearth) {
  const { api } = hearth;
  const count = document.getElementById('count');
  const log = document.getElementById('log');
  async function show() {
    const cur = await api.chat.current();
    count.textContent = cur ? (await api.chat.count(cur.chatId)) + ' messages in this chat' : 'No chat open';
  }
  for (const t of [api.events.types.MESSAGE_SENT, api.events.types.MESSAGE_RECEIVED]) {
    api.events.on(t, (p) => {
      const li = document.createElement('li');
      li.textContent = p.message.content;
      log.append(li);
      void show();
    });
  }
  api.events.on(api.events.types.CHAT_CHANGED, () => void show());
  document.getElementById('save').addEventListener('click', async () => {
    await api.extensions.storage.set('mood', 'calm', { extensionId: 'watcher' });
    await hearth.ui.notify('Mood saved: calm');
  });
  document.getElementById('grant').addEventListener('click', () =>
    api.extensions.grant('mood', ['agent']).catch((e) => (document.getElementById('denied').textContent = e.name + ' ' + e.code + ': ' + e.message)),
  );
  await show();
  document.body.dataset.ready = hearth.extension.id + ':' + hearth.extension.permissions.join(',');
}`,
  },
  watcher: {
    'manifest.json': JSON.stringify({
      display_name: 'Watcher',
      hearth: { id: 'watcher', mode: 'sandboxed', entry: 'index.html', permissions: ['chat.read', 'notify'] },
    }),
    'index.html': '<!doctype html><html><head><script src="watch.js"></script></head><body></body></html>',
    'watch.js': `__HEARTH__.ready.then(() => {
  const { api } = __HEARTH__;
  api.events.on(api.events.types.MESSAGE_SENT, (p) => void __HEARTH__.ui.notify('Watcher saw: ' + p.message.content));
});`,
  },
  blind: {
    'manifest.json': JSON.stringify({
      display_name: 'Blind',
      hooks: { activate: 'listen' },
      hearth: { id: 'blind', mode: 'sandboxed', entry: 'index.html', permissions: ['state'] },
    }),
    'index.html': '<!doctype html><html><head><script src="blind.js"></script></head><body></body></html>',
    'blind.js': `let heard = 0;
async function listen(hearth) {
  const { api } = hearth;
  await api.extensions.storage.set('heard', 0);
  for (const t of [api.events.types.MESSAGE_SENT, api.events.types.MESSAGE_RECEIVED]) {
    api.events.on(t, () => void api.extensions.storage.set('heard', ++heard));
  }
  const denied = await api.chat.getMessages('x').catch((e) => e.code);
  await api.extensions.storage.set('denied', denied);
}`,
  },
  slowpoke: {
    'manifest.json': JSON.stringify({
      display_name: 'Slowpoke',
      hooks: { activate: 'neverDone' },
      hearth: { id: 'slowpoke', mode: 'sandboxed', entry: 'index.html', permissions: [] },
    }),
    'index.html': '<!doctype html><html><head><script src="slow.js"></script></head><body></body></html>',
    'slow.js': 'function neverDone() { return new Promise(() => {}); }',
  },
};

let chatId;
let page;

describe('sandboxed extensions', () => {
  const env = useHearth({ before, after, args: ['--library-root', root] });

  before(async () => {
    for (const [id, files] of Object.entries(PACKAGES)) {
      const dir = join(root, id);
      mkdirSync(dir, { recursive: true });
      for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    }
    for (const id of Object.keys(PACKAGES)) await env.server.invoke('extensions.install', { path: join(root, id) }, { enable: true });
    const card = await env.server.invoke('characters.create', { name: 'Juniper', first_mes: 'The kettle is on.' });
    chatId = (await env.server.invoke('chat.create', { avatar: card.avatar })).chatId;
    const context = await env.browser.newContext({ viewport: { width: 1280, height: 800 } });
    page = await openApp(context, env.server.url);
    await page.getByRole('option', { name: /Juniper/ }).click();
    await waitFor(() => page.evaluate((id) => window.__HEARTH__.api.chat.current()?.chatId === id, chatId), 'the chat to open');
  });

  after(() => {
    rmSync(root, { recursive: true, force: true });
    assert.deepEqual(page?.errors ?? [], [], 'uncaught errors in the page');
  });

  it('runs each frame sandboxed to scripts alone, hidden unless it has a panel', async () => {
    await waitFor(() => page.locator('iframe[data-extension]').count().then((n) => n >= 3), 'the frames');
    const frames = await page.$$eval('iframe[data-extension]', (els) =>
      els.map((f) => ({ id: f.dataset.extension, sandbox: f.getAttribute('sandbox'), referrer: f.getAttribute('referrerpolicy'), src: f.getAttribute('src'), inPanel: !!f.closest('aside') })),
    );
    const byId = Object.fromEntries(frames.map((f) => [f.id, f]));
    for (const f of frames) {
      assert.equal(f.sandbox, 'allow-scripts', `${f.id}'s sandbox`);
      assert.equal(f.referrer, 'no-referrer');
    }
    assert.equal(byId.mood.src, '/ext/mood/index.html');
    assert.equal(byId.mood.inPanel, true);
    assert.equal(byId.watcher.inPanel, false);
    // The frame's page has an opaque origin: the app's storage and DOM are out of its reach.
    const probe = await page.frameLocator('iframe[data-extension="watcher"]').locator('body').evaluate(() => {
      let storage = 'readable';
      try {
        void localStorage.length;
      } catch {
        storage = 'refused';
      }
      let parentDom = 'readable';
      try {
        void window.parent.document.title;
      } catch {
        parentDom = 'refused';
      }
      return { origin: window.origin, storage, parentDom };
    });
    assert.deepEqual(probe, { origin: 'null', storage: 'refused', parentDom: 'refused' });
  });

  it('opens the panel from the chat header; its page reads the chat through its grant', async () => {
    await page.getByRole('button', { name: 'Mood (extension panel)' }).click();
    const panel = page.getByRole('complementary', { name: 'Mood, an extension panel' });
    await panel.waitFor();
    const frame = page.frameLocator('iframe[data-extension="mood"]');
    await waitFor(() => frame.locator('body').getAttribute('data-ready'), 'the mood panel to activate');
    assert.equal(await frame.locator('body').getAttribute('data-ready'), 'mood:chat.read,ui.panel,notify');
    await waitFor(async () => (await frame.locator('#count').textContent()) === '1 messages in this chat', 'the message count');
    await env.server.invoke('chat.addMessages', chatId, [{ is_user: true, name: 'User', mes: 'I feel calm today.' }]);
    await frame.locator('li', { hasText: 'I feel calm today.' }).waitFor();
    await waitFor(async () => (await frame.locator('#count').textContent()) === '2 messages in this chat', 'the new count');
    await screenshot(page, 'extension-host-panel');
  });

  it('refuses what the grant does not cover, with auth.denied, and keeps storage to the extension', async () => {
    const frame = page.frameLocator('iframe[data-extension="mood"]');
    await frame.locator('#grant').click();
    await waitFor(() => frame.locator('#denied').textContent(), 'the refusal');
    assert.match(await frame.locator('#denied').textContent(), /^HostError auth\.denied: no extension may call extensions\.grant/);
    await frame.locator('#save').click();
    await page.getByText('Mood tracker: Mood saved: calm').waitFor();
    assert.equal(await env.server.invoke('extensions.storage.get', 'mood', { extensionId: 'mood' }), 'calm');
    assert.equal(await env.server.invoke('extensions.storage.get', 'mood', { extensionId: 'watcher' }), null);
    assert.equal((await env.server.invoke('extensions.list')).find((e) => e.id === 'mood').granted.includes('agent'), false);
  });

  it('delivers message events only to frames granted chat.read', async () => {
    await env.server.invoke('chat.addMessages', chatId, [{ is_user: true, name: 'User', mes: 'Anyone there?' }]);
    await page.getByText('Watcher: Watcher saw: Anyone there?').waitFor();
    assert.equal(await env.server.invoke('extensions.storage.get', 'heard', { extensionId: 'blind' }), 0);
    assert.equal(await env.server.invoke('extensions.storage.get', 'denied', { extensionId: 'blind' }), 'auth.denied');
  });

  it('marks an extension whose activate hook never finishes as failed, and removes its frame', async () => {
    const slow = await waitFor(async () => {
      const e = (await env.server.invoke('extensions.list')).find((x) => x.id === 'slowpoke');
      return e.status === 'failed' ? e : null;
    }, 'slowpoke to be marked failed');
    assert.equal(slow.error, 'its activate hook (neverDone) did not finish within 5 s');
    assert.equal(await page.locator('iframe[data-extension="slowpoke"]').count(), 0);
    await page.getByText(/The extension Slowpoke stopped/).first().waitFor();
    await screenshot(page, 'extension-host-failed');
  });

  it('takes a frame away when its extension is turned off, and back when on', async () => {
    await env.server.invoke('extensions.disable', 'watcher');
    await waitFor(() => page.locator('iframe[data-extension="watcher"]').count().then((n) => n === 0), 'the watcher frame to go');
    await env.server.invoke('extensions.enable', 'watcher');
    await waitFor(() => page.locator('iframe[data-extension="watcher"]').count().then((n) => n === 1), 'the watcher frame to come back');
  });

  it('shows the panel as a full-screen sheet on a phone', async () => {
    const context = await env.browser.newContext({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });
    const phone = await openApp(context, env.server.url);
    await phone.evaluate((id) => window.__HEARTH__.api.chat.select(id), chatId);
    await phone.getByRole('button', { name: 'Mood (extension panel)' }).tap();
    const sheet = phone.getByRole('dialog', { name: 'Mood, an extension panel' });
    await sheet.waitFor();
    await waitFor(() => phone.frameLocator('iframe[data-extension="mood"]').locator('body').getAttribute('data-ready'), 'the panel to activate');
    const box = await sheet.boundingBox();
    assert.ok(box && box.width >= 389 && box.height >= 800, `the sheet fills the screen (${JSON.stringify(box)})`);
    const close = phone.getByRole('button', { name: 'Close the extension panel' });
    const cb = await close.boundingBox();
    assert.ok(cb && cb.width >= 44 && cb.height >= 44, 'a 44 px close button');
    await screenshot(phone, 'extension-host-phone');
    await close.tap();
    await sheet.waitFor({ state: 'hidden' });
    assert.deepEqual(phone.errors, []);
    await context.close();
  });
});
