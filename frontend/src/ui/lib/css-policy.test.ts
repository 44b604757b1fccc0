import { describe, expect, it } from 'vitest';
import { createStyleSanitizer, cssFunctions, declarationAllowed, type ScratchElement, type StyleParser } from './css-policy';

describe('cssFunctions', () => {
  it.each<[string, string[]]>([
    ['red', []],
    ['rgb(1, 2, 3)', ['rgb']],
    ['url("https://x.example/a.png")', ['url']],
    ['linear-gradient(red, rgba(0, 0, 0, 0.5))', ['linear-gradient', 'rgba']],
    ['"url(x)" , serif', []],
    ["'it\\'s url(' , image-set(\"a\" 1x)", ['image-set']],
    ['-webkit-image-set(url("a") 1x)', ['-webkit-image-set', 'url']],
    ['calc((1px + 2px) * 2)', ['calc', '']],
    ['u\\72l(x)', ['u\\72l']],
  ])('%s → %j', (value, want) => {
    expect(cssFunctions(value)).toEqual(want);
  });
});

describe('declarationAllowed', () => {
  it.each([
    ['color', 'red'],
    ['color', 'rgb(255, 0, 0)'],
    ['background-color', 'hsla(10, 50%, 50%, 0.3)'],
    ['background-image', 'linear-gradient(90deg, rgb(0, 0, 0), transparent)'],
    ['font-family', '"url(x)", serif'],
    ['width', 'calc(100% - 2em)'],
    ['border-top-left-radius', '8px'],
  ])('keeps %s: %s', (property, value) => {
    expect(declarationAllowed(property, value)).toBe(true);
  });

  it.each([
    ['background-image', 'url("https://x.example/beacon")'],
    ['background-image', 'image-set("https://x.example/a.png" 1x)'],
    ['background-image', '-webkit-image-set(url("https://x.example/a.png") 1x)'],
    ['background-image', 'cross-fade(url("a"), url("b"), 50%)'],
    ['background-image', 'element(#x)'],
    ['background-image', 'u\\72l(https://x.example)'],
    ['list-style-image', 'url("x")'],
    ['cursor', 'url("x"), auto'],
    ['position', 'fixed'],
    ['transform', 'translate(0, -500px)'],
    ['z-index', '9999'],
    ['--x', 'url(x)'],
    ['behavior', 'url(x.htc)'],
    ['-moz-binding', 'url(x)'],
    ['color', 'var(--x)'],
    ['color', 'attr(data-x)'],
  ])('drops %s: %s', (property, value) => {
    expect(declarationAllowed(property, value)).toBe(false);
  });
});

/** fakeScratch parses "prop: value; …" naively, enough to drive the sanitizer's bookkeeping. */
function fakeScratch(): ScratchElement {
  let decls: [string, string][] = [];
  const style: StyleParser = {
    get length() {
      return decls.length;
    },
    item: (i) => decls[i]![0],
    getPropertyValue: (p) => decls.find(([k]) => k === p)?.[1] ?? '',
    removeProperty(p) {
      decls = decls.filter(([k]) => k !== p);
      return '';
    },
    get cssText() {
      return decls.map(([k, v]) => `${k}: ${v};`).join(' ');
    },
  };
  return {
    style,
    setAttribute: (_n, css) => {
      decls = css
        .split(';')
        .map((d) => d.split(':').map((x) => x.trim()) as [string, string])
        .filter(([k, v]) => k && v);
    },
    removeAttribute: () => void (decls = []),
  };
}

describe('createStyleSanitizer', () => {
  it('keeps the allowed declarations and drops the rest', () => {
    const clean = createStyleSanitizer(fakeScratch());
    expect(clean('color: red; position: fixed; background-image: url(x); font-weight: bold')).toBe('color: red; font-weight: bold;');
    expect(clean('position: fixed')).toBe('');
  });
});
