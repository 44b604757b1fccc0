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

export interface PopupOptions {
  okButton?: string | boolean;
  cancelButton?: string | boolean;
  rows?: number;
  wide?: boolean;
  large?: boolean;
}

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

/**
 * callGenericPopup shows content and resolves, as SillyTavern's does, to
 * POPUP_RESULT.AFFIRMATIVE / NEGATIVE, CANCELLED (null) when dismissed,
 * or the text typed for POPUP_TYPE.INPUT (null when cancelled).
 */
export function callGenericPopup(content: Content, type: number = POPUP_TYPE.TEXT, inputValue = '', options: PopupOptions = {}): Promise<unknown> {
  return new Promise((resolve) => {
    const dialog = document.createElement('dialog');
    dialog.className = 'hearth-st-popup';
    if (options.wide) dialog.classList.add('wide');
    if (options.large) dialog.classList.add('large');
    const body = document.createElement('div');
    body.className = 'hearth-st-popup-body';
    body.append(contentNode(content));
    dialog.append(body);
    let input: HTMLTextAreaElement | null = null;
    if (type === POPUP_TYPE.INPUT) {
      input = document.createElement('textarea');
      input.className = 'text_pole';
      input.rows = options.rows ?? 1;
      input.value = String(inputValue ?? '');
      input.setAttribute('aria-label', 'Your answer');
      dialog.append(input);
    }
    let result: unknown = POPUP_RESULT.CANCELLED;
    const finish = (value: unknown) => {
      result = value;
      dialog.close();
    };
    if (type !== POPUP_TYPE.DISPLAY) {
      const row = document.createElement('div');
      row.className = 'hearth-st-popup-buttons';
      const button = (label: string, value: () => unknown, primary: boolean) => {
        const b = document.createElement('button');
        b.type = 'button';
        b.className = primary ? 'menu_button primary' : 'menu_button';
        b.textContent = label;
        b.addEventListener('click', () => finish(value()));
        row.append(b);
      };
      const ok = typeof options.okButton === 'string' ? options.okButton : type === POPUP_TYPE.CONFIRM ? 'Yes' : 'OK';
      const cancel = typeof options.cancelButton === 'string' ? options.cancelButton : type === POPUP_TYPE.CONFIRM ? 'No' : 'Cancel';
      const asks = type === POPUP_TYPE.CONFIRM || type === POPUP_TYPE.INPUT || options.cancelButton;
      if (asks && options.cancelButton !== false) {
        button(cancel, () => (type === POPUP_TYPE.INPUT ? null : POPUP_RESULT.NEGATIVE), false);
      }
      if (options.okButton !== false) button(ok, () => (input ? input.value : POPUP_RESULT.AFFIRMATIVE), true);
      dialog.append(row);
    } else {
      const close = document.createElement('button');
      close.type = 'button';
      close.className = 'hearth-st-popup-close';
      close.setAttribute('aria-label', 'Close');
      close.textContent = '×';
      close.addEventListener('click', () => finish(POPUP_RESULT.CANCELLED));
      dialog.prepend(close);
    }
    dialog.addEventListener('close', () => {
      dialog.remove();
      resolve(result);
    });
    document.body.append(dialog);
    dialog.showModal();
    (input ?? dialog.querySelector<HTMLElement>('.primary'))?.focus();
  });
}

/** callPopup is SillyTavern's older popup: types as words ('text', 'confirm', 'input'). */
export function callPopup(text: Content, type: string = 'text', inputValue = '', options: PopupOptions = {}): Promise<unknown> {
  const kind = { text: POPUP_TYPE.TEXT, confirm: POPUP_TYPE.CONFIRM, input: POPUP_TYPE.INPUT }[type] ?? POPUP_TYPE.TEXT;
  return callGenericPopup(text, kind, inputValue, options).then((r) => (kind === POPUP_TYPE.INPUT ? r : r === POPUP_RESULT.AFFIRMATIVE));
}
