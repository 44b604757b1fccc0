import { createRawSnippet } from 'svelte';
import { render } from 'svelte/server';
import { describe, expect, it } from 'vitest';
import Tabs, { tabAfterKey, tabId, type TabItem } from './Tabs.svelte';

const IDS = ['basics', 'greetings', 'prompting'] as const;
type Id = (typeof IDS)[number];

describe('tabAfterKey', () => {
  it('moves right and left, wrapping at both ends', () => {
    expect(tabAfterKey(IDS, 'basics', 'ArrowRight')).toBe('greetings');
    expect(tabAfterKey(IDS, 'prompting', 'ArrowRight')).toBe('basics');
    expect(tabAfterKey(IDS, 'greetings', 'ArrowLeft')).toBe('basics');
    expect(tabAfterKey(IDS, 'basics', 'ArrowLeft')).toBe('prompting');
  });

  it('jumps to the first and last tab with Home and End', () => {
    expect(tabAfterKey(IDS, 'greetings', 'Home')).toBe('basics');
    expect(tabAfterKey(IDS, 'greetings', 'End')).toBe('prompting');
  });

  it('leaves other keys to the page', () => {
    for (const key of ['ArrowDown', 'ArrowUp', 'Enter', ' ', 'Tab', 'a']) expect(tabAfterKey(IDS, 'basics', key)).toBeNull();
    expect(tabAfterKey([], 'basics', 'ArrowRight')).toBeNull();
  });
});

/** strip renders a strip on the server and returns its HTML (without Svelte's hydration comments). */
function strip(tabs: TabItem<Id>[], selected: Id, extra = false): string {
  const props = {
    tabs,
    selected,
    label: 'Card sections',
    idPrefix: 'ce',
    panelId: 'ce-panel',
    ...(extra ? { extra: createRawSnippet((t: () => TabItem<Id>) => ({ render: () => `<b class="count">${t().id}</b>` })) } : {}),
  };
  return render(Tabs<Id>, { props }).body.replace(/<!--[^]*?-->/g, '');
}

/** attrs lists each tab button's attributes, in order. */
function tabButtons(html: string): Record<string, string>[] {
  return [...html.matchAll(/<button([^>]*)>/g)].map((m) => Object.fromEntries([...(m[1] ?? '').matchAll(/([\w-]+)="([^"]*)"/g)].map((a) => [a[1], a[2]])));
}

describe('Tabs', () => {
  const tabs: TabItem<Id>[] = [
    { id: 'basics', label: 'Basics' },
    { id: 'greetings', label: 'Greetings', rest: ' and more' },
    { id: 'prompting', label: 'Prompting', error: true },
  ];

  it('is one tablist whose tabs control the panel, the selected one alone in the tab order', () => {
    const html = strip(tabs, 'greetings');
    expect(html).toMatch(/role="tablist"[^>]*aria-label="Card sections"|aria-label="Card sections"[^>]*role="tablist"/);
    const buttons = tabButtons(html);
    expect(buttons.map((b) => b.id)).toEqual(['ce-tab-basics', 'ce-tab-greetings', 'ce-tab-prompting']);
    expect(buttons.map((b) => b.id)).toEqual(IDS.map((id) => tabId('ce', id)));
    expect(buttons.map((b) => b['aria-selected'])).toEqual(['false', 'true', 'false']);
    expect(buttons.map((b) => b.tabindex)).toEqual(['-1', '0', '-1']);
    expect(buttons.every((b) => b.role === 'tab' && b['aria-controls'] === 'ce-panel')).toBe(true);
  });

  it('shows the rest of a name in its own span, marks a tab with an error and renders extra per tab', () => {
    const html = strip(tabs, 'basics', true);
    expect(html).toMatch(/Greetings<span class="rest[^"]*"> and more<\/span>/);
    expect(tabButtons(html).map((b) => /\berror\b/.test(b.class ?? ''))).toEqual([false, false, true]);
    expect([...html.matchAll(/<b class="count">(\w+)<\/b>/g)].map((m) => m[1])).toEqual(['basics', 'greetings', 'prompting']);
  });

  it('shares a phone row between as many columns as it has tabs', () => {
    expect(strip(tabs, 'basics')).toContain('--count: 3');
    expect(strip(tabs.slice(0, 2), 'basics')).toContain('--count: 2');
  });
});
