// bind turns a list of method names into forwarding functions onto the
// host router ("presets.get" with the caller's positional arguments),
// typed from the namespace's api interface so that the list and the
// interface cannot drift apart unnoticed.
import type { Call } from './host';

/** HostCalls are the names of Api's members that answer a Promise: the ones a host call can stand for. */
export type HostCalls<Api> = {
  [K in keyof Api]: Api[K] extends (...args: never[]) => Promise<unknown> ? K : never;
}[keyof Api] &
  string;

/**
 * bind<Api>(call, namespace)(names) makes one forwarding function per
 * host method of namespace, typed as Api declares it. Two mistakes are
 * compile errors: a name that is not a Promise-answering member of Api
 * (a typo, a sync method), through names' type; and a member of Api
 * missing from the list, since the result is only the Pick of the names
 * given and the api object it goes into is returned as Api. The methods'
 * argument and answer types are Api's word for what the host does; the
 * Go side is checked against the names in methods.test.ts.
 *
 * It is curried because TypeScript infers all of a call's type arguments
 * or none: Api is given, names' literal type is inferred.
 */
export function bind<Api>(call: Call, namespace: string) {
  return <const M extends readonly HostCalls<Api>[]>(names: M): Pick<Api, M[number]> => {
    const out: Record<string, (...args: unknown[]) => Promise<unknown>> = {};
    for (const name of names) {
      const method = `${namespace}.${name}`;
      out[name] = (...args) => call(method, ...args);
    }
    return out as Pick<Api, M[number]>;
  };
}
