import { describe, expect, it } from 'vitest';
import { clockTime, parseDate, relativeTime } from './time';

// Local-time constructors keep these independent of the machine's time zone.
const now = new Date(2026, 2, 15, 14, 30, 0).getTime(); // Mar 15 2026, 14:30
const at = (...a: [number, number, number, number?, number?, number?]) =>
  new Date(a[0], a[1], a[2], a[3] ?? 0, a[4] ?? 0, a[5] ?? 0).getTime();

describe('relativeTime', () => {
  it.each([
    [now - 10_000, 'just now'],
    [now + 60_000, 'just now'],
    [now - 60_000, '1 min ago'],
    [now - 5 * 60_000, '5 min ago'],
    [now - 59 * 60_000, '59 min ago'],
    [now - 3 * 3_600_000, '3 h ago'],
    [at(2026, 2, 15, 0, 5), '14 h ago'],
    [at(2026, 2, 14, 23, 50), 'Yesterday'],
    [at(2026, 2, 14, 1, 0), 'Yesterday'],
    [at(2026, 2, 11, 9, 0), '4 days ago'],
    [at(2026, 2, 1, 9, 0), 'Mar 1'],
    [at(2025, 11, 24, 9, 0), 'Dec 24, 2025'],
  ])('%d → %s', (t, want) => {
    expect(relativeTime(t, now)).toBe(want);
  });

  it('is empty for missing times', () => {
    expect(relativeTime(null, now)).toBe('');
    expect(relativeTime(undefined, now)).toBe('');
    expect(relativeTime(Number.NaN, now)).toBe('');
    expect(relativeTime(0, now)).toBe('');
  });
});

describe('parseDate', () => {
  it('reads ISO strings, epoch ms and SillyTavern humanized dates', () => {
    expect(parseDate('2026-03-15T14:30:00.000Z')).toBe(Date.UTC(2026, 2, 15, 14, 30));
    expect(parseDate(12345)).toBe(12345);
    expect(parseDate('June 5, 2024 3:04pm')).toBe(new Date(2024, 5, 5, 15, 4).getTime());
    expect(parseDate('not a date')).toBeNull();
    expect(parseDate(undefined)).toBeNull();
  });
});

describe('clockTime', () => {
  it('shows the time today, the date otherwise', () => {
    expect(clockTime(at(2026, 2, 15, 9, 5), now)).toBe('9:05 AM');
    expect(clockTime(at(2026, 2, 14, 21, 0), now)).toBe('Yesterday 9:00 PM');
    expect(clockTime(at(2026, 0, 2, 21, 0), now)).toBe('Jan 2, 9:00 PM');
    expect(clockTime(null, now)).toBe('');
  });
});
