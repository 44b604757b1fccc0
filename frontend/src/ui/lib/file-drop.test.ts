import { describe, expect, it, vi } from 'vitest';
import { fileDrop } from './file-drop';

/** drag makes a cancelable drag event carrying types (and files) on a plain Event. */
function drag(type: string, types: string[], files: unknown[] = []) {
  return Object.assign(new Event(type, { cancelable: true }), { dataTransfer: { types, files, dropEffect: 'none' } });
}

function setup() {
  const el = new EventTarget();
  const ondragging = vi.fn();
  const onfiles = vi.fn();
  const detach = fileDrop({ ondragging, onfiles })(el as unknown as HTMLElement);
  return { el, ondragging, onfiles, detach };
}

describe('fileDrop', () => {
  it('shows while files are over the element, through moves between its children', () => {
    const { el, ondragging } = setup();
    const enter = drag('dragenter', ['Files']);
    el.dispatchEvent(enter);
    expect(enter.defaultPrevented).toBe(true);
    expect(ondragging).toHaveBeenLastCalledWith(true);
    el.dispatchEvent(drag('dragenter', ['Files'])); // into a child
    el.dispatchEvent(drag('dragleave', ['Files'])); // out of the parent
    expect(ondragging).toHaveBeenCalledTimes(1);
    const over = drag('dragover', ['Files']);
    el.dispatchEvent(over);
    expect(over.defaultPrevented).toBe(true);
    expect(over.dataTransfer.dropEffect).toBe('copy');
    el.dispatchEvent(drag('dragleave', ['Files']));
    expect(ondragging).toHaveBeenLastCalledWith(false);
    el.dispatchEvent(drag('dragleave', ['Files'])); // a stray leave changes nothing
    expect(ondragging).toHaveBeenCalledTimes(2);
  });

  it('hands over dropped files and leaves drags of text alone', () => {
    const { el, ondragging, onfiles, detach } = setup();
    const text = drag('dragenter', ['text/plain']);
    el.dispatchEvent(text);
    el.dispatchEvent(drag('drop', ['text/plain']));
    expect(text.defaultPrevented).toBe(false);
    expect(ondragging).not.toHaveBeenCalled();
    expect(onfiles).not.toHaveBeenCalled();
    el.dispatchEvent(drag('dragenter', ['Files']));
    const drop = drag('drop', ['Files'], ['a.png', 'b.json']);
    el.dispatchEvent(drop);
    expect(drop.defaultPrevented).toBe(true);
    expect(ondragging).toHaveBeenLastCalledWith(false);
    expect(onfiles).toHaveBeenCalledWith(['a.png', 'b.json']);
    detach();
    el.dispatchEvent(drag('drop', ['Files'], ['c.png']));
    expect(onfiles).toHaveBeenCalledTimes(1);
  });
});
