// What getContext().saveChat() waits for. Every context call already
// persists before it resolves, so SillyTavern's "write the chat to disk"
// becomes "wait until this window's context calls under way have
// finished": after `ctx.addMessages(m)` fired and forgotten,
// `await ctx.saveChat()` means m is stored.

import type { Call } from './host';

/** WriteTracker counts this window's context calls that are still under way. */
export interface WriteTracker {
  /** call wraps the host call so every host call the context makes counts (floor-state instances too). */
  call(call: Call): Call;
  /**
   * wrap replaces, in place, each method of ctx (except the names in skip)
   * with one that counts its promise while it runs. This covers what a host
   * call alone does not: a read-modify-write between its read and its write,
   * a write waiting for the cache to show it.
   */
  wrap<T extends object>(ctx: T, skip: ReadonlySet<string>): T;
  /** settled resolves once everything under way now has finished (what starts later is not waited for). */
  settled(): Promise<void>;
}

function isThenable(v: unknown): v is PromiseLike<unknown> {
  return (typeof v === 'object' || typeof v === 'function') && v !== null && typeof (v as { then?: unknown }).then === 'function';
}

/** createWriteTracker returns a tracker with nothing under way. */
export function createWriteTracker(): WriteTracker {
  const running = new Set<Promise<unknown>>();

  function track<T>(p: PromiseLike<T>): void {
    const settled = Promise.resolve(p).then(
      () => undefined,
      () => undefined,
    );
    running.add(settled);
    void settled.then(() => running.delete(settled));
  }

  return {
    call(call) {
      return (method, ...args) => {
        const p = call(method, ...args);
        track(p);
        return p;
      };
    },
    wrap(ctx, skip) {
      for (const key of Object.keys(ctx)) {
        const d = Object.getOwnPropertyDescriptor(ctx, key);
        if (!d || typeof d.value !== 'function' || skip.has(key)) continue;
        const fn = d.value as (...args: unknown[]) => unknown;
        Object.defineProperty(ctx, key, {
          ...d,
          value: function (this: unknown, ...args: unknown[]) {
            const out = fn.apply(this, args);
            if (isThenable(out)) track(out);
            return out;
          },
        });
      }
      return ctx;
    },
    async settled() {
      await Promise.all([...running]);
    },
  };
}
