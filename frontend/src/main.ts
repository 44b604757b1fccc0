// Entry point: pick the transport (reading the boot token exactly once),
// publish window.__HEARTH__, then mount the UI on top of it.
import { mount } from 'svelte';
import { connect, type Connection } from './abi/boot';
import { decodeError } from './abi/errors';
import { createHearth } from './abi/hearth';
import App from './ui/App.svelte';
import './ui/theme.css';

const target = document.getElementById('app');
if (!target) throw new Error('index.html has no #app element');

let conn: Connection | null = null;
try {
  conn = connect(window);
} catch (err) {
  target.textContent = decodeError(err).message;
}

if (conn) {
  let markReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  const hearth = createHearth(conn.transport, ready);
  Object.defineProperty(window, '__HEARTH__', { value: hearth, enumerable: true });
  mount(App, {
    target,
    props: { hearth, login: conn.mode === 'browser' ? conn.transport : null, onReady: markReady },
  });
}
