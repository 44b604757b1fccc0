// Entry of /ext-runtime/frame.js (vite.frame.config.ts builds it as a classic
// script): defines window.__HEARTH__ in a sandboxed extension's frame before
// any of the extension's own scripts run. In a window that is not framed it
// does nothing: it has nobody to talk to there.
import { createFrameClient, type FrameGlobal } from './client';

if (window.parent === window) {
  console.warn('Hearth: /ext-runtime/frame.js runs only inside an extension frame');
} else {
  Object.defineProperty(window, '__HEARTH__', {
    value: createFrameClient(window as unknown as FrameGlobal),
    enumerable: true,
    writable: false,
    configurable: false,
  });
}
