import { describe, expect, it, vi } from 'vitest';
import { COMMIT_PX, DECIDE_PX, createSwipeTracker, swipeGesture, type SwipeHandlers } from './swipe-gesture';

/** drag runs a tracker through a finger's path and answers what the lift made. */
function drag(path: [number, number][]): ReturnType<ReturnType<typeof createSwipeTracker>['end']> {
  const t = createSwipeTracker();
  const [first, ...rest] = path;
  if (!first) throw new Error('empty path');
  t.start(...first);
  for (const p of rest) t.move(...p);
  return t.end();
}

describe('createSwipeTracker', () => {
  it('takes a sideways drag past the commit distance as a swipe, either way', () => {
    expect(drag([[200, 400], [185, 402], [120, 405]])).toBe('left');
    expect(drag([[100, 400], [115, 399], [100 + COMMIT_PX, 398]])).toBe('right');
  });

  it('leaves a short drag, a tap and a vertical scroll alone', () => {
    expect(drag([[200, 400], [200 - COMMIT_PX + 1, 400]])).toBeNull();
    expect(drag([[200, 400]])).toBeNull();
    expect(drag([[200, 400], [202, 370], [260, 300]])).toBeNull();
  });

  it('decides on the first clear movement: a scroll that turns sideways stays a scroll', () => {
    const t = createSwipeTracker();
    t.start(200, 400);
    expect(t.move(202, 400 - DECIDE_PX + 1)).toBe('pending');
    expect(t.move(202, 400 - DECIDE_PX - 2)).toBe('vertical');
    expect(t.move(80, 390)).toBe('vertical');
    expect(t.end()).toBeNull();
  });

  it('takes a diagonal start as a scroll, and a drift larger than the sideways travel as no swipe', () => {
    expect(drag([[200, 400], [190, 392], [100, 330]])).toBeNull();
    const t = createSwipeTracker();
    t.start(200, 400);
    expect(t.move(185, 402)).toBe('horizontal');
    t.move(130, 480);
    expect(t.end()).toBeNull();
  });

  it('reports the sideways travel of a horizontal gesture only', () => {
    const t = createSwipeTracker();
    t.start(100, 100);
    t.move(100, 130);
    expect(t.dx()).toBe(0);
    t.reset();
    t.start(100, 100);
    t.move(140, 102);
    expect(t.dx()).toBe(40);
    expect(t.active()).toBe(true);
    t.end();
    expect(t.active()).toBe(false);
    expect(t.dx()).toBe(0);
  });
});

interface FakeTouch {
  identifier: number;
  clientX: number;
  clientY: number;
}

/** touchList is the slice of a TouchList the attachment reads. */
function touchList(touches: FakeTouch[]): TouchList {
  return { length: touches.length, item: (i: number) => touches[i] ?? null } as unknown as TouchList;
}

/** fakeElement is an EventTarget with the parts of an element the attachment uses. */
function fakeElement(selected = false) {
  const el = new EventTarget() as EventTarget & { ownerDocument: unknown; contains: (n: unknown) => boolean };
  el.ownerDocument = { getSelection: () => ({ isCollapsed: !selected, anchorNode: 'inside' }) };
  el.contains = (n) => n === 'inside';
  return el as unknown as HTMLElement;
}

function fire(el: HTMLElement, type: string, touches: FakeTouch[], changed: FakeTouch[] = touches): void {
  const e = new Event(type);
  Object.defineProperty(e, 'touches', { value: touchList(type === 'touchend' || type === 'touchcancel' ? [] : touches) });
  Object.defineProperty(e, 'changedTouches', { value: touchList(changed) });
  el.dispatchEvent(e);
}

function handlers(accept = true): SwipeHandlers & { onswipe: ReturnType<typeof vi.fn>; ondrag: ReturnType<typeof vi.fn> } {
  return { accept: () => accept, onswipe: vi.fn(), ondrag: vi.fn() };
}

const at = (x: number, y = 300, identifier = 1): FakeTouch => ({ identifier, clientX: x, clientY: y });

describe('swipeGesture', () => {
  it('calls onswipe when the finger lifts after a swipe, and follows the drag', () => {
    const el = fakeElement();
    const h = handlers();
    const stop = swipeGesture(h)(el);
    fire(el, 'touchstart', [at(300)]);
    fire(el, 'touchmove', [at(280)]);
    fire(el, 'touchmove', [at(200)]);
    expect(h.ondrag).toHaveBeenLastCalledWith(-100);
    fire(el, 'touchend', [], [at(200)]);
    expect(h.onswipe).toHaveBeenCalledExactlyOnceWith('left');
    expect(h.ondrag).toHaveBeenLastCalledWith(0);
    stop();
    fire(el, 'touchstart', [at(300)]);
    fire(el, 'touchmove', [at(200)]);
    fire(el, 'touchend', [], [at(200)]);
    expect(h.onswipe).toHaveBeenCalledTimes(1);
  });

  it('ignores a gesture accept turns down', () => {
    const el = fakeElement();
    const h = handlers(false);
    swipeGesture(h)(el);
    fire(el, 'touchstart', [at(10)]);
    fire(el, 'touchmove', [at(200)]);
    fire(el, 'touchend', [], [at(200)]);
    expect(h.onswipe).not.toHaveBeenCalled();
    expect(h.ondrag).not.toHaveBeenCalled();
  });

  it('makes no swipe of a touchcancel, a second finger, or a drag that selected text', () => {
    const el = fakeElement();
    const h = handlers();
    swipeGesture(h)(el);
    fire(el, 'touchstart', [at(300)]);
    fire(el, 'touchmove', [at(200)]);
    fire(el, 'touchcancel', [], [at(200)]);
    fire(el, 'touchend', [], [at(200)]);

    fire(el, 'touchstart', [at(300)]);
    fire(el, 'touchmove', [at(250), at(100, 300, 2)]);
    fire(el, 'touchmove', [at(200)]);
    fire(el, 'touchend', [], [at(200)]);
    expect(h.onswipe).not.toHaveBeenCalled();

    const selecting = fakeElement(true);
    const s = handlers();
    swipeGesture(s)(selecting);
    fire(selecting, 'touchstart', [at(300)]);
    fire(selecting, 'touchmove', [at(200)]);
    fire(selecting, 'touchend', [], [at(200)]);
    expect(s.onswipe).not.toHaveBeenCalled();
  });
});
