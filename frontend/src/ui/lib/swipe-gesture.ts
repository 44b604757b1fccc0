// Horizontal swipes on a touch screen, told apart from scrolling. A phone
// uses two: a swipe that starts at the screen's left edge goes up one pane
// (App), and a swipe across the chat's last reply moves between its swipes
// (MessageRow), as SillyTavern's mobile users expect.
//
// The listeners are passive and never cancel anything: the browser keeps
// scrolling as it would, and a gesture whose first clear movement is
// vertical is a scroll, never a swipe. A gesture the browser takes over
// ends in touchcancel (iOS's own edge swipe does), which is never a swipe.

/** EDGE_PX is how close to the screen's left edge a back swipe starts. */
export const EDGE_PX = 24;

/** DECIDE_PX is how far a finger moves before the gesture is a scroll or a swipe. */
export const DECIDE_PX = 10;

/** COMMIT_PX is the sideways travel that makes a swipe when the finger lifts. */
export const COMMIT_PX = 56;

/** HORIZONTAL_RATIO: a gesture is sideways when |dx| exceeds |dy| by this much at the decision. */
const HORIZONTAL_RATIO = 1.5;

/** Axis is what a gesture turned out to be so far. */
export type Axis = 'pending' | 'horizontal' | 'vertical';

/** Direction is the way the finger went: "left" means it moved towards the left edge. */
export type Direction = 'left' | 'right';

/** SwipeTracker follows one finger from touchstart to touchend. */
export interface SwipeTracker {
  start(x: number, y: number): void;
  /** move reports the finger at (x, y) and answers what the gesture is so far. */
  move(x: number, y: number): Axis;
  /** dx is the sideways travel of a horizontal gesture (0 otherwise). */
  dx(): number;
  /** end answers the swipe the gesture made, or null for a scroll, a tap or a short drag. */
  end(): Direction | null;
  /** active is true between start and end. */
  active(): boolean;
  reset(): void;
}

/** createSwipeTracker makes the classifier the attachment below uses (pure, for tests). */
export function createSwipeTracker(): SwipeTracker {
  let on = false;
  let x0 = 0;
  let y0 = 0;
  let x = 0;
  let y = 0;
  let axis: Axis = 'pending';

  return {
    start(sx, sy) {
      on = true;
      x0 = x = sx;
      y0 = y = sy;
      axis = 'pending';
    },
    move(mx, my) {
      if (!on) return axis;
      x = mx;
      y = my;
      if (axis === 'pending') {
        const ax = Math.abs(x - x0);
        const ay = Math.abs(y - y0);
        if (Math.max(ax, ay) >= DECIDE_PX) axis = ax > ay * HORIZONTAL_RATIO ? 'horizontal' : 'vertical';
      }
      return axis;
    },
    dx() {
      return on && axis === 'horizontal' ? x - x0 : 0;
    },
    end() {
      const was = on;
      on = false;
      if (!was || axis !== 'horizontal') return null;
      const dx = x - x0;
      // A finger that drifted more up or down than sideways was not swiping.
      if (Math.abs(dx) < COMMIT_PX || Math.abs(y - y0) > Math.abs(dx)) return null;
      return dx < 0 ? 'left' : 'right';
    },
    active() {
      return on;
    },
    reset() {
      on = false;
      axis = 'pending';
    },
  };
}

/** SwipeStart is where a gesture began: the point and the element touched. */
export interface SwipeStart {
  x: number;
  y: number;
  target: Element | null;
}

/** SwipeHandlers say which gestures an element takes and what a swipe does. */
export interface SwipeHandlers {
  /** accept decides at touchstart whether this element follows the gesture. */
  accept(start: SwipeStart): boolean;
  /** onswipe runs when the finger lifts after a swipe. */
  onswipe(direction: Direction): void;
  /** ondrag follows a sideways gesture (dx in px), for feedback; 0 when it ends. */
  ondrag?(dx: number): void;
}

/**
 * swipeGesture is an attachment ({@attach swipeGesture(handlers)}) that
 * listens to an element's touches, passively, and calls onswipe for a
 * horizontal swipe. A second finger, a touchcancel or a text selection
 * made meanwhile ends the gesture without a swipe.
 */
export function swipeGesture(handlers: SwipeHandlers): (el: HTMLElement) => () => void {
  return (el) => {
    const tracker = createSwipeTracker();
    let finger: number | null = null;

    const stop = () => {
      if (tracker.active()) handlers.ondrag?.(0);
      tracker.reset();
      finger = null;
    };
    const touchOf = (list: TouchList) => {
      for (let i = 0; i < list.length; i++) {
        const t = list.item(i);
        if (t && t.identifier === finger) return t;
      }
      return null;
    };

    const onStart = (event: TouchEvent) => {
      const t = event.touches.item(0);
      if (event.touches.length !== 1 || !t) {
        stop();
        return;
      }
      if (!handlers.accept({ x: t.clientX, y: t.clientY, target: (event.target as Element | null) ?? null })) return;
      finger = t.identifier;
      tracker.start(t.clientX, t.clientY);
    };
    const onMove = (event: TouchEvent) => {
      if (!tracker.active()) return;
      const t = touchOf(event.touches);
      if (event.touches.length !== 1 || !t) {
        stop();
        return;
      }
      if (tracker.move(t.clientX, t.clientY) === 'horizontal') handlers.ondrag?.(tracker.dx());
    };
    const onEnd = (event: TouchEvent) => {
      if (!tracker.active()) return;
      const t = touchOf(event.changedTouches);
      if (!t) return;
      tracker.move(t.clientX, t.clientY);
      handlers.ondrag?.(0);
      const direction = tracker.end();
      finger = null;
      const selection = el.ownerDocument.getSelection();
      const selecting = selection !== null && !selection.isCollapsed && el.contains(selection.anchorNode);
      if (direction && !selecting) handlers.onswipe(direction);
    };

    const opts: AddEventListenerOptions = { passive: true };
    el.addEventListener('touchstart', onStart, opts);
    el.addEventListener('touchmove', onMove, opts);
    el.addEventListener('touchend', onEnd, opts);
    el.addEventListener('touchcancel', stop, opts);
    return () => {
      el.removeEventListener('touchstart', onStart, opts);
      el.removeEventListener('touchmove', onMove, opts);
      el.removeEventListener('touchend', onEnd, opts);
      el.removeEventListener('touchcancel', stop, opts);
    };
  };
}

/**
 * scrollsSideways is true when target sits in an element, up to root, that
 * scrolls sideways itself (a wide code block or table): there a sideways
 * drag scrolls it, and is no swipe.
 */
export function scrollsSideways(target: Element | null, root: Element): boolean {
  for (let el = target; el && el !== root; el = el.parentElement) {
    if (el.scrollWidth <= el.clientWidth + 1) continue;
    const ox = getComputedStyle(el).overflowX;
    if (ox === 'auto' || ox === 'scroll') return true;
  }
  return false;
}
