import { describe, expect, it, vi } from 'vitest';
import { afterNextPaint, HIDDEN_WAIT_MS } from './paint';

/** fakeWindow runs timers by hand and keeps frame callbacks until frame() is called. */
function fakeWindow() {
  const frames: Array<() => void> = [];
  const w = {
    requestAnimationFrame: (fn: () => void) => frames.push(fn),
    setTimeout: (fn: () => void, ms?: number) => setTimeout(fn, ms) as unknown as number,
    clearTimeout: (id: number) => clearTimeout(id),
    frame: () => frames.splice(0).forEach((fn) => fn()),
  };
  return w as unknown as Window & { frame(): void };
}

describe('afterNextPaint', () => {
  it('resolves after the next frame, not before', async () => {
    vi.useFakeTimers();
    try {
      const w = fakeWindow();
      let done = false;
      void afterNextPaint(w).then(() => (done = true));
      await vi.advanceTimersByTimeAsync(HIDDEN_WAIT_MS / 2);
      expect(done).toBe(false);
      w.frame();
      expect(done).toBe(false);
      await vi.advanceTimersByTimeAsync(0);
      expect(done).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });

  it('resolves without frames (a hidden window) after HIDDEN_WAIT_MS', async () => {
    vi.useFakeTimers();
    try {
      let done = false;
      void afterNextPaint(fakeWindow()).then(() => (done = true));
      await vi.advanceTimersByTimeAsync(HIDDEN_WAIT_MS - 1);
      expect(done).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      expect(done).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });
});
