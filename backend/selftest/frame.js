// Hearth desktop self-test: the script of the sandboxed frames the page
// script (page.js) creates. It plays an attacker inside a
// <iframe sandbox="allow-scripts" srcdoc="..."> — an extension panel or an
// HTML-in-message preview gone bad — and reports what it managed to do to
// the top window with postMessage (which is all a sandboxed frame may do).
//
// data-mode on the <script> element picks the attack:
//   forge — post Wails IPC calls of the bound Bridge.Invoke straight to
//           window.webkit.messageHandlers.external, with a missing, empty
//           and wrong token, asking for characters.create({name:'PWNED'});
//           then the same through the asset handler's POST /api/invoke: a
//           request with a wrong token header (CORS would need a preflight
//           the handler never grants) and a simple no-cors POST without one;
//   nest  — nest a frame of the app's own "/", try to read the token out of
//           it (DOM, fetch, XHR), then forge a call with whatever it found;
//   nav   — navigate this frame itself to the app's own "/";
//   bridge — speak the sandboxed extensions' postMessage protocol
//           (frontend/src/extensions/protocol.ts) to window.top exactly as
//           the frame client does, posing as the installed extension
//           (data-ext-id): hello with its entry's path, then chat.count
//           and chat.addMessages on data-chat-id; report every
//           protocol-tagged message that came back within BRIDGE_WAIT_MS.
(() => {
  'use strict';
  const script = document.currentScript;
  const mode = script && script.dataset ? script.dataset.mode : 'unknown';
  const report = (data) => window.top.postMessage(Object.assign({ selftest: mode }, data), '*');

  /** ipc is the Wails message handler, if this frame can see it. */
  const ipc = () => {
    try {
      const h = window.webkit && window.webkit.messageHandlers && window.webkit.messageHandlers.external;
      return h && typeof h.postMessage === 'function' ? h : null;
    } catch (err) {
      return null;
    }
  };

  let serial = 0;
  /** forge posts one Wails call message (runtime/desktop/calls.js format) for Bridge.Invoke. */
  const forge = (args) => {
    const h = ipc();
    if (!h) return false;
    const callbackID = `wailsbridge.Bridge.Invoke-selftest-${mode}-${++serial}`;
    h.postMessage('C' + JSON.stringify({ name: 'wailsbridge.Bridge.Invoke', args, callbackID }));
    return true;
  };
  const pwned = (label) => JSON.stringify([{ name: 'PWNED', description: `forged by the ${mode} frame: ${label}` }]);

  /**
   * blankChildIpc makes an about:blank child frame, which shares this
   * frame's origin, and says whether the Wails IPC handler can be reached
   * through it.
   */
  const blankChildIpc = () => {
    const child = document.createElement('iframe');
    document.body.appendChild(child);
    try {
      const w = child.contentWindow;
      return Boolean(w && w.webkit && w.webkit.messageHandlers && w.webkit.messageHandlers.external);
    } catch (err) {
      return false;
    } finally {
      child.remove();
    }
  };

  const describe = (err) => (err && err.name ? `${err.name}: ${err.message}` : String(err));

  if (mode === 'forge') {
    let posted = 0;
    // Calls that reach Bridge.Invoke and must be refused there.
    if (forge([null, 'characters.create', pwned('null token')])) posted++;
    if (forge(['', 'characters.create', pwned('empty token')])) posted++;
    if (forge(['0'.repeat(64), 'characters.create', pwned('wrong token')])) posted++;
    // The token argument left out altogether: Wails refuses the argument
    // count before the bridge sees it, so it is not counted.
    forge(['characters.create', pwned('no token argument')]);
    const body = (label) => JSON.stringify({ method: 'characters.create', args: [{ name: 'PWNED', description: `forged by the ${mode} frame: ${label}` }] });
    const stream = {};
    const send = async (name, init) => {
      try {
        const res = await fetch('/api/invoke', init);
        stream[name] = res.type === 'opaque' ? 'sent, answer unreadable (opaque)' : `answered ${res.status}: ${(await res.text()).slice(0, 120)}`;
      } catch (err) {
        stream[name] = `blocked (${describe(err)})`;
      }
    };
    Promise.all([
      send('withTokenHeader', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Hearth-Token': '0'.repeat(64) },
        body: body('stream with a wrong token header'),
      }),
      send('simplePost', { method: 'POST', mode: 'no-cors', headers: { 'Content-Type': 'text/plain' }, body: body('simple stream POST') }),
    ]).then(() =>
      report({
        ran: true,
        ipc: ipc() !== null,
        blankChildIpc: blankChildIpc(),
        posted,
        stream,
        wailsGlobals: typeof window.go !== 'undefined' || typeof window.wails !== 'undefined',
      }),
    );
    return;
  }

  if (mode === 'nest') {
    const attempts = {};
    let found = null;
    const look = (name, fn) => {
      try {
        const text = fn();
        const m = typeof text === 'string' ? /"token"\s*:\s*"([0-9a-f]+)"/.exec(text) : null;
        attempts[name] = m ? 'TOKEN FOUND' : `no token (${text === null || text === undefined ? String(text) : typeof text})`;
        if (m) found = m[1];
      } catch (err) {
        attempts[name] = `blocked (${describe(err)})`;
      }
    };
    const child = document.createElement('iframe');
    child.src = '/';
    child.addEventListener('load', async () => {
      look('contentDocument', () => (child.contentDocument ? child.contentDocument.documentElement.outerHTML : null));
      look('contentWindow.document', () => child.contentWindow.document.documentElement.outerHTML);
      look('contentWindow.__HEARTH__', () => (child.contentWindow.__HEARTH__ ? 'present' : null));
      try {
        const res = await fetch('/', { headers: { Accept: 'text/html' } });
        const text = await res.text();
        look('fetch', () => text);
      } catch (err) {
        attempts.fetch = `blocked (${describe(err)})`;
      }
      await new Promise((resolve) => {
        try {
          const xhr = new XMLHttpRequest();
          xhr.open('GET', '/');
          xhr.onload = () => {
            look('xhr', () => xhr.responseText);
            resolve();
          };
          xhr.onerror = () => {
            attempts.xhr = 'blocked (network error)';
            resolve();
          };
          xhr.send();
        } catch (err) {
          attempts.xhr = `blocked (${describe(err)})`;
          resolve();
        }
      });
      const posted = forge([found || 'f'.repeat(64), 'characters.create', pwned(found ? 'token read from a nested /' : 'no token found')]) ? 1 : 0;
      report({ ran: true, ipc: ipc() !== null, found: found !== null, attempts, posted });
    });
    document.body.appendChild(child);
    return;
  }

  if (mode === 'bridge') {
    const BRIDGE_WAIT_MS = 2000;
    const extId = script.dataset.extId;
    const chatId = script.dataset.chatId;
    const path = `/ext/${encodeURIComponent(extId)}/index.html`;
    const answers = [];
    window.addEventListener('message', (event) => {
      const d = event.data;
      if (d && typeof d === 'object' && d.protocol === 'hearth.ext') {
        answers.push({ kind: d.kind, id: d.id, ok: d.ok, fromTop: event.source === window.top });
      }
    });
    const post = (message) => window.top.postMessage(Object.assign({ protocol: 'hearth.ext', v: 1 }, message), '*');
    post({ kind: 'hello', path });
    post({ kind: 'call', id: 1, method: 'chat.count', args: [chatId] });
    post({
      kind: 'call',
      id: 2,
      method: 'chat.addMessages',
      args: [chatId, { is_user: true, name: 'User', mes: 'PWNED by a forged bridge message' }],
    });
    setTimeout(() => report({ ran: true, path, posted: 3, answers, waitedMs: BRIDGE_WAIT_MS }), BRIDGE_WAIT_MS);
    return;
  }

  if (mode === 'nav') {
    report({ ran: true, navigating: true });
    window.location.replace('/');
    return;
  }

  report({ ran: true, error: `unknown mode ${mode}` });
})();
