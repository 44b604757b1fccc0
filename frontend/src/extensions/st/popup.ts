// SillyTavern's popups for page extensions (callGenericPopup, callPopup,
// POPUP_TYPE, POPUP_RESULT), drawn as a native modal <dialog> in the app's
// colours. Content is HTML from the extension: it is sanitized (DOMPurify,
// as SillyTavern's popups are) before it is shown; a jQuery object or an
// element is shown as it is (the extension made it, listeners and all).
import DOMPurify from 'dompurify';

export const POPUP_TYPE = Object.freeze({ TEXT: 1, CONFIRM: 2, INPUT: 3, DISPLAY: 4, CROP: 5 });
export const POPUP_RESULT = Object.freeze({
  AFFIRMATIVE: 1,
  NEGATIVE: 0,
  CANCELLED: null,
  CUSTOM1: 1001,
  CUSTOM2: 1002,
  CUSTOM3: 1003,
  CUSTOM4: 1004,
  CUSTOM5: 1005,
  CUSTOM6: 1006,
  CUSTOM7: 1007,
  CUSTOM8: 1008,
  CUSTOM9: 1009,
});


type Content = string | Element | { jquery: string; get(i: number): Element | undefined };

function contentNode(content: Content): Node {
  if (typeof content === 'string') {
    const holder = document.createElement('div');
    holder.innerHTML = DOMPurify.sanitize(content);
    return holder;
  }
  if (content instanceof Element) return content;
  const el = content.get(0);
  if (el) return el;
  return document.createTextNode('');
}

/** A button of SillyTavern's customButtons: text, the result it gives, an action run before it closes. */
export interface CustomPopupButton {
  text: string;
  result?: unknown;
  classes?: string[] | string;
  action?: () => unknown;
  appendAtEnd?: boolean;
}

export interface PopupOptions {
  okButton?: string | boolean;
  cancelButton?: string | boolean;
  rows?: number;
  wide?: boolean;
  large?: boolean;
  customButtons?: Array<CustomPopupButton | string>;
  /** onClosing may return false to keep the popup open (SillyTavern's). */
  onClosing?: (popup: Popup) => unknown;
  onClose?: (popup: Popup) => unknown;
}

/**
 * Popup is SillyTavern's popup class: new Popup(content, type, inputValue,
 * options), show() resolves to POPUP_RESULT.AFFIRMATIVE / NEGATIVE,
 * CANCELLED (null) when dismissed, a custom button's result, or the text
 * typed for POPUP_TYPE.INPUT (null when cancelled); complete(result)
 * closes it from code.
 */
export class Popup {
  readonly dlg: HTMLDialogElement;
  readonly content: HTMLElement;
  readonly type: number;
  input: HTMLTextAreaElement | null = null;
  result: unknown = POPUP_RESULT.CANCELLED;
  value: unknown = null;
  #options: PopupOptions;
  #done: Promise<unknown> | null = null;
  #resolve: (v: unknown) => void = () => {};

  constructor(content: Content, type: number = POPUP_TYPE.TEXT, inputValue: unknown = '', options: PopupOptions = {}) {
    this.type = type;
    this.#options = options;
    const dialog = document.createElement('dialog');
    dialog.className = 'hearth-st-popup';
    if (options.wide) dialog.classList.add('wide');
    if (options.large) dialog.classList.add('large');
    this.dlg = dialog;
    const body = document.createElement('div');
    body.className = 'hearth-st-popup-body';
    body.append(contentNode(content));
    this.content = body;
    dialog.append(body);
    if (type === POPUP_TYPE.INPUT) {
      const input = document.createElement('textarea');
      input.className = 'text_pole';
      input.rows = options.rows ?? 1;
      input.value = String(inputValue ?? '');
      input.setAttribute('aria-label', 'Your answer');
      dialog.append(input);
      this.input = input;
    }
    if (type !== POPUP_TYPE.DISPLAY) dialog.append(this.#buttons());
    else {
      const close = document.createElement('button');
      close.type = 'button';
      close.className = 'hearth-st-popup-close';
      close.setAttribute('aria-label', 'Close');
      close.textContent = '×';
      close.addEventListener('click', () => void this.complete(POPUP_RESULT.CANCELLED));
      dialog.prepend(close);
    }
    dialog.addEventListener('cancel', (e) => {
      e.preventDefault();
      void this.complete(POPUP_RESULT.CANCELLED);
    });
  }

  #buttons(): HTMLElement {
    const { type } = this;
    const options = this.#options;
    const row = document.createElement('div');
    row.className = 'hearth-st-popup-buttons';
    const button = (label: string, value: () => unknown, primary: boolean, classes: string[] = [], action?: () => unknown) => {
      const b = document.createElement('button');
      b.type = 'button';
      b.className = ['menu_button', ...(primary ? ['primary'] : []), ...classes].join(' ');
      b.textContent = label;
      b.addEventListener('click', async () => {
        if (action) {
          await action();
          return;
        }
        void this.complete(value());
      });
      return b;
    };
    const custom = (options.customButtons ?? []).map((c, i) => {
      const spec = typeof c === 'string' ? { text: c, result: 1001 + i } : c;
      const classes = Array.isArray(spec.classes) ? spec.classes : spec.classes ? [spec.classes] : [];
      const b = button(spec.text, () => spec.result ?? POPUP_RESULT.CANCELLED, false, classes, spec.action ? () => spec.action!() : undefined);
      return { b, end: spec.appendAtEnd === true };
    });
    for (const c of custom) if (!c.end) row.append(c.b);
    const ok = typeof options.okButton === 'string' ? options.okButton : type === POPUP_TYPE.CONFIRM ? 'Yes' : 'OK';
    const cancel = typeof options.cancelButton === 'string' ? options.cancelButton : type === POPUP_TYPE.CONFIRM ? 'No' : 'Cancel';
    const asks = type === POPUP_TYPE.CONFIRM || type === POPUP_TYPE.INPUT || options.cancelButton;
    if (asks && options.cancelButton !== false) {
      row.append(button(cancel, () => (type === POPUP_TYPE.INPUT ? null : POPUP_RESULT.NEGATIVE), false));
    }
    if (options.okButton !== false) {
      row.append(button(ok, () => (this.input ? this.input.value : POPUP_RESULT.AFFIRMATIVE), true));
    }
    for (const c of custom) if (c.end) row.append(c.b);
    return row;
  }

  /** show opens the popup and resolves to its result once it closes. */
  show(): Promise<unknown> {
    if (this.#done) return this.#done;
    this.#done = new Promise((resolve) => (this.#resolve = resolve));
    document.body.append(this.dlg);
    this.dlg.showModal();
    (this.input ?? this.dlg.querySelector<HTMLElement>('.primary'))?.focus();
    return this.#done;
  }

  /** complete closes the popup with result (unless onClosing returns false). */
  async complete(result: unknown): Promise<unknown> {
    this.result = result;
    this.value = result;
    if ((await this.#options.onClosing?.(this)) === false) return undefined;
    if (this.dlg.open) this.dlg.close();
    this.dlg.remove();
    await this.#options.onClose?.(this);
    this.#resolve(this.result);
    return this.result;
  }
}

/** callGenericPopup is SillyTavern's: new Popup(…).show(). */
export function callGenericPopup(content: Content, type: number = POPUP_TYPE.TEXT, inputValue = '', options: PopupOptions = {}): Promise<unknown> {
  return new Popup(content, type, inputValue, options).show();
}

/** callPopup is SillyTavern's older popup: types as words ('text', 'confirm', 'input'). */
export function callPopup(text: Content, type: string = 'text', inputValue = '', options: PopupOptions = {}): Promise<unknown> {
  const kind = { text: POPUP_TYPE.TEXT, confirm: POPUP_TYPE.CONFIRM, input: POPUP_TYPE.INPUT }[type] ?? POPUP_TYPE.TEXT;
  return callGenericPopup(text, kind, inputValue, options).then((r) => (kind === POPUP_TYPE.INPUT ? r : r === POPUP_RESULT.AFFIRMATIVE));
}
