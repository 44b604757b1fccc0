// Calls that wait on one another, from real Chromium tabs. A browser opens at
// most six HTTP/1.1 connections to a host across all its tabs, and an
// updateChatState round can wait on the round that holds its namespace's
// lease; over plain HTTP, forty such rounds in flight stalled a page until the
// lease expired. The page's calls travel on its event socket instead, so:
// 2 tabs × 40 and 6 tabs × 20 concurrent increments of one chat's state end
// at exactly 80 and 120, every round ok; and one tab holding a long
// generate.run (its model stalled) still gets 50 other calls answered.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DEADLINE_MS, openApp, useHearth, waitFor } from './harness.mjs';
import { scriptedModel } from './scripted-model.mjs';

describe('calls that wait on one another, from several tabs', () => {
  const env = useHearth({ before, after });
  let avatar;
  let context;
  const pages = [];

  /** tabs opens n more tabs of one browser (one connection pool, as tabs share) and returns the first n. */
  async function tabs(n) {
    while (pages.length < n) pages.push(await openApp(context, env.server.url));
    return pages.slice(0, n);
  }

  /** increments runs `writers` concurrent updateChatState increments in each page, all at once; resolves to each page's results. */
  const increments = (list, chatId, writers) =>
    Promise.all(
      list.map((p) =>
        p.evaluate(
          async ({ chatId, writers, deadline }) => {
            const ctx = window.__HEARTH__.getContext();
            const rounds = Array.from({ length: writers }, () => ctx.updateChatState('counter', (s) => ({ n: (s.n ?? 0) + 1 }), { target: chatId }));
            // A stall fails the test instead of hanging it.
            const stalled = new Promise((resolve) => setTimeout(() => resolve('stalled'), deadline));
            const done = await Promise.race([Promise.all(rounds), stalled]);
            return done === 'stalled' ? done : done.map((r) => r.ok);
          },
          { chatId, writers, deadline: DEADLINE_MS },
        ),
      ),
    );

  before(async () => {
    avatar = (await env.server.invoke('characters.create', { name: 'Ada', first_mes: 'Hi.' })).avatar;
    context = await env.browser.newContext({ viewport: { width: 1280, height: 800 } });
  });

  after(async () => {
    for (const p of pages) assert.deepEqual(p.errors, [], 'uncaught errors in a tab');
    await context?.close();
  });

  for (const [n, writers] of [
    [2, 40],
    [6, 20],
  ]) {
    it(`${n} tabs × ${writers} concurrent updateChatState increments end at exactly ${n * writers}, all ok`, async () => {
      const { chatId } = await env.server.invoke('chat.create', { avatar });
      const list = await tabs(n);
      const started = Date.now();
      const results = await increments(list, chatId, writers);
      console.log(`# metric: ${n} tabs × ${writers} increments in ${Date.now() - started} ms`);
      assert.ok(!results.includes('stalled'), `a tab's rounds stalled for ${DEADLINE_MS} ms`);
      assert.deepEqual(
        results.map((r) => r.filter((ok) => ok).length),
        list.map(() => writers),
        'every round ok',
      );
      const state = await env.server.invoke('state.getChatState', chatId, 'counter');
      assert.deepEqual(state.value, { n: n * writers });
    });
  }

  it('a long generate.run and 50 other calls in flight from one tab all complete', async () => {
    const llm = await scriptedModel();
    try {
      const conn = await env.server.invoke('connections.save', { name: 'Scripted', provider: 'openai-compatible', baseUrl: llm.url, model: 'scripted', apiKey: 'sk-e2e' });
      await env.server.invoke('connections.select', conn.id);
      const { chatId } = await env.server.invoke('chat.create', { avatar });
      const [page] = await tabs(1);
      llm.next({ text: ['A long ', 'and patient ', 'answer.'], delayMs: 20, stallAt: 1 });
      await page.evaluate((chatId) => {
        window.__run = window.__HEARTH__.api.generate.run({ chatId }).then(
          (r) => ({ text: r.text }),
          (err) => ({ error: `${err.code}: ${err.message}` }),
        );
      }, chatId);
      await llm.stalled();
      const answered = await page.evaluate(async (chatId) => {
        const h = window.__HEARTH__;
        const calls = Array.from({ length: 50 }, (_, i) => {
          switch (i % 5) {
            case 0:
              return h.api.characters.list();
            case 1:
              return h.api.chat.get(chatId);
            case 2:
              return h.api.state.getChatState(chatId, `other-${i}`);
            case 3:
              return h.api.generate.status();
            default:
              return h.getContext().updateChatState(`ns-${i}`, () => ({ i }), { target: chatId });
          }
        });
        return (await Promise.allSettled(calls)).filter((r) => r.status === 'fulfilled').length;
      }, chatId);
      assert.equal(answered, 50, 'every call answered while the generation ran');
      assert.equal(await page.evaluate(() => Promise.race([window.__run, new Promise((r) => setTimeout(() => r('pending'), 100))])), 'pending', 'the run is still going');
      llm.release();
      const run = await waitFor(() => page.evaluate(() => Promise.race([window.__run, null])), 'the run to end');
      assert.deepEqual(run, { text: 'A long and patient answer.' });
    } finally {
      llm.reset();
      await new Promise((r) => llm.server.close(r));
    }
  });
});
