import { describe, expect, it } from 'vitest';
import { collageCells, groupPicture } from './group-picture';

describe('groupPicture', () => {
  it('keeps a base64 raster data: URL', () => {
    expect(groupPicture('data:image/png;base64,iVBORw0KGgo=')).toBe('data:image/png;base64,iVBORw0KGgo=');
    expect(groupPicture(' data:image/jpeg;base64,/9j/4AAQ ')).toBe('data:image/jpeg;base64,/9j/4AAQ');
  });

  it('refuses what the CSP or safety rules out: defaults, paths, remote URLs, SVG', () => {
    for (const url of [
      'img/ai4.png',
      '/thumbnail?type=avatar&file=a.png',
      'https://example.com/a.png',
      'http://127.0.0.1/a.png',
      'data:image/svg+xml;base64,PHN2Zz4=',
      'data:text/html;base64,PGI+',
      'data:image/png,rawbytes',
      'javascript:alert(1)',
      '',
      null,
      undefined,
    ]) {
      expect(groupPicture(url), String(url)).toBeNull();
    }
  });
});

describe('collageCells', () => {
  it('lays out one to four members and caps at four', () => {
    expect(collageCells(0)).toEqual([]);
    expect(collageCells(1)).toEqual([{ x: 0, y: 0, w: 100, h: 100 }]);
    expect(collageCells(2).map((c) => c.w)).toEqual([50, 50]);
    expect(collageCells(3)).toEqual([
      { x: 0, y: 0, w: 50, h: 100 },
      { x: 50, y: 0, w: 50, h: 50 },
      { x: 50, y: 50, w: 50, h: 50 },
    ]);
    expect(collageCells(4)).toHaveLength(4);
    expect(collageCells(9)).toEqual(collageCells(4));
  });
});
