// Human-friendly times for the chat list and message headers.

// Intl formatters are expensive to build; messages format many times while scrolling.
const DAY_MONTH = new Intl.DateTimeFormat('en-US', { month: 'short', day: 'numeric' });
const DAY_MONTH_YEAR = new Intl.DateTimeFormat('en-US', { month: 'short', day: 'numeric', year: 'numeric' });
const CLOCK = new Intl.DateTimeFormat('en-US', { hour: 'numeric', minute: '2-digit' });
const FULL = new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeStyle: 'short' });

/** Newer ICU puts a narrow no-break space before AM/PM; keep output plain. */
function plain(text: string): string {
  return text.replace(/\s/g, ' ');
}

function shortDate(ms: number, now: number): string {
  const sameYear = new Date(ms).getFullYear() === new Date(now).getFullYear();
  return (sameYear ? DAY_MONTH : DAY_MONTH_YEAR).format(ms);
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

function startOfDay(ms: number): number {
  const d = new Date(ms);
  d.setHours(0, 0, 0, 0);
  return d.getTime();
}

/**
 * relativeTime says how long ago ms was, compactly: "just now", "5 min ago",
 * "3 h ago", "Yesterday", "4 days ago", then a date ("Mar 4", or "Mar 4,
 * 2023" in another year). Times in the future (clock skew) read "just now";
 * a missing or invalid time reads "".
 */
export function relativeTime(ms: number | null | undefined, now: number = Date.now()): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms) || ms <= 0) return '';
  const diff = now - ms;
  if (diff < 45_000) return 'just now';
  if (diff < HOUR) return `${Math.max(1, Math.round(diff / MINUTE))} min ago`;
  const days = Math.round((startOfDay(now) - startOfDay(ms)) / DAY);
  if (days === 0) return `${Math.floor(diff / HOUR)} h ago`;
  if (days === 1) return 'Yesterday';
  if (days < 7) return `${days} days ago`;
  return shortDate(ms, now);
}

/** parseDate reads a SillyTavern send_date (ISO, epoch ms, or its old "June 5, 2024 3:04pm"). */
export function parseDate(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value !== 'string' || value === '') return null;
  let t = Date.parse(value);
  if (Number.isNaN(t)) t = Date.parse(value.replace(/(\d)(am|pm)$/i, '$1 $2'));
  return Number.isNaN(t) ? null : t;
}

/** fullTime is the tooltip form of a time: "Mar 4, 2024, 3:05 PM". */
export function fullTime(ms: number | null): string {
  if (ms === null) return '';
  return plain(FULL.format(ms));
}

/** clockTime is the short form for message headers: today "3:05 PM", else "Mar 4, 3:05 PM". */
export function clockTime(ms: number | null, now: number = Date.now()): string {
  if (ms === null) return '';
  const time = plain(CLOCK.format(ms));
  const days = Math.round((startOfDay(now) - startOfDay(ms)) / DAY);
  if (days === 0) return time;
  if (days === 1) return `Yesterday ${time}`;
  return `${shortDate(ms, now)}, ${time}`;
}
