// Growing textareas, and the Enter-to-submit rule shared by the composer and the editor.

/**
 * fitTextarea sizes a textarea to its content, scrolling past maxPx. It
 * reads the layout once: every read after a style write makes the browser
 * lay the page out again, at once (measured in the desktop webview at ~5 ms
 * each while a large chat is open).
 */
export function fitTextarea(el: HTMLTextAreaElement, maxPx: number): void {
  el.style.height = 'auto';
  const { offsetHeight, clientHeight, scrollHeight } = el;
  const content = scrollHeight + offsetHeight - clientHeight;
  el.style.height = `${Math.min(content, maxPx)}px`;
  el.style.overflowY = content > maxPx ? 'auto' : 'hidden';
}

/**
 * autosize is an attachment that refits after input, once per animation
 * frame however many keys arrived in it, when the browser lays the page out
 * anyway; code that sets the value itself calls fitTextarea afterwards.
 */
export function autosize(maxPx: number): (el: HTMLTextAreaElement) => () => void {
  return (el) => {
    let frame = 0;
    const fit = () => {
      frame = 0;
      fitTextarea(el, maxPx);
    };
    const schedule = () => {
      if (frame === 0) frame = requestAnimationFrame(fit);
    };
    fitTextarea(el, maxPx);
    el.addEventListener('input', schedule);
    return () => {
      el.removeEventListener('input', schedule);
      if (frame !== 0) cancelAnimationFrame(frame);
    };
  };
}

/** isSubmitKey: Enter without Shift, and not while an IME is composing. */
export function isSubmitKey(event: Pick<KeyboardEvent, 'key' | 'shiftKey' | 'isComposing' | 'keyCode'>): boolean {
  return event.key === 'Enter' && !event.shiftKey && !event.isComposing && event.keyCode !== 229;
}
