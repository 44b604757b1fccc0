// mountAtRoot keeps an element out of the panes: a dialog opened from a pane
// must not go inert (or hidden) with it when a phone shows another pane.

/** DIALOG_HOST is the attribute of the app's dialog host (App.svelte), where mountAtRoot puts elements. */
export const DIALOG_HOST = 'data-dialog-host';

/**
 * mountAtRoot moves node into the app's dialog host, or to the end of
 * <body> where there is none (a component shown on its own); the cleanup
 * it returns takes the node out again. Use it as an attachment
 * ({@attach mountAtRoot}) on a component's one root element: Svelte then
 * removes nothing else with it.
 */
export function mountAtRoot(node: Element): () => void {
  const doc = node.ownerDocument;
  const host = doc.querySelector(`[${DIALOG_HOST}]`) ?? doc.body;
  host.appendChild(node);
  return () => node.remove();
}
