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
import { Marked, type Token, type TokenizerAndRendererExtension, type Tokens } from 'marked';
import { createStyleSanitizer, type ScratchElement } from './css-policy';
import { planBlocks, signature, type BlockRange, type HtmlTag, type PieceInfo } from './markdown-blocks';
import { escapeHtml } from '../../lib/html';

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

/** browserPurifier is the sanitizer renderMarkdown uses: DOMPurify with the hooks above, or null without a DOM. */
export function browserPurifier(): Purifier | null {
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

/**
 * leads says whether src, after up to three spaces, starts with one of
 * chars: what marked's thematic-break, block-quote and HTML-block rules
 * need before anything else. JavaScriptCore runs those rules (and the
 * table rule) in time proportional to all the text left, not to what they
 * match (measured with jsc: 115–150 µs each at 13 KB left, 10 µs at
 * 400 characters), and the lexer tries them at every paragraph, so a long
 * text cost the square of its length: 12 ms to read the blocks of a 13 KB
 * reply, 22 ms in the desktop window, where V8 takes 0.3 ms. Where the
 * character is not there the rule cannot match, so skipping it changes no
 * output.
 */
export function leads(src: string, chars: string): boolean {
  let i = 0;
  while (i < 3 && src.charCodeAt(i) === 32) i++;
  return i < src.length && chars.includes(src.charAt(i));
}

/** HR_LINE is a thematic break (marked's hr rule, on one line). */
const HR_LINE = /^ {0,3}(?:(?:-[\t ]*){3,}|(?:_[ \t]*){3,}|(?:\*[ \t]*){3,})$/;

/** mayHr says whether src starts with a thematic break: its first line alone decides (leads). */
export function mayHr(src: string): boolean {
  const nl = src.indexOf('\n');
  return leads(src, '-_*') && HR_LINE.test(nl < 0 ? src : src.slice(0, nl));
}

/** mayTable says whether src could start a table: its second line starts a delimiter row (| : or -). */
export function mayTable(src: string): boolean {
  const nl = src.indexOf('\n');
  return nl >= 0 && leads(src.slice(nl + 1, nl + 5), '|:-');
}

/** A rendered block of a text: where it starts in the text, and its sanitized HTML. */
export interface MarkdownBlock {
  start: number;
  html: string;
}

/** A Markdown renderer bound to one sanitizer. */
export interface MarkdownRenderer {
  /**
   * render renders text whole. When renderBlocks has rendered all of its
   * blocks (a streamed reply, now committed), it joins them instead: the
   * same HTML, without parsing or sanitizing anything again.
   */
  render(text: string): string;
  /**
   * renderBlocks renders text in blocks (lib/markdown-blocks) whose HTML,
   * joined, is the whole text's. A block's start and HTML stay the same
   * while text grows after it, so a keyed list of blocks keeps the DOM of
   * finished paragraphs; each block is cached by its text.
   */
  renderBlocks(text: string): MarkdownBlock[];
  /** renderWhole renders text at once, never from blocks: what the blocks must add up to. */
  renderWhole(text: string): string;
}

/** A stretch of text rendered on its own: what planBlocks needs, and its HTML sanitized (once asked for). */
interface Piece extends PieceInfo {
  safe?: string;
}

/**
 * createMarkdown builds a renderer. With a purifier, raw HTML in messages
 * is kept and sanitized; with null, raw HTML is shown as text.
 */
export function createMarkdown(purifier: Purifier | null, cacheSize = 2000): MarkdownRenderer {
  /** While a piece renders: its top-level tokens' signature and its raw HTML tokens. */
  let seen: { sig: string; tags: HtmlTag[] } | null = null;
  const marked = new Marked({
    gfm: true,
    breaks: true,
    async: false,
    extensions: [quoteExtension],
    // undefined: no such block starts here; false: marked's own rule decides.
    tokenizer: {
      lheading: (src) => (maySetextHeading(src) ? false : undefined),
      hr: (src) => (mayHr(src) ? false : undefined),
      blockquote: (src) => (leads(src, '>') ? false : undefined),
      html: (src) => (leads(src, '<') ? false : undefined),
      table: (src) => (mayTable(src) ? false : undefined),
    },
    hooks: {
      processAllTokens(tokens) {
        if (seen) seen.sig = signature(tokens);
        return tokens;
      },
    },
    walkTokens(token) {
      if (token.type === 'html' && seen) seen.tags.push({ text: token.raw, inline: !(token as Tokens.HTML).block });
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

  const sanitize = (html: string) => (purifier ? purifier.sanitize(html) : html);
  const cache = new Lru<string>(cacheSize);
  const wholes = new Lru<string>(cacheSize);
  const pieces = new Lru<Piece>(cacheSize * 2);

  function renderWhole(text: string): string {
    let safe = wholes.get(text);
    if (safe === undefined) {
      safe = sanitize(marked.parse(text) as string);
      wholes.set(text, safe);
    }
    return safe;
  }

  function piece(text: string): Piece {
    let p = pieces.get(text);
    if (p === undefined) {
      seen = { sig: '', tags: [] };
      try {
        const html = marked.parse(text) as string;
        p = { sig: seen.sig, tags: seen.tags, html };
      } finally {
        seen = null;
      }
      pieces.set(text, p);
    }
    return p;
  }

  /** lexes are the last texts' top-level tokens: a streaming text reads only its end again. */
  const lexes: Lexed[] = [];

  /**
   * topTokens reads src's block structure: no inline parsing, a fraction
   * of a render. When src extends a text read lately, the tokens up to its
   * last top-level blank line that two more blocks follow are kept: text
   * added at the end cannot change them (the line after that blank line
   * was complete, and decided where the block before it ended), and after
   * a blank line the lexer starts afresh. So a delta costs the last few
   * blocks, not the whole reply.
   */
  function topTokens(src: string): Lexed {
    let base: Lexed | undefined;
    for (const l of lexes) if (!l.links && src.startsWith(l.src) && (!base || l.src.length > base.src.length)) base = l;
    const keep = base ? keptTokens(base.tokens) : 0;
    const kept = base ? base.tokens.slice(0, keep) : [];
    const from = kept.reduce((n, t) => n + t.raw.length, 0);
    const lexer = new marked.Lexer(marked.defaults);
    const read: Lexed = { src, tokens: kept.concat(lexer.blockTokens(src.slice(from), [])), links: Object.keys(lexer.tokens.links).length > 0 };
    lexes.unshift(read);
    if (lexes.length > 4) lexes.pop();
    return read;
  }

  /** plan reads text's blocks (null: it renders whole), with piece to render a stretch of it. */
  function plan(text: string, pieceOf: (text: string) => PieceInfo): { src: string; blocks: BlockRange[] } | null {
    // The lexer reads \r\n and \r as \n; so do the blocks' offsets.
    const src = text.includes('\r') ? text.replace(/\r\n?/g, '\n') : text;
    const { tokens, links } = topTokens(src);
    if (links) return null;
    const blocks = planBlocks(src, tokens, pieceOf);
    return blocks && { src, blocks };
  }

  /** joinRendered joins text's blocks if renderBlocks rendered them all, else returns null. */
  function joinRendered(text: string): string | null {
    const missing: PieceInfo = { sig: '\u0000', tags: [], html: '' };
    const p = plan(text, (t) => pieces.get(t) ?? missing);
    if (p === null) return null;
    let html = '';
    for (const { start, end } of p.blocks) {
      const safe = pieces.get(p.src.slice(start, end))?.safe;
      if (safe === undefined) return null;
      html += safe;
    }
    return html;
  }

  return {
    render(text: string): string {
      let safe = cache.get(text);
      if (safe === undefined) {
        safe = joinRendered(text) ?? renderWhole(text);
        cache.set(text, safe);
      }
      return safe;
    },
    renderBlocks(text: string): MarkdownBlock[] {
      if (text === '') return [];
      const p = plan(text, piece);
      if (p === null) return [{ start: 0, html: renderWhole(text) }];
      return p.blocks.map(({ start, end }) => {
        const b = piece(p.src.slice(start, end));
        b.safe ??= sanitize(b.html);
        return { start, html: b.safe };
      });
    },
    renderWhole,
  };
}

/** Lexed is a text's top-level tokens, and whether it defines link references. */
interface Lexed {
  src: string;
  tokens: Token[];
  links: boolean;
}

/**
 * keptTokens is how many of a text's top-level tokens stay the same
 * whatever is added to it: those up to its last blank line ("space" token)
 * that at least two other tokens follow.
 */
export function keptTokens(tokens: readonly { type: string }[]): number {
  let after = 0;
  for (let i = tokens.length - 1; i >= 0; i--) {
    const t = tokens[i];
    if (t?.type !== 'space') after++;
    else if (after >= 2) return i + 1;
  }
  return 0;
}

/** Lru is a map that forgets its least recently used entry past max entries. */
class Lru<V> {
  private readonly map = new Map<string, V>();
  constructor(private readonly max: number) {}

  get(key: string): V | undefined {
    const v = this.map.get(key);
    if (v !== undefined) {
      this.map.delete(key);
      this.map.set(key, v);
    }
    return v;
  }

  set(key: string, v: V): void {
    this.map.set(key, v);
    if (this.map.size > this.max) {
      const oldest = this.map.keys().next().value;
      if (oldest !== undefined) this.map.delete(oldest);
    }
  }
}

let shared: MarkdownRenderer | null = null;

/**
 * warmMarkdown renders a sample once, so the first chat opened does not pay
 * for building the renderer and sanitizer and for their first, unoptimized
 * runs (measured: the first message cost four times a later one).
 */
export function warmMarkdown(): void {
  const sample = '*She smiles.* "Hello, **traveller**." <b>Welcome</b> to [Hearth](https://example.com).\n\n> A quote\n\n- one\n- two';
  renderMarkdown(sample);
  renderMarkdownBlocks(sample);
}

/** renderMarkdown renders a message's text to sanitized HTML (cached by text; MarkdownRenderer.render). */
export function renderMarkdown(text: string): string {
  shared ??= createMarkdown(browserPurifier());
  return shared.render(text);
}

/** renderMarkdownBlocks renders a message's text in blocks whose HTML, joined, is renderMarkdown(text) (MarkdownRenderer.renderBlocks). */
export function renderMarkdownBlocks(text: string): MarkdownBlock[] {
  shared ??= createMarkdown(browserPurifier());
  return shared.renderBlocks(text);
}
