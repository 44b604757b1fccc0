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

/** Where a stand-in's target keeps what it stands for. */
const standsFor = new WeakMap<object, { name: string; module: string }>();

function fail(target: object): never {
  const what = standsFor.get(target)!;
  throw unsupportedError(what.name, what.module);
}

/**
 * One handler serves every stand-in (a compat module makes hundreds when
 * it loads, and each used to carry its own five closures).
 */
const STAND_IN: ProxyHandler<() => never> = {
  apply: (t) => fail(t),
  construct: (t) => fail(t),
  get(t, key) {
    if (key === 'name') return standsFor.get(t)!.name;
    // A function's own prototype cannot be hidden (a proxy invariant).
    if (key === 'prototype') return Reflect.get(t, key);
    if (key === Symbol.toPrimitive) return () => `[${standsFor.get(t)!.name}: not available in Hearth]`;
    if (key === Symbol.toStringTag) return 'HearthUnsupported';
    return undefined;
  },
  set: () => true,
};

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
    return fail(target);
  };
  standsFor.set(target, { name, module });
  return new Proxy(target, STAND_IN);
}
