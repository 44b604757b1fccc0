import { describe, expect, it } from 'vitest';
import { streamBlocks } from './stream-blocks';

/** stable is where the finished part of a streaming text ends. */
const stable = (text: string) => text.length - streamBlocks(text).tail.length;

describe('stream blocks', () => {
  it('cuts after the last blank line outside a code fence', () => {
    expect(stable('one line')).toBe(0);
    expect(stable('para one\n\npara two')).toBe('para one\n\n'.length);
    expect(stable('a\n\nb\n\nc')).toBe('a\n\nb\n\n'.length);
    expect(stable('a\n\n```js\nx\n\ny')).toBe('a\n\n'.length);
    expect(stable('a\n\n```\nx\n\n```\n\nz')).toBe('a\n\n```\nx\n\n```\n\n'.length);
    expect(stable('\n\nstart')).toBe('\n\n'.length);
  });

  it('streamBlocks keeps each finished paragraph at a fixed offset as the text grows', () => {
    const text = 'One.\n\nTwo *still*\n\n```\ncode\n\nmore\n```\n\nTa';
    const { blocks, tail } = streamBlocks(text);
    expect(blocks).toEqual([
      { start: 0, text: 'One.\n\n' },
      { start: 6, text: 'Two *still*\n\n' },
      { start: 19, text: '```\ncode\n\nmore\n```\n\n' },
    ]);
    expect(tail).toBe('Ta');
    expect(blocks.map((b) => b.text).join('') + tail).toBe(text);
    const later = streamBlocks(text + 'il.\n\nThree');
    expect(later.blocks.slice(0, 3)).toEqual(blocks);
    expect(later.blocks[3]).toEqual({ start: text.length - 2, text: 'Tail.\n\n' });
    expect(later.tail).toBe('Three');
  });

  it('has no blocks before the first blank line', () => {
    expect(streamBlocks('just started')).toEqual({ blocks: [], tail: 'just started' });
    expect(streamBlocks('')).toEqual({ blocks: [], tail: '' });
  });
});
