// Boot-time discovery: which backend this document talks to, and (in the
// desktop window) the per-launch capability token the Go asset handler
// injected into the main document as <script id="hearth-boot">.
import { HostError, TransportCodes } from './errors';
import { createHttpTransport, type HttpTransport } from './http';
import type { Transport } from './transport';
import { createWailsTransport, findWails } from './wails';

export const BOOT_ELEMENT_ID = 'hearth-boot';

interface BootDocument {
  getElementById(id: string): { textContent: string | null; remove(): void } | null;
}

/**
 * takeBootToken reads the injected token once and removes its element, so
 * nothing that runs later (extensions, rendered cards) can find it in the
 * DOM. It returns null when there is none or it is malformed.
 */
export function takeBootToken(doc: BootDocument): string | null {
  const el = doc.getElementById(BOOT_ELEMENT_ID);
  if (!el) return null;
  const text = el.textContent ?? '';
  el.remove();
  try {
    const parsed = JSON.parse(text) as { token?: unknown } | null;
    return typeof parsed?.token === 'string' && parsed.token !== '' ? parsed.token : null;
  } catch {
    return null;
  }
}

export type Connection =
  | { mode: 'desktop'; transport: Transport }
  | { mode: 'browser'; transport: HttpTransport };

/**
 * connect picks the transport for this document. It must run once, first
 * thing, in the top-level window: a framed document is refused outright.
 */
export function connect(w: Window & typeof globalThis): Connection {
  const token = takeBootToken(w.document);
  if (w.top !== w) {
    throw new HostError(TransportCodes.denied, 'Hearth refuses to run inside a frame');
  }
  const wails = findWails(w);
  if (wails) {
    if (token === null) {
      throw new HostError(TransportCodes.denied, 'the desktop window did not receive its capability token');
    }
    return { mode: 'desktop', transport: createWailsTransport(token, wails) };
  }
  return { mode: 'browser', transport: createHttpTransport({ base: w.location.origin }) };
}
