// getContext()'s media helpers that touch the page (SillyTavern's):
// appendMediaToMessage draws a message's attachments into an element an
// extension owns; scrollChatToBottom and scrollOnMediaLoad move Hearth's
// own chat view, which listens for the window event they send.
import { ensureMessageMediaIsArray } from './media';

/** The window event the chat view scrolls to its newest message on. */
export const SCROLL_EVENT = 'hearth:scroll-chat-bottom';

/** How long scrollOnMediaLoad waits for media before scrolling anyway. */
const MEDIA_WAIT_MS = 3000;

/** element accepts a DOM element or a jQuery-like wrapper ($(el), as SillyTavern passes). */
function element(target: unknown): Element | null {
  if (typeof Element === 'undefined') return null;
  if (target instanceof Element) return target;
  if (target && typeof target === 'object') {
    const w = target as { 0?: unknown; get?: (i: number) => unknown };
    const first = typeof w.get === 'function' ? w.get(0) : w[0];
    if (first instanceof Element) return first;
  }
  return null;
}

function safeUrl(u: unknown): string | null {
  return typeof u === 'string' && (u.startsWith('/api/media/') || u.startsWith('https://') || u.startsWith('data:image/')) ? u : null;
}

/**
 * appendMediaToMessage draws message.extra.media[] and extra.files[] into
 * element (replacing what an earlier call drew there): images, video and
 * audio in a list, or the selected one for display 'gallery'; files as
 * download links. Only Hearth's media URLs, https: and data: images are
 * drawn. With scrollBehavior set, the chat then scrolls to its newest
 * message.
 */
export function appendMediaToMessage(message: { extra?: Record<string, unknown> }, target: unknown, scrollBehavior?: string): void {
  const el = element(target);
  if (!el) return;
  const copy = { extra: structuredClone(message.extra ?? {}) as Record<string, unknown> };
  ensureMessageMediaIsArray(copy);
  el.querySelector(':scope > .hearth-media')?.remove();
  const box = el.ownerDocument.createElement('div');
  box.className = 'hearth-media';
  const media = (Array.isArray(copy.extra.media) ? copy.extra.media : []) as Record<string, unknown>[];
  const gallery = copy.extra.media_display === 'gallery';
  const idx = typeof copy.extra.media_index === 'number' && copy.extra.media_index >= 0 && copy.extra.media_index < media.length ? copy.extra.media_index : 0;
  for (const [i, m] of media.entries()) {
    if (gallery && i !== idx) continue;
    const url = safeUrl(m.url);
    if (!url) continue;
    const title = typeof m.title === 'string' ? m.title : '';
    const kind = m.type === 'video' || m.type === 'audio' ? m.type : 'image';
    const node = el.ownerDocument.createElement(kind === 'image' ? 'img' : kind);
    node.setAttribute('src', url);
    if (kind === 'image') node.setAttribute('alt', title || 'Attached image');
    else node.setAttribute('controls', '');
    if (title) node.setAttribute('title', title);
    box.append(node);
  }
  for (const f of (Array.isArray(copy.extra.files) ? copy.extra.files : []) as Record<string, unknown>[]) {
    const url = typeof f.url === 'string' && (f.url.startsWith('/api/media/') || f.url.startsWith('https://')) ? f.url : null;
    if (!url) continue;
    const a = el.ownerDocument.createElement('a');
    a.href = url;
    a.textContent = typeof f.name === 'string' && f.name ? f.name : 'file';
    a.setAttribute('download', a.textContent);
    box.append(a);
  }
  el.append(box);
  if (scrollBehavior) scrollChatToBottom();
}

/** scrollChatToBottom asks Hearth's chat view to show its newest message. */
export function scrollChatToBottom(): void {
  if (typeof window !== 'undefined') window.dispatchEvent(new CustomEvent(SCROLL_EVENT));
}

/**
 * scrollOnMediaLoad waits until the images, video and audio now in the
 * chat view have loaded (or failed, or 3 s passed), then scrolls to the
 * newest message, so media that arrive taller than their placeholder do
 * not leave the view short of the end.
 */
export async function scrollOnMediaLoad(): Promise<void> {
  if (typeof document === 'undefined') return;
  const pending = [...document.querySelectorAll<HTMLImageElement | HTMLMediaElement>('[aria-label="Chat"] img, [aria-label="Chat"] video, [aria-label="Chat"] audio')].filter((m) =>
    m instanceof HTMLImageElement ? !m.complete : m.readyState < 1,
  );
  const loads = pending.map(
    (m) =>
      new Promise<void>((resolve) => {
        const done = () => resolve();
        m.addEventListener(m instanceof HTMLImageElement ? 'load' : 'loadedmetadata', done, { once: true });
        m.addEventListener('error', done, { once: true });
      }),
  );
  await Promise.race([Promise.all(loads), new Promise((r) => setTimeout(r, MEDIA_WAIT_MS))]);
  scrollChatToBottom();
}
