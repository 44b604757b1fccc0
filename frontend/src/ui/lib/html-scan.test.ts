import { describe, expect, it } from 'vitest';
import { HtmlBalance, parsesAlike } from './html-scan';

/** scan feeds each token (block HTML unless it starts with "inline:") and returns the result. */
function scan(...tokens: string[]): HtmlBalance {
  const b = new HtmlBalance();
  for (const t of tokens) {
    const inline = t.startsWith('inline:');
    b.feed(inline ? t.slice('inline:'.length) : t, inline);
  }
  return b;
}

describe('HtmlBalance', () => {
  it.each([
    ['nothing', []],
    ['a closed element', ['<div class="a">', '</div>']],
    ['nested elements closed in order', ['<details><summary>S</summary>', '</details>']],
    ['void elements', ['<br>', '<img src="x" alt=\'a > b\'>', '<hr/>', '</br>']],
    ['comments', ['<!-- a -->', '<!---->', '<!-->', '<!--->', '<!-- a --!>']],
    ['declarations and processing instructions', ['<!ELEMENT x>', '<?php echo 1; ?>']],
    ['an attribute value with a > in it', ['<b title="a>b" data-x=\'<i>\'>', '</b>']],
    ['an unquoted attribute', ['<font color=red size=2>', '</font>']],
    ['self-closing elements in SVG', ['<svg viewBox="0 0 1 1"><circle r="1"/><path d="M0 0"/></svg>']],
    ['a lone < in text', ['a < b and c <3 d']],
    ['an inline link closed', ['inline:<a href="https://example.com">', 'inline:</a>']],
    ['upper-case tags', ['<DIV>', '</div>']],
  ])('is clean after %s', (_, tokens) => {
    expect(scan(...tokens).clean).toBe(true);
  });

  it.each([
    ['an element left open', ['<div>'], false],
    ['a formatting element left open', ['<b>bold'], false],
    ['an inline link left open', ['inline:<a href="https://example.com">'], false],
  ])('is open after %s', (_, tokens, broken) => {
    const b = scan(...tokens);
    expect(b.clean).toBe(false);
    expect(b.broken).toBe(broken);
  });

  it.each([
    ['a mis-nested end tag', ['<b><i>', '</b></i>']],
    ['an end tag nothing opened', ['</p>']],
    ['an unfinished tag', ['<div\n']],
    ['an unfinished attribute value', ['<div title="abc>']],
    ['an unfinished comment', ['<!-- note']],
    ['CDATA', ['<![CDATA[ x ]]>']],
    ['a doctype', ['<!DOCTYPE html>']],
    ['a script', ['<script>x</script>']],
    ['a textarea', ['<textarea>']],
    ['plaintext', ['<plaintext>']],
    ['a second body', ['<body>']],
    ['a < at the end', ['a <']],
  ])('is broken by %s', (_, tokens) => {
    const b = scan(...tokens);
    expect(b.broken).toBe(true);
    expect(b.clean).toBe(false);
  });

  it('follows the lexer: only inline <a tags turn bare links off', () => {
    expect(scan('<a href="x">', '</a>').inLink).toBe(false);
    expect(scan('inline:<a href="x">').inLink).toBe(true);
    expect(scan('inline:<a href="x">', 'inline:</a>').inLink).toBe(false);
  });

  it('stays broken once broken', () => {
    const b = scan('<!-- open');
    b.feed('-->', false);
    expect(b.broken).toBe(true);
  });
});

describe('parsesAlike', () => {
  it.each(['<p>x</p>\n', '\n  <div>', 'text <b>b</b>', '', '<br>', '<span>', 'a < b'])('%j parses alike at the start of a document', (html) => {
    expect(parsesAlike(html)).toBe(true);
  });

  it.each(['<!-- c -->\n<p>x</p>', '  <!-- c -->', '<?php ?>', '</p>', '<!x>', '<meta charset="x">\n', '<LINK rel=x>', '<style>'])('%j does not', (html) => {
    expect(parsesAlike(html)).toBe(false);
  });
});
