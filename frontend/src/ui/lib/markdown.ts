// Message rendering: Markdown (marked) → sanitized HTML (DOMPurify).
//
// Message text is untrusted (cards, imported chats, model output). Two layers
// keep it inert:
//  1. marked: every link and image URL goes through safeUrl, so Markdown
//     links can only point at http(s)/mailto (images: http(s) or data:image).
//  2. DOMPurify, with hooks that apply the same URL policy to raw HTML,
//     force everything that navigates (<a>, <area>, SVG <a>) into new,
//     opener-less tabs, let inline styles through only as far as
//     css-policy.ts allows, and drop forms, frames, <style> and friends.
// Where no DOM is available (unit tests, or a broken environment) DOMPurify
// would hand the input back untouched; we fail closed instead and render raw
// HTML as visible text.
import createDOMPurify, { type Config } from 'dompurify';
import { Marked, type TokenizerAndRendererExtension, type Tokens } from 'marked';
import { createStyleSanitizer, type ScratchElement } from './css-policy';

const SCHEME = /^([a-z][a-z0-9+.-]*):/i;
const LINK_SCHEMES = new Set(['http', 'https', 'mailto']);
const IMAGE_DATA = /^data:image\/(?:png|jpe?g|gif|webp|avif);/i;

/**
 * safeUrl returns url (trimmed) when it may be used as a link target or
 * image source, or null. Only absolute http(s) and mailto links pass, plus
 * data:image/* for images; control characters and whitespace are ignored
 * when reading the scheme, as browsers do ("java\tscript:").
 */
export function safeUrl(url: string, kind: 'link' | 'image' = 'link'): string | null {
  const trimmed = url.trim();
  // eslint-disable-next-line no-control-regex
  const squashed = trimmed.replace(/[\u0000-\u0020\u007f-\u009f]/g, '');
  if (kind === 'image' && IMAGE_DATA.test(squashed)) return trimmed;
  const scheme = SCHEME.exec(squashed)?.[1]?.toLowerCase();
  if (!scheme || !LINK_SCHEMES.has(scheme)) return null;
  return trimmed;
}

/** escapeHtml makes text safe to place in HTML content or a quoted attribute. */
export function escapeHtml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

const URL_ATTRS = new Set(['href', 'src', 'xlink:href', 'action', 'formaction', 'poster', 'background', 'cite']);
const FORBID_TAGS = [
  'style', 'link', 'meta', 'base', 'form', 'input', 'button', 'textarea', 'select', 'option',
  'iframe', 'frame', 'frameset', 'object', 'embed', 'dialog', 'template', 'portal',
];
const FORBID_ATTR = ['srcset', 'ping', 'formaction', 'autofocus', 'accesskey', 'target'];

/**
 * attributeAllowed is the URL policy applied to raw HTML attributes
 * (DOMPurify's uponSanitizeAttribute hook). Inline styles are not judged
 * here but parsed (css-policy.ts).
 */
export function attributeAllowed(tag: string, name: string, value: string): boolean {
  const attr = name.toLowerCase();
  if (attr.startsWith('on')) return false;
  if (URL_ATTRS.has(attr)) {
    return safeUrl(value, isNavigator(tag) ? 'link' : 'image') !== null;
  }
  return true;
}

/** isNavigator reports whether a tag's href navigates when clicked: HTML <a> and <area>, SVG <a>. */
function isNavigator(tag: string): boolean {
  const t = tag.toLowerCase();
  return t === 'a' || t === 'area';
}

/** The slice of an Element that applyLinkPolicy touches. */
export interface ElementLike {
  readonly tagName: string;
  hasAttribute(name: string): boolean;
  setAttribute(name: string, value: string): void;
  removeAttribute(name: string): void;
}

/**
 * applyLinkPolicy makes every element that can navigate open its target in
 * a new, opener-less tab, never in the app's own window: <a> and <area>
 * (an image map's regions) in HTML and <a> in SVG. Any other element's
 * href (MathML's, say) is removed rather than trusted to stay inert.
 */
export function applyLinkPolicy(el: ElementLike): void {
  const links = el.hasAttribute('href') || el.hasAttribute('xlink:href');
  if (!links) return;
  if (isNavigator(el.tagName)) {
    el.setAttribute('target', '_blank');
    el.setAttribute('rel', 'noopener noreferrer nofollow');
  } else if (!RESOURCE_HREF.has(el.tagName.toLowerCase())) {
    el.removeAttribute('href');
    el.removeAttribute('xlink:href');
  }
}

/** SVG elements whose href names a resource (checked as an image URL), not a destination. */
const RESOURCE_HREF = new Set(['image', 'use', 'feimage', 'pattern', 'lineargradient', 'radialgradient', 'textpath', 'mpath']);

/** The part of DOMPurify this module uses (a real instance, or null without a DOM). */
export interface Purifier {
  sanitize(html: string): string;
}

const PURIFY_CONFIG: Config = {
  FORBID_TAGS,
  FORBID_ATTR,
  ALLOW_DATA_ATTR: false,
  SANITIZE_NAMED_PROPS: true,
  ALLOW_UNKNOWN_PROTOCOLS: false,
};

function browserPurifier(): Purifier | null {
  const purify = createDOMPurify();
  if (!purify.isSupported) return null;
  const cleanStyle = createStyleSanitizer(document.implementation.createHTMLDocument('').createElement('div') as ScratchElement);
  purify.addHook('uponSanitizeAttribute', (node, data) => {
    if (data.attrName.toLowerCase() === 'style') {
      data.attrValue = cleanStyle(data.attrValue);
      if (data.attrValue === '') data.keepAttr = false;
      return;
    }
    if (!attributeAllowed(node.nodeName, data.attrName, data.attrValue)) data.keepAttr = false;
  });
  purify.addHook('afterSanitizeAttributes', (node) => {
    if ('tagName' in node) applyLinkPolicy(node as Element);
  });
  return {
    sanitize: (html) => purify.sanitize(html, { ...PURIFY_CONFIG, RETURN_TRUSTED_TYPE: false }),
  };
}

interface QuoteToken extends Tokens.Generic {
  type: 'rpQuote';
  open: string;
  close: string;
}

/** Roleplay dialogue ("…" and “…”) gets its own colour, as in SillyTavern. */
const quoteExtension: TokenizerAndRendererExtension = {
  name: 'rpQuote',
  level: 'inline',
  start(src) {
    const at = src.search(/["“]/);
    return at < 0 ? undefined : at;
  },
  tokenizer(src) {
    const m = /^(?:"([^"\n]{1,4000}?)"|“([^”\n]{1,4000}?)”)/.exec(src);
    if (!m) return undefined;
    const raw = m[0];
    return {
      type: 'rpQuote',
      raw,
      open: raw.charAt(0),
      close: raw.charAt(raw.length - 1),
      tokens: this.lexer.inlineTokens(m[1] ?? m[2] ?? ''),
    } satisfies QuoteToken;
  },
  renderer(token) {
    const t = token as QuoteToken;
    return `<span class="rp-quote">${escapeHtml(t.open)}${this.parser.parseInline(t.tokens ?? [])}${escapeHtml(t.close)}</span>`;
  },
};

/** SETEXT_UNDERLINE is a line that makes the lines above it a heading ("Title" over "===" or "---"). */
const SETEXT_UNDERLINE = /^ {0,3}(?:=+|-+)[ \t]*$/;

/**
 * maySetextHeading says whether the paragraph src starts with has a line
 * that could underline it, which marked's setext-heading rule (lheading)
 * needs in order to match. That rule is one regex which JavaScriptCore
 * runs at about 10 µs a character (measured in the desktop webview: 24 ms
 * for a 2,300-character paragraph, where V8 takes 0.01 ms), and the lexer
 * tries it at every paragraph: each message row paid it, and a streaming
 * reply paid it on every delta. Without an underline the rule cannot
 * match, so skipping it changes no output.
 */
export function maySetextHeading(src: string): boolean {
  for (let nl = src.indexOf('\n'); nl >= 0; ) {
    const next = src.indexOf('\n', nl + 1);
    const line = src.slice(nl + 1, next < 0 ? undefined : next);
    if (line.trim() === '') return false; // a blank line ends the paragraph
    if (SETEXT_UNDERLINE.test(line)) return true;
    nl = next;
  }
  return false;
}

/** A Markdown renderer bound to one sanitizer. */
export interface MarkdownRenderer {
  render(text: string): string;
}

/**
 * createMarkdown builds a renderer. With a purifier, raw HTML in messages
 * is kept and sanitized; with null, raw HTML is shown as text.
 */
export function createMarkdown(purifier: Purifier | null, cacheSize = 2000): MarkdownRenderer {
  const marked = new Marked({
    gfm: true,
    breaks: true,
    async: false,
    extensions: [quoteExtension],
    // undefined: no heading starts here; false: marked's own rule decides.
    tokenizer: { lheading: (src) => (maySetextHeading(src) ? false : undefined) },
    walkTokens(token) {
      if (token.type === 'link' || token.type === 'image') {
        const t = token as Tokens.Link | Tokens.Image;
        t.href = safeUrl(t.href, token.type === 'image' ? 'image' : 'link') ?? '';
      }
    },
    renderer: {
      html(token) {
        return purifier ? token.text : escapeHtml(token.text);
      },
      link(token) {
        const inner = this.parser.parseInline(token.tokens);
        if (!token.href) return `<span class="bad-link" title="Link removed: unsafe address">${inner}</span>`;
        const title = token.title ? ` title="${escapeHtml(token.title)}"` : '';
        return `<a href="${escapeHtml(token.href)}"${title} target="_blank" rel="noopener noreferrer nofollow">${inner}</a>`;
      },
      image(token) {
        if (!token.href) return escapeHtml(token.text);
        const title = token.title ? ` title="${escapeHtml(token.title)}"` : '';
        return `<img src="${escapeHtml(token.href)}" alt="${escapeHtml(token.text)}"${title} loading="lazy">`;
      },
    },
  });

  const cache = new Map<string, string>();
  return {
    render(text: string): string {
      const hit = cache.get(text);
      if (hit !== undefined) {
        cache.delete(text);
        cache.set(text, hit);
        return hit;
      }
      const html = marked.parse(text) as string;
      const safe = purifier ? purifier.sanitize(html) : html;
      cache.set(text, safe);
      if (cache.size > cacheSize) {
        const oldest = cache.keys().next().value;
        if (oldest !== undefined) cache.delete(oldest);
      }
      return safe;
    },
  };
}

let shared: MarkdownRenderer | null = null;

/**
 * warmMarkdown renders a sample once, so the first chat opened does not pay
 * for building the renderer and sanitizer and for their first, unoptimized
 * runs (measured: the first message cost four times a later one).
 */
export function warmMarkdown(): void {
  renderMarkdown('*She smiles.* "Hello, **traveller**." <b>Welcome</b> to [Hearth](https://example.com).\n\n> A quote\n\n- one\n- two');
}

/** renderMarkdown renders a message's text to sanitized HTML (cached by text). */
export function renderMarkdown(text: string): string {
  shared ??= createMarkdown(browserPurifier());
  return shared.render(text);
}
