import { describe, expect, it } from 'vitest';
import { compileTemplate, escapeExpression } from './template';

const render = (src: string, data?: unknown) => compileTemplate(src)(data);

describe('compileTemplate', () => {
  it('renders paths, escaping unless triple-stashed', () => {
    expect(render('<b>{{name}}</b> {{{html}}} {{a.b}} {{missing}}', { name: '<x&"y">', html: '<i>ok</i>', a: { b: 2 } })).toBe(
      '<b>&lt;x&amp;&quot;y&quot;&gt;</b> <i>ok</i> 2 ',
    );
    expect(render('{{this}}', 'plain')).toBe('plain');
    expect(render('{{f}}', { f: false })).toBe('false');
    expect(render('{{z}}', { z: 0 })).toBe('0');
  });

  it('runs if / unless / else and includeZero', () => {
    const t = compileTemplate('{{#if on}}yes{{else}}no{{/if}}|{{#unless on}}U{{/unless}}|{{#if n includeZero=true}}zero{{/if}}');
    expect(t({ on: true, n: 0 })).toBe('yes||zero');
    expect(t({ on: [], n: 1 })).toBe('no|U|zero');
  });

  it('iterates arrays and objects with @index, @key, @first, @last, block params and ../', () => {
    expect(render('{{#each list}}{{@index}}:{{this}}{{#if @last}}.{{else}},{{/if}}{{/each}}', { list: ['a', 'b'] })).toBe('0:a,1:b.');
    expect(render('{{#each obj}}{{@key}}={{this}};{{/each}}', { obj: { x: 1, y: 2 } })).toBe('x=1;y=2;');
    expect(render('{{#each items as |it i|}}{{i}}-{{it.n}}-{{../title}} {{/each}}', { title: 'T', items: [{ n: 'p' }] })).toBe('0-p-T ');
    expect(render('{{#each none}}x{{else}}empty{{/each}}', { none: [] })).toBe('empty');
  });

  it('changes context with #with and sections, and reads lookup and sub-expressions', () => {
    expect(render('{{#with who}}{{name}}{{/with}}', { who: { name: 'Ada' } })).toBe('Ada');
    expect(render('{{#people}}{{name}} {{/people}}', { people: [{ name: 'A' }, { name: 'B' }] })).toBe('A B ');
    expect(render('{{lookup map key}}', { map: { k: 'v' }, key: 'k' })).toBe('v');
    expect(render('{{#if (lookup map key)}}has{{/if}}', { map: { k: 1 }, key: 'k' })).toBe('has');
  });

  it('reads own properties only and calls functions in the data', () => {
    expect(render('{{constructor}}{{toString}}{{__proto__}}', {})).toBe('');
    expect(render('{{greet}}', { who: 'x', greet() { return `hi ${(this as { who: string }).who}`; } })).toBe('hi x');
  });

  it('keeps whitespace control and drops comments', () => {
    expect(render('a {{~! note ~}} b {{!-- long }} --}}c')).toBe('ab c');
  });

  it('throws naming what it cannot do', () => {
    expect(() => render('{{> partial}}')).toThrow(/PartialStatement/);
    expect(() => render('{{upper name}}', { name: 'x' })).toThrow(/Missing helper: "upper"/);
    expect(() => compileTemplate('{{#if}}')).toThrow();
    expect(() => render('{{#if a}}'.repeat(70) + '{{/if}}'.repeat(70), { a: true })).toThrow(/nest deeper/);
  });

  it('escapes as Handlebars does', () => {
    expect(escapeExpression(`&<>"'\`=`)).toBe('&amp;&lt;&gt;&quot;&#x27;&#x60;&#x3D;');
    expect(escapeExpression(null)).toBe('');
  });
});
