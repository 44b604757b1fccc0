// Growing textareas, and the Enter-to-submit rule shared by the composer and the editor.

/** fitTextarea sizes a textarea to its content, scrolling past maxPx. */
export function fitTextarea(el: HTMLTextAreaElement, maxPx: number): void {
  el.style.height = 'auto';
  const borders = el.offsetHeight - el.clientHeight;
  const h = Math.min(el.scrollHeight + borders, maxPx);
  el.style.height = `${h}px`;
  el.style.overflowY = el.scrollHeight + borders > maxPx ? 'auto' : 'hidden';
}

/**
 * autosize is an attachment that refits on every input; code that sets the
 * value itself calls fitTextarea afterwards.
 */
export function autosize(maxPx: number): (el: HTMLTextAreaElement) => () => void {
  return (el) => {
    const fit = () => fitTextarea(el, maxPx);
    fit();
    el.addEventListener('input', fit);
    return () => el.removeEventListener('input', fit);
  };
}

/** isSubmitKey: Enter without Shift, and not while an IME is composing. */
export function isSubmitKey(event: Pick<KeyboardEvent, 'key' | 'shiftKey' | 'isComposing' | 'keyCode'>): boolean {
  return event.key === 'Enter' && !event.shiftKey && !event.isComposing && event.keyCode !== 229;
}
