import { describe, expect, it } from 'vitest';
import { createMarkdown, type MarkdownRenderer } from './markdown';
import { TRICKY, randomDocument, rng } from './testdata/markdown-docs';

// Without a DOM there is no sanitizer: raw HTML renders as text, which
// still exercises every cut the lexer allows. The browser test
// (e2e/stream-commit.test.mjs) runs the same documents through DOMPurify.

/** joined renders text in blocks and joins their HTML. */
const joined = (md: MarkdownRenderer, text: string) =>
  md
    .renderBlocks(text)
    .map((b) => b.html)
    .join('');

/** chunkings cuts text at random offsets, as a stream's deltas would arrive. */
function chunkings(text: string, rand: () => number, count: number): number[][] {
  const out: number[][] = [];
  for (let c = 0; c < count; c++) {
    const cuts: number[] = [];
    for (let at = 0; at < text.length; ) {
      at += 1 + Math.floor(rand() * (c % 2 === 0 ? 4 : 40));
      cuts.push(Math.min(at, text.length));
    }
    out.push(cuts);
  }
  return out;
}

describe('renderBlocks', () => {
  it.each(Object.entries(TRICKY))('renders %s in blocks exactly as whole', (_, doc) => {
    const whole = createMarkdown(null);
    expect(joined(createMarkdown(null), doc)).toBe(whole.renderWhole(doc));
  });

  it.each(Object.entries(TRICKY))('renders every prefix of %s streamed in random chunks exactly as whole', (name, doc) => {
    const rand = rng(name.length * 7919 + doc.length);
    for (const cuts of chunkings(doc, rand, 6)) {
      const streaming = createMarkdown(null);
      const whole = createMarkdown(null);
      for (const at of cuts) {
        const prefix = doc.slice(0, at);
        expect(joined(streaming, prefix), `${name} at ${at}: ${JSON.stringify(prefix)}`).toBe(whole.renderWhole(prefix));
      }
      // The committed message: the same renderer, blocks from its cache.
      expect(joined(streaming, doc)).toBe(whole.renderWhole(doc));
    }
  });

  it('renders random documents, streamed in random chunks, exactly as whole', () => {
    const rand = rng(20260511);
    for (let d = 0; d < 150; d++) {
      const doc = randomDocument(rand);
      const streaming = createMarkdown(null);
      const whole = createMarkdown(null);
      for (const at of chunkings(doc, rand, 1)[0] ?? []) {
        const prefix = doc.slice(0, at);
        expect(joined(streaming, prefix), JSON.stringify(prefix)).toBe(whole.renderWhole(prefix));
      }
    }
  });

  it('keeps finished paragraphs as blocks with fixed starts and HTML while the text grows', () => {
    const md = createMarkdown(null);
    const text = 'One.\n\nTwo *still*\n\n```\ncode\n\nmore\n```\n\nTa';
    const blocks = md.renderBlocks(text);
    expect(blocks.map((b) => b.start)).toEqual([0, 6, 19, 39]);
    const later = md.renderBlocks(`${text}il.\n\nThree`);
    expect(later.slice(0, 3)).toEqual(blocks.slice(0, 3));
    expect(later.map((b) => b.start)).toEqual([0, 6, 19, 39, 46]);
  });

  it('keeps a loose list, an indented code block and an open HTML block in one block', () => {
    const md = createMarkdown(null);
    expect(md.renderBlocks('- one\n\n- two\n\nAfter').map((b) => b.start)).toEqual([0, 14]);
    expect(md.renderBlocks('Para\n\n    a\n\n    b\n\nAfter').map((b) => b.start)).toEqual([0, 6, 20]);
    // Without a sanitizer raw HTML is text, so only the lexer's reading decides.
    expect(md.renderBlocks('<pre>\n\nx\n\n</pre>\n\nAfter').map((b) => b.start)).toEqual([0, 18]);
  });

  it('renders a text that defines a link reference whole', () => {
    const md = createMarkdown(null);
    const text = 'See [the docs][d].\n\nMore.\n\n[d]: https://example.com/docs';
    const blocks = md.renderBlocks(text);
    expect(blocks).toHaveLength(1);
    expect(blocks[0]?.html).toContain('href="https://example.com/docs"');
  });

  it('keeps raw HTML that closes in a later paragraph in one block, when a sanitizer keeps it', () => {
    const md = createMarkdown({ sanitize: (html) => html });
    const text = 'Intro\n\n<details><summary>Stats</summary>\n\n- HP 10\n\n</details>\n\nAfter <b>bold\n\nstill bold?</b>\n\nEnd';
    const starts = md.renderBlocks(text).map((b) => b.start);
    expect(starts).toEqual([0, text.indexOf('<details>'), text.indexOf('After'), text.indexOf('End')]);
    expect(joined(md, text)).toBe(createMarkdown({ sanitize: (html) => html }).renderWhole(text));
  });

  it('offsets blocks in a text with \\r\\n line ends', () => {
    const md = createMarkdown(null);
    expect(joined(md, 'a\r\n\r\nb\r\n')).toBe(createMarkdown(null).renderWhole('a\r\n\r\nb\r\n'));
    expect(md.renderBlocks('a\r\n\r\nb').map((b) => b.start)).toEqual([0, 3]);
  });

  it('renders a committed text from the blocks its stream rendered, sanitizing nothing again', () => {
    let sanitized = 0;
    const md = createMarkdown({ sanitize: (html) => (sanitized++, html) });
    // Every tricky document but those defining link references (which render whole).
    const doc = Object.values(TRICKY)
      .filter((d) => !/^ {0,3}-? ?\[[^\]]+\]:/m.test(d))
      .join('\n\n');
    expect(md.renderBlocks(doc).length).toBeGreaterThan(10);
    for (let at = 1; at <= doc.length; at += 97) md.renderBlocks(doc.slice(0, at));
    md.renderBlocks(doc);
    sanitized = 0;
    expect(md.render(doc)).toBe(createMarkdown({ sanitize: (html) => html }).renderWhole(doc));
    expect(sanitized).toBe(0);
    // A text whose blocks were not all rendered renders whole.
    expect(md.render(`${doc}\n\nOne more.`)).toBe(createMarkdown({ sanitize: (html) => html }).renderWhole(`${doc}\n\nOne more.`));
    expect(sanitized).toBe(1);
  });

  it('renders nothing for an empty text', () => {
    expect(createMarkdown(null).renderBlocks('')).toEqual([]);
  });
});
