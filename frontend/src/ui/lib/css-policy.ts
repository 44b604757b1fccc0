// Inline styles in message HTML (cards and models like them: coloured
// names, boxed status panels). A style attribute is untrusted CSS, and CSS
// escapes defeat any regex over its text (`u\72l(…)` is url(…)), so it is
// read by the browser's own parser: the element's CSSOM lists the
// declarations the engine will actually apply, one longhand at a time,
// escapes resolved and values re-serialized. Only a short list of
// properties that lay out and colour text survives, and only with values
// whose functions are on a short list too: nothing that can fetch
// (url(), image-set(), image(), …) or move content over the app
// (position, transform, z-index).

/** Longhand properties a message may set on its own elements. */
export const STYLE_PROPERTIES: ReadonlySet<string> = new Set([
  'color', 'opacity', 'visibility',
  'background-color', 'background-image', 'background-position-x', 'background-position-y', 'background-size',
  'background-repeat', 'background-origin', 'background-clip',
  'font-family', 'font-size', 'font-style', 'font-weight', 'font-stretch', 'font-variant-caps', 'font-variant-ligatures',
  'font-variant-numeric', 'line-height', 'letter-spacing', 'word-spacing',
  'text-align', 'text-align-last', 'text-decoration-line', 'text-decoration-color', 'text-decoration-style',
  'text-decoration-thickness', 'text-underline-offset', 'text-transform', 'text-indent', 'text-shadow', 'text-overflow',
  'white-space', 'white-space-collapse', 'text-wrap-mode', 'text-wrap-style', 'word-break', 'overflow-wrap', 'hyphens',
  'vertical-align', 'direction', 'writing-mode',
  'margin-top', 'margin-right', 'margin-bottom', 'margin-left',
  'margin-block-start', 'margin-block-end', 'margin-inline-start', 'margin-inline-end',
  'padding-top', 'padding-right', 'padding-bottom', 'padding-left',
  'padding-block-start', 'padding-block-end', 'padding-inline-start', 'padding-inline-end',
  'border-top-width', 'border-right-width', 'border-bottom-width', 'border-left-width',
  'border-top-style', 'border-right-style', 'border-bottom-style', 'border-left-style',
  'border-top-color', 'border-right-color', 'border-bottom-color', 'border-left-color',
  'border-top-left-radius', 'border-top-right-radius', 'border-bottom-right-radius', 'border-bottom-left-radius',
  'border-collapse', 'border-spacing',
  'outline-color', 'outline-style', 'outline-width', 'outline-offset',
  'box-shadow', 'box-sizing', 'display', 'float', 'clear', 'overflow-x', 'overflow-y',
  'width', 'height', 'min-width', 'min-height', 'max-width', 'max-height', 'aspect-ratio',
  'list-style-type', 'list-style-position', 'table-layout', 'caption-side', 'empty-cells',
  'flex-direction', 'flex-wrap', 'flex-grow', 'flex-shrink', 'flex-basis', 'order',
  'justify-content', 'align-items', 'align-self', 'align-content', 'row-gap', 'column-gap',
  'object-fit', 'object-position',
]);

/** Functions a value may use: colours, arithmetic, gradients. None of them loads anything. */
const SAFE_FUNCTIONS: ReadonlySet<string> = new Set([
  'rgb', 'rgba', 'hsl', 'hsla', 'hwb', 'lab', 'lch', 'oklab', 'oklch', 'color', 'color-mix', 'light-dark',
  'calc', 'min', 'max', 'clamp',
  'linear-gradient', 'radial-gradient', 'conic-gradient',
  'repeating-linear-gradient', 'repeating-radial-gradient', 'repeating-conic-gradient',
]);

/**
 * cssFunctions lists the functions a serialized CSS value calls (lower
 * case), skipping quoted strings. Serialized values carry no escapes in
 * identifiers, but the scan treats a backslash as part of a name anyway,
 * so an escaped name can only fail the allow-list, never pass it.
 */
export function cssFunctions(value: string): string[] {
  const out: string[] = [];
  let name = '';
  for (let i = 0; i < value.length; i++) {
    const c = value[i]!;
    if (c === '"' || c === "'") {
      name = '';
      for (i++; i < value.length && value[i] !== c; i++) if (value[i] === '\\') i++;
      continue;
    }
    if (c === '(') {
      out.push(name.toLowerCase());
      name = '';
    } else if (/[A-Za-z0-9_\\-]/.test(c) || c.charCodeAt(0) > 0x7f) {
      name += c;
    } else {
      name = '';
    }
  }
  return out;
}

/** declarationAllowed is the policy for one parsed declaration (a longhand and its serialized value). */
export function declarationAllowed(property: string, value: string): boolean {
  if (!STYLE_PROPERTIES.has(property.toLowerCase())) return false;
  return cssFunctions(value).every((fn) => SAFE_FUNCTIONS.has(fn));
}

/** StyleParser is the part of a CSSStyleDeclaration the sanitizer reads and edits. */
export interface StyleParser {
  readonly length: number;
  item(index: number): string;
  getPropertyValue(property: string): string;
  removeProperty(property: string): string;
  readonly cssText: string;
}

/** ScratchElement is an element whose style attribute the browser parses. */
export interface ScratchElement {
  readonly style: StyleParser;
  setAttribute(name: string, value: string): void;
  removeAttribute(name: string): void;
}

/**
 * createStyleSanitizer returns a function from a style attribute's text to
 * the allowed part of it, re-serialized by the browser ('' when nothing is
 * left), parsing with scratch (an element of an inert document).
 */
export function createStyleSanitizer(scratch: ScratchElement): (css: string) => string {
  return (css) => {
    scratch.setAttribute('style', css);
    const style = scratch.style;
    for (let i = style.length - 1; i >= 0; i--) {
      const property = style.item(i);
      if (!declarationAllowed(property, style.getPropertyValue(property))) style.removeProperty(property);
    }
    const clean = style.cssText;
    scratch.removeAttribute('style');
    return clean;
  };
}
