// Helpers for text placed in HTML that neither the UI nor the extension
// layers own: both import from here (ui/lib/markdown.ts for its own
// rendering, extensions/st/utils.ts for SillyTavern's escapeHtml).

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** escapeHtml makes text safe to place in HTML content or a quoted attribute. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!);
}
