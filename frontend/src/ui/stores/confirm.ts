// One app-wide confirmation dialog, asked for with a promise.
import { writable, type Readable } from 'svelte/store';

export interface ConfirmOptions {
  title: string;
  message: string;
  confirmLabel?: string;
  /** danger styles the confirm button as destructive. */
  danger?: boolean;
}

export interface ConfirmRequest extends Required<ConfirmOptions> {
  id: number;
}

export interface ConfirmStore extends Readable<ConfirmRequest | null> {
  /** ask opens the dialog; it resolves true on confirm, false on cancel. */
  ask(options: ConfirmOptions): Promise<boolean>;
  answer(ok: boolean): void;
}

export function createConfirm(): ConfirmStore {
  const { subscribe, set } = writable<ConfirmRequest | null>(null);
  let pending: { id: number; resolve: (ok: boolean) => void } | null = null;
  let next = 1;

  function answer(ok: boolean): void {
    const p = pending;
    pending = null;
    set(null);
    p?.resolve(ok);
  }

  return {
    subscribe,
    ask(options) {
      if (pending) answer(false);
      const id = next++;
      set({ confirmLabel: 'OK', danger: false, ...options, id });
      return new Promise<boolean>((resolve) => (pending = { id, resolve }));
    },
    answer,
  };
}

/** askDiscard asks before an editor throws unsaved changes away (message says whose); true to discard. */
export function askDiscard(confirm: Pick<ConfirmStore, 'ask'>, message: string): Promise<boolean> {
  return confirm.ask({ title: 'Discard changes?', message, confirmLabel: 'Discard', danger: true });
}
