// Toasts: short-lived notices in the corner; errors show their HostError code.
import { writable, type Readable } from 'svelte/store';
import { describeError } from '../lib/errors';

export interface Toast {
  id: number;
  kind: 'error' | 'info';
  message: string;
  /** The HostError code, shown in small text under error messages. */
  code: string | null;
}

export interface ToastStore extends Readable<Toast[]> {
  info(message: string): void;
  /** error shows a failure; context ("Could not delete the chat") goes first. */
  error(err: unknown, context?: string): void;
  dismiss(id: number): void;
}

export function createToasts(lifetimeMs = 7000, max = 5): ToastStore {
  const { subscribe, update } = writable<Toast[]>([]);
  let next = 1;

  function push(t: Omit<Toast, 'id'>): void {
    const id = next++;
    update((list) => [...list, { ...t, id }].slice(-max));
    if (lifetimeMs > 0) setTimeout(() => dismiss(id), t.kind === 'error' ? lifetimeMs * 1.5 : lifetimeMs);
  }

  function dismiss(id: number): void {
    update((list) => list.filter((t) => t.id !== id));
  }

  return {
    subscribe,
    info: (message) => push({ kind: 'info', message, code: null }),
    error(err, context) {
      const f = describeError(err);
      push({ kind: 'error', message: context ? `${context}: ${f.message}` : f.message, code: f.code });
    },
    dismiss,
  };
}
