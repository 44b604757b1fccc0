// SillyTavern's DOM mount points for page extensions (EXTENSIONS.md §5):
// #extensions_settings and #extensions_settings2, where extensions append
// their settings drawers while they load, and #extensionsMenu, where they
// add entries to the menu by the composer. Extensions find them by id the
// moment their script runs, so they are made before the first page
// extension loads, in a hidden holder; the extension manager's Settings
// tab and the composer's menu move them into view while open and back
// after (moving an element keeps its listeners). Only made when a page
// extension runs.

import { writable, type Readable } from 'svelte/store';

export const MOUNT_IDS = ['extensions_settings', 'extensions_settings2', 'extensionsMenu'] as const;
export type MountId = (typeof MOUNT_IDS)[number];

const HOLDER_CLASS = 'hearth-st-mounts';

const made = writable(false);

/** mountsMade turns true once makeMounts has run in this window (the UI shows the mounts from then on). */
export const mountsMade: Readable<boolean> = { subscribe: made.subscribe };

/** makeMounts makes the holder and the three elements once; later calls return the same ones. */
export function makeMounts(doc: Document = document): Record<MountId, HTMLElement> {
  let holder = doc.querySelector<HTMLElement>(`body > .${HOLDER_CLASS}`);
  if (!holder) {
    holder = doc.createElement('div');
    holder.className = HOLDER_CLASS;
    holder.hidden = true;
    for (const id of MOUNT_IDS) {
      const el = doc.createElement('div');
      el.id = id;
      holder.append(el);
    }
    doc.body.append(holder);
  }
  made.set(true);
  return mounts(doc)!;
}

/** mounts returns the three elements, or null when no page extension made them. */
export function mounts(doc: Document = document): Record<MountId, HTMLElement> | null {
  const out = {} as Record<MountId, HTMLElement>;
  for (const id of MOUNT_IDS) {
    const el = doc.getElementById(id);
    if (!el) return null;
    out[id] = el;
  }
  return out;
}

/** showIn moves a mount into slot; the returned function puts it back in the hidden holder. */
export function showIn(el: HTMLElement, slot: HTMLElement): () => void {
  const doc = el.ownerDocument;
  slot.append(el);
  return () => doc.querySelector(`body > .${HOLDER_CLASS}`)?.append(el);
}
