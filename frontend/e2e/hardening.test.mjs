// Regression tests for the security review and start-up defects (issue
// "Hardening"), against a real `hearth serve` in Chromium: message HTML
// that navigates (image maps, SVG links) stays in its policy, inline CSS
// that would fetch is dropped by parsing (escapes and image-set included),
// the served CSP allows no foreign WebSocket, a card nested thousands of
// levels deep is refused, and a script's select at start-up is never
// replaced by the window's own restore of the last chat, nor leaves the
// window loading when it selects the chat being restored and ends first.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { messageRow, openApp, pageUrl, pngImage, tapCalls, useHearth, waitFor } from './harness.mjs';

/** startSentinel is a loopback server that records every request it gets: only a link a person follows may reach it. */
async function startSentinel() {
  const hits = [];
  const server = createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    // A page, not 204: a new tab commits only a navigation that has one.
    res.writeHead(200, { 'Content-Type': 'text/html' }).end('<!doctype html><title>elsewhere</title><p>elsewhere</p>');
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return { url: `http://127.0.0.1:${port}`, hits, close: () => new Promise((r) => server.close(r)) };
}

const frames = (page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));

describe('message HTML that navigates or fetches', () => {
  const env = useHearth({ before, after });
  let page;
  let sentinel;
  let chatId;

  before(async () => {
    sentinel = await startSentinel();
    const card = await env.server.invoke('characters.create', { name: 'Mapmaker', first_mes: 'Hello.' });
    chatId = (await env.server.invoke('chat.create', { avatar: card.avatar })).chatId;
    page = await openApp(env.browser, env.server.url);
    await page.getByRole('option', { name: /Mapmaker/ }).click();
    await messageRow(page, 0).getByText('Hello.').waitFor();
  });

  after(async () => {
    assert.deepEqual(page?.errors ?? [], [], 'uncaught errors in the page');
    await sentinel?.close();
  });

  it('sends an image map region and an SVG link to a new, opener-less tab, never this window', async () => {
    const png = (await pngImage(80, 40)).toString('base64');
    const target = `${sentinel.url}/navigated`;
    // DOMPurify prefixes the map's name with "user-content-"; an attacker
    // who knows it points usemap at the prefixed name.
    await env.server.invoke('chat.addMessages', chatId, {
      mes:
        `<img alt="map" src="data:image/png;base64,${png}" usemap="#user-content-m" width="80" height="40">` +
        `<map name="m"><area shape="rect" coords="0,0,80,40" href="${target}?area" alt="region"></map> ` +
        `<svg width="60" height="30"><a href="${target}?svg"><rect width="60" height="30" fill="red"></rect></a></svg>`,
    });
    const row = messageRow(page, 1);
    await row.locator('map area').waitFor({ state: 'attached' });
    const attrs = await row.evaluate((el) =>
      [...el.querySelectorAll('area, svg a')].map((a) => ({ tag: a.tagName, target: a.getAttribute('target'), rel: a.getAttribute('rel') })),
    );
    assert.deepEqual(attrs, [
      { tag: 'AREA', target: '_blank', rel: 'noopener noreferrer nofollow' },
      { tag: 'a', target: '_blank', rel: 'noopener noreferrer nofollow' },
    ]);

    const before = page.url();
    const popups = [];
    const opened = (n) => waitFor(() => popups.length >= n && popups[n - 1], `tab ${n} to open`);
    page.context().on('page', (p) => popups.push(p));
    await row.locator('img[alt="map"]').click({ position: { x: 20, y: 20 } });
    const areaTab = await opened(1);
    await row.locator('svg rect').click();
    const svgTab = await opened(2);
    for (const [tab, url] of [
      [areaTab, `${target}?area`],
      [svgTab, `${target}?svg`],
    ]) {
      await waitFor(() => tab.url() === url, `the new tab to load ${url} (at ${tab.url()})`);
      assert.equal(await tab.evaluate(() => window.opener), null, `${url} opened without an opener`);
      await tab.close();
    }
    await frames(page);
    assert.equal(page.url(), before, 'the app window stayed on the app');
    const pages = sentinel.hits.filter((h) => h !== 'GET /favicon.ico').sort(); // the new tabs ask for an icon too
    assert.deepEqual(pages, ['GET /navigated?area', 'GET /navigated?svg'], 'only the new tabs reached the link targets');
    sentinel.hits.length = 0;
  });

  it('drops inline CSS that fetches, however it is spelled, and keeps the rest', async () => {
    const beacon = `${sentinel.url}/beacon`;
    await env.server.invoke('chat.addMessages', chatId, {
      mes:
        `<div title="esc" style="background:u\\72l(${beacon}?escaped); color: rgb(200, 10, 10)">escaped url</div>` +
        `<div title="set" style="background-image:image-set('${beacon}?set' 1x); font-weight: bold">image-set</div>` +
        `<div title="wk" style="background-image:-webkit-image-set(url(${beacon}?wk) 1x); font-style: italic">webkit</div>` +
        `<div title="pos" style="position:fixed; inset:0; z-index:9999; text-align:center">overlay</div>` +
        `<div title="var" style="--x: url(${beacon}?var); background-image: var(--x)">custom property</div>` +
        `<div title="grad" style="background-image: linear-gradient(90deg, red, blue); border-radius: 6px">gradient</div>`,
    });
    const row = messageRow(page, 2);
    await row.getByText('gradient').waitFor();
    await frames(page);
    // (DOMPurify prefixes ids, so the divs are keyed by title.)
    const styles = await row.evaluate((el) => Object.fromEntries([...el.querySelectorAll('.md div')].map((d) => [d.title, d.getAttribute('style')])));
    for (const [id, style] of Object.entries(styles)) {
      assert.doesNotMatch(style ?? '', /url\(|image-set|(^|[\s;])(position|z-index|inset|--x)\s*:|var\(/i, `${id} kept ${style}`);
    }
    assert.match(styles.esc, /color: rgb\(200, 10, 10\)/);
    assert.match(styles.set, /font-weight: bold/);
    assert.match(styles.wk, /font-style: italic/);
    assert.match(styles.pos, /text-align: center/);
    assert.equal(styles.var, null);
    assert.match(styles.grad, /linear-gradient/);
    const computed = await row.evaluate((el) => getComputedStyle(el.querySelector('[title="pos"]')).position);
    assert.equal(computed, 'static');
    assert.deepEqual(sentinel.hits, []);
  });

  it('has no policy that allows a WebSocket to any host', async () => {
    const res = await fetch(`${env.server.url}/`);
    const header = res.headers.get('content-security-policy') ?? '';
    const metas = await page.evaluate(() => [...document.querySelectorAll('meta[http-equiv="Content-Security-Policy" i]')].map((m) => m.content));
    for (const csp of [header, ...metas]) {
      const connect = /connect-src ([^;]*)/.exec(csp)?.[1];
      if (connect === undefined) continue;
      assert.doesNotMatch(connect, /(^|\s)(ws|wss):(\s|$)/, `no scheme-wide ws:/wss: source in ${csp}`);
    }
    assert.match(header, /connect-src 'self'/);
    const blocked = await page.evaluate(
      (port) =>
        new Promise((resolve) => {
          document.addEventListener('securitypolicyviolation', (e) => resolve(e.blockedURI), { once: true });
          try {
            new WebSocket(`ws://127.0.0.1:${port}/`);
          } catch (err) {
            resolve(`threw ${err.name}`);
          }
        }),
      new URL(sentinel.url).port,
    );
    assert.match(blocked, /ws:\/\/127\.0\.0\.1|threw SecurityError/);
    assert.deepEqual(sentinel.hits, []);
  });
});

describe('a card nested deeper than the limit', () => {
  const env = useHearth({ before, after });

  it('is refused with validation.invalid_argument and stored nowhere; the window still starts', async () => {
    let deep = '1';
    for (let i = 0; i < 9000; i++) deep = `{"d":${deep}}`;
    const res = await fetch(`${env.server.url}/api/invoke`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${env.server.token}` },
      body: `{"method":"characters.create","args":[{"name":"Abyss","extensions":${deep}}]}`,
    });
    const body = await res.json();
    assert.equal(body.error?.code, 'validation.invalid_argument');
    assert.equal(body.error?.details?.maxDepth, 64);
    assert.deepEqual(await env.server.invoke('characters.list'), []);
    const page = await openApp(env.browser, env.server.url);
    assert.deepEqual(page.errors, []);
    await page.context().close();
  });
});

describe('a script selecting a chat as the window starts', () => {
  const env = useHearth({ before, after });

  it('wins over the window restoring the last chat, ten times in a row', async () => {
    const card = await env.server.invoke('characters.create', { name: 'Restorer', first_mes: 'Greetings.' });
    const remembered = await env.server.invoke('chat.create', { avatar: card.avatar }, { fileName: 'Remembered' });
    const wanted = await env.server.invoke('chat.create', { avatar: card.avatar }, { fileName: 'Wanted' });
    const context = await env.browser.newContext({ viewport: { width: 1280, height: 800 } });
    // Make "Remembered" the chat this browser opens on its own at start-up.
    const first = await openApp(context, env.server.url);
    await first.getByRole('option', { name: /Restorer/ }).click();
    await first.getByRole('button', { name: /^Remembered/ }).click();
    await waitFor(() => first.evaluate((id) => window.__HEARTH__.api.chat.current()?.chatId === id, remembered.chatId), 'the remembered chat to open');
    await first.close();

    await context.addInitScript((chatId) => {
      const started = setInterval(() => {
        if (!window.__HEARTH__) return;
        clearInterval(started);
        window.__select = window.__HEARTH__.ready
          .then(() => window.__HEARTH__.api.chat.select(chatId))
          .then(
            () => 'resolved',
            (err) => `${err.code}: ${err.message}`,
          );
      }, 0);
    }, wanted.chatId);

    for (let round = 1; round <= 10; round++) {
      const page = await context.newPage();
      page.errors = [];
      page.on('pageerror', (err) => page.errors.push(err));
      await page.goto(pageUrl(env.server.url));
      await waitFor(() => page.evaluate(() => window.__select !== undefined), `round ${round}: the script's select to start`);
      assert.equal(await page.evaluate(() => window.__select), 'resolved', `round ${round}: select() outcome`);
      // The window's own start-up has run to its end: the character's chats
      // are listed and the restore (which must yield) has been attempted.
      await page.getByRole('button', { name: /^Remembered/ }).waitFor();
      await waitFor(
        () => page.evaluate(() => document.querySelector('[aria-current="true"]')?.textContent?.includes('Wanted')),
        `round ${round}: the chat list to mark the selected chat`,
      );
      await frames(page);
      assert.equal(await page.evaluate(() => window.__HEARTH__.api.chat.current()?.chatId), wanted.chatId, `round ${round}: current chat`);
      assert.equal(await page.evaluate(() => window.__HEARTH__.getContext().getCurrentChatId()), 'Wanted', `round ${round}: getContext()`);
      await messageRow(page, 0).getByText('Greetings.').waitFor();
      assert.deepEqual(page.errors, [], `round ${round}: page errors`);
      await page.close();
    }
    await context.close();
  });

  it('of the chat the window is restoring, and done first, leaves that chat open and usable', async () => {
    const card = await env.server.invoke('characters.create', { name: 'Overtaken', first_mes: 'Opened twice.' });
    await env.server.invoke('chat.create', { avatar: card.avatar });
    const context = await env.browser.newContext({ viewport: { width: 1280, height: 800 } });
    // Hold the window's own first chat.get (its restore at start-up) until
    // the script's select() of that same chat has finished, so the script's
    // calls overtake the window's.
    let restoring;
    const restored = new Promise((r) => (restoring = r));
    let release;
    const released = new Promise((r) => (release = r));
    let held = false;
    const calls = await tapCalls(context);
    calls.tap({
      async before(call) {
        if (call?.method === 'chat.get' && !held) {
          held = true;
          restoring(call.args[0]);
          await released;
        }
      },
    });
    const page = await openApp(context, env.server.url);
    const chatId = await restored;
    assert.equal(await page.evaluate((id) => window.__HEARTH__.api.chat.select(id).then(() => 'resolved'), chatId), 'resolved');
    release();
    // The window's select() now hears it was replaced: the chat it shows is
    // complete, so it is no longer loading and the composer's menu works.
    await waitFor(() => page.getByRole('button', { name: 'Reply actions' }).isEnabled(), 'the reply menu to be enabled');
    assert.doesNotMatch(await page.locator('header .status').innerText(), /Loading|Opening/);
    assert.equal(await page.evaluate(() => window.__HEARTH__.api.chat.current()?.chatId), chatId);
    await messageRow(page, 0).waitFor();
    assert.deepEqual(page.errors, []);
    await context.close();
  });
});
