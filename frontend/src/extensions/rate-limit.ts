// A token bucket per frame: a frame that posts in a loop must not starve the
// window or the host (the page shares one event socket, which runs at most
// 256 calls at once, with every frame and the UI).

/** CALL_RATE bounds each frame's messages: 100 a second on average, bursts of 200. */
export const CALL_RATE = Object.freeze({ perSecond: 100, burst: 200 });

/** NOTIFY_RATE bounds each frame's toasts (ui.notify): one a second, bursts of 3. */
export const NOTIFY_RATE = Object.freeze({ perSecond: 1, burst: 3 });

/** IN_FLIGHT is how many of a frame's calls may be under way on the page api at once. */
export const IN_FLIGHT = 32;

/** QUEUED is how many more of a frame's calls may wait for a place; past that they are refused. */
export const QUEUED = 256;

/** TokenBucket refills perSecond tokens a second up to burst; take spends one if there is one. */
export class TokenBucket {
  private tokens: number;
  private last: number;

  constructor(
    readonly perSecond: number,
    readonly burst: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.tokens = burst;
    this.last = now();
  }

  /** take spends a token and says true, or says false when the bucket is empty. */
  take(): boolean {
    const t = this.now();
    this.tokens = Math.min(this.burst, this.tokens + ((t - this.last) / 1000) * this.perSecond);
    this.last = t;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}
