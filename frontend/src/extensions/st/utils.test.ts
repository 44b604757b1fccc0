import { describe, expect, it, vi } from 'vitest';
import { escapeHtml, escapeRegex, getStringHash, isFalseBoolean, isTrueBoolean, onlyUnique, regexFromString, stringFormat, waitUntilCondition } from './utils';

describe("SillyTavern's utils helpers", () => {
  it('read booleans as SillyTavern does', () => {
    expect(['on', ' TRUE ', '1'].map(isTrueBoolean)).toEqual([true, true, true]);
    expect(['off', 'False', '0'].map(isFalseBoolean)).toEqual([true, true, true]);
    expect([undefined, 'yes', 1].map(isTrueBoolean)).toEqual([false, false, false]);
  });

  it('hash like SillyTavern (cyrb53), escape and format', () => {
    // Values SillyTavern 1.18's getStringHash gives.
    expect(getStringHash('')).toBe(3338908027751811);
    expect(getStringHash('Hello')).toBe(4867314475583282);
    expect(getStringHash('Hello')).not.toBe(getStringHash('hello'));
    expect(getStringHash(5)).toBe(0);
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
    expect(new RegExp(escapeRegex('a.b/c-d[e]')).test('a.b/c-d[e]')).toBe(true);
    expect([1, 2, 1, 3].filter(onlyUnique)).toEqual([1, 2, 3]);
    expect(stringFormat('{0} and {1}, {2}', 'a', 'b')).toBe('a and b, {2}');
    expect(regexFromString('/ab+/gi')?.flags).toBe('gi');
    expect(regexFromString('ab+')?.source).toBe('ab+');
    expect(regexFromString('/(/')).toBeUndefined();
  });

  it('waits for a condition, and times out', async () => {
    vi.useFakeTimers();
    try {
      let ready = false;
      const done = waitUntilCondition(() => ready, 1000, 50);
      vi.advanceTimersByTime(120);
      ready = true;
      vi.advanceTimersByTime(60);
      await expect(done).resolves.toBeUndefined();
      const late = waitUntilCondition(() => false, 200, 50);
      vi.advanceTimersByTime(250);
      await expect(late).rejects.toThrow('Timed out waiting for condition to be true');
      const soft = waitUntilCondition(() => false, 200, 50, { rejectOnTimeout: false });
      vi.advanceTimersByTime(250);
      await expect(soft).resolves.toBeUndefined();
    } finally {
      vi.useRealTimers();
    }
  });
});
