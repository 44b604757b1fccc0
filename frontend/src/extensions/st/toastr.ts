// window.toastr for page extensions: SillyTavern's notification calls
// (toastr.success/info/warning/error, clear, remove) shown as Hearth's own
// toasts, so an extension's notices look like the app's and sit where the
// app's do. toastr renders HTML; a Hearth toast shows text, so markup is
// reduced to its text. Options other than timeOut 0 (stay until
// dismissed) have no effect.

/** ToastSink is the part of the app's toasts the facade uses. */
export interface ToastSink {
  show(t: { kind: 'info' | 'error'; message: string; sticky?: boolean }): number;
  dismiss(id: number): void;
}

/** What toastr's calls return: a handle clear() and remove() take. */
export interface ToastHandle {
  readonly hearthToast: number;
}

type Show = (message?: unknown, title?: unknown, options?: { timeOut?: number }) => ToastHandle;

export interface Toastr {
  success: Show;
  info: Show;
  warning: Show;
  error: Show;
  clear(handle?: ToastHandle): void;
  remove(handle?: ToastHandle): void;
  options: Record<string, unknown>;
}

/** textOf reduces toastr's HTML message to what a person reads. */
export function textOf(v: unknown): string {
  if (v === null || v === undefined) return '';
  const s = String(v);
  if (!/[<&]/.test(s)) return s.trim();
  const doc = new DOMParser().parseFromString(s.replace(/<br\s*\/?>/gi, '\n'), 'text/html');
  return (doc.body.textContent ?? '').trim();
}

export function createToastr(sink: ToastSink): Toastr {
  const mine = new Set<number>();
  const make =
    (kind: 'info' | 'error'): Show =>
    (message, title, options) => {
      const body = textOf(message);
      const head = textOf(title);
      const text = head && body ? `${head}: ${body}` : head || body;
      const id = sink.show({ kind, message: text, sticky: options?.timeOut === 0 });
      mine.add(id);
      return Object.freeze({ hearthToast: id });
    };
  const clear = (handle?: ToastHandle) => {
    const ids = handle ? [handle.hearthToast] : [...mine];
    for (const id of ids) {
      sink.dismiss(id);
      mine.delete(id);
    }
  };
  return { success: make('info'), info: make('info'), warning: make('error'), error: make('error'), clear, remove: clear, options: {} };
}
