// Undo and redo of the open chat from the keyboard: Ctrl+Z, and Ctrl+Shift+Z
// or Ctrl+Y (⌘Z and ⇧⌘Z on macOS) step through the chat's history
// (api.chat.undo / api.chat.redo, shared by every window of the chat). Keys
// typed into a text field or an open dialog are left alone, so text boxes
// keep their own undo.
import type { UndoStep } from '../../abi/types';

export type UndoAction = 'undo' | 'redo';

/** KeyLike is the part of a KeyboardEvent the shortcut reads. */
export interface KeyLike {
  key: string;
  code?: string;
  ctrlKey: boolean;
  metaKey: boolean;
  shiftKey: boolean;
  altKey: boolean;
  repeat?: boolean;
  isComposing?: boolean;
  defaultPrevented?: boolean;
  target: unknown;
  preventDefault(): void;
}

/**
 * letter is the key's Latin letter: the character it types, or on a
 * non-Latin layout (Cyrillic, Greek…) the key's position, as editors do.
 */
function letter(e: Pick<KeyLike, 'key' | 'code'>): string {
  if (/^[a-z]$/i.test(e.key)) return e.key.toLowerCase();
  const m = /^Key([A-Z])$/.exec(e.code ?? '');
  return e.key.length === 1 && m ? m[1]!.toLowerCase() : '';
}

/** shortcutAction tells which step a key press asks for, if any. */
export function shortcutAction(e: KeyLike, mac: boolean): UndoAction | null {
  if (e.altKey || e.isComposing) return null;
  const command = mac ? e.metaKey && !e.ctrlKey : e.ctrlKey && !e.metaKey;
  if (!command) return null;
  const k = letter(e);
  if (k === 'z') return e.shiftKey ? 'redo' : 'undo';
  if (k === 'y' && !mac && !e.shiftKey) return 'redo';
  return null;
}

/** ElementLike is the part of an Element keepsNativeUndo reads. */
interface ElementLike {
  tagName?: string;
  type?: string;
  isContentEditable?: boolean;
  closest?(selector: string): unknown;
}

/** Input types that hold no text, so they have no undo of their own. */
const TEXTLESS_INPUTS = new Set(['button', 'checkbox', 'color', 'file', 'hidden', 'image', 'radio', 'range', 'reset', 'submit']);

/**
 * keepsNativeUndo reports whether a key press aimed at target belongs to
 * it: a text field, anything editable, or something inside an open dialog.
 */
export function keepsNativeUndo(target: unknown): boolean {
  if (typeof target !== 'object' || target === null) return false;
  const el = target as ElementLike;
  const tag = (el.tagName ?? '').toUpperCase();
  if (tag === 'TEXTAREA' || el.isContentEditable === true) return true;
  if (tag === 'INPUT' && !TEXTLESS_INPUTS.has((el.type ?? 'text').toLowerCase())) return true;
  return typeof el.closest === 'function' && el.closest('dialog[open], [role="dialog"], [role="alertdialog"], [aria-modal="true"]') != null;
}

/** isMacPlatform reports whether the command key is ⌘ (macOS, iPadOS). */
export function isMacPlatform(nav: { platform?: string; userAgent?: string; userAgentData?: { platform?: string } }): boolean {
  const p = nav.userAgentData?.platform || nav.platform || nav.userAgent || '';
  return /mac|iphone|ipad|ipod/i.test(p);
}

/** What each write method is called in a toast ("Undone: edit message"). */
const LABELS: Readonly<Record<string, string>> = {
  addMessages: 'add message',
  appendMessage: 'add message',
  updateMessages: 'edit message',
  updateMessage: 'edit message',
  deleteMessages: 'delete message',
  deleteMessage: 'delete message',
  setMessagesHidden: 'hide or show message',
  swipe: 'swipe',
  addSwipe: 'add swipe',
  deleteSwipe: 'delete swipe',
  saveMetadata: 'chat settings change',
  patch: 'chat patch',
  createCheckpoint: 'checkpoint link',
  createBranch: 'branch link',
};

/** stepLabel names a write method in words; unknown ones are split from camelCase. */
export function stepLabel(method: string): string {
  return LABELS[method] ?? (method.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase() || 'change');
}

/** stepMessage is the toast after a step: "Undone: edit message". */
export function stepMessage(action: UndoAction, step: Pick<UndoStep, 'method'>): string {
  return `${action === 'undo' ? 'Undone' : 'Redone'}: ${stepLabel(step.method)}`;
}

/** Notices is where the outcome of a step is shown (the toast store). */
export interface Notices {
  info(message: string): void;
  error(err: unknown, context?: string): void;
}

export interface UndoKeysOptions {
  /** chatId is the chat the keys act on, or null when none is open (or not in view). */
  chatId(): string | null;
  /** step calls api.chat.undo or api.chat.redo. */
  step(action: UndoAction, chatId: string): Promise<UndoStep>;
  notices: Notices;
  /** mac: the command key is ⌘, not Ctrl. */
  mac: boolean;
}

export interface UndoKeys {
  /** onKeydown handles a key press (a window keydown listener). */
  onKeydown(event: KeyLike): void;
  /** run takes one step now, as the keys do (for buttons and menus). */
  run(action: UndoAction): Promise<void>;
  /** idle resolves once every step asked for so far has finished. */
  idle(): Promise<void>;
}

/**
 * createUndoKeys returns the keyboard handler. Steps run one after another
 * in the order pressed (holding Ctrl+Z walks back one write per repeat),
 * each reported by a toast: what was undone or redone, "Nothing to undo",
 * or why the chat refused (a later change in the way, history pruned).
 */
export function createUndoKeys(opts: UndoKeysOptions): UndoKeys {
  let queue: Promise<void> = Promise.resolve();

  async function take(action: UndoAction, chatId: string): Promise<void> {
    try {
      opts.notices.info(stepMessage(action, await opts.step(action, chatId)));
    } catch (err) {
      if ((err as { code?: unknown } | null)?.code === 'undo.nothing') {
        opts.notices.info(action === 'undo' ? 'Nothing to undo' : 'Nothing to redo');
      } else {
        opts.notices.error(err, action === 'undo' ? 'Could not undo' : 'Could not redo');
      }
    }
  }

  function run(action: UndoAction): Promise<void> {
    const chatId = opts.chatId();
    if (!chatId) return queue;
    queue = queue.then(() => take(action, chatId));
    return queue;
  }

  return {
    onKeydown(event) {
      if (event.defaultPrevented) return;
      const action = shortcutAction(event, opts.mac);
      if (!action || keepsNativeUndo(event.target) || !opts.chatId()) return;
      event.preventDefault();
      void run(action);
    },
    run,
    idle: () => queue,
  };
}
