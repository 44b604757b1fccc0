import { Marked } from 'marked';
import { describe, expect, it } from 'vitest';
import { applyLinkPolicy, attributeAllowed, createMarkdown, maySetextHeading, renderMarkdown, safeUrl } from './markdown';

describe('safeUrl', () => {
  it.each([
    ['https://example.com/a?b=1', 'https://example.com/a?b=1'],
    ['  http://example.com ', 'http://example.com'],
    ['mailto:someone@example.com', 'mailto:someone@example.com'],
  ])('allows %s', (url, want) => {
    expect(safeUrl(url)).toBe(want);
  });

  it.each([
    'javascript:alert(1)',
    'JaVaScRiPt:alert(1)',
    ' javascript:alert(1)',
    'java\tscript:alert(1)',
    'java\nscript:alert(1)',
    '\u0001javascript:alert(1)',
    'vbscript:msgbox(1)',
    'data:text/html,<script>alert(1)</script>',
    'file:///etc/passwd',
    '/api/invoke',
    '#top',
    '',
  ])('rejects %j', (url) => {
    expect(safeUrl(url)).toBeNull();
  });

  it('allows data:image only for images', () => {
    expect(safeUrl('data:image/png;base64,AAAA', 'image')).toBe('data:image/png;base64,AAAA');
    expect(safeUrl('data:image/png;base64,AAAA', 'link')).toBeNull();
    expect(safeUrl('data:image/svg+xml;base64,AAAA', 'image')).toBeNull();
  });
});

describe('attributeAllowed (raw HTML policy)', () => {
  it('drops event handlers and unsafe URLs', () => {
    expect(attributeAllowed('img', 'onerror', 'alert(1)')).toBe(false);
    expect(attributeAllowed('a', 'href', 'javascript:alert(1)')).toBe(false);
    expect(attributeAllowed('img', 'src', 'x')).toBe(false);
    expect(attributeAllowed('a', 'href', 'https://example.com')).toBe(true);
    expect(attributeAllowed('img', 'src', 'data:image/gif;base64,R0lG')).toBe(true);
  });

  it('holds an image map region to the link policy', () => {
    expect(attributeAllowed('AREA', 'href', 'javascript:alert(1)')).toBe(false);
    expect(attributeAllowed('AREA', 'href', 'data:image/png;base64,AAAA')).toBe(false);
    expect(attributeAllowed('AREA', 'href', 'https://example.com')).toBe(true);
    expect(attributeAllowed('a', 'xlink:href', 'javascript:alert(1)')).toBe(false);
  });
});

describe('applyLinkPolicy', () => {
  function element(tagName: string, initial: Record<string, string>) {
    const attrs = new Map(Object.entries(initial));
    return {
      attrs,
      tagName,
      hasAttribute: (n: string) => attrs.has(n),
      setAttribute: (n: string, v: string) => void attrs.set(n, v),
      removeAttribute: (n: string) => void attrs.delete(n),
    };
  }

  it.each([
    ['an HTML link', 'A', { href: 'https://example.com' }],
    ['an image map region', 'AREA', { href: 'https://example.com' }],
    ['an SVG link', 'a', { href: 'https://example.com' }],
    ['an SVG link with xlink:href', 'a', { 'xlink:href': 'https://example.com' }],
  ])('opens %s in a new tab without an opener', (_, tag, attrs) => {
    const el = element(tag, attrs);
    applyLinkPolicy(el);
    expect(el.attrs.get('target')).toBe('_blank');
    expect(el.attrs.get('rel')).toBe('noopener noreferrer nofollow');
  });

  it('removes href from elements that should not navigate, keeps resource hrefs', () => {
    const mathml = element('mi', { href: 'https://example.com' });
    applyLinkPolicy(mathml);
    expect(mathml.attrs.has('href')).toBe(false);
    expect(mathml.attrs.has('target')).toBe(false);
    const image = element('image', { href: 'data:image/png;base64,AAAA' });
    applyLinkPolicy(image);
    expect(image.attrs.get('href')).toBe('data:image/png;base64,AAAA');
  });

  it('leaves elements without href alone', () => {
    const el = element('A', { name: 'anchor' });
    applyLinkPolicy(el);
    expect([...el.attrs.keys()]).toEqual(['name']);
  });
});

describe('renderMarkdown', () => {
  it('renders Markdown', () => {
    const html = renderMarkdown('**bold** and *action*\n\n- one\n- two\n\n`code`');
    expect(html).toContain('<strong>bold</strong>');
    expect(html).toContain('<em>action</em>');
    expect(html).toContain('<li>one</li>');
    expect(html).toContain('<code>code</code>');
  });

  it('keeps single newlines as line breaks', () => {
    expect(renderMarkdown('a\nb')).toContain('<br>');
  });

  it('colours dialogue', () => {
    expect(renderMarkdown('She said "hi *there*".')).toContain('<span class="rp-quote">&quot;hi <em>there</em>&quot;</span>');
    expect(renderMarkdown('“Hello”')).toContain('<span class="rp-quote">“Hello”</span>');
  });

  it('neutralizes <img onerror>', () => {
    const html = renderMarkdown('<img src=x onerror=alert(1)>');
    expect(html).not.toMatch(/<img[^>]*onerror/i);
    expect(html).toContain('&lt;img');
  });

  it('neutralizes <script>', () => {
    const html = renderMarkdown('hello <script>alert(1)</script> world');
    expect(html).not.toMatch(/<script/i);
  });

  it('neutralizes javascript: links in Markdown', () => {
    for (const src of ['[click](javascript:alert(1))', '[x](JAVASCRIPT:alert(1))', '<javascript:alert(1)>', '[x]( javascript:alert(1) )']) {
      const html = renderMarkdown(src);
      expect(html, src).not.toMatch(/href\s*=\s*["']?\s*javascript:/i);
    }
    const html = renderMarkdown('[click](javascript:alert(1))');
    expect(html).toContain('<span class="bad-link" title="Link removed: unsafe address">click</span>');
  });

  it('neutralizes javascript: links in raw HTML', () => {
    const html = renderMarkdown('<a href="javascript:alert(1)">x</a>');
    expect(html).not.toMatch(/<a[^>]*href/i);
  });

  it('makes safe links open in a new tab without an opener', () => {
    const html = renderMarkdown('[site](https://example.com "Example")');
    expect(html).toBe(
      '<p><a href="https://example.com" title="Example" target="_blank" rel="noopener noreferrer nofollow">site</a></p>\n',
    );
  });

  it('renders unsafe image sources as their alt text', () => {
    const html = renderMarkdown('![alt text](javascript:alert(1))');
    expect(html).not.toContain('<img');
    expect(html).toContain('alt text');
  });

  it('escapes attribute values', () => {
    const html = renderMarkdown('![a" onerror="x](https://example.com/i.png)');
    expect(html).toContain('alt="a&quot; onerror=&quot;x"');
    expect(html).not.toContain('" onerror="');
  });
});

describe('createMarkdown', () => {
  it('passes raw HTML through the purifier when there is one', () => {
    const seen: string[] = [];
    const md = createMarkdown({ sanitize: (html) => (seen.push(html), 'clean') });
    expect(md.render('<b>hi</b>')).toBe('clean');
    expect(seen[0]).toContain('<b>hi</b>');
  });

  it('caches by text', () => {
    let calls = 0;
    const md = createMarkdown({ sanitize: (html) => (calls++, html) }, 2);
    md.render('a');
    md.render('a');
    expect(calls).toBe(1);
    md.render('b');
    md.render('c'); // evicts 'a'
    md.render('a');
    expect(calls).toBe(4);
  });
});

describe('setext headings (maySetextHeading)', () => {
  it.each([
    ['Title\n===', true],
    ['Title\n  ---  \nmore', true],
    ['One\nTwo\n=\n\nnext', true],
    ['a long line without a newline', false],
    ['Title\n\n===', false],
    ['Title\n   \n---', false],
    ['Title\n    ===', false],
    ['Title\n==x', false],
    ['Title\n', false],
  ])('%j → %s', (src, want) => {
    expect(maySetextHeading(src)).toBe(want);
  });

  // Skipping marked's rule where no underline follows must not change any output.
  const plain = new Marked({ gfm: true, breaks: true, async: false });
  const words = Array.from({ length: 300 }, (_, i) => `word${i}`).join(' ');
  it.each([
    'Title\n===',
    'Title\n---',
    'One\nTwo\n===\n\nThree',
    'Title\n  ===  ',
    'Title\n    ===',
    'Para\n\n---',
    '---',
    '- item\n---',
    '> quote\n===',
    '# ATX\ntext\n---',
    '```\ncode\n```\n===',
    'a\n   \n===',
    `*She smiles.* ${words}`,
    `${words}\n\n${words}\n---`,
  ])('renders %j as marked does', (src) => {
    expect(createMarkdown(null).render(src)).toBe(plain.parse(src));
  });
});

