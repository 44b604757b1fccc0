/**
 * A text that is still streaming in, cut where Markdown can no longer
 * change: after a blank line outside a code fence. Everything before such
 * a cut renders once per paragraph and keeps its DOM; only the tail after
 * the last cut renders again with each delta. Rendering the whole text per
 * delta made a long reply cost more with every paragraph (measured: 200 ms
 * tasks at 100 tokens/s once a reply passed 10 KB).
 */

/** A finished paragraph (or a group of them): its offset in the text, and its text. */
export interface StreamBlock {
  start: number;
  text: string;
}

/** stableCuts returns every offset just after a blank line outside a code fence, in order. */
export function stableCuts(text: string): number[] {
  const cuts: number[] = [];
  let fence = false;
  let lineStart = 0;
  for (;;) {
    const nl = text.indexOf('\n', lineStart);
    if (nl < 0) return cuts;
    const line = text.slice(lineStart, nl);
    if (/^ {0,3}(```|~~~)/.test(line)) fence = !fence;
    else if (!fence && line.trim() === '' && lineStart > 0) cuts.push(nl + 1);
    lineStart = nl + 1;
  }
}

/**
 * streamBlocks splits a streaming text into its finished blocks and the
 * tail still being written. A block's start and text never change once it
 * exists, so a keyed list of blocks adds one element per paragraph.
 */
export function streamBlocks(text: string): { blocks: StreamBlock[]; tail: string } {
  const blocks: StreamBlock[] = [];
  let start = 0;
  for (const cut of stableCuts(text)) {
    blocks.push({ start, text: text.slice(start, cut) });
    start = cut;
  }
  return { blocks, tail: text.slice(start) };
}
