// Entry point: pick the transport (reading the boot token exactly once),
// build the ABI and publish it as window.__HEARTH__ (with the SillyTavern
// and Luker aliases), then mount the UI on top of that same public object.
// boot-mark is imported first so that its mark is the bundle's first statement.
import './boot-mark';
import { createHearthAbi } from './abi/abi';
import { connect, type Connection } from './abi/boot';
import { decodeError } from './abi/errors';
import { install } from './abi/install';
import { mountApp } from './ui/mount';

const target = document.getElementById('app');
if (!target) throw new Error('index.html has no #app element');

let conn: Connection | null = null;
try {
  conn = connect(window);
} catch (err) {
  target.textContent = decodeError(err).message;
}

if (conn) {
  // In browser mode the UI logs in first; the ABI starts talking to the
  // host (events, capabilities) only once onReady says it may.
  let markReady: () => void = () => {};
  const connected = new Promise<void>((resolve) => (markReady = resolve));
  const hearth = createHearthAbi(conn.transport, { connected });
  install(window, hearth);
  hearth.ready.catch((err: unknown) => console.error('Hearth: the host ABI failed to start', err));
  mountApp(target, hearth, {
    mode: conn.mode,
    login: conn.mode === 'browser' ? conn.transport : null,
    onReady: markReady,
  });
}
