// Undo and redo of a chat: the steps (api.chat.undo / api.chat.redo,
// shared by every window of the chat) taken one after another and told in
// words ("Message restored"), and the keys that ask for them in the open
// chat: Ctrl+Z, and Ctrl+Shift+Z or Ctrl+Y (⌘Z and ⇧⌘Z on macOS). Keys typed
// into a text field or an open dialog are left alone, so text boxes keep
// their own undo. The Undo of a toast and the chat menu's Undo and Redo
// take the same steps (stores/chat-history).
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

/**
 * StepWords are what a write is called in the window, in sentence case:
 * done when it was made (the toast after a delete, the menu's hint),
 * undone and redone for the toast after each step.
 */
export interface StepWords {
  done: string;
  undone: string;
  redone: string;
}

const MESSAGE_ADDED: StepWords = { done: 'Message added', undone: 'Message removed', redone: 'Message added again' };
const MESSAGE_EDITED: StepWords = { done: 'Message edited', undone: 'Edit undone', redone: 'Edit redone' };
const MESSAGE_DELETED: StepWords = { done: 'Message deleted', undone: 'Message restored', redone: 'Message deleted again' };
const CHAT_CHANGED: StepWords = { done: 'Chat changed', undone: 'Change undone', redone: 'Change redone' };

/** The words of each write method (api.chat's, and commitReply for a generated reply). */
const WORDS: Readonly<Record<string, StepWords>> = {
  addMessages: MESSAGE_ADDED,
  appendMessage: MESSAGE_ADDED,
  updateMessages: MESSAGE_EDITED,
  updateMessage: MESSAGE_EDITED,
  deleteMessages: MESSAGE_DELETED,
  deleteMessage: MESSAGE_DELETED,
  commitReply: { done: 'Reply written', undone: 'Reply removed', redone: 'Reply restored' },
  setMessagesHidden: { done: 'Retrieval visibility changed', undone: 'Retrieval visibility restored', redone: 'Retrieval visibility changed again' },
  swipe: { done: 'Reply version switched', undone: 'Reply version switched back', redone: 'Reply version switched again' },
  addSwipe: { done: 'Reply version added', undone: 'Reply version removed', redone: 'Reply version added again' },
  deleteSwipe: { done: 'Reply version deleted', undone: 'Reply version restored', redone: 'Reply version deleted again' },
  saveMetadata: { done: 'Chat settings changed', undone: 'Chat settings restored', redone: 'Chat settings changed again' },
  patch: CHAT_CHANGED,
  revert: { done: 'Changes reverted', undone: 'Revert undone', redone: 'Revert redone' },
  createCheckpoint: { done: 'Checkpoint linked', undone: 'Checkpoint link removed', redone: 'Checkpoint link restored' },
  createBranch: { done: 'Branch linked', undone: 'Branch link removed', redone: 'Branch link restored' },
};

/** stepWords names a write method in words; a method Hearth does not know yet is a change to the chat. */
export function stepWords(method: string): StepWords {
  return Object.hasOwn(WORDS, method) ? WORDS[method]! : CHAT_CHANGED;
}

/** stepMessage is the toast after a step: "Message restored", "Edit redone". */
export function stepMessage(action: UndoAction, step: Pick<UndoStep, 'method'>): string {
  const w = stepWords(step.method);
  return action === 'undo' ? w.undone : w.redone;
}

/** Notices is where the outcome of a step is shown (the toast store). */
export interface Notices {
  info(message: string): void;
  error(err: unknown, context?: string): void;
}

/** StepOptions: ifRevision takes the step only while the chat is at that revision (the Undo of one write). */
export interface StepOptions {
  ifRevision?: number;
}

/** UndoSteps takes undo and redo steps one after another, each reported in a toast. */
export interface UndoSteps {
  /** run takes one step in chatId, after every step asked for before. */
  run(action: UndoAction, chatId: string, options?: StepOptions): Promise<void>;
  /** idle resolves once every step asked for so far has finished. */
  idle(): Promise<void>;
}

export interface UndoStepsOptions {
  /** step calls api.chat.undo or api.chat.redo. */
  step(action: UndoAction, chatId: string, options?: StepOptions): Promise<UndoStep>;
  notices: Notices;
}

/**
 * createUndoSteps runs steps in the order asked (holding Ctrl+Z walks back
 * one write per repeat), each reported by a toast: what was undone or
 * redone, "Nothing to undo", or why the chat refused (a later change in
 * the way, history pruned).
 */
export function createUndoSteps(opts: UndoStepsOptions): UndoSteps {
  let queue: Promise<void> = Promise.resolve();

  async function take(action: UndoAction, chatId: string, options?: StepOptions): Promise<void> {
    try {
      opts.notices.info(stepMessage(action, await opts.step(action, chatId, options)));
    } catch (err) {
      const e = err as { code?: unknown; details?: { expectedRevision?: unknown } } | null;
      if (e?.code === 'undo.nothing') {
        opts.notices.info(action === 'undo' ? 'Nothing to undo' : 'Nothing to redo');
      } else if (e?.code === 'chat.conflict' && options?.ifRevision !== undefined && e.details?.expectedRevision !== undefined) {
        // The chat moved on since the write this Undo was for: a plain undo would take back something else.
        opts.notices.error(
          { code: 'chat.conflict', message: 'the chat has changed since. Undo in the ⋯ menu (or Ctrl+Z) steps back one change at a time.' },
          'Could not undo',
        );
      } else {
        opts.notices.error(err, action === 'undo' ? 'Could not undo' : 'Could not redo');
      }
    }
  }

  return {
    run(action, chatId, options) {
      queue = queue.then(() => take(action, chatId, options));
      return queue;
    },
    idle: () => queue,
  };
}

export interface UndoKeysOptions {
  /** chatId is the chat the keys act on, or null when none is open (or not in view). */
  chatId(): string | null;
  /** steps takes the steps the keys ask for. */
  steps: UndoSteps;
  /** mac: the command key is ⌘, not Ctrl. */
  mac: boolean;
}

export interface UndoKeys {
  /** onKeydown handles a key press (a window keydown listener). */
  onKeydown(event: KeyLike): void;
}

/** createUndoKeys returns the keyboard handler: Ctrl+Z and friends become steps of the open chat. */
export function createUndoKeys(opts: UndoKeysOptions): UndoKeys {
  return {
    onKeydown(event) {
      if (event.defaultPrevented) return;
      const action = shortcutAction(event, opts.mac);
      const chatId = opts.chatId();
      if (!action || keepsNativeUndo(event.target) || !chatId) return;
      event.preventDefault();
      void opts.steps.run(action, chatId);
    },
  };
}
