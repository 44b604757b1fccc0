/**
 * HtmlBalance follows the raw HTML a Markdown text passes through (the
 * lexer's html tokens, in order) far enough to tell whether the browser's
 * HTML parser is back where it started once that HTML has been read:
 * every element it opened closed again, no comment or tag left unfinished,
 * nothing that changes how later text parses (a <script>, <textarea> or
 * <plaintext>, a second <body>). Only then may the HTML before and after
 * that point be parsed (sanitized, inserted) apart with the same result as
 * together: an unclosed <b> would otherwise be carried into every later
 * paragraph by the parser's list of active formatting elements.
 *
 * It answers conservatively: it matches end tags strictly against the last
 * open element, where the real parser closes things implicitly, so it may
 * call clean HTML unbalanced (the caller then keeps the pieces together)
 * but not the other way round. The HTML Markdown itself generates is always
 * balanced around it and needs no scan.
 */
export class HtmlBalance {
  /** open holds the elements opened and not yet closed, innermost last. */
  readonly open: string[] = [];
  /** broken: something was read after which no cut is safe (see UNSAFE). */
  broken = false;
  /**
   * inLink mirrors the Markdown lexer's own inLink state (set by an inline
   * `<a ` tag, cleared by `</a>`), which turns bare-URL links off in the
   * text after it: another way for one paragraph to change the next.
   */
  inLink = false;

  /** clean reports whether the parser would be back in its starting state. */
  get clean(): boolean {
    return !this.broken && !this.inLink && this.open.length === 0;
  }

  /** feed reads one html token's text; inline says it came from inside a paragraph (not an HTML block). */
  feed(html: string, inline: boolean): void {
    if (this.broken) return;
    if (inline) {
      if (!this.inLink && START_A.test(html)) this.inLink = true;
      else if (this.inLink && END_A.test(html)) this.inLink = false;
    }
    for (let i = html.indexOf('<'); i >= 0 && !this.broken; i = html.indexOf('<', i)) i = this.markup(html, i);
  }

  /** markup reads the markup starting with the '<' at i and returns where reading goes on. */
  private markup(html: string, i: number): number {
    const next = html.charAt(i + 1);
    if (ALPHA.test(next)) return this.tag(html, i + 1, false);
    if (next === '/') {
      const after = html.charAt(i + 2);
      if (ALPHA.test(after)) return this.tag(html, i + 2, true);
      if (after === '>') return i + 3;
      return this.until(html, i + 2, '>'); // a bogus comment
    }
    if (next === '!') {
      if (html.startsWith('<!--', i)) {
        COMMENT.lastIndex = i;
        if (!COMMENT.exec(html)) return this.fail();
        return COMMENT.lastIndex;
      }
      // CDATA, and a doctype (which sets the document's mode for all that follows).
      if (html.startsWith('<![CDATA[', i) || /^<!doctype/i.test(html.slice(i, i + 9))) return this.fail();
      return this.until(html, i + 2, '>'); // another declaration: a bogus comment
    }
    if (next === '?') return this.until(html, i + 2, '>');
    if (next === '') return this.fail(); // a '<' at the very end
    return i + 1; // a lone '<' is text
  }

  /** until skips past the next ch, or fails when there is none. */
  private until(html: string, from: number, ch: string): number {
    const at = html.indexOf(ch, from);
    return at < 0 ? this.fail() : at + 1;
  }

  private fail(): number {
    this.broken = true;
    return -1;
  }

  /** tag reads a start or end tag whose name begins at from, attributes and all. */
  private tag(html: string, from: number, end: boolean): number {
    let j = from;
    while (j < html.length && !TAG_NAME_END.test(html.charAt(j))) j++;
    const name = html.slice(from, j).toLowerCase();
    let selfClosing = false;
    for (;;) {
      while (j < html.length && SPACE.test(html.charAt(j))) j++;
      if (j >= html.length) return this.fail();
      const ch = html.charAt(j);
      if (ch === '>') {
        j++;
        break;
      }
      if (ch === '/') {
        if (html.charAt(j + 1) === '>') {
          selfClosing = true;
          j += 2;
          break;
        }
        j++;
        continue;
      }
      // An attribute: its name (a leading '=' belongs to it), then perhaps = and a value.
      j++;
      while (j < html.length && !ATTR_NAME_END.test(html.charAt(j))) j++;
      while (j < html.length && SPACE.test(html.charAt(j))) j++;
      if (html.charAt(j) !== '=') continue;
      j++;
      while (j < html.length && SPACE.test(html.charAt(j))) j++;
      const quote = html.charAt(j);
      if (quote === '"' || quote === "'") {
        const close = html.indexOf(quote, j + 1);
        if (close < 0) return this.fail();
        j = close + 1;
      } else {
        while (j < html.length && !UNQUOTED_END.test(html.charAt(j))) j++;
      }
    }
    if (UNSAFE.has(name)) return this.fail();
    if (VOID.has(name)) return j; // </br> is a <br>; other void end tags are ignored
    if (end) {
      if (this.open[this.open.length - 1] !== name) return this.fail();
      this.open.pop();
    } else if (!(selfClosing && this.open.some((el) => FOREIGN.has(el)))) {
      this.open.push(name);
    }
    return j;
  }
}

/**
 * parsesAlike reports whether html, read as the start of a document (as a
 * sanitizer reads each block), parses as it would inside a body (where it
 * stands in the whole text). Before the body the parser drops whitespace
 * after a leading comment, ignores stray end tags and puts <meta>, <link>
 * and their kind into the head: a block that starts so stays with the one
 * before it.
 */
export function parsesAlike(html: string): boolean {
  const s = html.replace(LEADING_SPACE, '');
  if (!s.startsWith('<')) return true;
  const tag = START_TAG.exec(s);
  if (tag) return !HEAD.has((tag[1] ?? '').toLowerCase());
  return !/^<[!?/]/.test(s);
}

/** The lexer's own tests for an inline <a> tag opening and closing (marked's startATag and endATag). */
const START_A = /^<a /i;
const END_A = /^<\/a>/i;

const ALPHA = /^[A-Za-z]$/;
const SPACE = /^[\t\n\f\r ]$/;
const TAG_NAME_END = /^[\t\n\f\r />]$/;
const ATTR_NAME_END = /^[\t\n\f\r />=]$/;
const UNQUOTED_END = /^[\t\n\f\r >]$/;
/** A comment: <!-->, <!--->, or one ending in --> or --!>. */
const COMMENT = /<!--(?:>|->|[\s\S]*?--!?>)/y;

/** Elements without an end tag. */
const VOID = new Set(['area', 'base', 'basefont', 'bgsound', 'br', 'col', 'embed', 'hr', 'image', 'img', 'input', 'keygen', 'link', 'meta', 'param', 'source', 'track', 'wbr']);
/** Elements whose content is not markup, or that act on the whole document: no cut after them. */
const UNSAFE = new Set(['script', 'style', 'textarea', 'title', 'xmp', 'iframe', 'noembed', 'noframes', 'noscript', 'plaintext', 'html', 'head', 'body', 'frameset', 'frame', 'template']);
/** Start tags that go into the head when a document starts with them. */
const HEAD = new Set(['base', 'basefont', 'bgsound', 'link', 'meta', 'title', 'noscript', 'noframes', 'style', 'script', 'template', 'head', 'body', 'html', 'frameset']);
const LEADING_SPACE = /^[\t\n\f\r ]+/;
const START_TAG = /^<([A-Za-z][^\t\n\f\r />]*)/;
/** Inside these, <x/> closes itself. */
const FOREIGN = new Set(['svg', 'math']);
