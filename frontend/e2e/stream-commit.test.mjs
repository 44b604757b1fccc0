// Committing a streamed reply without a long task (issue 34): the live row
// renders a reply in blocks (lib/markdown-blocks) and the committed message
// renders in the same blocks, found in the cache, instead of rendering the
// whole reply's Markdown again in one task. Blocks are only correct if,
// joined, they are exactly the whole text rendered at once, sanitizer
// included; this file checks that in the real browser (the unit tests have
// no DOM, so no DOMPurify), against a reference renderer bundled here from
// lib/markdown.ts itself:
//
//  - every document of lib/testdata/markdown-docs.ts, and every prefix of
//    it at random chunk boundaries, renders in blocks exactly as whole,
//    as HTML and as DOM built block by block the way {@html} builds it;
//  - a long Markdown reply (about 14 KB: loose lists, fences with blank
//    lines split across chunks, a table, a quote, HTML spanning paragraphs)
//    streamed into a 10,000-message chat commits to a message whose HTML
//    is the whole render of the stored text; the longest main-thread task
//    from the first token until the committed message is in the DOM and
//    painted is printed as a metric (never asserted: timings are not test
//    results here);
//  - a reply defining link references, which renders whole, streamed in
//    small chunks, commits to the whole render too.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { build } from 'vite';
import { messages } from './chatgen.mjs';
import { messageRow, openApp, repoRoot, useHearth, waitFor } from './harness.mjs';
import { scriptedModel } from './scripted-model.mjs';

/** referenceBundle builds lib/markdown.ts and the test documents into a script that defines window.__md. */
async function referenceBundle() {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-md-'));
  try {
    const lib = join(repoRoot, 'frontend/src/ui/lib');
    const entry = join(dir, 'entry.ts');
    writeFileSync(entry, `export * from ${JSON.stringify(join(lib, 'markdown.ts'))};\nexport * as docs from ${JSON.stringify(join(lib, 'testdata/markdown-docs.ts'))};\n`);
    const out = await build({
      configFile: false,
      logLevel: 'silent',
      root: join(repoRoot, 'frontend'),
      build: { write: false, minify: false, lib: { entry, formats: ['iife'], name: '__md', fileName: () => 'md.js' } },
    });
    return (Array.isArray(out) ? out[0] : out).output[0].code;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A long reply of the kinds of Markdown a model writes, about 14 KB. */
function longReply() {
  const parts = [];
  for (let i = 0; i < 14; i++) {
    parts.push(`*She* walks on and **on**, "word ${i}" by word, past the <span style="color: #c96">lantern</span> and the ~~old~~ gate. `.repeat(4).trim());
    parts.push(`- first thing ${i}\n\n- second thing, *loose*\n\n  still the second\n\n- third\n    - nested ${i}\n    - nested again`);
    parts.push(`\`\`\`js\nfunction step${i}() {\n  let a = ${i};\n\n\n  return a * 2; // "quoted" *not em*\n}\n\`\`\``);
    parts.push(`> A quote that runs on,\n> over two lines.\n>\n> And a second paragraph ${i}.`);
    parts.push(`| turn | who | what |\n|---|:-:|---|\n| ${i} | Cleo | *walks* |\n| ${i + 1} | Ada | **waits** |`);
    parts.push(`<details><summary>Notes ${i}</summary>\n\n1. one\n\n2. two\n\n</details>`);
    parts.push(`Setext title ${i}\n---\n\n"Dialogue ${i}," she said. “Curly ${i},” he answered. https://example.com/${i} and <b>bold</b>.`);
  }
  return parts.join('\n\n');
}

/**
 * chunk cuts text into pieces of 1 to max characters at seeded random
 * offsets, and also inside every code fence marker and between the two
 * line ends of every blank line, so fences and paragraph ends arrive split.
 */
function chunk(text, max, seed) {
  let s = seed;
  const rand = () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
  const cuts = new Set();
  for (let at = 0; at < text.length; ) cuts.add((at += 1 + Math.floor(rand() * max)));
  for (const m of text.matchAll(/```|\n\n/g)) cuts.add(m.index + 1);
  const ends = [...cuts].filter((c) => c < text.length).sort((a, b) => a - b);
  return [0, ...ends].map((from, i) => text.slice(from, ends[i] ?? text.length));
}

describe('stream commit', () => {
  const env = useHearth({ before, after });
  let page;
  let llm;
  let md;

  before(async () => {
    [llm, md] = await Promise.all([scriptedModel(), referenceBundle()]);
    const conn = await env.server.invoke('connections.save', { name: 'Scripted', provider: 'openai-compatible', baseUrl: llm.url, model: 'scripted', apiKey: 'sk-e2e' });
    await env.server.invoke('connections.select', conn.id);
    page = await openApp(env.browser, env.server.url);
    await page.evaluate(md);
  });

  afterEach(async () => {
    llm.reset();
    await waitFor(async () => !(await env.server.invoke('generate.status')).generating, 'the reply to end');
  });

  after(async () => {
    llm?.release();
    await new Promise((r) => llm?.server.close(r) ?? r());
    assert.deepEqual(page?.errors ?? [], [], 'uncaught errors in the page');
  });

  it('renders tricky Markdown in blocks exactly as whole, sanitized, at every chunk boundary', async () => {
    const failures = await page.evaluate(() => {
      const { browserPurifier, createMarkdown, docs } = window.__md;
      const md = createMarkdown(browserPurifier());
      const reference = createMarkdown(browserPurifier());
      /** dom builds HTML pieces the way {@html} does, each parsed on its own, and serializes the result. */
      const dom = (pieces) => {
        const div = document.createElement('div');
        for (const html of pieces) {
          const t = document.createElement('template');
          t.innerHTML = html;
          div.append(t.content);
        }
        return div.innerHTML;
      };
      const bad = [];
      const check = (name, text) => {
        const whole = reference.renderWhole(text);
        const blocks = md.renderBlocks(text).map((b) => b.html);
        if (blocks.join('') !== whole) bad.push({ name, text, why: 'HTML', blocks, whole });
        else if (dom(blocks) !== dom([whole])) bad.push({ name, text, why: 'DOM', blocks: dom(blocks), whole: dom([whole]) });
      };
      const rand = docs.rng(34);
      for (const [name, doc] of Object.entries(docs.TRICKY)) {
        check(name, doc);
        for (let round = 0; round < 4; round++) {
          for (let at = 0; at < doc.length; ) {
            at = Math.min(doc.length, at + 1 + Math.floor(rand() * (round % 2 ? 30 : 3)));
            check(`${name} at ${at}`, doc.slice(0, at));
          }
        }
        // Committed: the whole text from the blocks its stream rendered.
        if (md.render(doc) !== reference.renderWhole(doc)) bad.push({ name, text: doc, why: 'joined', whole: reference.renderWhole(doc), joined: md.render(doc) });
      }
      for (let d = 0; d < 100; d++) {
        const doc = docs.randomDocument(rand);
        for (let at = 0; at < doc.length; ) {
          at = Math.min(doc.length, at + 1 + Math.floor(rand() * 8));
          check(`random ${d} at ${at}`, doc.slice(0, at));
        }
      }
      return bad.slice(0, 3);
    });
    assert.deepEqual(failures, []);
  });

  /** stream sends a message, streams reply in chunks into the open chat, and measures until the committed row is painted. */
  async function stream(reply, chunks, index) {
    llm.next({ text: chunks, delayMs: 10 });
    await page.evaluate(() => {
      const seen = (window.__commit = { tasks: [], first: null, received: null, inDom: null, painted: null });
      const obs = new PerformanceObserver((list) => seen.tasks.push(...list.getEntries().map((e) => ({ at: e.startTime, ms: e.duration }))));
      obs.observe({ type: 'longtask' });
      seen.stop = () => obs.disconnect();
      const h = window.__HEARTH__;
      const offs = [
        h.api.events.on(h.api.events.types.STREAM_TOKEN_RECEIVED, () => (seen.first ??= performance.now())),
        h.api.events.on(h.api.events.types.MESSAGE_RECEIVED, () => (seen.received ??= performance.now())),
      ];
      seen.off = () => offs.forEach((off) => off());
    });
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.fill('Go on.');
    await box.press('Enter');
    await page.evaluate((i) => {
      const seen = window.__commit;
      const log = document.querySelector('[role=log]');
      return new Promise((resolve) => {
        const found = () => log.querySelector(`article[aria-label^="Message ${i} from "]`);
        const done = () => {
          seen.inDom = performance.now();
          requestAnimationFrame(() => requestAnimationFrame(() => {
            seen.painted = performance.now();
            resolve();
          }));
        };
        if (found()) return done();
        const mo = new MutationObserver(() => {
          if (!found()) return;
          mo.disconnect();
          done();
        });
        mo.observe(log, { childList: true, subtree: true });
      });
    }, index);
    // Long tasks are reported a moment after they end.
    await page.waitForTimeout(300);
    const m = await page.evaluate(() => {
      const g = window.__commit;
      g.stop();
      g.off();
      const longest = (ts) => Math.max(0, ...ts.map((t) => t.ms));
      const all = g.tasks.filter((t) => t.at + t.ms > g.first && t.at < g.painted);
      // The commit: the task that handles MESSAGE_RECEIVED and all after it.
      const commit = all.filter((t) => t.at + t.ms >= g.received);
      return { longest: longest(all), count: all.length, deltas: longest(all.filter((t) => !commit.includes(t))), commit: longest(commit), ms: g.painted - g.first };
    });
    const stored = (await page.evaluate(() => window.__HEARTH__.getContext().chat.at(-1).mes));
    assert.equal(stored, reply.trim(), 'the stored reply is the streamed text');
    const shown = await messageRow(page, index).evaluate((row) => {
      const body = row.querySelector('.md.body');
      const strip = (el) => {
        const c = el.cloneNode(true);
        const walk = document.createTreeWalker(c, NodeFilter.SHOW_COMMENT);
        const dead = [];
        while (walk.nextNode()) dead.push(walk.currentNode);
        for (const n of dead) n.remove();
        return c.innerHTML.trim();
      };
      const whole = document.createElement('div');
      const { browserPurifier, createMarkdown } = window.__md;
      whole.innerHTML = createMarkdown(browserPurifier()).renderWhole(window.__HEARTH__.getContext().chat.at(-1).mes);
      return { committed: strip(body), whole: strip(whole) };
    });
    assert.equal(shown.committed, shown.whole, 'the committed message shows the whole render of its text');
    return m;
  }

  it('commits a long streamed reply in a 10,000-message chat as the whole render, printing the longest task', async () => {
    const TOTAL = 10_000;
    const card = await env.server.invoke('characters.create', { name: 'Cleo', first_mes: 'A long story begins, {{user}}.' });
    const big = (await env.server.invoke('chat.create', { avatar: card.avatar })).chatId;
    const msgs = messages(TOTAL - 1, { firstIsUser: true, charName: 'Cleo' });
    for (let i = 0; i < msgs.length; i += 500) await env.server.invoke('chat.addMessages', big, msgs.slice(i, i + 500), { silent: true });
    await page.evaluate((id) => window.__HEARTH__.api.chat.select(id), big);
    await waitFor(() => page.evaluate((n) => window.__HEARTH__.getContext().chat.length === n, TOTAL), 'the whole chat loaded');
    await page.waitForTimeout(500);
    const reply = longReply();
    const chunks = chunk(reply, 80, 7);
    assert.equal(chunks.join(''), reply);
    const m = await stream(reply, chunks, TOTAL + 1);
    console.log(
      `# metric: stream commit (${(reply.length / 1024).toFixed(1)} KB of Markdown in ${chunks.length} chunks into a 10k chat): ` +
        `longest main-thread task from first token to the committed message painted ${m.longest.toFixed(0)} ms (${m.count} over 50 ms, goal: none) over ${m.ms.toFixed(0)} ms; ` +
        `while the deltas arrived ${m.deltas.toFixed(0)} ms, at commit ${m.commit.toFixed(0)} ms`,
    );
  });

  it('commits a streamed reply that defines link references as the whole render', async () => {
    const card = await env.server.invoke('characters.create', { name: 'Ada', first_mes: 'Ask me anything.' });
    const chatId = (await env.server.invoke('chat.create', { avatar: card.avatar })).chatId;
    await page.evaluate((id) => window.__HEARTH__.api.chat.select(id), chatId);
    await messageRow(page, 0).waitFor();
    const reply = await page.evaluate(() => window.__md.docs.TRICKY['reference links']);
    await stream(reply, chunk(reply, 4, 11), 2);
  });
});
