// The browser's FrameDom: an <iframe sandbox="allow-scripts"> per extension.
// The sandbox gives the frame an opaque origin (so it reads nothing of the
// app's: no cookies, no storage, no DOM) and forbids top navigation, popups,
// forms and plugins; the flags are set before src and before the frame is in
// the document, since a frame takes them when it navigates. A frame is never
// moved once inserted (moving an iframe reloads it): panel frames live in
// the panel's body from the start and are only shown or hidden.
import type { FrameDom, FrameHandle, FrameSpec } from './host';

/** SANDBOX is the only sandbox flag an extension frame gets. */
export const SANDBOX = 'allow-scripts';

/** createFrameDom puts hidden frames in hiddenArea and panel frames in panelArea. */
export function createFrameDom(doc: Pick<Document, 'createElement'>, hiddenArea: Element, panelArea: Element): FrameDom {
  return {
    create(spec: FrameSpec): FrameHandle {
      const frame = doc.createElement('iframe');
      frame.setAttribute('sandbox', SANDBOX);
      frame.setAttribute('referrerpolicy', 'no-referrer');
      // No powerful features (camera, geolocation…), whatever the page's own policy allows.
      frame.setAttribute('allow', '');
      frame.setAttribute('title', spec.title);
      frame.dataset.extension = spec.id;
      if (spec.panel) frame.hidden = true;
      else {
        frame.setAttribute('aria-hidden', 'true');
        frame.tabIndex = -1;
      }
      frame.setAttribute('src', spec.src);
      (spec.panel ? panelArea : hiddenArea).append(frame);
      return {
        window: frame.contentWindow,
        onLoad: (fn) => frame.addEventListener('load', fn),
        show: (visible) => void (frame.hidden = !visible),
        remove: () => frame.remove(),
      };
    },
  };
}
