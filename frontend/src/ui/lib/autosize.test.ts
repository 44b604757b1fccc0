import { afterEach, describe, expect, it, vi } from 'vitest';
import { autosize, fitTextarea, isSubmitKey } from './autosize';

/** fakeTextarea lays out as a textarea of contentPx content and 2px borders, counting layout reads. */
function fakeTextarea(contentPx: number) {
  const listeners = new Map<string, () => void>();
  const el = {
    style: { height: '', overflowY: '' },
    reads: 0,
    contentPx,
    get offsetHeight() {
      el.reads++;
      return 24 + 2;
    },
    get clientHeight() {
      return 24;
    },
    get scrollHeight() {
      return el.contentPx;
    },
    addEventListener: (type: string, fn: () => void) => listeners.set(type, fn),
    removeEventListener: (type: string) => listeners.delete(type),
    input: () => listeners.get('input')?.(),
  };
  return el;
}

afterEach(() => vi.unstubAllGlobals());

describe('fitTextarea', () => {
  it('grows with the content up to maxPx, then scrolls', () => {
    const el = fakeTextarea(100);
    fitTextarea(el as unknown as HTMLTextAreaElement, 260);
    expect(el.style).toEqual({ height: '102px', overflowY: 'hidden' });
    el.contentPx = 400;
    fitTextarea(el as unknown as HTMLTextAreaElement, 260);
    expect(el.style).toEqual({ height: '260px', overflowY: 'auto' });
    expect(el.reads).toBe(2);
  });
});

describe('autosize', () => {
  it('fits at once, then once per animation frame however many inputs came', () => {
    const frames: (() => void)[] = [];
    vi.stubGlobal('requestAnimationFrame', (fn: () => void) => frames.push(fn));
    vi.stubGlobal('cancelAnimationFrame', () => {});
    const el = fakeTextarea(50);
    const detach = autosize(260)(el as unknown as HTMLTextAreaElement);
    expect(el.style.height).toBe('52px');
    el.contentPx = 80;
    el.input();
    el.input();
    el.input();
    expect(frames).toHaveLength(1);
    expect(el.style.height).toBe('52px');
    frames.shift()!();
    expect(el.style.height).toBe('82px');
    expect(el.reads).toBe(2);
    detach();
    el.input();
    expect(frames).toHaveLength(0);
  });
});

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
