// Hearth desktop self-test, the page side (hearth --self-test). The asset
// middleware serves this script only in self-test mode and loads it from
// the main document right after the boot element, before the app's own
// module. It drives the real window inside the real WebKitGTK webview:
//
//  1. waits for window.__HEARTH__.ready;
//  2. checks the sandboxed extension Go installed: what its activate hook
//     proved inside its frame, and the bridge's cost per call
//     (extension.js; the extension bench mode, HEARTH_SELFTEST_EXTENSIONS,
//     measures the window's start and an event's fan-out there instead,
//     and ends); then the SillyTavern-style page extension Go installed,
//     running in the window (stpage.js; the page bench mode,
//     HEARTH_SELFTEST_PAGE_EXTENSIONS, measures the window's start with
//     and without it there instead, and ends);
//  3. opens the seeded 10,000-message chat from the character list and
//     measures the first paint of its tail, the time until the whole chat
//     is in getContext().chat, and how long the event loop ever stalled
//     meanwhile;
//  4. an ABI round trip (character → chat → select → add → update →
//     delete), each step with its event;
//  5. sandboxed frames that try to call the bridge without the token:
//     forged IPC messages, a nested frame of "/", a frame navigating itself
//     to "/"; and one that posts extension-protocol messages as the
//     installed extension (frame.js plays the attacker);
//  6. opens the large chat again with api.chat.select and measures it;
//  7. streams replies into it from Go's scripted model (stream.js);
//  8. with HEARTH_SELFTEST_MEMORY=1, opens the large chats ten times and
//     rests 30 s, reading the processes' memory after each (memory.js);
//
// and reports every check and metric to Go through selftest.report (a host
// method registered only in self-test mode) after each phase, so a timeout
// still leaves the checks that ran. Go verifies again, takes the
// screenshot, writes the report and closes the window.
(() => {
  'use strict';

  const FRAME_SCRIPT = '/__hearth__/selftest-frame.js';
  /** How long to wait for a framed copy of "/" to report once its frame has: it may never render. */
  const COPY_GRACE_MS = 4000;

  // A framed copy of the app: WebKitGTK serves "/" to frames with the same
  // token-bearing document as to the window (the requests look identical).
  // Tell the top window what this copy looks like and do nothing else.
  if (window.top !== window) {
    const depth = window.parent === window.top ? 1 : 2;
    const tokenAtStart = document.getElementById('hearth-boot') !== null;
    document.addEventListener('DOMContentLoaded', () => {
      const app = document.getElementById('app');
      window.top.postMessage(
        {
          selftest: 'framed-copy',
          depth,
          tokenAtStart,
          tokenLeft: document.getElementById('hearth-boot') !== null,
          booted: typeof window.__HEARTH__ !== 'undefined',
          appText: app ? app.textContent.trim() : null,
        },
        '*',
      );
    });
    return;
  }

  // The top window: this script's own line to Go. Like the app's transport
  // it reads the token from the boot element (the app's module removes the
  // element when it starts, after this script ran).
  let token = '';
  try {
    token = JSON.parse(document.getElementById('hearth-boot').textContent).token;
  } catch (err) {
    // No token: every call below fails, and the report says so by timing out.
  }

  const startedAt = performance.now();
  const checks = [];
  const metrics = {};

  /** invoke calls a host method through the bound bridge, like the app's desktop transport. */
  async function invoke(method, ...args) {
    const out = await window.go.wailsbridge.Bridge.Invoke(token, method, JSON.stringify(args));
    return out === '' ? null : JSON.parse(out);
  }

  function check(name, ok, detail) {
    checks.push({ name, ok: Boolean(ok), detail: detail === undefined ? '' : String(detail) });
  }

  function describe(err) {
    if (err && typeof err === 'object' && 'code' in err) return `${err.code}: ${err.message}`;
    return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  }

  function report(done) {
    return invoke('selftest.report', { done, checks, metrics, userAgent: navigator.userAgent }).catch((err) =>
      console.error('self-test: could not report', err),
    );
  }

  function timeout(ms, what) {
    let timer;
    const p = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what}: nothing within ${ms} ms`)), ms);
    });
    p.cancel = () => clearTimeout(timer);
    return p;
  }

  /** within resolves with promise, or rejects once ms passed. */
  async function within(ms, what, promise) {
    const t = timeout(ms, what);
    try {
      return await Promise.race([promise, t]);
    } finally {
      t.cancel();
    }
  }

  /** until polls fn until it returns something truthy, for at most ms. */
  async function until(ms, what, fn, interval = 20) {
    const end = performance.now() + ms;
    let last;
    for (;;) {
      try {
        last = await fn();
        if (last) return last;
      } catch (err) {
        last = err;
      }
      if (performance.now() > end) throw new Error(`${what}: not within ${ms} ms (last: ${describe(last)})`);
      await new Promise((r) => setTimeout(r, interval));
    }
  }

  const frames = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(performance.now()))));

  /** step runs one named check: ok when fn resolves (its value is the detail), failed when it throws. */
  async function step(name, ms, fn) {
    try {
      const detail = await within(ms, name, fn());
      check(name, true, detail);
      return true;
    } catch (err) {
      check(name, false, describe(err));
      return false;
    }
  }

  async function run() {
    const h = window.__HEARTH__;
    if (!h) {
      check('abi: window.__HEARTH__ exists', false, document.getElementById('app')?.textContent ?? 'no #app');
      return;
    }
    if (!(await step('abi: __HEARTH__.ready resolves', 20000, async () => {
      await h.ready;
      return `abiVersion ${h.abiVersion}, ${h.capabilities().methods.length} host methods`;
    }))) return;
    metrics.readyMs = Math.round(performance.now() - startedAt);
    const info = await invoke('selftest.info');
    await report(false);

    // The sandboxed extensions Go installed, while the window is otherwise
    // idle (extension.js), then the page extension (stpage.js). The bench
    // modes (desktopbench) end there.
    const extensions = window.__hearthSelfTestExtensions;
    const pageTier = window.__hearthSelfTestPageTier;
    const tools = { step, until, metrics, invoke };
    if (!extensions) check('extension: the extension phase (extension.js) loaded', false, 'window.__hearthSelfTestExtensions is missing');
    if (!pageTier) check('page extension: the page tier phase (stpage.js) loaded', false, 'window.__hearthSelfTestPageTier is missing');
    if (info.extensions.mode === 'bench') {
      if (extensions) await extensions.bench(h, info, tools);
      return;
    }
    if (info.extensions.mode === 'page-bench') {
      if (extensions && pageTier) await pageTier.bench(h, info, tools);
      return;
    }
    if (extensions) await extensions.probe(h, info, tools);
    await report(false);
    if (pageTier) await pageTier.checks(h, info, tools);
    await report(false);

    // The large chat first, cold, the way a person opens it: a click on the
    // character (the UI then calls api.chat.select).
    await largeChat(h, info, 'click');
    await report(false);
    await roundTrip(h);
    await report(false);
    await sandboxedFrames(h, info);
    await report(false);
    // Then once more through api.chat.select called directly, as a script
    // would; the window ends up showing the large chat for the screenshot.
    await largeChat(h, info, 'select');
    await report(false);
    // Generation into the large chat, from the scripted model (stream.js).
    if (window.__hearthSelfTestStream) await window.__hearthSelfTestStream(h, info, { step, check, until, frames, metrics });
    else check('generate: the generation phase (stream.js) loaded', false, 'window.__hearthSelfTestStream is missing');
    await report(false);

    // Last: a framed copy that had booted with a working token would have
    // called host.capabilities, as the window did once at start.
    const end = await invoke('selftest.info');
    // The windowed loads above read their pages through the asset handler;
    // had they fallen back to IPC (the transport does that quietly), the
    // timings would no longer be the ones this build ships with.
    check("abi: the chat pages streamed through the asset handler's /api/invoke", end.stream.accepted > 0,
      `${end.stream.accepted} request(s) with the token accepted, ${end.stream.rejected} refused; ` +
        `chat.getStMessages over IPC: ${end.bridge.accepted['chat.getStMessages'] || 0}`);
    const caps = end.bridge.accepted['host.capabilities'] || 0;
    check('iframe: no framed copy of the app called the bridge with a working token', caps === 1,
      `host.capabilities accepted ${caps} time(s) in this launch (the window's own boot: 1); ` +
        `token-bearing document served ${end.bootDocuments} time(s); ${end.bridge.rejected} call(s) refused`);

    await messageHtml(h);
    await report(false);
    // A window that does leave the app ends this script.
    await navigationGuard();
    // With HEARTH_SELFTEST_MEMORY=1 only (desktopbench): the memory phase,
    // last, since it leaves other chats open than the checks above use.
    if (info.memory) {
      await report(false);
      if (window.__hearthSelfTestMemory) await window.__hearthSelfTestMemory(h, info, { step, metrics, invoke });
      else check('memory: the memory phase (memory.js) loaded', false, 'window.__hearthSelfTestMemory is missing');
    }
  }

  /**
   * messageHtml renders hostile message HTML in WebKit: inline CSS must
   * come out of WebKit's own CSS parser without anything that fetches
   * (escapes and image-set included), and an image map's region must open
   * a new tab, as in Chromium (frontend/e2e/hardening.test.mjs).
   */
  async function messageHtml(h) {
    await step('sanitizer: WebKit drops inline CSS that fetches and sends image-map links to a new tab', 15000, async () => {
      const chatId = h.api.chat.current()?.chatId;
      if (!chatId) throw new Error('no chat is open');
      const away = 'https://hearth-selftest.invalid';
      const mark = `css${Date.now()}`;
      await h.api.chat.addMessages(chatId, {
        mes:
          `<div title="${mark}-esc" style="background:u\\72l(${away}/esc); color: rgb(1, 2, 3)">escaped url</div>` +
          `<div title="${mark}-set" style="background-image:image-set('${away}/set' 1x); font-weight: bold">image-set</div>` +
          `<div title="${mark}-pos" style="position: fixed; inset: 0; text-align: center">overlay</div>` +
          `<img alt="${mark}" src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" usemap="#user-content-${mark}" width="20" height="20">` +
          `<map name="${mark}"><area shape="rect" coords="0,0,20,20" href="${away}/area"></map>`,
      });
      const esc = await until(10000, 'the message to render', () => document.querySelector(`[title="${mark}-esc"]`));
      const style = (t) => document.querySelector(`[title="${mark}-${t}"]`)?.getAttribute('style') ?? '';
      const styles = { esc: style('esc'), set: style('set'), pos: style('pos') };
      for (const [k, v] of Object.entries(styles)) {
        if (/url\(|image-set|(^|[\s;])position\s*:/i.test(v)) throw new Error(`${k} kept ${v}`);
      }
      if (!/color: rgb\(1, 2, 3\)/.test(styles.esc) || !/font-weight: bold/.test(styles.set) || !/text-align: center/.test(styles.pos)) {
        throw new Error(`allowed declarations lost: ${JSON.stringify(styles)}`);
      }
      const area = esc.closest('article')?.querySelector('area');
      if (area?.getAttribute('target') !== '_blank' || !/noopener/.test(area.getAttribute('rel') ?? '')) {
        throw new Error(`area: target ${area?.getAttribute('target')}, rel ${area?.getAttribute('rel')}`);
      }
      return `styles after WebKit's parser: ${JSON.stringify(styles)}; area target=_blank rel=${area.getAttribute('rel')}`;
    });
  }

  /**
   * navigationGuard tries to take the window away from the app three ways
   * without a click: a plain link, location.assign and window.open. The
   * shell's guard (wailsbridge.NavigationGuard on WebKit's decide-policy)
   * must refuse each and open nothing in the system browser.
   */
  async function navigationGuard() {
    await step('navigation: the window refuses to leave the app (link, location.assign, window.open); a clicked message link goes to the system browser', 15000, async () => {
      const before = await invoke('selftest.info');
      if (before.navigation.installed !== true) throw new Error(`the guard is not attached to the webview (installed: ${before.navigation.installed})`);
      const away = 'https://hearth-selftest.invalid/';
      let after = before;
      const refused = (what) =>
        until(5000, `the guard to refuse ${what}`, async () => {
          after = await invoke('selftest.info');
          return after.navigation.refused.includes(away + what);
        }).catch((err) => {
          throw new Error(`${err.message}; refused: ${JSON.stringify(after.navigation.refused)}; still at ${location.href}`);
        });
      // Script-only attempts first: WebKit counts what a script does
      // shortly after a click (even a script's link.click()) as part of
      // that click.
      location.assign(`${away}assign`);
      await refused('assign');
      // Without a click, WebKit's own popup blocking may stop this before
      // the guard is asked; either way no window may open.
      const popup = window.open(`${away}open`, '_blank');
      await frames();
      const link = document.createElement('a');
      link.href = `${away}link`;
      document.body.append(link);
      link.click();
      link.remove();
      await refused('link');
      // A message's image-map region, as the UI renders it (target=_blank):
      // the click goes to the system browser, the window stays.
      const area = document.querySelector('.md area[href="https://hearth-selftest.invalid/area"]');
      if (!area) throw new Error("the sanitizer step's image map is not on screen");
      area.click();
      await until(5000, 'the clicked region to go to the system browser', async () => {
        after = await invoke('selftest.info');
        return after.navigation.external.includes(`${away}area`);
      }).catch((err) => {
        throw new Error(`${err.message}; handed over: ${JSON.stringify(after.navigation.external)}; refused: ${JSON.stringify(after.navigation.refused)}`);
      });
      after = await invoke('selftest.info');
      const popupFate = after.navigation.refused.includes(`${away}open`) ? 'refused by the guard' : popup === null ? 'blocked by WebKit' : 'OPENED';
      if (popupFate === 'OPENED') throw new Error('window.open without a click opened a window');
      await frames();
      if (!location.href.startsWith('wails://wails/')) throw new Error(`the window is at ${location.href}`);
      // WebKit counts a script's link.click() as a click, so that one may go
      // to the system browser too (recorded, not launched, in the
      // self-test); nothing else may.
      const external = after.navigation.external.filter((u) => u !== `${away}link` && u !== `${away}area`);
      if (external.length > 0) throw new Error(`opened without a click: ${external.join(', ')}`);
      return (
        `refused ${after.navigation.refused.join(', ')}; window.open ${popupFate}; ` +
        `handed to the system browser: ${JSON.stringify(after.navigation.external)}; still at ${location.href}`
      );
    });
  }

  /** onEvent resolves with the first api.events payload of type that matches, registered before the call. */
  function onEvent(h, type, match, ms = 10000) {
    let off = () => {};
    const p = new Promise((resolve) => {
      off = h.api.events.on(h.api.events.types[type], (payload) => {
        if (!match || match(payload)) {
          off();
          resolve(payload);
        }
      });
    });
    return within(ms, `event ${type}`, p).finally(off);
  }

  async function roundTrip(h) {
    const chat = h.api.chat;
    let avatar;
    let chatId;
    await step('abi: characters.create + CHARACTER_CREATED', 10000, async () => {
      const ev = onEvent(h, 'CHARACTER_CREATED', (p) => p.character?.name === 'Self-Test Ada');
      const card = await h.api.characters.create({ name: 'Self-Test Ada', first_mes: 'Hello {{user}}, I am {{char}}.' });
      avatar = card.avatar;
      const p = await ev;
      if (p.avatar !== avatar) throw new Error(`event for ${p.avatar}, created ${avatar}`);
      return avatar;
    });
    if (!avatar) return;
    await step('abi: chat.create + CHAT_CREATED', 10000, async () => {
      const ev = onEvent(h, 'CHAT_CREATED');
      const summary = await chat.create({ avatar });
      chatId = summary.chatId;
      const p = await ev;
      const evId = p.chatId ?? p.chat?.chatId;
      if (evId !== chatId) throw new Error(`event for chat ${evId}, created ${chatId}`);
      return `${summary.fileName}, ${summary.messageCount} message(s)`;
    });
    if (!chatId) return;
    await step('abi: chat.select + CHAT_CHANGED', 10000, async () => {
      const ev = onEvent(h, 'CHAT_CHANGED', (p) => p.chatId === chatId);
      await chat.select(chatId);
      await ev;
      const n = h.getContext().chat.length;
      if (n !== 1) throw new Error(`getContext().chat has ${n} messages, want the greeting`);
      return `greeting: ${h.getContext().chat[0].mes}`;
    });
    await step('abi: chat.addMessages + MESSAGE_SENT/MESSAGE_RECEIVED', 10000, async () => {
      const sent = onEvent(h, 'MESSAGE_SENT', (p) => p.chatId === chatId);
      const received = onEvent(h, 'MESSAGE_RECEIVED', (p) => p.chatId === chatId);
      const idx = await chat.addMessages(chatId, [{ is_user: true, mes: 'one' }, { mes: 'two' }]);
      const [s, r] = await Promise.all([sent, received]);
      if (JSON.stringify(idx) !== '[1,2]' || s.index !== 1 || r.index !== 2) throw new Error(`indexes ${JSON.stringify(idx)}, events ${s.index}/${r.index}`);
      await until(5000, 'getContext().chat to hold both', () => h.getContext().chat.length === 3);
      return `indexes ${JSON.stringify(idx)}`;
    });
    await step('abi: chat.updateMessages + MESSAGE_EDITED', 10000, async () => {
      const ev = onEvent(h, 'MESSAGE_EDITED', (p) => p.chatId === chatId && p.index === 1);
      await chat.updateMessages(chatId, { index: 1, patch: { mes: 'one, edited' } });
      await ev;
      const [stored] = await chat.getStMessages(chatId, { start: 1, end: 2 });
      if (stored.mes !== 'one, edited') throw new Error(`stored mes ${JSON.stringify(stored.mes)}`);
      await until(5000, 'getContext().chat to show the edit', () => h.getContext().chat[1]?.mes === 'one, edited');
      return 'mes and active swipe rewritten';
    });
    await step('abi: chat.deleteMessages + MESSAGE_DELETED', 10000, async () => {
      const ev = onEvent(h, 'MESSAGE_DELETED', (p) => p.chatId === chatId);
      const deleted = await chat.deleteMessages(chatId, [1]);
      const p = await ev;
      if (deleted[0]?.mes !== 'one, edited' || p.length !== 2) throw new Error(`deleted ${JSON.stringify(deleted.map((m) => m.mes))}, length ${p.length}`);
      await until(5000, 'getContext().chat to shrink', () => h.getContext().chat.length === 2);
      return `new length ${p.length}`;
    });
    await step('abi: HostError code for an index out of range', 10000, async () => {
      try {
        await chat.updateMessages(chatId, { index: 99, patch: { mes: 'x' } });
      } catch (err) {
        if (err.code === 'message.index_out_of_range') return err.code;
        throw err;
      }
      throw new Error('resolved');
    });
  }

  /** frameMessages collects postMessage reports from the self-test frames. */
  function frameMessages() {
    const seen = [];
    const waiters = [];
    window.addEventListener('message', (event) => {
      const d = event.data;
      if (!d || typeof d !== 'object' || typeof d.selftest !== 'string') return;
      seen.push(d);
      for (const w of waiters.slice()) w();
    });
    return {
      seen,
      wait(ms, what, pick) {
        return within(
          ms,
          what,
          new Promise((resolve) => {
            const tryPick = () => {
              const hit = seen.find(pick);
              if (hit) {
                waiters.splice(waiters.indexOf(tryPick), 1);
                resolve(hit);
              }
            };
            waiters.push(tryPick);
            tryPick();
          }),
        );
      },
    };
  }

  /** attr escapes a value for a double-quoted HTML attribute. */
  const attr = (v) => String(v).replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

  /** sandboxedFrame makes an attacker frame of frame.js; data become data-* attributes of its script. */
  function sandboxedFrame(mode, data = {}) {
    const frame = document.createElement('iframe');
    frame.setAttribute('sandbox', 'allow-scripts');
    frame.setAttribute('aria-hidden', 'true');
    frame.title = `self-test ${mode}`;
    frame.style.cssText = 'position:fixed;left:-10000px;top:0;width:320px;height:240px;border:0';
    const extra = Object.entries(data).map(([k, v]) => ` data-${k}="${attr(v)}"`).join('');
    frame.srcdoc = `<!doctype html><html><body><script src="${FRAME_SCRIPT}" data-mode="${mode}"${extra}></script></body></html>`;
    return frame;
  }

  async function sandboxedFrames(h, info) {
    const before = await invoke('selftest.info');
    const { probe: extId, chatId: extChatId } = info.extensions;
    const extCount = await h.api.chat.count(extChatId);
    const box = document.createElement('div');
    box.id = 'hearth-selftest-frames';
    document.body.appendChild(box);
    const messages = frameMessages();
    for (const mode of ['forge', 'nest', 'nav']) box.appendChild(sandboxedFrame(mode));
    // Not an extension's frame, but speaking the extension protocol as one.
    box.appendChild(sandboxedFrame('bridge', { 'ext-id': extId, 'chat-id': extChatId }));

    let forge = null;
    let nest = null;
    await step('iframe: a sandboxed srcdoc frame runs its script', 15000, async () => {
      forge = await messages.wait(15000, 'the forge frame', (m) => m.selftest === 'forge');
      return `Wails IPC handler visible in the frame: ${forge.ipc}; forged ${forge.posted} call(s) with a null, empty and wrong token`;
    });
    // A framed copy of "/" may never render: the token-bearing document's
    // CSP header says frame-ancestors 'none'. If one does render, it must
    // not boot. (A copy that booted with a working token would also show in
    // the host.capabilities count checked at the end.)
    const framedCopy = (depth) =>
      messages.wait(COPY_GRACE_MS, `the framed copy of "/" at depth ${depth}`, (m) => m.selftest === 'framed-copy' && m.depth === depth).catch(() => null);
    const refusedCopy = `never rendered (refused by the document's CSP frame-ancestors 'none')`;
    await step('iframe: a frame nesting "/" cannot read the token', 25000, async () => {
      nest = await messages.wait(15000, 'the nesting frame', (m) => m.selftest === 'nest');
      const copy = await framedCopy(2);
      const detail =
        `${Object.entries(nest.attempts).map(([k, v]) => `${k}: ${v}`).join('; ')}; nested copy ` +
        (copy ? `booted: ${copy.booted} (#app says ${JSON.stringify(copy.appText)})` : refusedCopy);
      if (nest.found || copy?.booted) throw new Error(detail);
      return detail;
    });
    await step('iframe: a frame navigating itself to "/" does not boot the app', 15000, async () => {
      const copy = await framedCopy(1);
      if (!copy) return `the navigated copy ${refusedCopy}`;
      const detail =
        `booted: ${copy.booted}; #app says: ${JSON.stringify(copy.appText)}; the copy's token element: ` +
        `${copy.tokenAtStart ? 'served' : 'not served'}, ${copy.tokenLeft ? 'still in its DOM (no script of the attacker runs there)' : 'removed'}`;
      if (copy.booted) throw new Error(detail);
      return detail;
    });
    await step('iframe: no sandboxed frame can reach the Wails IPC handler (window.webkit), nor a blank frame it makes', 1000, async () => {
      const seen = { forge: forge?.ipc, forgeBlankChild: forge?.blankChildIpc, nest: nest?.ipc };
      const detail = Object.entries(seen).map(([k, v]) => `${k}: ${v ? 'VISIBLE' : 'hidden'}`).join('; ');
      if (Object.values(seen).some((v) => v !== false)) throw new Error(detail);
      return detail;
    });
    await step('iframe: forged Bridge.Invoke calls were refused by the bridge', 15000, async () => {
      const expected = (forge?.posted ?? 0) + (nest?.posted ?? 0);
      if (!forge?.ipc) return `the frames could not reach the Wails IPC at all (posted ${expected})`;
      const now = await until(10000, `${expected} refused call(s)`, async () => {
        const i = await invoke('selftest.info');
        return i.bridge.rejected - before.bridge.rejected >= expected ? i : null;
      });
      const refused = now.bridge.rejected - before.bridge.rejected;
      if (refused !== expected) throw new Error(`bridge refused ${refused} call(s), the frames forged ${expected}`);
      return `${refused} forged call(s) refused (auth.denied)`;
    });
    await step("iframe: forged requests to the asset handler's /api/invoke were refused", 15000, async () => {
      const detail = Object.entries(forge?.stream ?? {}).map(([k, v]) => `${k}: ${v}`).join('; ');
      if (!forge?.stream) throw new Error('the forge frame did not report its /api/invoke attempts');
      for (const [k, v] of Object.entries(forge.stream)) {
        if (/^answered 2/.test(v)) throw new Error(`${k} succeeded: ${detail}`);
      }
      const now = await invoke('selftest.info');
      const accepted = now.stream.accepted - before.stream.accepted;
      if (accepted !== 0) throw new Error(`${accepted} request(s) with a working token while only the frames sent any; ${detail}`);
      return `${detail}; ${now.stream.rejected - before.stream.rejected} refused by the token check (auth.denied), none accepted`;
    });
    await step("iframe: another frame's forged extension-bridge messages get no answer and change nothing", 20000, async () => {
      const got = await messages.wait(15000, 'the bridge-forging frame', (m) => m.selftest === 'bridge');
      const after = await h.api.chat.count(extChatId);
      const detail =
        `posted as ${extId} from ${got.path}: hello, chat.count, chat.addMessages; ` +
        `${got.answers.length} answer(s) within ${got.waitedMs} ms${got.answers.length ? ` (${JSON.stringify(got.answers).slice(0, 200)})` : ''}; ` +
        `the chat has ${after} message(s), had ${extCount}`;
      if (got.posted !== 3 || got.answers.length > 0 || after !== extCount) throw new Error(detail);
      return detail;
    });
    await step('iframe: no character named PWNED exists', 10000, async () => {
      const list = await h.api.characters.list();
      const bad = list.filter((c) => /PWNED/.test(c.name));
      if (bad.length) throw new Error(`found ${bad.map((c) => c.avatar).join(', ')}`);
      return `${list.length} character(s), none PWNED`;
    });
  }

  /**
   * largeChat opens a seeded chat and measures it. how: 'click' clicks the
   * character in the list, which opens its newer chat (the UI calls
   * api.chat.select and paints each page as it arrives); 'select' calls
   * api.chat.select itself on the older chat, which this window has not
   * shown yet (the UI follows it from its first page). Metric names of the
   * 'select' run start with "select".
   */
  async function largeChat(h, info, how) {
    const types = h.api.events.types;
    const chatId = how === 'click' ? info.chatId : info.selectChatId;
    const target = info.messages - 1;
    const name = (m) => (how === 'click' ? m : `select${m[0].toUpperCase()}${m.slice(1)}`);
    const label = how === 'click' ? 'opened from the character list' : 'opened with api.chat.select';
    const progress = [];
    let changedAt = null;
    let tailAt = null;
    let firstPaintAt = null;
    let loading = true;

    // Event-loop responsiveness while the chat loads: the longest wait
    // between setTimeout(0) ticks is the longest a keystroke could have
    // waited; the longest gap between animation frames, the longest the
    // screen froze.
    let maxTick = 0;
    let maxFrame = 0;
    let lastTick = 0;
    let lastFrame = 0;
    // Meanwhile someone types into the composer, a key every 30 ms or so:
    // every character must land, and no key handler may take long.
    let typed = '';
    let lastKey = 0;
    let maxKey = 0;
    const composer = () => {
      const el = document.querySelector('textarea[aria-label="Message"]');
      return el && !el.disabled ? el : null;
    };
    const typeKey = (now) => {
      const box = composer();
      if (!box || now - lastKey < 30) return;
      lastKey = now;
      const ch = 'abcdefghijklmnopqrstuvwxyz'[typed.length % 26];
      box.dispatchEvent(new KeyboardEvent('keydown', { key: ch, bubbles: true, cancelable: true }));
      box.value += ch;
      box.dispatchEvent(new Event('input', { bubbles: true }));
      box.dispatchEvent(new KeyboardEvent('keyup', { key: ch, bubbles: true }));
      typed += ch;
      maxKey = Math.max(maxKey, performance.now() - now);
    };
    // The loops below are stopped by cancelling their pending timer and
    // frame, not only by the loading flag: under load, WebKitGTK 2.50's JIT
    // was seen reading a stale `true` from the flag in tick() after it was
    // cleared, typing on into the next run's composer.
    let tickTimer = 0;
    let frameId = 0;
    const tick = () => {
      const now = performance.now();
      maxTick = Math.max(maxTick, now - lastTick);
      lastTick = now;
      if (!loading) return;
      typeKey(now);
      tickTimer = setTimeout(tick, 0);
    };
    // Whether, and from when, the newest message is inside the list's
    // viewport, looked at every frame while loading and after.
    const tailSelector = `article[aria-label^="Message ${target} from "]`;
    let tailInViewAt = null;
    let tailWhere = 'not rendered';
    const probeTail = () => {
      const row = document.querySelector(tailSelector);
      if (!row) {
        tailWhere = 'not rendered';
        return false;
      }
      const box = row.getBoundingClientRect();
      const view = row.closest('[role="log"]').getBoundingClientRect();
      tailWhere = `row ${Math.round(box.top)}..${Math.round(box.bottom)}, list ${Math.round(view.top)}..${Math.round(view.bottom)}`;
      const inView = box.bottom > view.top && box.top < view.bottom;
      if (inView && tailInViewAt === null) tailInViewAt = performance.now();
      return inView;
    };
    const frame = (now) => {
      maxFrame = Math.max(maxFrame, now - lastFrame);
      lastFrame = now;
      probeTail();
      if (loading) frameId = requestAnimationFrame(frame);
    };

    const offProgress = h.api.events.on(types.CHAT_LOAD_PROGRESS, (p) => {
      if (p.chatId !== chatId) return;
      progress.push({ start: p.start, at: performance.now() });
      if (progress.length === 1) frames().then((at) => (firstPaintAt = at));
    });
    const changed = onEvent(h, 'CHAT_CHANGED', (p) => p.chatId === chatId, 60000).then(() => (changedAt = performance.now()));
    changed.catch(() => {});
    const observer = new MutationObserver(() => {
      if (tailAt === null && document.querySelector(tailSelector)) tailAt = performance.now();
    });
    observer.observe(document.body, { childList: true, subtree: true });
    const halt = () => {
      loading = false;
      clearTimeout(tickTimer);
      cancelAnimationFrame(frameId);
    };
    const stop = () => {
      halt();
      offProgress();
      observer.disconnect();
    };

    let t0;
    let selected = null;
    if (how === 'click') {
      // The window opens on the seeded character without chats (created
      // last, listed first), so this click is what opens the large chat.
      let option = null;
      const ready = await step(`perf (${label}): the window starts with no chat open`, 10000, async () => {
        option = await until(10000, `${info.characterName} in the character list`, () =>
          [...document.querySelectorAll('[role="option"]')].find((el) => el.getAttribute('title') === info.characterName),
        );
        const cur = h.api.chat.current();
        if (cur !== null || h.api.chat.loaded() !== null) throw new Error(`a chat is already open: ${JSON.stringify(cur)}`);
        return `the list shows ${document.querySelectorAll('[role="option"]').length} characters, none of their chats open`;
      });
      if (!ready) {
        stop();
        return;
      }
      t0 = performance.now();
      option.click();
    } else {
      t0 = performance.now();
      selected = h.api.chat.select(chatId);
      selected.catch(() => {});
    }
    lastTick = lastFrame = t0;
    tickTimer = setTimeout(tick, 0);
    frameId = requestAnimationFrame(frame);

    await step(`perf (${label}): first page painted`, 20000, async () => {
      await until(20000, 'the first CHAT_LOAD_PROGRESS and two frames', () => firstPaintAt !== null);
      metrics[name('firstProgressMs')] = Math.round(progress[0].at - t0);
      metrics[name('firstPaintMs')] = Math.round(firstPaintAt - t0);
      return (
        `${metrics[name('firstPaintMs')]} ms to the first CHAT_LOAD_PROGRESS (from index ${progress[0].start}, ` +
        `after ${metrics[name('firstProgressMs')]} ms) + 2 animation frames`
      );
    });
    await step(`perf (${label}): whole chat in getContext().chat at CHAT_CHANGED`, 60000, async () => {
      await changed;
      if (selected) await selected;
      metrics[name('wholeChatMs')] = Math.round(changedAt - t0);
      const n = h.getContext().chat.length;
      if (n !== info.messages) throw new Error(`getContext().chat.length ${n}, want ${info.messages}`);
      if (progress.length < 2) throw new Error(`loaded in ${progress.length} page(s); want the tail first, then the rest`);
      return `${info.messages} messages after ${metrics[name('wholeChatMs')]} ms, in ${progress.length} pages`;
    });
    await step(`perf (${label}): the chat header says the chat is loaded`, 5000, async () => {
      const want = `${info.messages.toLocaleString('en-US')} messages`;
      const status = () => document.querySelector('section[aria-label="Chat"] header .status')?.textContent?.trim() ?? '(no header)';
      await until(5000, `the header to say "${want}"`, async () => {
        await frames();
        if (status() === want) return true;
        throw new Error(`it says "${status()}"`);
      });
      return status();
    });
    metrics[name('maxTypingGapMs')] = Math.round(maxTick);
    metrics[name('maxFrameGapMs')] = Math.round(maxFrame);
    metrics[name('maxKeyHandlerMs')] = Math.round(maxKey);
    halt();
    await step(`perf (${label}): typing into the composer while the chat loads`, 5000, async () => {
      const box = composer();
      if (!box) throw new Error('no enabled composer');
      const got = box.value;
      box.value = '';
      box.dispatchEvent(new Event('input', { bubbles: true }));
      if (typed.length === 0) throw new Error('the composer was never enabled while the chat loaded');
      if (got !== typed) throw new Error(`typed ${typed.length} characters, the composer holds ${JSON.stringify(got.slice(0, 80))}`);
      return `${typed.length} keystrokes all landed; longest gap between event-loop turns ${metrics[name('maxTypingGapMs')]} ms, longest key handler ${metrics[name('maxKeyHandlerMs')]} ms`;
    });
    await step(`perf (${label}): the newest message is on screen`, 20000, async () => {
      await until(20000, `message ${target} rendered`, () => tailAt !== null && document.querySelector(tailSelector));
      metrics[name('tailRowMs')] = Math.round(tailAt - t0);
      // The list settles on its bottom once new rows are measured: wait for
      // that a frame at a time, not for a fixed number of frames.
      await until(10000, `message ${target} inside the list's viewport`, async () => {
        await frames();
        if (probeTail()) return true;
        throw new Error(tailWhere);
      });
      metrics[name('tailInViewMs')] = Math.round(tailInViewAt - t0);
      const during = changedAt !== null && tailInViewAt < changedAt ? 'while the rest was still loading' : 'once the whole chat was in';
      return `row of message ${target} in view (${tailWhere}): rendered ${metrics[name('tailRowMs')]} ms, first in view ${metrics[name('tailInViewMs')]} ms after the ${how}, ${during}`;
    });
    stop();
  }

  document.addEventListener('DOMContentLoaded', () => {
    run()
      .catch((err) => check('self-test script', false, describe(err)))
      .finally(() => report(true));
  });
})();
