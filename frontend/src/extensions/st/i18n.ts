// SillyTavern's translations for page extensions (/scripts/i18n.js,
// EXTENSIONS.md §5), as SillyTavern 1.18 keeps them: one table of
// key → text for the window's locale, which extensions add to
// (addLocaleData, and the page loader with each manifest's i18n file)
// and read through t`…`, translate() and data-i18n attributes. Hearth's
// own UI has no table, so what extensions add is all there is; as in
// SillyTavern, the first text added for a key stays.
//
// data-i18n holds ';'-separated keys, each "key" (the element's text) or
// "[attribute]key". Once the table holds anything, the document's
// data-i18n elements are translated, and so is every one added or
// changed later (a MutationObserver, as SillyTavern's) — so a window
// whose extensions bring no translations watches nothing. An event
// handler attribute (on…) is never set from a translation.

/** windowLocale is SillyTavern's locale for a window: the browser's language, lowercased ('zh-cn'), 'en' without one. */
export function windowLocale(nav: Pick<Navigator, 'language'> | undefined): string {
  return String(nav?.language || 'en').toLowerCase();
}

/** localeFile picks a manifest i18n's file for locale as SillyTavern does: the locale's own, else 'default'. */
export function localeFile(i18n: Readonly<Record<string, string>> | undefined, locale: string): string | null {
  if (!i18n) return null;
  const own = Object.hasOwn(i18n, locale) ? i18n[locale] : undefined;
  const fallback = Object.hasOwn(i18n, 'default') ? i18n.default : undefined;
  return own || fallback || null;
}

/**
 * splitI18nKeys splits a data-i18n value at ';' into trimmed keys, keeping
 * HTML entities (&amp; &#39; &#x27;) whole, as SillyTavern does.
 */
export function splitI18nKeys(value: string): string[] {
  const keys: string[] = [];
  let current = '';
  for (let i = 0; i < value.length; i++) {
    const ch = value[i];
    if (ch === '&') {
      const entity = /^&(?:#\d+|#x[0-9a-fA-F]+|[a-zA-Z][a-zA-Z0-9]+);/.exec(value.slice(i));
      if (entity) {
        current += entity[0];
        i += entity[0].length - 1;
        continue;
      }
    }
    if (ch === ';') {
      const key = current.trim();
      if (key) keys.push(key);
      current = '';
      continue;
    }
    current += ch;
  }
  const tail = current.trim();
  if (tail) keys.push(tail);
  return keys;
}

/** I18nElement is what translating an element touches. */
export type I18nElement = Pick<Element, 'getAttribute' | 'setAttribute' | 'textContent'>;

/** translateElement sets el's text and attributes from its data-i18n keys that table translates. */
export function translateElement(el: I18nElement, table: ReadonlyMap<string, string>): void {
  for (const key of splitI18nKeys(el.getAttribute('data-i18n') ?? '')) {
    const attr = /\[(\S+)\](.+)/.exec(key);
    if (attr) {
      const value = table.get(attr[2]!);
      if (value !== undefined && !/^on/i.test(attr[1]!)) el.setAttribute(attr[1]!, value);
    } else {
      const value = table.get(key);
      if (value !== undefined) el.textContent = value;
    }
  }
}

/** StLocale is the window's translation table and SillyTavern's functions over it. */
export interface StLocale {
  /** locale is the window's locale (windowLocale). */
  readonly locale: string;
  getCurrentLocale(): string;
  /** addLocaleData adds data's texts under locale; another locale's are ignored, and a key already there keeps its text. */
  addLocaleData(locale: string, data: unknown): void;
  /** translate is the text for key (text itself by default), or text when there is none. */
  translate(text: string, key?: string | null): string;
  /** t translates a template literal: t`Hello ${name}` looks up "Hello ${0}". */
  t(strings: TemplateStringsArray | string, ...values: unknown[]): string;
  /** applyLocale translates an HTML string's data-i18n elements and returns it; a document or element is translated in place. */
  applyLocale(root?: Document | Element | string): Document | Element | string | undefined;
  /** size is how many texts the table holds. */
  size(): number;
}

/** createLocale makes the table for locale; doc is the document whose data-i18n elements it keeps translated (none in tests). */
export function createLocale(locale: string, doc?: Document): StLocale {
  const table = new Map<string, string>();
  let watching = false;

  function translateAll(root: Pick<ParentNode, 'querySelectorAll'>): void {
    for (const el of root.querySelectorAll('[data-i18n]')) translateElement(el, table);
  }

  /** watch translates doc once the table holds something, and what is added to it from then on. */
  function watch(): void {
    if (watching || !doc || table.size === 0) return;
    const Observer = doc.defaultView?.MutationObserver;
    if (!Observer) return;
    watching = true;
    translateAll(doc);
    new Observer((mutations) => {
      for (const m of mutations) {
        for (const node of m.addedNodes) {
          if (node.nodeType !== 1) continue;
          const el = node as Element;
          if (el.hasAttribute('data-i18n')) translateElement(el, table);
          translateAll(el);
        }
        if (m.type === 'attributes' && m.target.nodeType === 1) translateElement(m.target as Element, table);
      }
    }).observe(doc, { childList: true, subtree: true, attributes: true, attributeFilter: ['data-i18n'] });
  }

  function translate(text: string, key: string | null = null): string {
    const k = key || text;
    if (k === null || k === undefined) return '';
    return table.get(k) || text;
  }

  return {
    locale,
    getCurrentLocale: () => locale,
    addLocaleData(id, data) {
      if (id !== locale) {
        console.debug('Hearth: addLocaleData for another locale is ignored', id);
        return;
      }
      if (!data || typeof data !== 'object') return;
      for (const [key, value] of Object.entries(data)) {
        if (typeof value === 'string' && !table.has(key)) table.set(key, value);
      }
      watch();
    },
    translate,
    t(strings, ...values) {
      if (typeof strings === 'string') return translate(strings);
      const key = strings.reduce((out, s, i) => out + s + (values[i] !== undefined ? `\${${i}}` : ''), '');
      return translate(key).replace(/\$\{(\d+)\}/g, (_, i: string) => String(values[Number(i)]));
    },
    applyLocale(root = doc) {
      if (table.size === 0 || root === undefined) return root;
      if (typeof root !== 'string') {
        translateAll(root);
        return root === doc ? undefined : root;
      }
      const parsed = new DOMParser().parseFromString(root, 'text/html');
      translateAll(parsed);
      return parsed.body.innerHTML;
    },
    size: () => table.size,
  };
}
