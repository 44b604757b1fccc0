// A scripted OpenAI-compatible model server on loopback for the browser
// tests: GET /v1/models, and POST /v1/chat/completions streamed as SSE from
// the scripts the test queues, with small delays, and able to stall until
// the test lets it go.
import { createServer } from 'node:http';
import { waitFor } from './harness.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * scriptedModel answers GET /v1/models and streams POST /v1/chat/completions
 * from the scripts queued with next(): { text: [chunks, or functions called
 * as the chunk is written], reasoning: [chunks], calls: [{ id, name, args }]
 * (streamed as delta.tool_calls, arguments in two pieces, then
 * finish_reason 'tool_calls'), delayMs, stallAt (a text chunk index: wait
 * there until release() or the client hangs up), status (answer with this
 * HTTP error instead, message its text) }. Every request body is kept.
 * reset() forgets the scripts not yet used and cuts off the streams still
 * open. Options: delayMs (the default pause between chunks), fallback (the
 * script when none is queued), usage (sent after every stream, as OpenAI
 * does when asked for it).
 */
export function scriptedModel({ delayMs = 40, fallback = { text: ['Hello', ' again.'] }, usage = null } = {}) {
  const queue = [];
  const requests = [];
  const streams = new Set();
  let gate = null;
  const server = createServer(async (req, res) => {
    if (req.method === 'GET' && req.url === '/v1/models') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data: [{ id: 'scripted', object: 'model', created: 1, owned_by: 'e2e' }] }));
      return;
    }
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not found"}}');
      return;
    }
    let raw = '';
    for await (const chunk of req) raw += chunk;
    const body = JSON.parse(raw);
    requests.push(body);
    const s = queue.shift() ?? fallback;
    if (s.status) {
      res.writeHead(s.status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: s.message ?? 'refused', type: 'invalid_request_error' } }));
      return;
    }
    let closed = false;
    streams.add(res);
    res.on('close', () => {
      closed = true;
      streams.delete(res);
    });
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const chunk = (choices, extra = {}) => res.write(`data: ${JSON.stringify({ id: 'chatcmpl-e2e', object: 'chat.completion.chunk', created: 1, model: 'scripted', choices, ...extra })}\n\n`);
    const send = (delta, finish = null) => chunk([{ index: 0, delta, finish_reason: finish }]);
    const delay = s.delayMs ?? delayMs;
    for (const r of s.reasoning ?? []) {
      if (closed) return;
      send({ reasoning_content: r });
      await sleep(delay);
    }
    for (const [i, t] of (s.text ?? []).entries()) {
      if (i === s.stallAt) {
        let release;
        gate = new Promise((r) => (release = r));
        gate.release = release;
        s.onStall?.();
        while (!closed && gate) await Promise.race([gate, sleep(50)]);
      }
      if (closed) return;
      send({ content: typeof t === 'function' ? t() : t });
      await sleep(delay);
    }
    for (const [i, call] of (s.calls ?? []).entries()) {
      if (closed) return;
      const args = JSON.stringify(call.args);
      const half = Math.floor(args.length / 2);
      send({ tool_calls: [{ index: i, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] });
      send({ tool_calls: [{ index: i, function: { arguments: args.slice(0, half) } }] });
      await sleep(delay);
      send({ tool_calls: [{ index: i, function: { arguments: args.slice(half) } }] });
    }
    send({}, s.calls?.length ? 'tool_calls' : 'stop');
    if (usage) chunk([], { usage });
    res.write('data: [DONE]\n\n');
    res.end();
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        server,
        requests,
        url: `http://127.0.0.1:${server.address().port}/v1`,
        next: (...scripts) => queue.push(...scripts),
        pending: () => queue.length,
        /** stalled resolves once a stream waits at its stallAt. */
        stalled: () => waitFor(() => gate !== null, 'the model stream to stall'),
        release() {
          const g = gate;
          gate = null;
          g?.release();
        },
        reset() {
          queue.length = 0;
          for (const res of streams) res.destroy();
          const g = gate;
          gate = null;
          g?.release();
        },
      }),
    ),
  );
}


/**
 * connectScripted saves a connection to llm (a scriptedModel) on server
 * (startHearth's) and makes it the active one; it answers the connection.
 */
export async function connectScripted(server, llm, name = 'Scripted') {
  const conn = await server.invoke('connections.save', { name, provider: 'openai-compatible', baseUrl: llm.url, model: 'scripted', apiKey: 'sk-e2e' });
  await server.invoke('connections.select', conn.id);
  return conn;
}

/** characterChat creates a character of fields on server and a chat with it: { avatar, chatId }. */
export async function characterChat(server, fields) {
  const card = await server.invoke('characters.create', fields);
  const chat = await server.invoke('chat.create', { avatar: card.avatar });
  return { avatar: card.avatar, chatId: chat.chatId };
}
