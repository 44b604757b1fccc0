import { describe, expect, it } from 'vitest';
import { attributeAllowed, createMarkdown, decorateElement, escapeHtml, renderMarkdown, safeUrl } from './markdown';

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

  it('drops styles that load resources', () => {
    expect(attributeAllowed('div', 'style', 'background: url(/api/logout)')).toBe(false);
    expect(attributeAllowed('div', 'style', 'color: red; font-weight: bold')).toBe(true);
  });
});

describe('decorateElement', () => {
  it('opens links in a new tab without an opener', () => {
    const attrs = new Map<string, string>([['href', 'https://example.com']]);
    const el = {
      tagName: 'A',
      hasAttribute: (n: string) => attrs.has(n),
      setAttribute: (n: string, v: string) => void attrs.set(n, v),
    };
    decorateElement(el);
    expect(attrs.get('target')).toBe('_blank');
    expect(attrs.get('rel')).toBe('noopener noreferrer nofollow');
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

describe('escapeHtml', () => {
  it('escapes the five specials', () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
  });
});
