// api.agent from a page against a real `hearth serve` and a scripted
// OpenAI-compatible server on loopback that answers with tool calls: a
// subscribe() that started before the run sees every seq exactly once and
// in order although the event socket drops mid-run (the events published
// while it was down come from readEvents after the reconnect). Also the
// way of a stored run event to the page's AGENT_RUN_EVENT handler over the
// WebSocket, printed as a metric (never asserted). On the 2-core CI VM it
// reads 12–60 ms: instrumented, the server hands each event to the socket
// within 0–3 ms of its timestamp, and even an idle second page receives the
// frames in bursts tens of ms later, so the rest is headless Chromium's
// delivery under load. The goal figure (≤ 10 ms) is the desktop window's,
// BenchmarkDesktopAgent/eventToHandler.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { openApp, useHearth, waitFor } from './harness.mjs';

/**
 * toolModel answers each chat completion with the next queued step: a
 * tool call ({ name, args }) streamed as OpenAI's delta.tool_calls, after
 * waiting for the step's gate (a promise) when it has one.
 */
function toolModel() {
  const steps = [];
  const requests = [];
  const server = createServer(async (req, res) => {
    let raw = '';
    for await (const chunk of req) raw += chunk;
    requests.push(raw ? JSON.parse(raw) : null);
    const step = steps.shift();
    if (!step) {
      res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":{"message":"no step left"}}');
      return;
    }
    if (step.gate) await step.gate;
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const send = (delta, finish = null) =>
      res.write(`data: ${JSON.stringify({ id: 'chatcmpl-e2e', object: 'chat.completion.chunk', created: 1, model: 'scripted', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`);
    send({ tool_calls: [{ index: 0, id: `call_${requests.length}`, type: 'function', function: { name: step.name, arguments: JSON.stringify(step.args) } }] });
    send({}, 'tool_calls');
    res.end('data: [DONE]\n\n');
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ server, requests, url: `http://127.0.0.1:${server.address().port}/v1`, push: (...s) => steps.push(...s) })),
  );
}

describe('api.agent from a page', () => {
  const env = useHearth({ before, after });
  let llm;
  let chatId;

  before(async () => {
    llm = await toolModel();
    const card = await env.server.invoke('characters.create', { name: 'Ivo', first_mes: 'The forge is warm.' });
    chatId = (await env.server.invoke('chat.create', { avatar: card.avatar })).chatId;
    await env.server.invoke('chat.addMessages', chatId, [{ is_user: true, name: 'User', mes: 'What are you making?' }]);
    const conn = await env.server.invoke('connections.save', { name: 'Tools', provider: 'openai-compatible', baseUrl: llm.url, model: 'scripted', apiKey: 'sk-e2e' });
    await env.server.invoke('connections.select', conn.id);
  });

  after(async () => {
    await new Promise((r) => llm?.server.close(r) ?? r());
  });

  it('subscribe delivers every seq once, in order, across a dropped event socket', async () => {
    const context = await env.browser.newContext({ viewport: { width: 1280, height: 800 } });
    // Keep the page's WebSockets reachable, so the test can drop them.
    await context.addInitScript(() => {
      const Native = window.WebSocket;
      window.__sockets = [];
      window.WebSocket = class extends Native {
        constructor(...args) {
          super(...args);
          window.__sockets.push(this);
        }
      };
    });
    const page = await openApp(context, env.server.url);
    try {
      let release;
      const gate = new Promise((r) => (release = r));
      llm.push(
        { name: 'workspace_write_file', args: { path: 'output/main.md', content: 'A horseshoe for the grey mare.' } },
        { name: 'workspace_write_file', args: { path: 'scratch/notes.md', content: 'Written while the socket was down.' }, gate },
        { name: 'workspace_commit', args: {} },
        { name: 'workspace_finish', args: {} },
      );
      const runId = await page.evaluate(async (id) => {
        const h = window.__HEARTH__;
        const seen = (window.__run = { seqs: [], types: [], lat: [], done: false });
        h.api.events.on(h.api.events.types.AGENT_RUN_EVENT, (ev) => seen.lat.push(Date.now() - Date.parse(ev.timestamp)));
        const run = await h.api.agent.startRunFromLegacyGenerate({ chatId: id, options: { stream: true } });
        h.api.agent.subscribe(run.runId, (ev) => {
          seen.seqs.push(ev.seq);
          seen.types.push(ev.type);
          if (ev.type === 'run_completed' || ev.type === 'run_failed') seen.done = true;
        });
        return run.runId;
      }, chatId);
      await waitFor(() => llm.requests.length >= 2, 'the run to wait on its second model call');
      await waitFor(() => page.evaluate(() => window.__sockets.some((s) => s.readyState === 1)), 'an open event socket');
      const latencies = await page.evaluate(() => window.__run.lat.slice());
      await page.evaluate(() => window.__sockets.forEach((s) => s.close()));
      await waitFor(() => page.evaluate(() => window.__sockets.every((s) => s.readyState === 3)), 'the socket to close');
      const before = await page.evaluate(() => window.__run.seqs.length);
      release();
      // The rest of the run happens while the page's socket is down (it reopens after a second).
      await waitFor(async () => (await env.server.invoke('agent.getRun', runId)).status === 'completed', 'the run to complete');
      await waitFor(() => page.evaluate(() => window.__run.done), 'the page to see the run end');
      const seen = await page.evaluate(() => window.__run);
      const stored = await env.server.invoke('agent.readEvents', { runId, limit: 1000 });
      const want = stored.events.map((e) => e.seq);
      assert.ok(want.length > before + 3, `events happened while the socket was down (${want.length} in all, ${before} before the drop)`);
      assert.deepEqual(seen.seqs, want, 'the handler saw every stored seq exactly once, in order');
      assert.equal(seen.types.at(-1), 'run_completed');
      const sorted = latencies.slice().sort((a, b) => a - b);
      console.log(
        `# metric: agent run event → AGENT_RUN_EVENT handler over the WebSocket (timestamps in whole ms): median ${sorted[Math.floor(sorted.length / 2)]} ms over ${sorted.length} events`,
      );
      const chat = await env.server.invoke('chat.getStMessages', chatId);
      assert.equal(chat.at(-1).mes, 'A horseshoe for the grey mare.');
      assert.deepEqual(page.errors, [], 'uncaught errors in the page');
    } finally {
      await context.close();
    }
  });
});
