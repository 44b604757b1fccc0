// What a compat module exports for a SillyTavern name Hearth does not back
// (EXTENSIONS.md §5): something that links, so the extension's module
// loads, and fails loudly and by name when used.
import { HostError } from '../../abi/errors';

/** UNSUPPORTED_CODE is the HostError code of every use of an unbacked name. */
export const UNSUPPORTED_CODE = 'ext.unsupported';

/** unsupportedError is the error an unbacked name throws. */
export function unsupportedError(name: string, module: string): HostError {
  return new HostError(UNSUPPORTED_CODE, `${name} (SillyTavern's ${module}) is not available in Hearth`, { name, module });
}

/**
 * unsupported returns the stand-in for an unbacked export: calling it or
 * constructing with it throws ext.unsupported naming it; reading a
 * property gives undefined (so `if (x.enabled)` reads false and a
 * top-level `const { a } = x` does not break the whole module), except
 * `name`, its SillyTavern name. It is not a thenable, so awaiting it
 * does not call it. Writes are ignored.
 */
export function unsupported(name: string, module: string): unknown {
  const target = function unsupportedExport(): never {
    throw unsupportedError(name, module);
  };
  return new Proxy(target, {
    apply() {
      throw unsupportedError(name, module);
    },
    construct() {
      throw unsupportedError(name, module);
    },
    get(t, key) {
      if (key === 'name') return name;
      // A function's own prototype cannot be hidden (a proxy invariant).
      if (key === 'prototype') return Reflect.get(t, key);
      if (key === Symbol.toPrimitive) return () => `[${name}: not available in Hearth]`;
      if (key === Symbol.toStringTag) return 'HearthUnsupported';
      return undefined;
    },
    set() {
      return true;
    },
  });
}
