// Geometry for the virtualized message list: a height per item (measured,
// cached by key, or estimated), prefix offsets, the visible range for a
// scroll position, and scroll anchoring so content does not jump when items
// above the viewport are measured, inserted or removed.

/** A half-open index range [start, end). */
export interface Range {
  start: number;
  end: number;
}

/** Where the viewport's top item sat: restore it after the list changes. */
export interface Anchor {
  key: string;
  /** The item's top minus scrollTop, in px (≤ 0 when it is partly scrolled past). */
  offset: number;
}

/**
 * HeightIndex keeps item heights by key, so a measured message keeps its
 * height when messages are added before it or the list is rebuilt. Items
 * not measured yet get the mean of the measured heights (or the initial
 * estimate) — or, when the caller gives per-item hints, their hint scaled
 * by how measured items compared with their own hints, which puts a long
 * message's row where it will be before it is ever rendered. Offsets are
 * rebuilt lazily, in O(n), only after a change.
 *
 * A 10,000-message chat re-keys the list when a message is sent or a reply
 * lands, and re-measures the streaming row with every delta. So the
 * heights and hints are also kept in arrays aligned with the keys, which
 * the O(n) rebuild reads instead of a map, and setKeys redoes only what
 * follows the prefix the old and new keys share (a Chromium profile of a
 * 10k chat had the map-based rebuild and re-keying among the longest
 * script work of sending and of committing a reply).
 */
export class HeightIndex {
  private keyList: readonly string[] = [];
  private positions = new Map<string, number>();
  private readonly heights = new Map<string, number>();
  /** atHeight[i] is item i's measured height, NaN when it has none; atHint[i] its hint, 0 for none. */
  private atHeight = new Float64Array(0);
  private atHint = new Float64Array(0);
  private hinted = false;
  private measuredSum = 0;
  /** The hint each measured item had, and the sums that scale hints. */
  private readonly measuredHints = new Map<string, number>();
  private hintedHeightSum = 0;
  private hintedHintSum = 0;
  private offsets = new Float64Array(1);
  private dirty = false;

  constructor(private readonly initialEstimate = 96) {}

  /** estimate is the height assumed for items not measured yet. */
  get estimate(): number {
    return this.heights.size > 0 ? this.measuredSum / this.heights.size : this.initialEstimate;
  }

  get length(): number {
    return this.keyList.length;
  }

  /** hintScale is measured height per hinted px, over the items that had hints. */
  get hintScale(): number {
    return this.hintedHintSum > 0 ? this.hintedHeightSum / this.hintedHintSum : 1;
  }

  /**
   * setKeys replaces the item order; measured heights are kept by key.
   * hints, when given, holds each item's expected height in px.
   */
  setKeys(keys: readonly string[], hints?: ArrayLike<number>): void {
    const n = keys.length;
    const useHints = hints !== undefined && hints.length === n;
    const old = this.keyList;
    // The shared prefix: same keys at the same places with the same hints.
    let same = 0;
    if (useHints === this.hinted) {
      const m = Math.min(old.length, n);
      while (same < m && old[same] === keys[same] && (!useHints || this.atHint[same] === hintAt(hints, same))) same++;
    }
    for (let i = same; i < old.length; i++) {
      const k = old[i] as string;
      if (this.positions.get(k) === i) this.positions.delete(k);
    }
    const atHeight = n === old.length ? this.atHeight : copyPrefix(this.atHeight, n, same);
    const atHint = n === old.length ? this.atHint : copyPrefix(this.atHint, n, same);
    for (let i = same; i < n; i++) {
      const k = keys[i] as string;
      this.positions.set(k, i);
      atHeight[i] = this.heights.get(k) ?? NaN;
      atHint[i] = useHints ? hintAt(hints, i) : 0;
    }
    this.keyList = keys;
    this.atHeight = atHeight;
    this.atHint = atHint;
    this.hinted = useHints;
    this.dirty = true;
  }

  keyAt(index: number): string | undefined {
    return this.keyList[index];
  }

  indexOf(key: string): number {
    return this.positions.get(key) ?? -1;
  }

  /** setHeight records a measurement; it reports whether anything changed. */
  setHeight(key: string, height: number): boolean {
    if (!Number.isFinite(height) || height < 0) return false;
    const old = this.heights.get(key);
    if (old !== undefined && Math.abs(old - height) < 0.5) return false;
    this.measuredSum += height - (old ?? 0);
    this.heights.set(key, height);
    const oldHint = this.measuredHints.get(key);
    if (oldHint !== undefined) {
      this.hintedHintSum -= oldHint;
      this.hintedHeightSum -= old ?? 0;
      this.measuredHints.delete(key);
    }
    const at = this.positions.get(key);
    if (at !== undefined) {
      this.atHeight[at] = height;
      const hint = this.hinted ? (this.atHint[at] as number) : 0;
      if (hint > 0) {
        this.measuredHints.set(key, hint);
        this.hintedHintSum += hint;
        this.hintedHeightSum += height;
      }
    }
    this.dirty = true;
    return true;
  }

  isMeasured(key: string): boolean {
    return this.heights.has(key);
  }

  /** forget drops every measurement (e.g. when the list width changes a lot). */
  clear(): void {
    this.heights.clear();
    this.atHeight.fill(NaN);
    this.measuredSum = 0;
    this.measuredHints.clear();
    this.hintedHintSum = 0;
    this.hintedHeightSum = 0;
    this.dirty = true;
  }

  private rebuild(): void {
    const n = this.keyList.length;
    if (this.offsets.length !== n + 1) this.offsets = new Float64Array(n + 1);
    const est = this.estimate;
    const scale = this.hintScale;
    const atHeight = this.atHeight;
    const atHint = this.atHint;
    const hinted = this.hinted;
    let y = 0;
    for (let i = 0; i < n; i++) {
      this.offsets[i] = y;
      const h = atHeight[i] as number;
      y += h === h ? h : hinted ? (atHint[i] as number) * scale : est;
    }
    this.offsets[n] = y;
    this.dirty = false;
  }

  private table(): Float64Array {
    if (this.dirty) this.rebuild();
    return this.offsets;
  }

  /** offsetOf is the top of item index (index = length gives the total height). */
  offsetOf(index: number): number {
    const t = this.table();
    const i = Math.max(0, Math.min(index, this.keyList.length));
    return t[i] as number;
  }

  heightOf(index: number): number {
    return this.offsetOf(index + 1) - this.offsetOf(index);
  }

  get totalHeight(): number {
    return this.offsetOf(this.keyList.length);
  }

  /** indexAt is the item covering y (clamped to the list; 0 when empty). */
  indexAt(y: number): number {
    return indexAtOffset(this.table(), this.keyList.length, y);
  }

  /** range is what to render for a viewport, with overscan px on each side. */
  range(scrollTop: number, viewportHeight: number, overscan: number): Range {
    return visibleRange(this.table(), this.keyList.length, scrollTop, viewportHeight, overscan);
  }

  /** anchorAt names the item at the top of the viewport and where it sits. */
  anchorAt(scrollTop: number): Anchor | null {
    const n = this.keyList.length;
    if (n === 0) return null;
    const i = this.indexAt(scrollTop);
    return { key: this.keyList[i] as string, offset: this.offsetOf(i) - scrollTop };
  }

  /**
   * scrollTopFor is the scrollTop that puts the anchor's item back where it
   * was, or null when that item is gone.
   */
  scrollTopFor(anchor: Anchor): number | null {
    const i = this.indexOf(anchor.key);
    return i < 0 ? null : Math.max(0, this.offsetOf(i) - anchor.offset);
  }
}

/** hintAt is hints[i] as a number (0 when it is not a positive one). */
function hintAt(hints: ArrayLike<number>, i: number): number {
  const h = hints[i] as number;
  return h > 0 ? h : 0;
}

/** copyPrefix is a new array of length n starting with the first keep values of from. */
function copyPrefix(from: Float64Array<ArrayBuffer>, n: number, keep: number): Float64Array<ArrayBuffer> {
  const to = new Float64Array(n);
  to.set(from.subarray(0, Math.min(keep, n)));
  return to;
}

/**
 * indexAtOffset finds, by binary search over prefix offsets (offsets[i] is
 * the top of item i, offsets[n] the total), the item that covers y.
 */
export function indexAtOffset(offsets: ArrayLike<number>, n: number, y: number): number {
  if (n <= 0) return 0;
  let lo = 0;
  let hi = n - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((offsets[mid] as number) <= y) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** visibleRange is the items intersecting [scrollTop - overscan, scrollTop + viewport + overscan]. */
export function visibleRange(
  offsets: ArrayLike<number>,
  n: number,
  scrollTop: number,
  viewportHeight: number,
  overscan: number,
): Range {
  if (n <= 0) return { start: 0, end: 0 };
  const top = Math.max(0, scrollTop - overscan);
  const bottom = Math.max(top, scrollTop + Math.max(0, viewportHeight) + overscan);
  const start = indexAtOffset(offsets, n, top);
  let end = indexAtOffset(offsets, n, bottom) + 1;
  // An item starting exactly at the bottom edge is not visible.
  if (end - 1 > start && (offsets[end - 1] as number) >= bottom) end--;
  return { start, end: Math.min(n, end) };
}

/** isAtBottom reports whether a scroller is (within threshold px of) its end. */
export function isAtBottom(scrollTop: number, clientHeight: number, scrollHeight: number, threshold = 24): boolean {
  return scrollHeight - scrollTop - clientHeight <= threshold;
}
