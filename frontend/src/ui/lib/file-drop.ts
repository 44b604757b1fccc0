// Files dragged onto an element (from the desktop or a file manager): an
// attachment that says when such a drag is over the element, and hands
// over the files dropped. Drags of text or links are left alone.
import { isFileDrag } from './cardfile';

export interface FileDropOptions {
  /** ondragging is told true when files are dragged in, and false when they leave or land. */
  ondragging: (over: boolean) => void;
  /** onfiles gets the files dropped. */
  onfiles: (files: File[]) => void;
}

/**
 * fileDrop returns an attachment ({@attach fileDrop(…)}) for an element
 * that takes dropped files. Moving over the element's children fires
 * dragenter on the child before dragleave on the parent, so it counts
 * them instead of trusting either alone.
 */
export function fileDrop(opts: FileDropOptions): (el: HTMLElement) => () => void {
  return (el) => {
    let depth = 0;
    const enter = (e: DragEvent) => {
      if (!isFileDrag(e.dataTransfer)) return;
      e.preventDefault();
      if (depth++ === 0) opts.ondragging(true);
    };
    const over = (e: DragEvent) => {
      if (!isFileDrag(e.dataTransfer)) return;
      e.preventDefault(); // allows the drop
      if (e.dataTransfer) e.dataTransfer.dropEffect = 'copy';
    };
    const leave = (e: DragEvent) => {
      if (!isFileDrag(e.dataTransfer) || depth === 0) return;
      if (--depth === 0) opts.ondragging(false);
    };
    const drop = (e: DragEvent) => {
      if (!isFileDrag(e.dataTransfer)) return;
      e.preventDefault(); // or the browser opens the file in place of the app
      depth = 0;
      opts.ondragging(false);
      opts.onfiles([...(e.dataTransfer?.files ?? [])]);
    };
    el.addEventListener('dragenter', enter);
    el.addEventListener('dragover', over);
    el.addEventListener('dragleave', leave);
    el.addEventListener('drop', drop);
    return () => {
      el.removeEventListener('dragenter', enter);
      el.removeEventListener('dragover', over);
      el.removeEventListener('dragleave', leave);
      el.removeEventListener('drop', drop);
    };
  };
}
