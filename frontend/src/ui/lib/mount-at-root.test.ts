import { describe, expect, it } from 'vitest';
import { DIALOG_HOST, mountAtRoot } from './mount-at-root';

/** fakeDom is a document with a body and, if asked, a dialog host; each records what was appended. */
function fakeDom(withHost: boolean) {
  const body = { appended: [] as unknown[], appendChild(n: unknown) { this.appended.push(n); } };
  const host = { appended: [] as unknown[], appendChild(n: unknown) { this.appended.push(n); } };
  const doc = { body, querySelector: (sel: string) => (withHost && sel === `[${DIALOG_HOST}]` ? host : null) };
  const node = { ownerDocument: doc, removed: 0, remove() { this.removed++; } };
  return { body, host, node };
}

describe('mountAtRoot', () => {
  it('moves the element into the dialog host and takes it out again on cleanup', () => {
    const { body, host, node } = fakeDom(true);
    const cleanup = mountAtRoot(node as unknown as Element);
    expect(host.appended).toEqual([node]);
    expect(body.appended).toEqual([]);
    expect(node.removed).toBe(0);
    cleanup();
    expect(node.removed).toBe(1);
  });

  it('falls back to <body> where the app has no dialog host', () => {
    const { body, node } = fakeDom(false);
    mountAtRoot(node as unknown as Element);
    expect(body.appended).toEqual([node]);
  });
});
