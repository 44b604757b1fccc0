// Generation through the UI against a real `hearth serve` and a scripted
// OpenAI-compatible server on loopback that streams SSE chunks with small
// delays (reasoning in delta.reasoning_content) and can stall until the
// test lets it go: send → tokens stream into a live row (reasoning folded
// as "Thinking…") → the reply lands; Stop mid-stream keeps the partial
// text; › on the last reply's last swipe generates a second swipe;
// Regenerate (a new swipe of the last reply) and Continue from the
// composer's menu (keyboard); a 401 shows a toast and writes nothing; a
// page closed mid-reply and opened again shows the whole reply. Also the Author's Note dialog (metadata
// keys, and the note in the inspected prompt), the prompt inspector
// (token parts, a prompt that does not fit) and a phone. Screenshots of
// streaming with reasoning open, the inspector and the Author's Note at
// 1280×800 and 390×844. Last, a reply streamed into a 10,000-message chat,
// its longest main-thread task printed (never asserted, as in bigchat).
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { messages } from './chatgen.mjs';
import { messageRow, openApp, pageUrl, screenshot, useHearth, waitFor } from './harness.mjs';
import { scriptedModel } from './scripted-model.mjs';

const PHONE = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true };
const chatOf = (page) =>
  page.evaluate(() => window.__HEARTH__.getContext().chat.map((m) => ({ mes: m.mes, is_user: m.is_user, swipes: m.swipes.length, swipe_id: m.swipe_id, reasoning: m.extra?.reasoning ?? null })));

describe('generation in the UI', () => {
  const env = useHearth({ before, after });
  let page;
  let llm;
  let chatId;
  const liveRow = () => page.locator('article[aria-label$=" is replying"]');

  before(async () => {
    llm = await scriptedModel();
    const card = await env.server.invoke('characters.create', { name: 'Wren', description: 'Wren keeps the lighthouse.', first_mes: 'The lamp is lit, {{user}}.' });
    chatId = (await env.server.invoke('chat.create', { avatar: card.avatar })).chatId;
    const conn = await env.server.invoke('connections.save', { name: 'Scripted', provider: 'openai-compatible', baseUrl: llm.url, model: 'scripted', apiKey: 'sk-e2e' });
    await env.server.invoke('connections.select', conn.id);
    page = await openApp(env.browser, env.server.url);
    await page.evaluate((id) => window.__HEARTH__.api.chat.select(id), chatId);
    await messageRow(page, 0).waitFor();
  });

  // A test that fails half-way leaves its scripts queued and perhaps a
  // reply being written, which the next test would get: each test starts
  // with neither.
  afterEach(async () => {
    llm.reset();
    await waitFor(async () => !(await env.server.invoke('generate.status')).generating, 'the reply to end');
  });

  after(async () => {
    llm?.release();
    await new Promise((r) => llm?.server.close(r) ?? r());
    assert.deepEqual(page?.errors ?? [], [], 'uncaught errors in the page');
  });

  it('streams a reply with its reasoning into a live row, then shows the committed message', async () => {
    const reasoning = ['The keeper asks', ' about the storm.', ' I should answer', ' calmly and in character.'];
    const text = ['The storm ', 'is still ', 'far out ', 'at sea.\n\n', 'We have ', 'until ', 'midnight.'];
    llm.next({ reasoning, text, delayMs: 60, stallAt: 5 });
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.fill('Is the storm close?');
    await box.press('Enter');

    await liveRow().waitFor();
    await page.getByRole('button', { name: 'Stop generating' }).waitFor();
    const thinking = liveRow().locator('summary').filter({ hasText: /Thinking…|Thought for/ });
    await thinking.waitFor();
    await llm.stalled();
    await waitFor(async () => /We have/.test(await liveRow().innerText()), 'the first tokens in the live row');
    const partial = await liveRow().locator('.body').innerText();
    assert.match(partial, /The storm is still far out at sea\./);
    assert.doesNotMatch(partial, /midnight/, 'the text streams: the end has not arrived yet');
    await thinking.click();
    await liveRow().getByText('I should answer calmly and in character.').waitFor();
    assert.equal(await messageRow(page, 2).count(), 0, 'no committed reply yet');
    await page.mouse.move(0, 0);
    await screenshot(page, 'generate-streaming-desktop');

    llm.release();
    await messageRow(page, 2).getByText('We have until midnight.').waitFor();
    await liveRow().waitFor({ state: 'detached' });
    const chat = await chatOf(page);
    assert.equal(chat.length, 3);
    assert.deepEqual(chat[1], { mes: 'Is the storm close?', is_user: true, swipes: 1, swipe_id: 0, reasoning: null });
    assert.equal(chat[2].mes, 'The storm is still far out at sea.\n\nWe have until midnight.');
    assert.equal(chat[2].reasoning, reasoning.join(''));
    await messageRow(page, 2).locator('summary').filter({ hasText: /Thought for \d/ }).waitFor();
    await page.getByRole('button', { name: 'Send message' }).waitFor();
    // The prompt carried the card and the user's message.
    const sent = llm.requests.at(-1).messages.map((m) => (typeof m.content === 'string' ? m.content : '')).join('\n');
    assert.match(sent, /Wren keeps the lighthouse\./);
    assert.match(sent, /Is the storm close\?/);
  });

  it('Stop keeps the text that streamed so far', async () => {
    llm.next({ text: ['Hold ', 'the ', 'rail ', 'tight', ' and never let go.'], delayMs: 40, stallAt: 3 });
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.fill('What now?');
    await box.press('Enter');
    await llm.stalled();
    await waitFor(async () => /Hold the rail/.test(await liveRow().innerText()), 'the partial text in the live row');
    await page.getByRole('button', { name: 'Stop generating' }).click();
    await messageRow(page, 4).getByText('Hold the rail').waitFor();
    await liveRow().waitFor({ state: 'detached' });
    const chat = await chatOf(page);
    assert.equal(chat.length, 5);
    assert.equal(chat[4].mes, 'Hold the rail');
    assert.equal(chat[4].is_user, false);
    await page.getByRole('button', { name: 'Send message' }).waitFor();
    llm.release();
  });

  it('› on the last reply’s last swipe generates a second swipe', async () => {
    llm.next({ text: ['A second ', 'answer.'], delayMs: 30 });
    const swipes = messageRow(page, 4).getByRole('group', { name: 'Swipes' });
    await swipes.getByText('1/1').waitFor();
    const next = swipes.getByRole('button', { name: 'Next swipe' });
    assert.equal(await next.getAttribute('title'), 'Generate a new swipe');
    await next.click();
    // The counter shows the swipe being written at once: 2/2 before it lands.
    await swipes.getByText('2/2').waitFor();
    await waitFor(async () => (await chatOf(page))[4].swipes === 2, 'the second swipe in getContext().chat');
    await messageRow(page, 4).getByText('A second answer.').waitFor();
    const chat = await chatOf(page);
    assert.equal(chat.length, 5);
    assert.deepEqual({ mes: chat[4].mes, swipes: chat[4].swipes, swipe_id: chat[4].swipe_id }, { mes: 'A second answer.', swipes: 2, swipe_id: 1 });
    // ‹ goes back to the stopped reply without generating.
    const before = llm.requests.length;
    await swipes.getByRole('button', { name: 'Previous swipe' }).click();
    await swipes.getByText('1/2').waitFor();
    assert.equal(llm.requests.length, before);
  });

  it('Regenerate writes a new version of the last reply, Continue extends it', async () => {
    llm.next({ text: ['Hold on, ', 'the tide ', 'is turning.'], delayMs: 40, stallAt: 2 });
    await page.getByRole('button', { name: 'Reply actions' }).click();
    await page.getByRole('menuitem', { name: /Regenerate/ }).click();
    await llm.stalled();
    // The new version streams into the reply, counted as its third swipe; the earlier two stay.
    await waitFor(async () => /the tide/.test(await messageRow(page, 4).innerText()), 'the regenerated text streaming');
    await messageRow(page, 4).getByRole('group', { name: 'Swipes' }).getByText('3/3').waitFor();
    assert.equal(await liveRow().count(), 0, 'no row of its own: the reply gets a new version');
    llm.release();
    await waitFor(async () => (await chatOf(page))[4].swipes === 3, 'the new version in getContext().chat');
    await messageRow(page, 4).getByText('Hold on, the tide is turning.').waitFor();
    let chat = await chatOf(page);
    assert.equal(chat.length, 5);
    assert.deepEqual({ mes: chat[4].mes, swipes: chat[4].swipes, swipe_id: chat[4].swipe_id }, { mes: 'Hold on, the tide is turning.', swipes: 3, swipe_id: 2 });

    llm.next({ text: [' Then ', 'the bell ', 'rings.'], delayMs: 40, stallAt: 2 });
    await page.getByRole('button', { name: 'Reply actions' }).press('ArrowDown');
    await page.getByRole('menuitem', { name: /Continue/ }).press('Enter');
    await llm.stalled();
    await waitFor(async () => /turning\. Then the bell/.test(await messageRow(page, 4).innerText()), 'the continuation streaming into the message');
    llm.release();
    await waitFor(async () => (await chatOf(page))[4].mes === 'Hold on, the tide is turning. Then the bell rings.', 'the continued message');
    chat = await chatOf(page);
    assert.equal(chat.length, 5);
  });

  it('a refused key shows a toast and writes nothing', async () => {
    const before = await env.server.invoke('chat.getStMessages', chatId);
    llm.next({ status: 401, message: 'Incorrect API key provided' });
    await page.getByRole('button', { name: 'Reply actions' }).click();
    await page.getByRole('menuitem', { name: /Regenerate/ }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'refused the API key' });
    await alert.waitFor();
    assert.doesNotMatch(await alert.innerText(), /model\.auth_failed/, 'the code is folded under Details');
    await alert.getByText('Details', { exact: true }).click();
    await alert.getByText('model.auth_failed', { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Send message' }).waitFor();
    assert.deepEqual(await env.server.invoke('chat.getStMessages', chatId), before, 'the chat is unchanged');
    assert.equal(await liveRow().count(), 0);
    await alert.getByRole('button', { name: 'Dismiss' }).click();
  });

  it('a page closed mid-reply shows the whole reply when opened again', async () => {
    const text = Array.from({ length: 24 }, (_, i) => `word${i} `);
    llm.next({ text, delayMs: 120 });
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.fill('Tell me a long story.');
    await box.press('Enter');
    await waitFor(async () => /word1/.test(await liveRow().innerText()), 'the reply to start streaming');
    const context = page.context();
    await page.close();

    page = await openApp(context, env.server.url);
    await page.evaluate((id) => window.__HEARTH__.api.chat.select(id), chatId);
    // Back while the model still streams: the reply shows as being written, then lands whole.
    await liveRow().or(messageRow(page, 6)).first().waitFor();
    const full = text.join('').trim();
    await waitFor(async () => (await chatOf(page))[6]?.mes === full, 'the whole reply in getContext().chat');
    await messageRow(page, 6).getByText('word23').waitFor();
    await liveRow().waitFor({ state: 'detached' });
    assert.deepEqual((await env.server.invoke('chat.getStMessages', chatId)).at(-1).mes, full);
  });

  it('edits the Author’s Note in chat metadata, and the prompt carries it', async () => {
    await page.getByRole('button', { name: "Author's Note" }).click();
    const dialog = page.getByRole('dialog', { name: "Author's Note" });
    const note = dialog.getByLabel('Note');
    await note.waitFor();
    assert.equal(await dialog.getByLabel('Insert every').inputValue(), '1');
    assert.equal(await dialog.getByLabel('Depth').inputValue(), '4');
    await note.fill('[Keep replies under fifty words. Mention the lamp.]');
    await dialog.getByLabel('Depth').fill('2');
    await dialog.getByLabel('Role').selectOption({ label: 'User' });
    await screenshot(page, 'generate-author-note-desktop');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'hidden' });
    const meta = await page.evaluate((id) => window.__HEARTH__.api.chat.getMetadata(id), chatId);
    assert.deepEqual(
      { p: meta.note_prompt, i: meta.note_interval, d: meta.note_depth, pos: meta.note_position, r: meta.note_role },
      { p: '[Keep replies under fifty words. Mention the lamp.]', i: 1, d: 2, pos: 1, r: 1 },
    );
    assert.equal(await page.getByRole('button', { name: "Author's Note" }).getAttribute('class').then((c) => /active/.test(c)), true, 'the header marks a set note');
  });

  it('inspects the prompt: parts with token counts, the messages, copy as JSON', async () => {
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
    await page.getByRole('button', { name: 'Inspect prompt' }).click();
    const dialog = page.getByRole('dialog', { name: 'Prompt inspector' });
    await dialog.getByRole('region', { name: 'Token budget' }).waitFor();
    const dry = await page.evaluate((id) => window.__HEARTH__.api.generate.dryRun({ chatId: id, type: 'normal' }), chatId);
    const budget = dialog.getByRole('region', { name: 'Token budget' });
    assert.match(await budget.innerText(), new RegExp(`${dry.tokenCounts.total.toLocaleString('en-US')}\\s+of\\s+${dry.tokenCounts.budget.toLocaleString('en-US')} tokens`));
    const rows = dialog.getByRole('region', { name: 'Tokens per part' }).locator('tbody tr');
    assert.equal(await rows.count(), dry.tokenCounts.parts.length);
    const history = dry.tokenCounts.parts.find((p) => p.source === 'chatHistory');
    assert.ok(history, 'a chat history part');
    assert.match(await rows.filter({ hasText: 'Chat history' }).innerText(), new RegExp(history.tokens.toLocaleString('en-US')));
    const items = dialog.getByRole('region', { name: 'Messages' }).getByRole('listitem');
    assert.equal(await items.count(), dry.chatCompletionPayload.messages.length);
    await items.filter({ hasText: "Author's Note" }).filter({ hasText: 'Mention the lamp.' }).waitFor();
    await screenshot(page, 'generate-inspector-desktop');

    await dialog.getByRole('button', { name: 'Copy JSON' }).click();
    await page.getByRole('status').filter({ hasText: 'Copied the request as JSON' }).waitFor();
    const copied = JSON.parse(await page.evaluate(() => navigator.clipboard.readText()));
    assert.deepEqual(copied.messages, dry.chatCompletionPayload.messages);
    await dialog.getByRole('button', { name: 'Close' }).click();
    await dialog.waitFor({ state: 'hidden' });
  });

  it('the inspector explains a prompt that does not fit', async () => {
    const tiny = await page.evaluate(() => window.__HEARTH__.api.presets.save({ name: 'Tiny', maxContext: 512, sampling: { maxTokens: 500 } }));
    await page.evaluate((id) => window.__HEARTH__.api.presets.select(id), tiny.id);
    try {
      await page.getByRole('button', { name: 'Inspect prompt' }).click();
      const dialog = page.getByRole('dialog', { name: 'Prompt inspector' });
      const error = dialog.getByRole('alert');
      await error.waitFor();
      const shown = await error.innerText();
      assert.match(shown, /does not fit the context size/);
      assert.match(shown, /prompt\.too_large/);
      assert.match(shown, /"budget": 12/);
      await screenshot(page, 'generate-inspector-too-large');
      await dialog.getByRole('button', { name: 'Close' }).click();
    } finally {
      await page.evaluate(() => window.__HEARTH__.api.presets.select(null));
    }
  });

  it('on a phone: streaming with reasoning open, the inspector and the Author’s Note fit the screen', async () => {
    const context = await env.browser.newContext({ ...PHONE, reducedMotion: 'reduce' });
    await context.addInitScript(() => localStorage.setItem('hearth.theme', 'dark'));
    const phone = await context.newPage();
    phone.errors = [];
    phone.on('pageerror', (err) => phone.errors.push(err));
    try {
      await phone.goto(pageUrl(env.server.url));
      await phone.waitForFunction(() => typeof window.__HEARTH__ === 'object' && window.__HEARTH__ !== null);
      await phone.evaluate(() => window.__HEARTH__.ready);
      await phone.evaluate((id) => window.__HEARTH__.api.chat.select(id), chatId);
      const box = phone.getByRole('textbox', { name: 'Message' });
      await box.waitFor();
      llm.next({ reasoning: ['Short question,', ' short answer.'], text: ['The lamp ', 'turns ', 'all night.'], delayMs: 40, stallAt: 2 });
      await box.fill('Does the lamp turn?');
      await phone.getByRole('button', { name: 'Send message' }).tap();
      const live = phone.locator('article[aria-label="Wren is replying"]');
      await llm.stalled();
      await waitFor(async () => /turns/.test(await live.innerText()), 'the live row on the phone');
      await live.locator('summary').tap();
      await live.getByText('Short question, short answer.').waitFor();
      const stop = phone.getByRole('button', { name: 'Stop generating' });
      const sb = await stop.boundingBox();
      assert.ok(sb.width >= 43.5 && sb.height >= 43.5, `Stop is ${sb.width}×${sb.height}`);
      await screenshot(phone, 'generate-streaming-phone');
      llm.release();
      await live.waitFor({ state: 'detached' });
      await phone.getByRole('region', { name: 'Chat' }).getByText('The lamp turns all night.').waitFor();

      for (const [button, title, shot] of [
        ['Inspect prompt', 'Prompt inspector', 'generate-inspector-phone'],
        ["Author's Note", "Author's Note", 'generate-author-note-phone'],
      ]) {
        await phone.getByRole('button', { name: button }).tap();
        const dialog = phone.getByRole('dialog', { name: title });
        await dialog.getByRole('button', { name: /Close|Cancel/ }).first().waitFor();
        await (title === 'Prompt inspector' ? dialog.getByRole('region', { name: 'Token budget' }) : dialog.getByLabel('Note')).waitFor();
        const d = await dialog.boundingBox();
        assert.ok(d.x >= 0 && d.x + d.width <= 390, `${title} fits the screen: ${JSON.stringify(d)}`);
        const sideways = await phone.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
        assert.equal(sideways, 0, 'no sideways scrolling');
        await screenshot(phone, shot);
        await dialog.getByRole('button', { name: /Close|Cancel/ }).first().tap();
        await dialog.waitFor({ state: 'hidden' });
      }
      assert.deepEqual(phone.errors, [], 'uncaught errors on the phone');
    } finally {
      await context.close();
    }
  });

  it('delivers each streamed chunk to the page as its own event', async () => {
    // Chunks 100 ms apart (wider than the backend's coalescing window), each
    // the Unix time the model server wrote it; the page's handler subtracts
    // it from its own clock: provider chunk → handler, over the WebSocket.
    const chatId = await page.evaluate(() => window.__HEARTH__.api.chat.current().chatId);
    const clock = () => ` ${(performance.timeOrigin + performance.now()).toFixed(3)}`;
    llm.next({ text: Array.from({ length: 20 }, () => clock), delayMs: 100 });
    await page.evaluate((id) => {
      const h = window.__HEARTH__;
      window.__lat = [];
      window.__offLat = h.api.events.on(h.api.events.types.STREAM_TOKEN_RECEIVED, (p) => {
        const at = performance.timeOrigin + performance.now();
        if (p.chatId === id) for (const m of String(p.text).matchAll(/\d{13}\.\d{3}/g)) window.__lat.push(at - Number(m[0]));
      });
    }, chatId);
    await page.evaluate((id) => window.__HEARTH__.api.generate.run({ chatId: id, type: 'quiet', quietPrompt: 'Tell the time.' }), chatId);
    await waitFor(() => page.evaluate(() => window.__lat.length === 20), 'all 20 timed chunks at the handler');
    const lat = await page.evaluate(() => {
      window.__offLat();
      return window.__lat.slice().sort((a, b) => a - b);
    });
    console.log(`# metric: provider chunk → STREAM_TOKEN_RECEIVED handler over the WebSocket: median ${lat[10].toFixed(2)} ms, p90 ${lat[18].toFixed(2)} ms, longest ${lat[19].toFixed(2)} ms`);
  });

  it('streams into a 10,000-message chat without re-rendering the list', async () => {
    const TOTAL = 10_000;
    const card = await env.server.invoke('characters.create', { name: 'Cleo', first_mes: 'A long story begins, {{user}}.' });
    const big = (await env.server.invoke('chat.create', { avatar: card.avatar })).chatId;
    const msgs = messages(TOTAL - 1, { firstIsUser: true, charName: 'Cleo' });
    for (let i = 0; i < msgs.length; i += 500) await env.server.invoke('chat.addMessages', big, msgs.slice(i, i + 500), { silent: true });
    await page.evaluate((id) => window.__HEARTH__.api.chat.select(id), big);
    await waitFor(() => page.evaluate((n) => window.__HEARTH__.getContext().chat.length === n, TOTAL), 'the whole chat loaded');
    await page.waitForTimeout(500);
    // 320 deltas of Markdown prose, 10 ms apart (100 tokens a second); every 8th ends a paragraph.
    const text = Array.from({ length: 320 }, (_, i) => `*She* walks on and **on**, "word ${i}" by word ${i % 8 === 7 ? '\n\n' : ''}`);
    llm.next({ text, delayMs: 10 });
    await page.evaluate(() => {
      const seen = (window.__gen = { tasks: [], first: null, started: null, rows: [], added: 0, watching: false });
      new PerformanceObserver((list) => seen.tasks.push(...list.getEntries().map((e) => ({ at: e.startTime, ms: e.duration })))).observe({ type: 'longtask' });
      // Message rows (re)created while the deltas arrive: the list should not re-render.
      new MutationObserver((records) => {
        if (!seen.watching) return;
        for (const r of records) for (const n of r.addedNodes) if (n instanceof Element && n.querySelector?.('article[aria-label^="Message "]')) seen.added++;
      }).observe(document.querySelector('[role=log]'), { childList: true, subtree: true });
      const h = window.__HEARTH__;
      h.api.events.on(h.api.events.types.GENERATION_STARTED, () => (seen.started = performance.now()));
      h.api.events.on(h.api.events.types.MESSAGE_RECEIVED, () => (seen.committed ??= performance.now()));
      h.api.events.on(h.api.events.types.STREAM_TOKEN_RECEIVED, () => {
        seen.first ??= performance.now();
        seen.rows.push(document.querySelectorAll('[role=log] .row').length);
      });
    });
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.fill('Go on.');
    await box.press('Enter');
    await waitFor(async () => /word 40/.test(await liveRow().innerText().catch(() => '')), 'the reply to stream');
    await liveRow().evaluate((el) => {
      window.__gen.row = el;
      window.__gen.watching = true;
    });
    await waitFor(async () => /word 240/.test(await liveRow().innerText().catch(() => '')), 'most of the reply streamed');
    const kept = await liveRow().evaluate((el) => {
      window.__gen.watching = false;
      return el === window.__gen.row;
    });
    assert.ok(kept, 'the live row is the same element throughout');
    await messageRow(page, TOTAL + 1).getByText('word 319', { exact: false }).waitFor();
    const m = await page.evaluate(() => {
      const g = window.__gen;
      // Sending and committing re-key the whole list once each; between them only deltas arrive.
      const during = g.tasks.filter((t) => t.at > g.first && t.at + t.ms < g.committed);
      const longest = (ts) => Math.max(0, ...ts.map((t) => t.ms));
      return {
        rows: Math.max(...g.rows),
        added: g.added,
        longestDuring: longest(during),
        longTasksDuring: during.length,
        longestAtStart: longest(g.tasks.filter((t) => t.at <= g.first)),
        longestAtCommit: longest(g.tasks.filter((t) => t.at + t.ms >= g.committed)),
      };
    });
    console.log(`# metric: 10k chat streaming: longest task during deltas ${m.longestDuring.toFixed(0)} ms (${m.longTasksDuring} over 50 ms); at send ${m.longestAtStart.toFixed(0)} ms, at commit ${m.longestAtCommit.toFixed(0)} ms; rows in the DOM ≤ ${m.rows}`);
    assert.ok(m.rows < 80, `the list stays virtualized while streaming (${m.rows} rows)`);
    assert.equal(m.added, 0, 'no message row was re-created while the deltas arrived');
    await liveRow().waitFor({ state: 'detached' });
    const last = (await env.server.invoke('chat.getStMessages', big)).at(-1);
    assert.match(last.mes, /word 319/);
  });
});
