// The colour theme: dark by default, light on request, remembered per browser.
import { writable, type Readable } from 'svelte/store';

export type Theme = 'dark' | 'light';

const KEY = 'hearth.theme';

export interface ThemeStore extends Readable<Theme> {
  set(theme: Theme): void;
  toggle(): void;
}

interface StorageLike {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
}

/** readTheme reads the remembered theme; anything unknown means dark. */
export function readTheme(storage: StorageLike | null): Theme {
  try {
    return storage?.getItem(KEY) === 'light' ? 'light' : 'dark';
  } catch {
    return 'dark';
  }
}

/** createTheme applies the theme as <html data-theme> and remembers changes. */
export function createTheme(storage: StorageLike | null, root: HTMLElement | null): ThemeStore {
  const store = writable<Theme>(readTheme(storage));
  let current: Theme = 'dark';
  store.subscribe((t) => {
    current = t;
    if (root) {
      root.dataset.theme = t;
      root.style.colorScheme = t;
    }
  });
  function set(t: Theme): void {
    store.set(t);
    try {
      storage?.setItem(KEY, t);
    } catch {
      // Private mode or a full quota: the theme just won't be remembered.
    }
  }
  return {
    subscribe: store.subscribe,
    set,
    toggle: () => set(current === 'dark' ? 'light' : 'dark'),
  };
}
