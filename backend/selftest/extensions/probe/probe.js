// The desktop self-test's sandboxed extension (backend/selftest): it runs
// in the real WebKitGTK window like any installed extension, holding
// chat.read and nothing else, and proves from inside its frame what the
// sandboxed tier promises (EXTENSIONS.md §2, §4): a permitted call
// answers; a call outside its grant and a management call reject
// auth.denied; the backend's /api/invoke cannot be reached (the frame's
// connect-src) and a script outside its folder cannot load (script-src);
// the window's document cannot be read; its entry document holds Hearth's
// runtime and its own scripts only (a module script among them). Its own storage is
// the one channel it shares with the self-test's page script
// (extension.js): Go wrote { chatId } under "config" before the window
// opened; the activate hook writes what happened under "report".
//
// A message "selftest:bench" sent to that chat later starts the bridge
// timing: BENCH_CALLS sequential api.chat.count calls, each timed, stored
// under "bench" for the page to compare with its own.
(() => {
  'use strict';
  const h = window.__HEARTH__;
  const BENCH_CALLS = 200;
  const WARM_UP = 5;
  /** Wall-clock milliseconds with a fraction, comparable with the window's. */
  const now = () => performance.timeOrigin + performance.now();
  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

  /** outcome runs fn and says how it ended, with a HostError's code and details.permission. */
  async function outcome(fn) {
    try {
      const value = await fn();
      return { ok: true, value: value === undefined ? null : value };
    } catch (err) {
      return {
        ok: false,
        name: err && err.name ? String(err.name) : null,
        code: err && typeof err.code === 'string' ? err.code : null,
        permission: err && err.details && 'permission' in err.details ? err.details.permission : undefined,
        message: String(err && err.message ? err.message : err),
      };
    }
  }

  /**
   * loadScript adds a script element for src and says whether it loaded;
   * a refusal names the policy directive WebKit reported.
   */
  function loadScript(src) {
    return new Promise((resolve) => {
      let violation = null;
      const onViolation = (e) => (violation = `${e.violatedDirective} refused ${e.blockedURI}`);
      document.addEventListener('securitypolicyviolation', onViolation);
      const el = document.createElement('script');
      const done = (result) => {
        document.removeEventListener('securitypolicyviolation', onViolation);
        el.remove();
        resolve(result);
      };
      el.src = src;
      el.onload = () => done({ ok: true, value: `${src} loaded` });
      // The violation event may come after the error event: give it a moment.
      el.onerror = () => setTimeout(() => done({ ok: false, name: 'error', code: null, message: violation || `${src} did not load, with no policy violation reported`, violation }), 100);
      document.head.append(el);
    });
  }

  /**
   * bench times BENCH_CALLS calls after a few untimed ones. The frame's
   * rate limit (bursts of 200, then 100 a second) is full by the time the
   * page asks; the pauses let it refill past the warm-up and before the
   * result is stored.
   */
  async function bench(chatId) {
    try {
      for (let i = 0; i < WARM_UP; i++) await h.api.chat.count(chatId);
      await sleep(150);
      const ms = [];
      const started = performance.now();
      for (let i = 0; i < BENCH_CALLS; i++) {
        const t = performance.now();
        await h.api.chat.count(chatId);
        ms.push(performance.now() - t);
      }
      const totalMs = performance.now() - started;
      await sleep(150);
      await h.api.extensions.storage.set('bench', { calls: BENCH_CALLS, ms, totalMs });
    } catch (err) {
      await h.api.extensions.storage.set('bench', { error: String(err && err.message ? err.message : err), code: err && err.code ? err.code : null });
    }
  }

  window.selftestProbeActivate = async () => {
    await h.ready;
    const config = await h.api.extensions.storage.get('config');
    const chatId = config && typeof config.chatId === 'string' ? config.chatId : null;
    const results = {
      count: await outcome(() => h.api.chat.count(chatId)),
      characterCreate: await outcome(() => h.api.characters.create({ name: 'PWNED by the self-test extension' })),
      extensionsList: await outcome(() => h.api.extensions.list()),
      // A simple no-cors POST, which CORS would let out (with an unreadable
      // answer): only the frame's connect-src stops it.
      fetchInvoke: await outcome(async () => {
        const res = await fetch('/api/invoke', {
          method: 'POST',
          mode: 'no-cors',
          headers: { 'Content-Type': 'text/plain' },
          body: JSON.stringify({ method: 'characters.create', args: [{ name: 'PWNED by the self-test extension over fetch' }] }),
        });
        return `answered ${res.type === 'opaque' ? '(opaque)' : res.status}`;
      }),
      parentDocument: await outcome(() => window.parent.document.title),
      scriptOutside: await loadScript('/__hearth__/selftest-extension.js'),
    };
    const page = {
      scripts: [...document.scripts].map((el) => el.getAttribute('src')),
      wailsGlobals: ['go', 'wails', 'runtime'].filter((k) => typeof window[k] !== 'undefined'),
      module: window.selftestProbeModule || null,
    };
    let benched = false;
    h.api.events.on(h.api.events.types.MESSAGE_SENT, (p) => {
      if (benched || p.chatId !== chatId || !p.stMessage || p.stMessage.mes !== 'selftest:bench') return;
      benched = true;
      void bench(chatId);
    });
    await h.api.extensions.storage.set('report', {
      id: h.extension.id,
      permissions: h.extension.permissions,
      chatId,
      results,
      page,
      activatedAt: now(),
    });
  };
})();
