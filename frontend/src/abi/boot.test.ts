import { describe, expect, it, vi } from 'vitest';
import { BOOT_ELEMENT_ID, takeBootToken } from './boot';

function docWith(text: string | null) {
  const el = text === null ? null : { textContent: text, remove: vi.fn() };
  return { el, doc: { getElementById: (id: string) => (id === BOOT_ELEMENT_ID ? el : null) } };
}

describe('takeBootToken', () => {
  it('reads the token and removes the element', () => {
    const { el, doc } = docWith('{"token":"abc123"}');
    expect(takeBootToken(doc)).toBe('abc123');
    expect(el?.remove).toHaveBeenCalledOnce();
  });

  it('removes a malformed element and returns null', () => {
    for (const text of ['not json', '{"token":""}', '{"token":5}', 'null']) {
      const { el, doc } = docWith(text);
      expect(takeBootToken(doc)).toBeNull();
      expect(el?.remove).toHaveBeenCalledOnce();
    }
  });

  it('returns null without the element', () => {
    expect(takeBootToken(docWith(null).doc)).toBeNull();
  });
});
