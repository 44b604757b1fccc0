// Friendlier chat titles: SillyTavern names chats "<Character> - 2026-11-22@03h04m05s123ms".
// The stored file name never changes (SillyTavern reads it); only what is shown does.

const STAMP_OPTIONS: Intl.DateTimeFormatOptions = { month: 'short', day: 'numeric', year: 'numeric', hour: 'numeric', minute: '2-digit' };

/** formats keeps one formatter per locale ('' is the browser's own). */
const formats = new Map<string, Intl.DateTimeFormat>();

function stampFormat(locale: string | undefined): Intl.DateTimeFormat {
  const key = locale ?? '';
  let f = formats.get(key);
  if (!f) {
    f = new Intl.DateTimeFormat(locale, STAMP_OPTIONS);
    formats.set(key, f);
  }
  return f;
}

const STAMP = /^(\d{4})-(\d{1,2})-(\d{1,2})\s*@\s*(\d{1,2})h\s*(\d{1,2})m\s*(\d{1,2})s(?:\s*\d{1,3}ms)?$/;

/** A default name: "<who> - <stamp>". */
const NAMED_STAMP = /^(.+?) - (\d{4}-\d{1,2}-\d{1,2}\s*@.*)$/;

/** The default names of checkpoints and branches: "<source> - Branch #2". */
const FORK = /^(.+) - (Checkpoint|Branch) #(\d+)$/;

/**
 * chatTitle is how a chat's file name is shown: a SillyTavern time stamp
 * becomes the date as people write it in the browser's language ("Nov 22,
 * 2026, 3:04 AM" in American English, "22 Nov 2026, 03:04" in British),
 * without the character's name in front (a name other than the
 * character's, from before a rename or an import, stays in front of the
 * date: "Kai · Nov 22, 2026, 3:04 AM"). A default checkpoint or branch
 * name leads with what it is ("Branch #2 · Nov 22, 2026, 3:04 AM"), so a
 * narrow list still tells them apart. Names the user chose are returned
 * unchanged. locale is for tests; the browser's is the default.
 */
export function chatTitle(fileName: string, characterName?: string | null, locale?: string): string {
  const fork = FORK.exec(fileName);
  if (fork) {
    const label = `${fork[2]} #${fork[3]}`;
    const base = chatTitle(fork[1]!, characterName, locale);
    return base === characterName ? label : `${label} · ${base}`;
  }
  let rest = fileName;
  if (characterName && rest.startsWith(`${characterName} - `)) rest = rest.slice(characterName.length + 3);
  const date = stampDate(rest, locale);
  if (date !== null) return date;
  const named = NAMED_STAMP.exec(rest);
  if (named) {
    const d = stampDate(named[2]!, locale);
    if (d !== null) return `${named[1]} · ${d}`;
  }
  return rest.trim() === '' ? fileName : rest;
}

/** stampDate reads a SillyTavern time stamp as a date for people; null when s is not one. */
function stampDate(s: string, locale: string | undefined): string | null {
  const m = STAMP.exec(s.trim());
  if (!m) return null;
  const [y, mo, d, h, mi, sec] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const date = new Date(y, mo - 1, d, h, mi, sec);
  if (Number.isNaN(date.getTime())) return null;
  return stampFormat(locale).format(date).replace(/\s/g, ' ');
}

/** plainPreview turns a message into one line of plain text for lists: no Markdown marks, no tags. */
export function plainPreview(text: string, max = 200): string {
  const plain = text
    .replace(/<[^>]*>/g, ' ')
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/(\*{1,3}|_{1,3}|~~|`+)(?=\S)([\s\S]*?\S)\1/g, '$2')
    .replace(/^\s{0,3}(?:#{1,6}\s+|>\s?|[-*+]\s+|\d+\.\s+)/gm, '')
    .replace(/\s+/g, ' ')
    .trim();
  return plain.length > max ? `${plain.slice(0, max - 1)}…` : plain;
}
