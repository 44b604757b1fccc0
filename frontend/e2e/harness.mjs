// Shared fixture for the browser end-to-end tests (DESIGN §7.4): one
// `hearth-headless serve` on a random loopback port with a temp data dir per
// test file, Debian's Chromium driven by playwright-core, and helpers that
// wait for conditions with deadlines instead of sleeping.
//
// Nothing here builds anything: `make test` builds build/bin/hearth-headless
// first (HEARTH_BIN overrides the path, CHROMIUM the browser).
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const artifactsDir = join(repoRoot, 'build/test-artifacts/e2e');
export const hearthBin = process.env.HEARTH_BIN || join(repoRoot, 'build/bin/hearth-headless');
export const chromiumPath = process.env.CHROMIUM || '/usr/bin/chromium';

/** How long a single wait may take before the test fails. */
export const DEADLINE_MS = Number(process.env.E2E_DEADLINE_MS || 30_000);

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

/** The launch token of each server started here, by base URL (pageUrl). */
const tokens = new Map();

/**
 * pageUrl is the address that opens Hearth at url in a browser: the one
 * `hearth serve` printed, whose ?token= gives the browser its session.
 */
export function pageUrl(url) {
  const token = tokens.get(url);
  return token ? `${url}/?token=${encodeURIComponent(token)}` : `${url}/`;
}

/**
 * startHearth starts `hearth-headless serve --addr 127.0.0.1:0` on a fresh
 * temp data dir and resolves once it printed the address it serves at.
 * extraArgs are more flags for serve (--password-file, --library-root …).
 * With dataDir it serves that folder instead and leaves it in place when it
 * stops (the caller's, to start again on: a restart, --safe-mode).
 */
export async function startHearth(extraArgs = [], { dataDir: ownDir } = {}) {
  if (!existsSync(hearthBin)) {
    throw new Error(`${hearthBin} does not exist: run 'make build-headless' first (or set HEARTH_BIN)`);
  }
  const dataDir = ownDir ?? mkdtempSync(join(tmpdir(), 'hearth-e2e-'));
  const proc = spawn(hearthBin, ['serve', '--addr', '127.0.0.1:0', '--data-dir', dataDir, ...extraArgs], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, HEARTH_DATA_DIR: '' },
  });
  let stderr = '';
  proc.stderr.setEncoding('utf8');
  proc.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  let token = '';
  const url = await new Promise((resolveUrl, reject) => {
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`hearth serve printed no address within ${DEADLINE_MS} ms; stderr:\n${stderr}`));
    }, DEADLINE_MS);
    const lines = createInterface({ input: proc.stdout });
    lines.on('line', (line) => {
      const m = /^Hearth is serving at (http:\/\/[^\s/]+)\/(?:\?token=([A-Za-z0-9_-]+))?$/.exec(line.trim());
      if (m) {
        clearTimeout(timer);
        token = m[2] ?? '';
        resolveUrl(m[1]);
      }
    });
    proc.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`hearth serve exited (${code ?? signal}) before serving; stderr:\n${stderr}`));
    });
  });
  const exited = new Promise((res) => proc.once('exit', res));
  // Without a password the printed address carries the token; with one, a
  // script reads it from the data folder, as the README says.
  if (!token) token = readFileSync(join(dataDir, 'serve-token'), 'utf8').trim();
  tokens.set(url, token);

  /** invoke calls one host method through POST /api/invoke, as a script on the server's machine (the launch token as a bearer token). */
  async function invoke(method, ...args) {
    const res = await fetch(`${url}/api/invoke`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
      body: JSON.stringify({ method, args }),
    });
    const body = await res.json();
    if (!res.ok || body.error) {
      const e = body.error ?? { code: 'http', message: `HTTP ${res.status}` };
      throw Object.assign(new Error(`${method}: ${e.code}: ${e.message}`), { code: e.code, details: e.details });
    }
    return body.result;
  }

  async function stop() {
    if (proc.exitCode === null && proc.signalCode === null) {
      proc.kill('SIGTERM');
      const killer = setTimeout(() => proc.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(killer);
    }
    if (!ownDir) rmSync(dataDir, { recursive: true, force: true });
  }

  return { url, token, dataDir, invoke, stop, stderr: () => stderr };
}

/** launchBrowser starts Debian's Chromium headless with the machine's required flags. */
export async function launchBrowser() {
  if (!existsSync(chromiumPath)) throw new Error(`${chromiumPath} does not exist (make deps installs chromium)`);
  return chromium.launch({ executablePath: chromiumPath, args: CHROMIUM_ARGS, headless: true });
}

/**
 * openApp opens Hearth in a new page (in a fresh browser context unless one
 * is given), waits for window.__HEARTH__.ready and for the UI shell, and
 * records uncaught page errors in page.errors.
 */
export async function openApp(target, url, { theme = 'dark', viewport = { width: 1280, height: 800 } } = {}) {
  const context = 'newContext' in target ? await target.newContext({ viewport }) : target;
  if (theme) {
    await context.addInitScript((t) => {
      try {
        if (!localStorage.getItem('hearth.theme')) localStorage.setItem('hearth.theme', t);
      } catch {
        // storage unavailable: the default theme is fine
      }
    }, theme);
  }
  const page = await context.newPage();
  page.errors = [];
  page.on('pageerror', (err) => page.errors.push(err));
  page.setDefaultTimeout(DEADLINE_MS);
  await page.goto(pageUrl(url));
  await page.waitForFunction(() => typeof window.__HEARTH__ === 'object' && window.__HEARTH__ !== null);
  await page.evaluate(() => window.__HEARTH__.ready);
  // The UI is up: the character list shows, or (on a phone that reopened
  // the last chat before this check ran) the chat with its way back.
  await page.getByRole('button', { name: 'New character' }).or(page.getByRole('button', { name: 'Back to chats' })).first().waitFor();
  return page;
}

/**
 * tapCalls routes the calls a browser context's pages make to Hearth through
 * the test — frames on the event socket (where an open page sends them) and
 * POST /api/invoke alike — so a test can hold or watch a call however it
 * travels. Install it before the context's first page opens (a socket opened
 * earlier is not routed). tap(hook) adds hooks until the function it returns
 * is called:
 *   before(call): awaited before call ({ method, args }) reaches Hearth;
 *   after(call, answer): awaited before its answer ({ result } or { error })
 *     reaches the page;
 *   event(event, deliver): return false to keep a pushed event back, and
 *     call deliver() to let it through later.
 */
export async function tapCalls(context) {
  const hooks = new Set();
  const before = async (call) => {
    for (const h of [...hooks]) await h.before?.(call);
  };
  const after = async (call, answer) => {
    for (const h of [...hooks]) await h.after?.(call, answer);
  };
  const parse = (m) => {
    try {
      return JSON.parse(String(m));
    } catch {
      return null;
    }
  };
  await context.routeWebSocket('**/api/events', (ws) => {
    const server = ws.connectToServer();
    const calls = new Map();
    ws.onMessage(async (m) => {
      const call = parse(m);
      if (call && 'id' in call) {
        calls.set(call.id, call);
        await before(call);
      }
      server.send(m);
    });
    server.onMessage(async (m) => {
      const msg = parse(m);
      if (msg && 'id' in msg && calls.has(msg.id)) {
        const call = calls.get(msg.id);
        calls.delete(msg.id);
        await after(call, msg);
        ws.send(m);
        return;
      }
      for (const h of [...hooks]) if (h.event?.(msg, () => ws.send(m)) === false) return;
      ws.send(m);
    });
  });
  await context.route('**/api/invoke', async (route) => {
    const call = route.request().postDataJSON();
    await before(call);
    if (![...hooks].some((h) => h.after)) return route.continue();
    const response = await route.fetch();
    await after(call, await response.json());
    return route.fulfill({ response });
  });
  return {
    tap(hook) {
      hooks.add(hook);
      return () => hooks.delete(hook);
    },
  };
}

/**
 * waitFor polls fn (sync or async) until it returns a truthy value and
 * returns that value; it throws, naming what it waited for and the last
 * value or error seen, once the deadline passes.
 */
export async function waitFor(fn, what, { timeout = DEADLINE_MS, interval = 25 } = {}) {
  const end = Date.now() + timeout;
  let last;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
      last = v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > end) {
      const detail = last instanceof Error ? last.message : JSON.stringify(last);
      throw new Error(`timed out after ${timeout} ms waiting for ${what} (last: ${detail})`);
    }
    await new Promise((r) => setTimeout(r, interval));
  }
}

/**
 * call runs window.__HEARTH__.api.<method>(...args) in page (method a
 * dotted path: 'extensions.storage.get') and reports how it ended:
 * { ok: true, value } (undefined as null) or { ok: false, code, message,
 * details }, so a test can assert a refusal's code as a caller sees it.
 */
export function call(page, method, ...args) {
  return page.evaluate(
    async ([method, args]) => {
      let self = null;
      let fn = window.__HEARTH__.api;
      for (const part of method.split('.')) {
        self = fn;
        fn = fn[part];
      }
      try {
        return { ok: true, value: (await fn.apply(self, args)) ?? null };
      } catch (e) {
        return { ok: false, code: e.code ?? null, message: String(e.message), details: e.details ?? null };
      }
    },
    [method, args],
  );
}

/** screenshot saves a PNG under build/test-artifacts/e2e/ and returns its path. */
export async function screenshot(page, name) {
  mkdirSync(artifactsDir, { recursive: true });
  const path = join(artifactsDir, `${name}.png`);
  await page.screenshot({ path });
  return path;
}

/**
 * fromMoreSettings picks item (a name or a pattern: "Presets…", "Lorebooks…",
 * "Switch to light theme"…) from the menu under the character list header's
 * "More settings" button; tap: by touch.
 */
export async function fromMoreSettings(page, item, { tap = false } = {}) {
  const button = page.getByRole('button', { name: 'More settings' });
  await (tap ? button.tap() : button.click());
  const entry = page.getByRole('menuitem', { name: item });
  await (tap ? entry.tap() : entry.click());
}

/** message locates the row of the message at index (MessageRow's aria-label). */
export function messageRow(page, index) {
  return page.locator(`article[aria-label^="Message ${index} from "]`);
}

/**
 * messageAction picks one of a message's actions ("Edit message", "Delete
 * message", "Branch from here"…) as a touch screen offers them, by tap:
 * the message's ⋯ opens a sheet that names them. (A mouse at full width
 * gets them as a toolbar on hover instead.)
 */
export async function messageAction(page, index, name) {
  await messageRow(page, index).getByRole('button', { name: `Actions for message ${index}`, exact: true }).tap();
  const sheet = page.getByRole('dialog', { name: new RegExp(`^Message #${index} from `) });
  await sheet.getByRole('button', { name, exact: true }).tap();
  await sheet.waitFor({ state: 'hidden' });
}

/**
 * zip packs files ({ name: text or Buffer }) into a .zip (stored, no
 * compression), as a zip tool would; names go in as given, so a test can
 * build a hostile archive (a "../" entry) too.
 */
export function zip(files) {
  const locals = [];
  const central = [];
  let offset = 0;
  for (const [name, content] of Object.entries(files)) {
    const data = Buffer.isBuffer(content) ? content : Buffer.from(content, 'utf8');
    const fileName = Buffer.from(name, 'utf8');
    const crc = zlib.crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4); // version needed
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt16LE(0, 8); // stored
    local.writeUInt16LE(0, 10); // time
    local.writeUInt16LE(0x21, 12); // 1980-01-01
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(fileName.length, 26);
    local.writeUInt16LE(0, 28);
    const head = Buffer.alloc(46);
    head.writeUInt32LE(0x02014b50, 0);
    head.writeUInt16LE(20, 4);
    head.writeUInt16LE(20, 6);
    head.writeUInt16LE(0x0800, 8);
    head.writeUInt16LE(0, 10);
    head.writeUInt16LE(0, 12);
    head.writeUInt16LE(0x21, 14);
    head.writeUInt32LE(crc, 16);
    head.writeUInt32LE(data.length, 20);
    head.writeUInt32LE(data.length, 24);
    head.writeUInt16LE(fileName.length, 28);
    head.writeUInt32LE(offset, 42);
    locals.push(local, fileName, data);
    central.push(head, fileName);
    offset += local.length + fileName.length + data.length;
  }
  const dir = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(Object.keys(files).length, 8);
  end.writeUInt16LE(Object.keys(files).length, 10);
  end.writeUInt32LE(dir.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, dir, end]);
}

/** pngImage returns a small solid-colour PNG (an avatar to upload). */
export async function pngImage(width = 64, height = 64, rgb = [0xd9, 0x77, 0x3a]) {
  const { deflateSync } = await import('node:zlib');
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc32 = (buf) => {
    let c = 0xffffffff;
    for (const b of buf) c = crcTable[(c ^ b) & 0xff] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type, data) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([len, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // truecolour
  const row = Buffer.alloc(1 + width * 3);
  for (let x = 0; x < width; x++) row.set(rgb, 1 + x * 3);
  const raw = Buffer.concat(Array.from({ length: height }, () => row));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/**
 * useHearth registers before/after hooks for one test file: a server (args
 * are more serve flags), a browser, and a clean shutdown. It returns a live
 * object whose fields are filled in by the before hook.
 */
export function useHearth({ before, after, args = [] }) {
  const env = { server: null, browser: null };
  before(async () => {
    env.server = await startHearth(args);
    env.browser = await launchBrowser();
  });
  after(async () => {
    await env.browser?.close();
    await env.server?.stop();
  });
  return env;
}
