// A 10,000-message chat in the browser: it opens with the newest messages
// on screen while the rest loads in the background, getContext().chat is
// whole once CHAT_CHANGED fires, and the virtualized list scrolls all the
// way to the first message keeping only a screenful of rows in the DOM.
// Timings are printed, never asserted.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { messages } from './chatgen.mjs';
import { messageRow, openApp, screenshot, useHearth, waitFor } from './harness.mjs';

const TOTAL = 10_000;
const BATCH = 500;

describe('a 10,000-message chat', () => {
  const env = useHearth({ before, after });
  let page;
  let chatId;

  before(async () => {
    const started = Date.now();
    const card = await env.server.invoke('characters.create', { name: 'Cleo', first_mes: 'A long story begins, {{user}}.' });
    const chat = await env.server.invoke('chat.create', { avatar: card.avatar });
    chatId = chat.chatId;
    const msgs = messages(TOTAL - chat.messageCount, { firstIsUser: true, charName: 'Cleo' });
    for (let i = 0; i < msgs.length; i += BATCH) {
      await env.server.invoke('chat.addMessages', chatId, msgs.slice(i, i + BATCH), { silent: true });
    }
    assert.equal(await env.server.invoke('chat.count', chatId), TOTAL);
    console.log(`# metric: created the ${TOTAL}-message chat through /api/invoke in ${Date.now() - started} ms`);
    // A character without chats, created last: the UI lists the most recent
    // first and selects it on start, so the large chat is opened by the
    // test's click and not by the window on its own.
    await env.server.invoke('characters.create', { name: 'Aster' });
    page = await openApp(env.browser, env.server.url);
    await page.getByRole('option', { name: /Cleo/ }).waitFor();
    assert.equal(await page.evaluate(() => window.__HEARTH__.api.chat.current()), null, 'no chat is open before the click');
  });

  after(() => {
    assert.deepEqual(page?.errors ?? [], [], 'uncaught errors in the page');
  });

  it('opens with the tail visible, then fills getContext().chat before CHAT_CHANGED', async () => {
    await page.evaluate(() => {
      const h = window.__HEARTH__;
      const seen = (window.__e2e = { progress: [], changed: null, chatLength: null });
      h.api.events.on(h.api.events.types.CHAT_LOAD_PROGRESS, (p) => seen.progress.push({ start: p.start, total: p.total, at: performance.now() }));
      h.api.events.on(h.api.events.types.CHAT_CHANGED, (p) => {
        seen.changed = { chatId: p.chatId, at: performance.now() };
        seen.chatLength = h.getContext().chat.length;
      });
    });
    const t0 = await page.evaluate(() => performance.now());
    await page.getByRole('option', { name: /Cleo/ }).click();

    const last = messageRow(page, TOTAL - 1);
    await last.waitFor();
    await waitFor(
      () =>
        last.evaluate((el) => {
          const box = el.getBoundingClientRect();
          const view = el.closest('[role="log"]').getBoundingClientRect();
          return box.bottom > view.top && box.top < view.bottom;
        }),
      'the newest message inside the list viewport',
    );
    const tTail = await page.evaluate(() => performance.now());
    const midLoad = await page.evaluate(() => window.__e2e.changed === null);
    await screenshot(page, 'bigchat-tail');

    const seen = await waitFor(() => page.evaluate(() => (window.__e2e.changed ? window.__e2e : null)), 'CHAT_CHANGED', { timeout: 60_000 });
    assert.equal(seen.changed.chatId, chatId);
    assert.equal(seen.chatLength, TOTAL, 'getContext().chat is whole when CHAT_CHANGED fires');
    assert.equal(await page.evaluate(() => window.__HEARTH__.getContext().chat.length), TOTAL);
    assert.ok(seen.progress.length >= 2, 'the chat was loaded in pages');
    assert.equal(seen.progress[0].total, TOTAL);
    assert.ok(seen.progress[0].start > 0, 'the first page is the tail');
    assert.equal(seen.progress.at(-1).start, 0);
    const firstProgress = seen.progress[0].at - t0;
    console.log(
      `# metric: click→first CHAT_LOAD_PROGRESS ${firstProgress.toFixed(0)} ms, click→tail visible ${(tTail - t0).toFixed(0)} ms` +
        ` (still loading then: ${midLoad}), click→CHAT_CHANGED ${(seen.changed.at - t0).toFixed(0)} ms, ${seen.progress.length} pages`,
    );
  });

  it('scrolls to the first message through the virtualized list', async () => {
    const list = page.getByRole('log');
    await list.hover();
    const result = await page.evaluate(async () => {
      const scroller = document.querySelector('[role="log"]');
      const rowsInDom = () => scroller.querySelectorAll('article').length;
      let maxRows = rowsInDom();
      let maxGap = 0;
      let frames = 0;
      let last = performance.now();
      const started = last;
      const deadline = started + 120_000;
      const first = () => scroller.querySelector('article[aria-label^="Message 0 from "]');
      while (performance.now() < deadline) {
        await new Promise((r) => requestAnimationFrame(r));
        const now = performance.now();
        maxGap = Math.max(maxGap, now - last);
        last = now;
        frames++;
        maxRows = Math.max(maxRows, rowsInDom());
        if (scroller.scrollTop <= 0 && first()) break;
        scroller.scrollBy(0, -Math.max(16000, scroller.clientHeight * 20));
      }
      const row = first();
      const box = row?.getBoundingClientRect();
      const view = scroller.getBoundingClientRect();
      return {
        reachedTop: scroller.scrollTop <= 0,
        firstVisible: !!box && box.bottom > view.top && box.top < view.bottom,
        maxRows,
        frames,
        ms: performance.now() - started,
        maxGap,
        scrollHeight: scroller.scrollHeight,
      };
    });
    console.log(
      `# metric: scrolled ${result.scrollHeight} px to the top in ${result.frames} frames, ${result.ms.toFixed(0)} ms,` +
        ` longest frame ${result.maxGap.toFixed(0)} ms, at most ${result.maxRows} rows in the DOM`,
    );
    assert.equal(result.reachedTop, true, 'the list reached its top');
    assert.equal(result.firstVisible, true, 'message 0 is on screen');
    assert.ok(result.maxRows < 200, `the list stays virtualized (${result.maxRows} rows in the DOM at most)`);
    await messageRow(page, 0).getByText('A long story begins, User.').waitFor();
    await screenshot(page, 'bigchat-top');
    assert.equal(await page.evaluate(() => window.__HEARTH__.getContext().chat.length), TOTAL);
  });

  it('follows an api.chat.select typed into the console as it loads', async () => {
    await page.evaluate(() => window.__HEARTH__.api.chat.select(null));
    await page.getByText('Pick a character on the left').waitFor();
    const t0 = await page.evaluate((id) => {
      const h = window.__HEARTH__;
      const seen = (window.__e2e = { changed: null });
      h.api.events.on(h.api.events.types.CHAT_CHANGED, (p) => {
        if (p.chatId === id) seen.changed = performance.now();
      });
      const started = performance.now();
      h.api.chat.select(id).catch((err) => (seen.error = String(err)));
      return started;
    }, chatId);
    const last = messageRow(page, TOTAL - 1);
    await last.waitFor();
    const { at, midLoad } = await page.evaluate(() => ({ at: performance.now(), midLoad: window.__e2e.changed === null }));
    await page.getByText(`${TOTAL.toLocaleString('en-US')} messages`).waitFor();
    const seen = await page.evaluate(() => window.__e2e);
    assert.equal(seen.error, undefined);
    assert.ok(seen.changed, 'CHAT_CHANGED fired');
    assert.equal(await page.evaluate(() => window.__HEARTH__.getContext().chat.length), TOTAL);
    console.log(`# metric: console select→newest message rendered ${(at - t0).toFixed(0)} ms (still loading then: ${midLoad}), →CHAT_CHANGED ${(seen.changed - t0).toFixed(0)} ms`);
    await screenshot(page, 'bigchat-console-select');
  });
});
