import { createRawSnippet } from 'svelte';
import { compile } from 'svelte/compiler';
import { render } from 'svelte/server';
import { describe, expect, it } from 'vitest';
import Dialog, { type DialogSize } from './Dialog.svelte';
import source from './Dialog.svelte?raw';

/** dialogTag renders an open dialog on the server and returns its <dialog> start tag. */
function dialogTag(props: { size?: DialogSize; height?: string; scroll?: 'body' | 'content'; width?: string }): string {
  const html = render(Dialog, {
    props: { open: true, title: 'Library', onclose: () => {}, children: createRawSnippet(() => ({ render: () => '<p>Body</p>' })), ...props },
  }).body;
  const tag = /<dialog[^>]*>/.exec(html)?.[0];
  if (!tag) throw new Error(`no <dialog> in ${html}`);
  return tag;
}

function classes(tag: string): string[] {
  return (/class="([^"]*)"/.exec(tag)?.[1] ?? '').split(/\s+/).filter(Boolean);
}

/** phoneRule returns the declarations of Dialog.svelte's rule for selector inside the phone media query. */
function phoneRule(selector: string): string {
  const css = compile(source, { filename: 'Dialog.svelte', css: 'external' }).css?.code ?? '';
  const media = css.indexOf('@media (max-width: 759.98px)');
  expect(media, 'the phone media query').toBeGreaterThan(-1);
  const inPhone = css.slice(media);
  const at = inPhone.search(new RegExp(`${selector.replace('.', '\\.')}\\.svelte-[\\w-]+\\s*\\{`));
  expect(at, `a phone rule for ${selector}`).toBeGreaterThan(-1);
  return inPhone.slice(at, inPhone.indexOf('}', at));
}

describe('Dialog size', () => {
  it('fits its content by default, at the width given', () => {
    const tag = dialogTag({ width: '640px' });
    expect(classes(tag)).toContain('fit');
    expect(classes(tag)).not.toContain('full-on-phone');
    expect(classes(tag)).not.toContain('fixed');
    expect(tag).toContain('--dialog-width: 640px');
    expect(tag).not.toContain('--dialog-height');
  });

  it('takes the whole screen of a phone with size="full-on-phone"', () => {
    expect(classes(dialogTag({ size: 'full-on-phone' }))).toContain('full-on-phone');
    const rule = phoneRule('dialog.full-on-phone');
    expect(rule).toMatch(/width:\s*100vw/);
    expect(rule).toMatch(/height:\s*100dvh/);
    expect(rule).toMatch(/margin:\s*0/);
    expect(rule).toMatch(/border-radius:\s*0/);
    expect(rule).toMatch(/safe-area-inset-top/);
  });

  it('keeps one height with height, and leaves scrolling to the content with scroll="content"', () => {
    const tag = dialogTag({ height: '780px', scroll: 'content' });
    expect(classes(tag)).toEqual(expect.arrayContaining(['fixed', 'content-scroll']));
    expect(tag).toContain('--dialog-height: 780px');
    expect(classes(dialogTag({ height: '780px' }))).not.toContain('content-scroll');
  });

  it('never sets its width inline, so a phone rule can override it', () => {
    expect(dialogTag({ size: 'full-on-phone', width: '880px' })).not.toMatch(/style="[^"]*(^|;|\s)width:/);
  });
});
