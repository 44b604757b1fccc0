// Toasts: short-lived notices in the corner; errors show their HostError code.
import { writable, type Readable } from 'svelte/store';
import { describeError } from '../lib/errors';

/** ToastAction is a button on a toast that leads to the fix (say, "Open Connections") or takes back what it tells (Undo); using it dismisses the toast. */
export interface ToastAction {
  label: string;
  run: () => void;
}

/** ToastGroup is a labelled run of lines under a toast's message (a file and what went wrong with it). */
export interface ToastGroup {
  label: string;
  lines: string[];
}

export interface Toast {
  id: number;
  kind: 'error' | 'info';
  message: string;
  /** The HostError code, shown in small text under error messages. */
  code: string | null;
  /** groups are listed under the message. */
  groups: ToastGroup[];
  /** notes are folded away under their summary: worth knowing, nothing to do about them. */
  notes: { summary: string; groups: ToastGroup[] } | null;
  /** sticky toasts stay until dismissed (they list something to read). */
  sticky: boolean;
  /** action is a button under the message, or null. */
  action: ToastAction | null;
}

/** What show takes: a message, and optionally a code, groups, notes and stickiness. */
export type ToastInput = Pick<Toast, 'kind' | 'message'> & Partial<Omit<Toast, 'id' | 'kind' | 'message'>>;

export interface ToastStore extends Readable<Toast[]> {
  /** info shows a notice; action is a button under it (the Undo of what the notice tells). */
  info(message: string, action?: ToastAction): void;
  /** error shows a failure; context ("Could not delete the chat") goes first; action leads to the fix. */
  error(err: unknown, context?: string, action?: ToastAction): void;
  /** show shows a toast with whatever it carries; it returns the toast's id. */
  show(toast: ToastInput): number;
  /** hold keeps a toast from expiring while someone reads it (held), and lets it expire again after. */
  hold(id: number, held: boolean): void;
  dismiss(id: number): void;
}

export function createToasts(lifetimeMs = 7000, max = 5): ToastStore {
  const { subscribe, update } = writable<Toast[]>([]);
  const timers = new Map<number, { kind: Toast['kind']; timer: ReturnType<typeof setTimeout> | null }>();
  let next = 1;

  function arm(id: number): void {
    const t = timers.get(id);
    if (!t || lifetimeMs <= 0) return;
    if (t.timer) clearTimeout(t.timer);
    t.timer = setTimeout(() => dismiss(id), t.kind === 'error' ? lifetimeMs * 1.5 : lifetimeMs);
  }

  function push(t: ToastInput): number {
    const id = next++;
    const toast: Toast = { code: null, groups: [], notes: null, sticky: false, action: null, ...t, id };
    update((list) => {
      const kept = [...list, toast].slice(-max);
      for (const gone of list.filter((x) => !kept.includes(x))) forget(gone.id);
      return kept;
    });
    if (!toast.sticky) {
      timers.set(id, { kind: toast.kind, timer: null });
      arm(id);
    }
    return id;
  }

  function forget(id: number): void {
    const t = timers.get(id);
    if (t?.timer) clearTimeout(t.timer);
    timers.delete(id);
  }

  function dismiss(id: number): void {
    forget(id);
    update((list) => list.filter((t) => t.id !== id));
  }

  return {
    subscribe,
    info: (message, action) => void push({ kind: 'info', message, action: action ?? null }),
    error(err, context, action) {
      const f = describeError(err);
      push({ kind: 'error', message: context ? `${context}: ${f.message}` : f.message, code: f.code, action: action ?? null });
    },
    show: push,
    hold(id, held) {
      const t = timers.get(id);
      if (!t) return;
      if (!held) arm(id);
      else if (t.timer) {
        clearTimeout(t.timer);
        t.timer = null;
      }
    },
    dismiss,
  };
}
