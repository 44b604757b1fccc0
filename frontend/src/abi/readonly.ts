// Read-only data for code outside the ABI. Cached chat data is deep-frozen
// once, when it arrives, so it can be shared with every caller without
// copies; getMessage() additionally wraps it in a Proxy whose writes throw
// an error that says which call to use instead (Luker's behaviour), since a
// frozen object alone fails silently in sloppy-mode scripts.

/**
 * deepFreeze freezes value and everything reachable from it, stopping at
 * objects that are already frozen (so re-freezing a document that shares
 * frozen parts costs only the new parts). It walks with a stack of its own,
 * not by recursion: host data is hostile input, and a card nested thousands
 * of levels deep must not overflow the call stack (and stop the window from
 * starting).
 */
export function deepFreeze<T>(value: T): T {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const v = pending.pop();
    if (typeof v !== 'object' || v === null || Object.isFrozen(v)) continue;
    Object.freeze(v);
    for (const key of Reflect.ownKeys(v)) pending.push((v as Record<PropertyKey, unknown>)[key]);
  }
  return value;
}

const views = new Map<string, WeakMap<object, object>>();

function readOnlyError(key: PropertyKey, hint: string): Error {
  return new Error(`Cannot modify "${String(key)}": this object is read-only; use ${hint} to change it`);
}

/**
 * readonlyView returns a read-only Proxy over target: reads see target
 * (nested objects as read-only views too, with stable identity), and any
 * write, delete or property definition throws an Error naming hint.
 *
 * The Proxy's own target is an empty shadow of the same kind, not target
 * itself: Proxy invariants require a frozen target's properties to be
 * reported exactly, which would forbid wrapping nested values.
 */
export function readonlyView<T extends object>(target: T, hint: string): T {
  let cache = views.get(hint);
  if (!cache) {
    cache = new WeakMap();
    views.set(hint, cache);
  }
  const hit = cache.get(target);
  if (hit) return hit as T;
  const wrap = (v: unknown): unknown => (typeof v === 'object' && v !== null ? readonlyView(v, hint) : v);
  const shadow = (Array.isArray(target) ? [] : Object.create(Object.getPrototypeOf(target) as object | null)) as object;
  const deny = (key: PropertyKey): never => {
    throw readOnlyError(key, hint);
  };
  const view = new Proxy(shadow, {
    get: (_s, key) => wrap(Reflect.get(target, key)),
    has: (_s, key) => Reflect.has(target, key),
    ownKeys: () => Reflect.ownKeys(target),
    getOwnPropertyDescriptor: (s, key) => {
      const d = Reflect.getOwnPropertyDescriptor(target, key);
      if (!d) return undefined;
      // The shadow array's own "length" is the one non-configurable
      // property the invariants let us report as such.
      if (key === 'length' && Array.isArray(s)) return { value: d.value, writable: true, enumerable: false, configurable: false };
      return { value: wrap(d.value), writable: false, enumerable: d.enumerable ?? false, configurable: true };
    },
    getPrototypeOf: () => Reflect.getPrototypeOf(target),
    set: (_s, key) => deny(key),
    defineProperty: (_s, key) => deny(key),
    deleteProperty: (_s, key) => deny(key),
    setPrototypeOf: () => deny('__proto__'),
    preventExtensions: () => deny('(extensibility)'),
  });
  cache.set(target, view);
  return view as T;
}
