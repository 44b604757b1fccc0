// How tall a message row will probably be, from its text alone, so the
// virtual list can place rows it has not rendered yet where they will land
// (HeightIndex scales these hints by what it measures, so only their
// proportions matter). Without them every unrendered row counts as the
// average one, and opening a chat renders three times the rows it shows.
import type { StMessage } from '../../abi/types';

/** Header, paddings and margins of a row, in px. */
const ROW_BASE = 64;
/** Body line height, in px, and the characters a body line holds at a common width. */
const LINE = 24;
const CHARS_PER_LINE = 90;
/** The swipe counter under a message with swipes. */
const SWIPES = 30;

const hints = new WeakMap<object, number>();

/** textLines counts the wrapped lines of text at CHARS_PER_LINE. */
export function textLines(text: string): number {
  let lines = 0;
  let from = 0;
  for (;;) {
    const nl = text.indexOf('\n', from);
    const end = nl < 0 ? text.length : nl;
    lines += Math.max(1, Math.ceil((end - from) / CHARS_PER_LINE));
    if (nl < 0) return lines;
    from = nl + 1;
  }
}

/** rowHint is msg's expected row height in px; messages are frozen, so it is worked out once each. */
export function rowHint(msg: Readonly<StMessage>): number {
  const known = hints.get(msg);
  if (known !== undefined) return known;
  const swipes = Array.isArray(msg.swipes) && msg.swipes.length > 1 ? SWIPES : 0;
  const hint = ROW_BASE + LINE * textLines(typeof msg.mes === 'string' ? msg.mes : '') + swipes;
  hints.set(msg, hint);
  return hint;
}
