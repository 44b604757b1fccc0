// install publishes the ABI on window: window.__HEARTH__ plus the
// SillyTavern/Luker compatibility aliases, and nothing else (HOST-ABI §0).
import { pageExtra } from './page-extras';
import type { HearthAbi } from './types';

const ALIASES = ['SillyTavern', 'Luker'] as const;

/**
 * install defines window.__HEARTH__ (read-only, not reconfigurable) and
 * makes window.SillyTavern.getContext and window.Luker.getContext the same
 * function as __HEARTH__.getContext. An alias object that already exists is
 * given getContext rather than replaced; a new one is frozen.
 */
export function install(w: object, abi: HearthAbi): void {
  Object.defineProperty(w, '__HEARTH__', { value: abi, enumerable: true, writable: false, configurable: false });
  const g = w as Record<string, unknown>;
  for (const name of ALIASES) {
    const existing = g[name];
    if (existing === undefined || existing === null) {
      Object.defineProperty(w, name, {
        value: Object.freeze({
          getContext: abi.getContext,
          // SillyTavern.libs: the compat runtime's libraries once a page extension runs.
          get libs() {
            return pageExtra('libs');
          },
        }),
        enumerable: true,
        writable: false,
        configurable: false,
      });
    } else if (typeof existing === 'object' || typeof existing === 'function') {
      try {
        Object.defineProperty(existing, 'getContext', { value: abi.getContext, enumerable: true, writable: false, configurable: false });
      } catch (err) {
        console.warn(`Hearth: window.${name} exists and cannot take getContext`, err);
      }
    }
  }
}
