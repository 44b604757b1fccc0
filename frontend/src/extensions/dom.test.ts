import { describe, expect, it } from 'vitest';
import { createFrameDom, SANDBOX } from './dom';

/** fakeDocument makes iframes that record their attributes in order and where they were put. */
function fakeDocument() {
  const log: string[] = [];
  const area = (name: string) => ({ append: (el: { log: string[] }) => log.push(`append to ${name}`) && el });
  const doc = {
    createElement(tag: string) {
      log.push(`create ${tag}`);
      const el = {
        log,
        dataset: {} as Record<string, string>,
        hidden: false,
        tabIndex: 0,
        contentWindow: { postMessage() {} },
        setAttribute: (k: string, v: string) => void log.push(`${k}=${v}`),
        addEventListener() {},
        remove: () => void log.push('remove'),
      };
      return el;
    },
  };
  return { doc, log, hidden: area('hidden'), panel: area('panel') };
}

describe('createFrameDom', () => {
  it('sandboxes a frame to scripts alone before it has a src or a place in the document', () => {
    const f = fakeDocument();
    const dom = createFrameDom(f.doc as unknown as Document, f.hidden as unknown as Element, f.panel as unknown as Element);
    const h = dom.create({ id: 'demo', src: '/ext/demo/index.html', panel: false, title: 'demo' });
    expect(SANDBOX).toBe('allow-scripts');
    expect(f.log).toEqual([
      'create iframe',
      'sandbox=allow-scripts',
      'referrerpolicy=no-referrer',
      'allow=',
      'title=demo',
      'aria-hidden=true',
      'src=/ext/demo/index.html',
      'append to hidden',
    ]);
    expect(h.window).not.toBeNull();
    h.remove();
    expect(f.log.at(-1)).toBe('remove');
  });

  it('puts a panel frame in the panel area, hidden until shown', () => {
    const f = fakeDocument();
    const dom = createFrameDom(f.doc as unknown as Document, f.hidden as unknown as Element, f.panel as unknown as Element);
    dom.create({ id: 'mood', src: '/ext/mood/p.html', panel: true, title: 'Mood' });
    expect(f.log.indexOf('sandbox=allow-scripts')).toBeLessThan(f.log.indexOf('src=/ext/mood/p.html'));
    expect(f.log.at(-1)).toBe('append to panel');
  });
});
