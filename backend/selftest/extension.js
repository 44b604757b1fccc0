// Hearth desktop self-test, the sandboxed extensions (hearth --self-test).
// Loaded before page.js, which runs it right after __HEARTH__.ready, while
// the window is otherwise idle. Go installed the extensions before the
// window opened (extensions.go); the extension host started their frames
// on its own, as it does for a person's. Each extension's own storage is
// the channel between it and this script.
//
// A normal run has one, the probe (extensions/probe): this script reads
// what its activate hook proved inside its frame, then has it time 200
// api.chat.count calls over the bridge and makes the same 200 calls
// itself, half before and half after (extBridgeOverheadP50Ms is the
// difference of the medians).
//
// The extension bench mode (HEARTH_SELFTEST_EXTENSIONS=N, desktopbench)
// has N copies of extensions/fan instead, and measures:
//
//  - startWithExtensionsMs: from the window's navigation start
//    (performance.timeOrigin) until both the UI is up (__HEARTH__.ready
//    resolved and the character list painted: the animation frame after
//    the one that first saw its first row) and every extension's activate
//    hook has run
//    (the latest of the marks they store, taken in each frame just before
//    it resolves). With N = 0 it is the UI's start alone (uiStartMs).
//    The marks are read once the UI is up, after a pause, so that reading
//    them does not load the start it measures.
//  - extEventFanout<N>Ms: a message added to the extensions' chat; from
//    when the page's own api.events handler for its MESSAGE_SENT ran
//    (registered before the add, after the bridge's, so it runs once the
//    bridge has posted the event to every frame) until the last frame's
//    handler ran, by the clock readings each frame stores; the median of
//    FANOUT_ROUNDS events.
(() => {
  'use strict';
  if (window.top !== window) return;

  const BENCH_CALLS = 200;
  const FANOUT_ROUNDS = 5;
  /** The pause before each fan-out event, longer than the bridge's GRANT_MAX_AGE_MS (1 s). */
  const FANOUT_PAUSE_MS = 1200;
  /** How long the bench mode leaves the window alone before reading the activation marks. */
  const MARKS_PAUSE_MS = 1500;

  /** Wall-clock milliseconds with a fraction, comparable with the frames'. */
  const now = () => performance.timeOrigin + performance.now();
  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  const sorted = (xs) => [...xs].sort((a, b) => a - b);
  const median = (xs) => {
    const s = sorted(xs);
    return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  };
  const r2 = (ms) => Math.round(ms * 100) / 100;
  const whole = (x) => Math.abs(x - Math.round(x)) < 1e-6;

  /**
   * p50 is the median of durations. WebKit gives pages (and frames) a
   * performance.now() in whole milliseconds unless they are cross-origin
   * isolated, which neither the window nor a frame is, so a call of about
   * a millisecond reads as 0, 1 or 2: then it is the grouped-data median,
   * each whole-millisecond reading k standing for [k − 0.5, k + 0.5) —
   * for calls that all take m + f ms it lands within 0.1 ms of m + f, where
   * the plain median would say m or m + 1. With a finer clock it is the
   * plain median.
   */
  function p50(xs) {
    if (!xs.every(whole)) return median(xs);
    const s = sorted(xs).map(Math.round);
    const k = s[Math.floor(s.length / 2)];
    const below = s.filter((x) => x < k).length;
    const at = s.filter((x) => x === k).length;
    return k - 0.5 + (s.length / 2 - below) / at;
  }

  /** readings summarizes whole-millisecond durations as "1 ms ×40, 2 ms ×150". */
  function readings(xs) {
    if (!xs.every(whole)) return `${xs.length} readings of a sub-millisecond clock`;
    const counts = new Map();
    for (const x of xs.map(Math.round)) counts.set(x, (counts.get(x) ?? 0) + 1);
    return [...counts].sort((a, b) => a[0] - b[0]).map(([k, c]) => `${k} ms ×${c}`).join(', ');
  }

  /** stored reads key of extension id's storage, as the UI and console do. */
  const stored = (h, id, key) => h.api.extensions.storage.get(key, { extensionId: id });

  /** outcomeText describes one of the probe's recorded outcomes. */
  const outcomeText = (o) =>
    o.ok ? `answered ${JSON.stringify(o.value).slice(0, 80)}` : `${o.name || 'Error'}${o.code ? ` ${o.code}` : ''}: ${o.message}${o.permission !== undefined ? ` (details.permission ${JSON.stringify(o.permission)})` : ''}`;

  /** frameOf is the host's frame element of extension id. */
  const frameOf = (id) => document.querySelector(`iframe[data-extension="${CSS.escape(id)}"]`);

  /**
   * probe checks what the probe extension's activate hook proved inside its
   * frame, then times the bridge against the page.
   */
  async function probe(h, info, { step, until, metrics, invoke }) {
    const { probe: id, chatId } = info.extensions;
    let rep = null;
    const started = await step('extension: a sandboxed extension starts in its frame in WebKitGTK and runs its activate hook', 20000, async () => {
      rep = await until(15000, `the ${id} extension's report in its storage`, () => stored(h, id, 'report'), 100);
      const frame = frameOf(id);
      if (!frame) throw new Error(`no iframe[data-extension="${id}"] in the window`);
      if (frame.getAttribute('sandbox') !== 'allow-scripts') throw new Error(`its frame's sandbox is ${JSON.stringify(frame.getAttribute('sandbox'))}`);
      const entry = (await h.api.extensions.list()).find((e) => e.id === id);
      if (entry?.status !== 'active') throw new Error(`api.extensions.list() says ${entry ? `${entry.status} ${entry.error ?? ''}` : 'nothing'}`);
      if (rep.id !== id || JSON.stringify(rep.permissions) !== '["chat.read"]') throw new Error(`the frame's __HEARTH__.extension is ${rep.id} ${JSON.stringify(rep.permissions)}`);
      return `${frame.getAttribute('src')} in <iframe sandbox="allow-scripts">; activated ${Math.round(rep.activatedAt - performance.timeOrigin)} ms after the window's navigation start; __HEARTH__.extension ${rep.id} ${JSON.stringify(rep.permissions)}`;
    });
    if (!started) return;
    const r = rep.results;
    await step('extension: a permitted call answers in the frame (chat.read: api.chat.count)', 10000, async () => {
      const want = await h.api.chat.count(chatId);
      if (!r.count.ok || r.count.value !== want) throw new Error(`chat.count(${chatId}) in the frame: ${outcomeText(r.count)}; the page counts ${want}`);
      return `chat.count of the seeded chat: ${r.count.value} in the frame, as in the page`;
    });
    await step('extension: a call outside its grant rejects auth.denied with details.permission (characters.create)', 10000, async () => {
      const o = r.characterCreate;
      if (o.ok || o.code !== 'auth.denied' || o.permission !== 'characters.write') throw new Error(outcomeText(o));
      return outcomeText(o);
    });
    await step('extension: a management call (api.extensions.list) rejects auth.denied in the frame', 10000, async () => {
      const o = r.extensionsList;
      if (o.ok || o.code !== 'auth.denied') throw new Error(outcomeText(o));
      return outcomeText(o);
    });
    await step("extension: fetch('/api/invoke') fails in the frame (its CSP's connect-src)", 10000, async () => {
      const o = r.fetchInvoke;
      // Before the attacker frames run, only the probe can have sent the
      // asset handler a request without the token.
      const { stream } = await invoke('selftest.info');
      if (o.ok || stream.rejected !== 0) throw new Error(`${outcomeText(o)}; the asset handler refused ${stream.rejected} request(s) without the token`);
      return `a no-cors POST (which CORS lets out): ${outcomeText(o)}; the asset handler saw no request without the token`;
    });
    await step("extension: a script outside the extension's folder does not load (its CSP's script-src)", 10000, async () => {
      const o = r.scriptOutside;
      if (o.ok || !/script-src/.test(o.violation ?? '')) throw new Error(outcomeText(o));
      return o.message;
    });
    await step("extension: its entry document holds Hearth's frame runtime and its own scripts only, a module script among them", 10000, async () => {
      const p = rep.page;
      const want = ['/ext-runtime/frame.js', 'module.js', 'probe.js'];
      const detail = `scripts ${JSON.stringify(p.scripts)}; Wails globals ${JSON.stringify(p.wailsGlobals)}; module ${JSON.stringify(p.module)}`;
      if (JSON.stringify(p.scripts) !== JSON.stringify(want) || p.wailsGlobals.length > 0 || !p.module?.ran) throw new Error(detail);
      return detail;
    });
    await step('extension: window.parent.document throws in the frame', 10000, async () => {
      const o = r.parentDocument;
      if (o.ok) throw new Error(`it read the window's title: ${outcomeText(o)}`);
      return outcomeText(o);
    });
    await step(`perf: ${BENCH_CALLS} sequential api.chat.count calls from the extension's frame against the same from the page`, 60000, async () => {
      // The page's calls bracket the frame's, half before and half after,
      // so a machine busier at one moment weighs on both alike.
      const page = [];
      let pageTotal = 0;
      const pageCalls = async (calls) => {
        const started = performance.now();
        for (let i = 0; i < calls; i++) {
          const t = performance.now();
          await h.api.chat.count(chatId);
          page.push(performance.now() - t);
        }
        pageTotal += performance.now() - started;
      };
      for (let i = 0; i < 5; i++) await h.api.chat.count(chatId);
      await pageCalls(BENCH_CALLS / 2);
      // A message "selftest:bench" in its chat is the probe's cue (its MESSAGE_SENT handler).
      await h.api.extensions.storage.delete('bench', { extensionId: id });
      await h.api.chat.addMessages(chatId, { is_user: true, name: 'User', mes: 'selftest:bench' });
      // Polled seldom: each read is a call the frame's calls compete with.
      const bench = await until(45000, `the ${id} extension's timings in its storage`, () => stored(h, id, 'bench'), 500);
      if (bench.error) throw new Error(`the frame's calls failed: ${bench.code ?? ''} ${bench.error}`);
      if (!Array.isArray(bench.ms) || bench.ms.length !== BENCH_CALLS) throw new Error(`the frame stored ${JSON.stringify(bench).slice(0, 200)}`);
      await pageCalls(BENCH_CALLS / 2);
      const frameP50 = p50(bench.ms);
      const pageP50 = p50(page);
      metrics.extBridgeOverheadP50Ms = r2(frameP50 - pageP50);
      metrics.extFrameCallP50Ms = r2(frameP50);
      metrics.pageCallP50Ms = r2(pageP50);
      const mean = (total) => r2(total / BENCH_CALLS);
      return (
        `frame p50 ${r2(frameP50)} ms (readings ${readings(bench.ms)}; mean ${mean(bench.totalMs)}), ` +
        `page p50 ${r2(pageP50)} ms (readings ${readings(page)}; mean ${mean(pageTotal)}): ` +
        `the bridge adds ${metrics.extBridgeOverheadP50Ms} ms at the median, ${r2(mean(bench.totalMs) - mean(pageTotal))} ms on average`
      );
    });
  }

  /**
   * uiUp is the bench modes' first step (this one's and stpage.js's): it
   * resolves with when the window's UI was up, in ms from its navigation
   * start (metrics.uiStartMs), or 0 if it never was.
   */
  async function uiUp(h, { step, metrics }) {
    let uiAt = 0;
    await step(`start: the window's UI is up (__HEARTH__.ready, the character list painted)`, 20000, async () => {
      await h.ready;
      // Looked for at every animation frame (a timer would add its own
      // interval, and a busier one would load the start it measures); the
      // frame after the one that found it has painted it.
      const deadline = performance.now() + 15000;
      const frame = () => new Promise((resolve) => requestAnimationFrame(resolve));
      while (!document.querySelector('[role="option"]')) {
        if (performance.now() > deadline) throw new Error('no row in the character list within 15 s');
        await frame();
      }
      await frame();
      uiAt = performance.now();
      metrics.uiStartMs = Math.round(uiAt);
      return `${metrics.uiStartMs} ms after the window's navigation start`;
    });
    return uiAt;
  }

  /** bench is the extension bench mode: the start with info.extensions.bench running, then their event fan-out. */
  async function bench(h, info, { step, until, metrics }) {
    const ids = info.extensions.bench;
    const n = ids.length;
    metrics.startExtensions = n;
    const uiAt = await uiUp(h, { step, metrics });
    if (!uiAt) return;
    await step(`start: the window with ${n} sandboxed extension(s), each activated`, 40000, async () => {
      let last = uiAt;
      if (n > 0) {
        await sleep(MARKS_PAUSE_MS);
        const marks = new Map();
        await until(30000, `all ${n} extensions' activation marks`, async () => {
          const missing = ids.filter((id) => !marks.has(id));
          const got = await Promise.all(missing.map((id) => stored(h, id, 'activated')));
          missing.forEach((id, i) => got[i] && marks.set(id, got[i]));
          return marks.size === n;
        }, 250);
        const at = [...marks.values()].map((m) => m.at - performance.timeOrigin);
        if (at.some((t) => !(t > 0) || t > performance.now())) throw new Error(`activation marks out of range: ${at.map(Math.round).join(', ')} ms`);
        last = Math.max(last, ...at);
        metrics.extensionsActivatedMs = Math.round(Math.max(...at));
        const frames = document.querySelectorAll('iframe[data-extension]').length;
        if (frames !== n) throw new Error(`${frames} extension frame(s) in the window, want ${n}`);
      }
      metrics.startWithExtensionsMs = Math.round(last);
      return n === 0
        ? `no extensions: ${metrics.startWithExtensionsMs} ms (the UI's start)`
        : `UI up at ${metrics.uiStartMs} ms, the last of ${n} extensions activated at ${metrics.extensionsActivatedMs} ms: ${metrics.startWithExtensionsMs} ms after the navigation start`;
    });
    if (n === 0) return;
    const chatId = info.extensions.chatId;
    let round = 0;
    /** fanout adds one message and returns how long after the page's handler the last frame's ran. */
    const fanout = async () => {
      round++;
      let off = () => {};
      const pageAt = new Promise((resolve) => {
        off = h.api.events.on(h.api.events.types.MESSAGE_SENT, (p) => {
          if (p.chatId === chatId) resolve({ at: now(), index: p.index });
        });
      });
      await h.api.chat.addMessages(chatId, { is_user: true, name: 'User', mes: `selftest:fanout ${round}` });
      const seen = await pageAt;
      off();
      const got = await until(10000, `all ${n} frames' MESSAGE_SENT of message ${seen.index}`, async () => {
        const all = await Promise.all(ids.map((id) => stored(h, id, 'fanout')));
        return all.every((m) => m && m.chatId === chatId && m.index === seen.index) ? all : null;
      }, 100);
      return Math.max(...got.map((m) => m.at)) - seen.at;
    };
    await step(`perf: one MESSAGE_SENT from the page's handler to ${n} sandboxed extensions' handlers (median of ${FANOUT_ROUNDS} after a pause, ${FANOUT_ROUNDS} back to back)`, 60000, async () => {
      const paused = [];
      for (let i = 0; i < FANOUT_ROUNDS; i++) {
        // Past GRANT_MAX_AGE_MS without a frame's call, the bridge reads the
        // grants again before it delivers: the case of a message after a
        // quiet moment, and the figure's.
        await sleep(FANOUT_PAUSE_MS);
        paused.push(await fanout());
      }
      // Right after the frames' own calls the grants are fresh, and the
      // bridge posts the event at once: what the re-read costs, told apart.
      const warm = [];
      for (let i = 0; i < FANOUT_ROUNDS; i++) warm.push(await fanout());
      metrics[`extEventFanout${n}Ms`] = r2(median(paused));
      metrics[`extEventFanoutWarm${n}Ms`] = r2(median(warm));
      return (
        `after a pause ${metrics[`extEventFanout${n}Ms`]} ms at the median (each: ${paused.map(r2).join(', ')} ms); ` +
        `back to back, grants fresh: ${metrics[`extEventFanoutWarm${n}Ms`]} ms (each: ${warm.map(r2).join(', ')} ms)`
      );
    });
  }

  window.__hearthSelfTestExtensions = { probe, bench, uiUp };
})();
