import { describe, expect, it } from 'vitest';
import { isSubmitKey } from './autosize';

describe('isSubmitKey', () => {
  const key = (k: Partial<KeyboardEvent>) => ({ key: 'Enter', shiftKey: false, isComposing: false, keyCode: 13, ...k });
  it('submits on Enter only', () => {
    expect(isSubmitKey(key({}))).toBe(true);
    expect(isSubmitKey(key({ shiftKey: true }))).toBe(false);
    expect(isSubmitKey(key({ key: 'a' }))).toBe(false);
  });
  it('never submits while an IME is composing', () => {
    expect(isSubmitKey(key({ isComposing: true }))).toBe(false);
    expect(isSubmitKey(key({ keyCode: 229 }))).toBe(false);
  });
});
