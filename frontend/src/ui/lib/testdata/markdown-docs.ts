// Markdown documents whose block-wise rendering is easy to get wrong, for
// the unit tests (lib/markdown-blocks.test.ts) and the browser test
// (e2e/stream-commit.test.mjs, which bundles this file): every construct
// that spans a blank line, reads the whole text, or leaves the HTML parser
// somewhere else than it started.

/** TRICKY maps a name to a document. */
export const TRICKY: Record<string, string> = {
  'loose list': '- one\n\n- two\n\n- three\n\nAfter the list.\n\n- tight\n- list',
  'loose ordered list': '1. first\n\n2. second\n\n3. third\n\n\n10. ten\n11. eleven',
  'nested lists': '- a\n  - b\n\n  - c\n\n    continued c\n\n- d\n\n      code in d\n\n* other bullet\n\n1) paren\n2) list',
  'list item with a fence': '- item\n\n  ```\n  code\n\n  more\n  ```\n\n- next',
  'reference links': 'See [the docs][d], [this], and ![pic][p].\n\nMore text.\n\n[d]: https://example.com/docs\n\n[this]: https://example.com "Title"\n[p]: https://example.com/p.png\n\nUsed again: [d].',
  'reference link defined first': '[x]: https://example.com/x\n\nA [x] link.\n\n[x] again.',
  'reference link in a list': '- [r]: https://example.com/r\n\n[r]',
  'code fences': '```js\nlet a = 1;\n\n\nlet b = 2;\n```\n\nBetween.\n\n~~~\n```\n\nstill code\n~~~\n\n````\n```\n\n````\n\nAfter.',
  'unterminated fence': 'Intro.\n\n```python\ndef f():\n\n    return 1\n\n',
  'indented code': 'Para.\n\n    code one\n\n\n    code two\n\nPara again.\n\n\tTabbed code\n\nEnd.',
  blockquotes: '> quote one\n>\n> quote two\n\n> another\nlazy line\n\n> > nested\n>\n> back\n\nAfter.',
  tables: '| a | b |\n|---|:-:|\n| 1 | 2 |\n| 3 | *4* |\n\n| c |\n|---|\n| 5 |\nrow without pipes\n\nText.',
  'setext headings': 'Title\n=====\n\nSub\n---\n\nParagraph\n\n---\n\nA rule above.\n\nNot a heading\n\n===',
  headings: '# One\n\n## Two ##\n\n***\n\n___\n\n#NoSpace\n\n  ### Indented',
  'html blocks': '<div class="box">\n\n*inside* the div\n\n</div>\n\nAfter the div.\n\n<details><summary>Stats</summary>\n\n- HP 10\n- MP 5\n\n</details>\n\nEnd.',
  'html raw blocks': '<pre>\n\nkeep\n\n  spacing\n</pre>\n\n<!-- a comment\n\nstill the comment -->\n\n<?php echo 1; ?>\n\n<!DOCTYPE html>\n\nAfter.',
  'inline html across paragraphs': 'Start <b>bold\n\nstill bold?</b> end.\n\n<span style="color: red">red\n\nred too</span>\n\n<font color=blue>blue</font> plain.',
  'unclosed inline html': 'A <i>slanted start\n\nand never closed.\n\nOr is it?',
  'link tag across paragraphs': 'Go <a href="https://example.com">here\n\nhttps://example.com/bare stays text?\n\n</a> and www.example.org after.',
  'html comment never closed': 'Text.\n\n<!-- open comment\n\nmore',
  'raw text elements': 'a\n\n<script>alert(1)</script>\n\n<textarea>\n\n*x*\n\n</textarea>\n\n<style>p{}</style>\n\nb',
  'svg and math': '<svg><circle r="1"/><b>x</b></svg>\n\nafter\n\n<math><mi>x</mi></math>\n\n<svg><g>\n\nopen svg',
  'broken tags': 'a <b title="x>y">q</b>\n\n<div\n\nclass="broken">\n\n</p> stray\n\n<br/> <hr> <img src="https://example.com/i.png">',
  'task lists': '- [ ] todo\n\n- [x] done\n\n1. [ ] ordered task',
  'roleplay prose': '*She* walks on and **on**, "word 1" by word\n\n“Curly quotes” and "straight ones", *em "inside"* too.\n\n_under_ __strong__ ~~gone~~\n\nhttps://example.com/autolink and <https://example.com/angle>.',
  'hard breaks': 'line one  \nline two\\\nline three\nline four\n\n\n\nafter blank lines',
  'leading and trailing space': '\n\n   \nIndented start.\n\n  Two spaces.\n\n   \n\n',
  'emphasis across a blank line': '*open\n\nclose*\n\n**bold\n\nend**',
  'escapes and entities': '\\*not em\\*\n\n&amp; &copy; &#35; &nbsp;\n\n\\<b>not html\\</b>',
  'footnote look-alikes': 'Text[^1].\n\n[^1]: not a footnote in marked\n\nEnd.',
  'crlf line ends': 'One.\r\n\r\n- a\r\n\r\n- b\r\n\r\n```\r\ncode\r\n\r\n```\r\n',
};

/** rng is a seeded PRNG (mulberry32), so every run makes the same documents. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PIECES = [
  'Plain words here.',
  '*em* and **strong** "quoted"',
  '- item',
  '  - nested item',
  '1. numbered',
  '2. next',
  '    indented code',
  '```',
  '~~~',
  '> quote',
  'lazy continuation',
  '| a | b |\n|---|---|\n| 1 | 2 |',
  '# Heading',
  '===',
  '---',
  '[ref]: https://example.com/ref',
  'a [ref] link',
  '<div>',
  '</div>',
  '<b>bold',
  'end</b>',
  '<!-- note',
  '-->',
  '<a href="https://example.com">',
  '</a>',
  'https://example.com/bare',
  '<pre>',
  '</pre>',
  '- [ ] task',
  'text  ',
];
const GAPS = ['\n', '\n', '\n\n', '\n\n', '\n\n\n', ' '];

/** randomDocument joins random pieces of Markdown with random line breaks. */
export function randomDocument(rand: () => number): string {
  const n = 3 + Math.floor(rand() * 14);
  let doc = '';
  for (let i = 0; i < n; i++) {
    doc += PIECES[Math.floor(rand() * PIECES.length)];
    if (i < n - 1) doc += GAPS[Math.floor(rand() * GAPS.length)];
  }
  return doc;
}
