import { describe, expect, it } from 'vitest';
import { rowHint, textLines } from './rowhint';

describe('textLines', () => {
  it.each([
    ['', 1],
    ['short', 1],
    ['x'.repeat(90), 1],
    ['x'.repeat(91), 2],
    ['a\nb', 2],
    ['a\n\nb', 3],
    [`${'x'.repeat(200)}\n${'y'.repeat(10)}`, 4],
  ])('%#', (text, want) => {
    expect(textLines(text)).toBe(want);
  });
});

describe('rowHint', () => {
  it('grows with the text and with swipes', () => {
    const short = rowHint({ mes: 'hi', swipes: ['hi'] } as never);
    const long = rowHint({ mes: 'x'.repeat(900), swipes: ['x'] } as never);
    const swiped = rowHint({ mes: 'hi', swipes: ['hi', 'yo'] } as never);
    expect(long - short).toBe(9 * 24);
    expect(swiped - short).toBe(30);
  });
  it('treats a missing text as one line', () => {
    expect(rowHint({} as never)).toBe(rowHint({ mes: '' } as never));
  });
});
