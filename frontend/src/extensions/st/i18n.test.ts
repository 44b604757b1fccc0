import { describe, expect, it, vi } from 'vitest';
import { createLocale, localeFile, splitI18nKeys, translateElement, windowLocale, type I18nElement } from './i18n';

/** element is a data-i18n element that records what was set on it. */
function element(dataI18n: string, text = 'original'): I18nElement & { attrs: Record<string, string> } {
  const attrs: Record<string, string> = { 'data-i18n': dataI18n };
  return {
    attrs,
    textContent: text,
    getAttribute: (k: string) => attrs[k] ?? null,
    setAttribute: (k: string, v: string) => void (attrs[k] = v),
  };
}

describe("SillyTavern's i18n", () => {
  it('takes the window locale as SillyTavern does: the browser language, lowercased', () => {
    expect(windowLocale({ language: 'zh-CN' })).toBe('zh-cn');
    expect(windowLocale({ language: '' })).toBe('en');
    expect(windowLocale(undefined)).toBe('en');
  });

  it("picks the manifest's file for the locale, else its default", () => {
    const i18n = { 'zh-cn': 'zh.json', default: 'en.json' };
    expect(localeFile(i18n, 'zh-cn')).toBe('zh.json');
    expect(localeFile(i18n, 'ru-ru')).toBe('en.json');
    expect(localeFile({ 'zh-cn': 'zh.json' }, 'zh-CN')).toBeNull();
    expect(localeFile({ 'zh-cn': 'zh.json' }, 'constructor')).toBeNull();
    expect(localeFile(undefined, 'zh-cn')).toBeNull();
  });

  it('adds texts for its own locale only, the first text for a key staying, strings only', () => {
    const debug = vi.spyOn(console, 'debug').mockImplementation(() => {});
    const l = createLocale('de-de');
    l.addLocaleData('fr-fr', { Notes: 'Notes (fr)' });
    expect(l.size()).toBe(0);
    l.addLocaleData('de-de', { Notes: 'Notizen', Count: 42, Empty: '' });
    l.addLocaleData('de-de', { Notes: 'Anders', Roll: 'Würfeln' });
    l.addLocaleData('de-de', null);
    expect(l.getCurrentLocale()).toBe('de-de');
    expect(l.translate('Notes')).toBe('Notizen');
    expect(l.translate('Roll')).toBe('Würfeln');
    expect(l.translate('Count')).toBe('Count');
    expect(l.translate('Empty')).toBe('Empty');
    expect(l.translate('Unknown')).toBe('Unknown');
    expect(l.translate('fallback text', 'Notes')).toBe('Notizen');
    debug.mockRestore();
  });

  it('translates t`…` by its placeholder key and fills the values in', () => {
    const l = createLocale('de-de');
    l.addLocaleData('de-de', { 'Tag ${0} not found in ${1}.': '${1}: Tag ${0} fehlt.' });
    const tag = 'blue';
    const where = 'Wren';
    expect(l.t`Tag ${tag} not found in ${where}.`).toBe('Wren: Tag blue fehlt.');
    expect(l.t`No ${'translation'} here`).toBe('No translation here');
    expect(l.t('Tag ${0} not found in ${1}.')).toBe('${1}: Tag ${0} fehlt.');
  });

  it('splits data-i18n at semicolons, keeping HTML entities whole', () => {
    expect(splitI18nKeys(' Save ; [title]Save the note;;')).toEqual(['Save', '[title]Save the note']);
    expect(splitI18nKeys('Tom &amp; Jerry;[title]It&#39;s &#x27;here&#x27;')).toEqual(['Tom &amp; Jerry', "[title]It&#39;s &#x27;here&#x27;"]);
  });

  it('sets text and attributes from data-i18n, never an event handler', () => {
    const table = new Map([
      ['Keep notes', 'Notizen behalten'],
      ['A note', 'Eine Notiz'],
      ['Empty', ''],
      ['Click', 'alert(1)'],
    ]);
    const el = element('Keep notes;[placeholder]A note;[title]Missing;[onclick]Click');
    translateElement(el, table);
    expect(el.textContent).toBe('Notizen behalten');
    expect(el.attrs).toEqual({ 'data-i18n': 'Keep notes;[placeholder]A note;[title]Missing;[onclick]Click', placeholder: 'Eine Notiz' });
    const empty = element('Empty');
    translateElement(empty, table);
    expect(empty.textContent).toBe('');
    const untouched = element('Nothing');
    translateElement(untouched, table);
    expect(untouched.textContent).toBe('original');
  });

  it('applies the table to a root in place, and leaves everything as it is while the table is empty', () => {
    const l = createLocale('de-de');
    const el = element('Keep notes');
    const root = { querySelectorAll: () => [el] } as unknown as Element;
    expect(l.applyLocale(root)).toBe(root);
    expect(l.applyLocale('<span data-i18n="Keep notes">Keep notes</span>')).toBe('<span data-i18n="Keep notes">Keep notes</span>');
    expect(el.textContent).toBe('original');
    l.addLocaleData('de-de', { 'Keep notes': 'Notizen behalten' });
    expect(l.applyLocale(root)).toBe(root);
    expect(el.textContent).toBe('Notizen behalten');
  });
});
