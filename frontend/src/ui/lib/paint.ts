// Waiting for the browser to have painted: the page tier's extensions
// start once the UI is on screen (EXTENSIONS.md §5, "after the UI is
// ready"), so their scripts never hold back the UI's first frame.

/** HIDDEN_WAIT_MS bounds the wait: a hidden or minimized window gets no frames, and its extensions must still start. */
export const HIDDEN_WAIT_MS = 1000;

type PaintWindow = Pick<Window, 'requestAnimationFrame' | 'setTimeout' | 'clearTimeout'>;

/**
 * afterNextPaint resolves just after the next frame has been painted: a
 * frame callback runs before that frame's paint, and a task it queues runs
 * after it. Without frames it resolves after HIDDEN_WAIT_MS.
 */
export function afterNextPaint(w: PaintWindow = window): Promise<void> {
  return new Promise((resolve) => {
    const fallback = w.setTimeout(resolve, HIDDEN_WAIT_MS);
    w.requestAnimationFrame(() => {
      w.clearTimeout(fallback);
      w.setTimeout(resolve, 0);
    });
  });
}
