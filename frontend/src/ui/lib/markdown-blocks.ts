/**
 * Where a Markdown text may be cut into blocks that render apart (each
 * parsed, sanitized and inserted on its own, and cached by its text) into
 * exactly the HTML of the whole text rendered at once.
 *
 * Why blocks: a reply streams in one delta at a time, and rendering the
 * whole text per delta made a long reply cost more with every paragraph
 * (measured: 200 ms tasks at 100 tokens/s once a reply passed 10 KB). In
 * blocks, finished paragraphs render once and keep their DOM, only the
 * last one renders again. The committed message renders in the same blocks,
 * so committing a streamed reply finds them all rendered already instead of
 * rendering the whole reply in one task (measured: 60–90 ms for 14 KB).
 *
 * Where: only after a blank line at the top level of the document as the
 * Markdown lexer itself reads the whole text (its "space" tokens), so a
 * loose list, a code fence or an HTML block with blank lines in it, or an
 * indented code block, is never cut. A text that defines link references
 * is never cut (a definition anywhere applies to the whole text). And a
 * cut must leave the browser's HTML parser where it started (HtmlBalance):
 * raw HTML opened in one block and closed in a later one keeps those blocks
 * together, and a block whose HTML would parse differently at the start of
 * a document (a leading comment, say) stays with the one before it. Each
 * block's own top-level tokens are checked against the whole text's; any
 * difference renders the text whole.
 */
import { HtmlBalance, parsesAlike } from './html-scan';

/** A top-level token of the whole text, as the Markdown lexer read it. */
export interface TopToken {
  readonly type: string;
  readonly raw: string;
}

/** A raw HTML token of a piece, in document order. */
export interface HtmlTag {
  readonly text: string;
  /** inline: inside a paragraph (the lexer's inline html), not an HTML block. */
  readonly inline: boolean;
}

/** What rendering a piece of text on its own showed. */
export interface PieceInfo {
  /** sig is the piece's own top-level tokens (signature of them). */
  readonly sig: string;
  /** tags are its raw HTML tokens, in order. */
  readonly tags: readonly HtmlTag[];
  /** html is its HTML (before sanitizing). */
  readonly html: string;
}

/** A block of the text: [start, end). */
export interface BlockRange {
  readonly start: number;
  readonly end: number;
}

/** signature describes top-level tokens by type and length: equal signatures, equal tokens (same text). */
export function signature(tokens: readonly TopToken[]): string {
  let sig = '';
  for (const t of tokens) sig += `${sig === '' ? '' : ' '}${t.type}:${t.raw.length}`;
  return sig;
}

/** cleanAlone reports whether a piece's raw HTML, read from the parser's starting state, returns to it. */
export function cleanAlone(tags: readonly HtmlTag[]): boolean {
  if (tags.length === 0) return true;
  const scan = new HtmlBalance();
  for (const t of tags) scan.feed(t.text, t.inline);
  return scan.clean;
}

/**
 * planBlocks splits src (whose top-level tokens are tokens) into blocks
 * that render apart into the HTML of src rendered whole, or returns null
 * when src must render whole. piece renders a stretch of src on its own
 * and says what it found (cached by the caller: the same stretches come
 * back with every delta of a streaming text).
 */
export function planBlocks(src: string, tokens: readonly TopToken[], piece: (text: string) => PieceInfo): BlockRange[] | null {
  // Candidate cuts: after each top-level blank line that is not the end.
  const ranges: { start: number; end: number; sig: string }[] = [];
  let start = 0;
  let pos = 0;
  let run: TopToken[] = [];
  tokens.forEach((t, i) => {
    run.push(t);
    pos += t.raw.length;
    if (t.type === 'space' && i < tokens.length - 1) {
      ranges.push({ start, end: pos, sig: signature(run) });
      start = pos;
      run = [];
    }
  });
  if (pos !== src.length) return null; // the tokens do not tile the text: trust nothing
  if (run.length > 0 || ranges.length === 0) ranges.push({ start, end: pos, sig: signature(run) });

  const blocks: (BlockRange & { sig: string })[] = [];
  /** open: a block under way whose raw HTML has not closed yet, and the scan of it. */
  let open: { start: number; sig: string; scan: HtmlBalance } | null = null;
  const close = (from: number, to: number, sig: string): boolean => {
    if (piece(src.slice(from, to)).sig !== sig) return false;
    blocks.push({ start: from, end: to, sig });
    return true;
  };
  for (const r of ranges) {
    const info = piece(src.slice(r.start, r.end));
    if (open === null) {
      if (info.sig !== r.sig) return null;
      const last = blocks[blocks.length - 1];
      if (last && !parsesAlike(info.html)) {
        blocks.pop();
        open = { start: last.start, sig: `${last.sig} ${r.sig}`, scan: new HtmlBalance() };
      } else if (cleanAlone(info.tags)) {
        blocks.push({ start: r.start, end: r.end, sig: r.sig });
        continue;
      } else {
        open = { start: r.start, sig: r.sig, scan: new HtmlBalance() };
      }
    } else {
      open.sig += ` ${r.sig}`;
    }
    for (const t of info.tags) open.scan.feed(t.text, t.inline);
    if (open.scan.broken) {
      // Nothing after this point may be cut: the rest is one block.
      const rest = ranges.filter((x) => x.start > r.start).map((x) => x.sig);
      return close(open.start, src.length, [open.sig, ...rest].join(' ')) ? blocks.map(({ start, end }) => ({ start, end })) : null;
    }
    if (open.scan.clean) {
      if (!close(open.start, r.end, open.sig)) return null;
      open = null;
    }
  }
  if (open !== null && !close(open.start, src.length, open.sig)) return null;
  return blocks.map(({ start, end }) => ({ start, end }));
}
