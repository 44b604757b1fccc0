/**
 * The part of node:fs that tests read the repository's files with: the
 * host's fixtures, the self-test's scripts. The frontend has no Node
 * types, and vitest runs in Node, so the module is taken from the process
 * at run time. Only tests import this.
 */
export interface NodeFs {
  readdirSync(p: URL): string[];
  readFileSync(p: URL): Uint8Array;
}

export const nodeFs = (globalThis as unknown as { process: { getBuiltinModule(name: 'node:fs'): NodeFs } }).process.getBuiltinModule('node:fs');

/** readText reads a file of the repository as UTF-8. */
export const readText = (p: URL): string => new TextDecoder().decode(nodeFs.readFileSync(p));
