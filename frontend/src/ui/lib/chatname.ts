// Friendlier chat titles: SillyTavern names chats "<Character> - 2026-11-22@03h04m05s123ms".

const STAMP_FORMAT = new Intl.DateTimeFormat('en-US', {
  month: 'short',
  day: 'numeric',
  year: 'numeric',
  hour: 'numeric',
  minute: '2-digit',
});

const STAMP = /^(\d{4})-(\d{1,2})-(\d{1,2})\s*@\s*(\d{1,2})h\s*(\d{1,2})m\s*(\d{1,2})s(?:\s*\d{1,3}ms)?$/;

/** The default names of checkpoints and branches: "<source> - Branch #2". */
const FORK = /^(.+) - (Checkpoint|Branch) #(\d+)$/;

/**
 * chatTitle drops the character's name from a chat file name and turns a
 * SillyTavern time stamp into a readable date ("Nov 22, 2026, 3:04 AM").
 * A default checkpoint or branch name leads with what it is ("Branch #2 ·
 * Nov 22, 2026, 3:04 AM"), so a narrow list still tells them apart. Names
 * the user chose are returned unchanged.
 */
export function chatTitle(fileName: string, characterName?: string | null): string {
  const fork = FORK.exec(fileName);
  if (fork) {
    const label = `${fork[2]} #${fork[3]}`;
    const base = chatTitle(fork[1]!, characterName);
    return base === characterName ? label : `${label} · ${base}`;
  }
  let rest = fileName;
  if (characterName && rest.startsWith(`${characterName} - `)) rest = rest.slice(characterName.length + 3);
  const m = STAMP.exec(rest.trim());
  if (!m) return rest.trim() === '' ? fileName : rest;
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const date = new Date(y, mo - 1, d, h, mi, s);
  if (Number.isNaN(date.getTime())) return rest;
  return STAMP_FORMAT.format(date).replace(/\s/g, ' ');
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
