import { describe, expect, it } from 'vitest';
import { HeightIndex, indexAtOffset, isAtBottom, visibleRange } from './virtual';

const keys = (n: number) => Array.from({ length: n }, (_, i) => `m${i}`);

describe('indexAtOffset', () => {
  const offsets = [0, 10, 30, 60, 100]; // 4 items: heights 10, 20, 30, 40
  it.each([
    [-5, 0],
    [0, 0],
    [9.9, 0],
    [10, 1],
    [29, 1],
    [30, 2],
    [99, 3],
    [100, 3],
    [1e9, 3],
  ])('y=%d → %d', (y, want) => {
    expect(indexAtOffset(offsets, 4, y)).toBe(want);
  });
  it('is 0 for an empty list', () => {
    expect(indexAtOffset([0], 0, 50)).toBe(0);
  });
});

describe('visibleRange', () => {
  const offsets = Array.from({ length: 101 }, (_, i) => i * 10); // 100 items of 10px
  it('covers the viewport', () => {
    expect(visibleRange(offsets, 100, 0, 50, 0)).toEqual({ start: 0, end: 5 });
    expect(visibleRange(offsets, 100, 15, 50, 0)).toEqual({ start: 1, end: 7 });
  });
  it('adds overscan on both sides, clamped', () => {
    expect(visibleRange(offsets, 100, 500, 100, 30)).toEqual({ start: 47, end: 63 });
    expect(visibleRange(offsets, 100, 0, 100, 30)).toEqual({ start: 0, end: 13 });
    expect(visibleRange(offsets, 100, 950, 100, 30)).toEqual({ start: 92, end: 100 });
  });
  it('handles empty lists and zero-height viewports', () => {
    expect(visibleRange([0], 0, 0, 100, 10)).toEqual({ start: 0, end: 0 });
    expect(visibleRange(offsets, 100, 200, 0, 0)).toEqual({ start: 20, end: 21 });
  });
});

describe('HeightIndex', () => {
  it('uses the initial estimate, then the mean of measurements', () => {
    const h = new HeightIndex(100);
    h.setKeys(keys(10));
    expect(h.totalHeight).toBe(1000);
    h.setHeight('m0', 50);
    h.setHeight('m1', 150);
    expect(h.estimate).toBe(100);
    h.setHeight('m1', 250);
    expect(h.estimate).toBe(150);
    expect(h.offsetOf(1)).toBe(50);
    expect(h.offsetOf(2)).toBe(300);
    expect(h.totalHeight).toBe(50 + 250 + 8 * 150);
  });

  it('places unmeasured items by their hints, scaled by how measured items compared with theirs', () => {
    const h = new HeightIndex(100);
    h.setKeys(['a', 'b', 'c', 'd'], [100, 300, 50, 200]);
    expect(h.totalHeight).toBe(650); // hints as they are until something is measured
    expect(h.offsetOf(2)).toBe(400);
    h.setHeight('a', 150); // measured 1.5× its hint
    expect(h.hintScale).toBe(1.5);
    expect(h.offsetOf(2)).toBe(150 + 450);
    expect(h.totalHeight).toBe(150 + 450 + 75 + 300);
    h.setHeight('a', 200); // re-measured: the scale follows
    expect(h.hintScale).toBe(2);
    h.setKeys(['z', 'a', 'b', 'c', 'd'], [10, 100, 300, 50, 200]); // a page prepended
    expect(h.offsetOf(1)).toBe(20);
    expect(h.heightOf(1)).toBe(200);
    h.clear();
    expect(h.hintScale).toBe(1);
    expect(h.totalHeight).toBe(660);
  });

  it('ignores hints that do not match the keys', () => {
    const h = new HeightIndex(100);
    h.setKeys(['a', 'b'], [10]);
    expect(h.totalHeight).toBe(200);
  });

  it('reports whether a measurement changed anything', () => {
    const h = new HeightIndex(100);
    h.setKeys(keys(3));
    expect(h.setHeight('m0', 80)).toBe(true);
    expect(h.setHeight('m0', 80.2)).toBe(false);
    expect(h.setHeight('m0', Number.NaN)).toBe(false);
    expect(h.setHeight('m0', -1)).toBe(false);
  });

  it('keeps heights by key across inserts', () => {
    const h = new HeightIndex(100);
    h.setKeys(['a', 'b']);
    h.setHeight('a', 40);
    h.setHeight('b', 60);
    h.setKeys(['z', 'a', 'b']);
    expect(h.isMeasured('z')).toBe(false);
    expect(h.offsetOf(1)).toBe(50); // z is estimated at the mean (50)
    expect(h.heightOf(2)).toBe(60);
    expect(h.indexOf('b')).toBe(2);
  });

  it('computes ranges over variable heights', () => {
    const h = new HeightIndex(10);
    h.setKeys(keys(5));
    [10, 20, 30, 40, 50].forEach((px, i) => h.setHeight(`m${i}`, px));
    // offsets 0 10 30 60 100 150
    expect(h.range(35, 30, 0)).toEqual({ start: 2, end: 4 });
    expect(h.range(35, 30, 100)).toEqual({ start: 0, end: 5 });
    expect(h.indexAt(149)).toBe(4);
  });

  it('anchors the top item through prepends and re-measurements', () => {
    const h = new HeightIndex(100);
    h.setKeys(['c', 'd', 'e']);
    ['c', 'd', 'e'].forEach((k) => h.setHeight(k, 100));
    const anchor = h.anchorAt(130); // d starts at 100: 30px of it scrolled past
    expect(anchor).toEqual({ key: 'd', offset: -30 });
    h.setKeys(['a', 'b', 'c', 'd', 'e']); // two estimated items before
    h.setHeight('c', 180);
    expect(h.estimate).toBeCloseTo((180 + 100 + 100) / 3);
    expect(h.scrollTopFor(anchor!)).toBeCloseTo(2 * h.estimate + 180 + 30);
    h.setKeys(['a', 'b', 'c', 'e']);
    expect(h.scrollTopFor(anchor!)).toBeNull();
  });

  it('stays fast with 10,000 items', () => {
    const h = new HeightIndex(120);
    h.setKeys(keys(10_000));
    const t0 = performance.now();
    for (let i = 0; i < 200; i++) {
      h.setHeight(`m${i * 37}`, 80 + (i % 7) * 15);
      h.range(i * 3000, 800, 600);
    }
    expect(performance.now() - t0).toBeLessThan(500);
    const r = h.range(h.totalHeight - 800, 800, 0);
    expect(r.end).toBe(10_000);
  });
});

describe('isAtBottom', () => {
  it('allows a small threshold', () => {
    expect(isAtBottom(900, 100, 1000)).toBe(true);
    expect(isAtBottom(880, 100, 1000)).toBe(true);
    expect(isAtBottom(870, 100, 1000)).toBe(false);
    expect(isAtBottom(0, 500, 400)).toBe(true);
  });
});

describe('HeightIndex re-keying', () => {
  /** check asserts every item's height is its measurement, else its hint scaled, and every key is found where it is. */
  function check(index: HeightIndex, ks: string[], hints: number[], measured: Map<string, number>): void {
    expect(index.length).toBe(ks.length);
    ks.forEach((k, i) => {
      expect(index.indexOf(k)).toBe(i);
      const want = measured.get(k) ?? hints[i]! * index.hintScale;
      expect(index.heightOf(i)).toBeCloseTo(want, 6);
    });
  }

  it('keeps heights, hints and positions right through appends, replacements, removals and edits', () => {
    let seed = 7;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const index = new HeightIndex(50);
    const measured = new Map<string, number>();
    let ks = keys(40);
    let hints = ks.map((_, i) => 40 + (i % 7) * 10);
    let next = 40;
    index.setKeys(ks, hints);
    for (let step = 0; step < 300; step++) {
      const op = rand(10);
      if (op === 0) {
        ks = [...ks, `m${next++}`]; // a message sent
        hints = [...hints, 30 + rand(200)];
      } else if (op === 1 && ks.length > 1) {
        ks = [...ks.slice(0, -1), `m${next++}`]; // the live row becomes the reply
        hints = [...hints.slice(0, -1), 30 + rand(200)];
      } else if (op === 2 && ks.length > 2) {
        const at = rand(ks.length); // a middle delete
        ks = ks.filter((_, i) => i !== at);
        hints = hints.filter((_, i) => i !== at);
      } else if (op <= 5) {
        hints = [...hints]; // an edit changes a hint in place
        hints[rand(hints.length)] = 30 + rand(200);
      } else {
        const k = ks[rand(ks.length)]!; // a row measured (again)
        const h = 20 + rand(300);
        index.setHeight(k, h);
        measured.set(k, h);
        check(index, ks, hints, measured);
        continue;
      }
      index.setKeys(ks, hints);
      check(index, ks, hints, measured);
    }
  });

  it('drops the hints when a re-key comes without them, and takes them back', () => {
    const index = new HeightIndex(50);
    const ks = keys(3);
    index.setKeys(ks, [10, 20, 30]);
    expect(index.totalHeight).toBe(60);
    index.setKeys(ks);
    expect(index.totalHeight).toBe(150);
    index.setKeys(ks, [10, 20, 30]);
    expect(index.totalHeight).toBe(60);
  });
});
