// Hearth desktop self-test, the generation phase (hearth --self-test).
// Loaded before page.js, which runs it once the 10,000-message chat is
// open in the window. Go's scripted model server (model.go) answers what
// the text asks for:
//
//  1. "selftest:clock 20 100" (a quiet generation): 20 chunks 100 ms
//     apart, wider than the backend's coalescing window, so each one goes
//     out on its own. Each chunk's text is the Unix time the server wrote
//     it; the STREAM_TOKEN_RECEIVED handler subtracts it from its own
//     clock: provider chunk → webview handler, Wails transport included.
//  2. "selftest:stream 300 10", sent from the composer: a reply (13 KB of
//     Markdown prose in 38 paragraphs) streaming at 100 tokens a second
//     into the 10,000-message chat, while a timer chain and animation
//     frames record the longest gap between event-loop turns (WebKit has
//     no Long Tasks API: a task that runs 50 ms delays the next timer by
//     as much), while the deltas arrive and once the reply is committed.
//  3. An agent run on a short chat the window does not show (the scripted
//     model writes, commits and finishes): each stored run event's
//     timestamp against when the window's AGENT_RUN_EVENT handler ran;
//     api.agent.subscribe must see every seq once, in order.
(() => {
  'use strict';
  if (window.top !== window) return;

  /** Wall-clock milliseconds with a fraction, comparable with Go's time.Now. */
  const now = () => performance.timeOrigin + performance.now();
  const sorted = (xs) => [...xs].sort((a, b) => a - b);
  const quantile = (xs, q) => (xs.length ? sorted(xs)[Math.min(xs.length - 1, Math.floor(xs.length * q))] : NaN);

  /**
   * gapProbe records the longest wait between two turns of the event loop
   * (a 0 ms timer chain) and between two animation frames, bucketed by the
   * phase label current when the gap ended.
   */
  function gapProbe() {
    const gaps = {};
    let phase = 'before';
    let on = true;
    let lastTick = performance.now();
    let lastFrame = lastTick;
    const note = (kind, gap) => {
      const key = `${phase}:${kind}`;
      gaps[key] = Math.max(gaps[key] ?? 0, gap);
    };
    const tick = () => {
      const t = performance.now();
      note('task', t - lastTick);
      lastTick = t;
      if (on) setTimeout(tick, 0);
    };
    const frame = (t) => {
      note('frame', t - lastFrame);
      lastFrame = t;
      if (on) requestAnimationFrame(frame);
    };
    setTimeout(tick, 0);
    requestAnimationFrame(frame);
    return {
      phase: (p) => (phase = p),
      gap: (p, kind) => Math.round(gaps[`${p}:${kind}`] ?? 0),
      stop: () => (on = false),
    };
  }

  /**
   * listen collects STREAM_TOKEN_RECEIVED and MESSAGE_RECEIVED for chatId;
   * on.token and on.received run inside the first of each, so what the
   * window does in that same task counts where it belongs.
   */
  function listen(h, chatId, on = {}) {
    const seen = { tokens: [], received: null, started: null };
    const types = h.api.events.types;
    const offs = [
      h.api.events.on(types.GENERATION_STARTED, (p) => {
        if (p?.chatId === chatId) seen.started ??= performance.now();
      }),
      h.api.events.on(types.STREAM_TOKEN_RECEIVED, (p) => {
        if (p?.chatId !== chatId) return;
        if (seen.tokens.length === 0) on.token?.();
        seen.tokens.push({ at: now(), t: performance.now(), text: String(p.text ?? '') });
      }),
      h.api.events.on(types.MESSAGE_RECEIVED, (p) => {
        if (p?.chatId !== chatId || seen.received !== null) return;
        on.received?.();
        seen.received = performance.now();
      }),
    ];
    seen.stop = () => offs.forEach((off) => off());
    return seen;
  }

  /** agentRun starts an agent run on chatId and measures its events' way to the window. */
  async function agentRun(h, chatId, t) {
    await t.step('perf: agent run event → AGENT_RUN_EVENT handler in the window', 30000, async () => {
      const lat = [];
      const seqs = [];
      let runId = null;
      const early = [];
      const off = h.api.events.on(h.api.events.types.AGENT_RUN_EVENT, (ev) => {
        const at = Date.now();
        if (runId === null) early.push({ ev, at });
        else if (ev.runId === runId) lat.push(at - Date.parse(ev.timestamp));
      });
      let unsubscribe = () => {};
      try {
        const run = await h.api.agent.startRunFromLegacyGenerate({ chatId, options: { stream: true } });
        runId = run.runId;
        for (const { ev, at } of early) if (ev.runId === runId) lat.push(at - Date.parse(ev.timestamp));
        let ended = null;
        unsubscribe = h.api.agent.subscribe(run.runId, (ev) => {
          seqs.push(ev.seq);
          if (['run_completed', 'run_failed', 'run_cancelled'].includes(ev.type)) ended = ev;
        });
        await t.until(20000, 'the run to end', () => ended !== null);
        if (ended.type !== 'run_completed') throw new Error(`the run ended ${ended.type}: ${JSON.stringify(ended.payload)}`);
      } finally {
        off();
        unsubscribe();
      }
      const inOrder = seqs.every((s, i) => s === i + 1);
      if (!inOrder) throw new Error(`subscribe delivered seqs ${seqs.join(',')}`);
      const last = (await h.api.chat.getMessages(chatId, { tail: 1 })).at(-1);
      const reply = last?.mes ?? last?.content ?? '';
      if (!/agent wrote this reply/.test(reply)) throw new Error(`the chat's last message is ${JSON.stringify(String(reply).slice(0, 80))}`);
      t.metrics.agentEventToHandlerMs = quantile(lat, 0.5);
      t.metrics.agentEventToHandlerP90Ms = quantile(lat, 0.9);
      return `${lat.length} events (timestamps in whole ms): median ${t.metrics.agentEventToHandlerMs} ms, p90 ${t.metrics.agentEventToHandlerP90Ms} ms; subscribe saw seq 1…${seqs.length} once each; the reply is in the chat`;
    });
  }

  window.__hearthSelfTestStream = async function streaming(h, info, t) {
    const chatId = h.api.chat.current()?.chatId;
    if (!chatId) {
      t.check('generate: a chat is open for the generation phase', false, 'no current chat');
      return;
    }

    await t.step('perf: provider chunk → STREAM_TOKEN_RECEIVED handler in the window', 30000, async () => {
      const seen = listen(h, chatId);
      const lat = [];
      const timed = () => {
        lat.length = 0;
        for (const ev of seen.tokens) {
          for (const m of ev.text.matchAll(/\d{13}\.\d{3}/g)) lat.push(ev.at - Number(m[0]));
        }
        return lat.length >= 20;
      };
      try {
        await h.api.generate.run({ chatId, type: 'quiet', quietPrompt: 'selftest:clock 20 100' });
        // run() answers over the bridge's reply channel, the chunks over its
        // event channel: the last may land a moment after the answer.
        await t.until(2000, 'the last timed chunk', timed).catch(() => {});
      } finally {
        seen.stop();
      }
      if (!timed()) throw new Error(`${lat.length} of 20 timed chunks reached the handler`);
      t.metrics.chunkToHandlerMs = Math.round(quantile(lat, 0.5) * 100) / 100;
      t.metrics.chunkToHandlerP90Ms = Math.round(quantile(lat, 0.9) * 100) / 100;
      return `${lat.length} chunks over the Wails bridge: median ${t.metrics.chunkToHandlerMs} ms, p90 ${t.metrics.chunkToHandlerP90Ms} ms, longest ${Math.round(Math.max(...lat) * 100) / 100} ms`;
    });

    await t.step('perf: a reply streaming at 100 tokens/s into the 10,000-message chat', 60000, async () => {
      const box = document.querySelector('textarea[aria-label="Message"]');
      if (!box || box.disabled) throw new Error('no enabled composer');
      box.value = 'selftest:stream 300 10';
      box.dispatchEvent(new Event('input', { bubbles: true }));
      const send = await t.until(5000, 'an enabled Send button', () => {
        const b = document.querySelector('button[aria-label="Send message"]');
        return b && !b.disabled ? b : null;
      });
      const before = h.getContext().chat.length;
      // The phases turn in the event handlers themselves: the task that
      // commits the reply (re-keying the 10,000 rows, rendering the stored
      // message) counts as the commit, not as the delta before it, however
      // late the polling below notices.
      const probe = gapProbe();
      const seen = listen(h, chatId, { token: () => probe.phase('deltas'), received: () => probe.phase('commit') });
      try {
        await t.frames();
        probe.phase('send');
        send.click();
        await t.until(15000, 'the first streamed token', () => seen.tokens.length > 0);
        await t.until(30000, 'MESSAGE_RECEIVED for the reply', () => seen.received !== null);
        await t.until(10000, 'the reply in getContext().chat', () => h.getContext().chat.length === before + 2);
        await t.frames();
        await new Promise((r) => setTimeout(r, 300));
      } finally {
        probe.stop();
        seen.stop();
      }
      const last = h.getContext().chat.at(-1);
      if (!/word299/.test(last?.mes ?? '')) throw new Error(`the reply holds ${JSON.stringify((last?.mes ?? '').slice(-60))}, not all 300 words`);
      const streamedMs = seen.received - seen.tokens[0].t;
      t.metrics.streamMaxTaskMs = probe.gap('deltas', 'task');
      t.metrics.streamMaxFrameGapMs = probe.gap('deltas', 'frame');
      t.metrics.streamSendMaxTaskMs = probe.gap('send', 'task');
      t.metrics.streamCommitMaxTaskMs = probe.gap('commit', 'task');
      t.metrics.streamEvents = seen.tokens.length;
      return (
        `300 tokens in ${seen.tokens.length} events over ${Math.round(streamedMs)} ms; longest gap between event-loop turns ` +
        `${t.metrics.streamMaxTaskMs} ms while the deltas arrived (frames ${t.metrics.streamMaxFrameGapMs} ms), ` +
        `${t.metrics.streamSendMaxTaskMs} ms at send, ${t.metrics.streamCommitMaxTaskMs} ms at commit; ${h.getContext().chat.length} messages`
      );
    });

    await agentRun(h, info.agentChatId, t);
  };
})();
