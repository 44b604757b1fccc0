// A small RFC 6902 applier for CHAT_PATCHED events: the backend sends the
// committed operations against { metadata, messages }, and the current-chat
// cache replays them. Written here rather than taken from npm because the
// cache needs copy-on-write over deep-frozen data (libraries mutate in
// place or clone the whole document), and it is about eighty lines.
import type { JsonPatchOp } from './types';

/** PatchError reports an operation that does not apply; the cache then resyncs. */
export class PatchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PatchError';
  }
}

type Container = Record<string, unknown> | unknown[];

function parsePointer(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw new PatchError(`bad JSON pointer ${JSON.stringify(pointer)}`);
  return pointer
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function isContainer(v: unknown): v is Container {
  return typeof v === 'object' && v !== null;
}

function arrayIndex(arr: unknown[], token: string, forAdd: boolean): number {
  if (forAdd && token === '-') return arr.length;
  if (!/^(0|[1-9][0-9]*)$/.test(token)) throw new PatchError(`bad array index ${JSON.stringify(token)}`);
  const i = Number(token);
  if (i > arr.length || (!forAdd && i === arr.length)) throw new PatchError(`array index ${i} out of range`);
  return i;
}

/** deepEqual compares JSON values (for `test`). */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (!isContainer(a) || !isContainer(b) || Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => Object.hasOwn(b, k) && deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

function clone(c: Container): Container {
  return Array.isArray(c) ? c.slice() : { ...c };
}

/**
 * applyPatch returns a new document with ops applied, leaving doc (which may
 * be frozen) untouched: each container on an op's path is shallow-copied
 * once per call and everything else is shared. It throws PatchError when an
 * operation does not apply.
 */
export function applyPatch<D>(doc: D, ops: readonly JsonPatchOp[]): D {
  const fresh = new WeakSet<object>();
  let root: unknown = doc;

  /** writable returns the container at path, copied (once) and re-linked so this call may mutate it. */
  function writable(path: string[]): Container {
    if (!isContainer(root)) throw new PatchError('the document is not a container');
    if (!fresh.has(root)) fresh.add((root = clone(root)));
    let node = root as Container;
    for (const token of path) {
      const child = get(node, token);
      if (!isContainer(child)) throw new PatchError(`no container at ${token}`);
      let next = child;
      if (!fresh.has(child)) fresh.add((next = clone(child)));
      setMember(node, token, next);
      node = next;
    }
    return node;
  }

  function get(node: Container, token: string): unknown {
    if (Array.isArray(node)) return node[arrayIndex(node, token, false)];
    if (!Object.hasOwn(node, token)) throw new PatchError(`no member ${JSON.stringify(token)}`);
    return node[token];
  }

  function setMember(node: Container, token: string, value: unknown): void {
    if (Array.isArray(node)) node[arrayIndex(node, token, false)] = value;
    else Object.defineProperty(node, token, { value, writable: true, enumerable: true, configurable: true });
  }

  function read(pointer: string): unknown {
    let node = root;
    for (const token of parsePointer(pointer)) {
      if (!isContainer(node)) throw new PatchError(`no value at ${pointer}`);
      node = get(node, token);
    }
    return node;
  }

  function add(pointer: string, value: unknown): void {
    const path = parsePointer(pointer);
    const last = path.pop();
    if (last === undefined) return void (root = value);
    const parent = writable(path);
    if (Array.isArray(parent)) parent.splice(arrayIndex(parent, last, true), 0, value);
    else setMember(parent, last, value);
  }

  function remove(pointer: string): unknown {
    const path = parsePointer(pointer);
    const last = path.pop();
    if (last === undefined) throw new PatchError('cannot remove the whole document');
    const parent = writable(path);
    const old = get(parent, last);
    if (Array.isArray(parent)) parent.splice(arrayIndex(parent, last, false), 1);
    else delete parent[last];
    return old;
  }

  function replace(pointer: string, value: unknown): void {
    const path = parsePointer(pointer);
    const last = path.pop();
    if (last === undefined) return void (root = value);
    const parent = writable(path);
    get(parent, last);
    setMember(parent, last, value);
  }

  for (const op of ops) {
    const from = 'from' in op ? op.from : '';
    if (`${op.path}/${from}/`.includes('/__proto__/')) throw new PatchError('__proto__ is not a valid path segment');
    switch (op.op) {
      case 'add':
        add(op.path, op.value);
        break;
      case 'remove':
        remove(op.path);
        break;
      case 'replace':
        replace(op.path, op.value);
        break;
      case 'move': {
        if (op.path.startsWith(op.from + '/')) throw new PatchError('cannot move a value into itself');
        add(op.path, remove(op.from));
        break;
      }
      case 'copy':
        add(op.path, structuredClone(read(op.from)));
        break;
      case 'test':
        if (!deepEqual(read(op.path), op.value)) throw new PatchError(`test failed at ${op.path}`);
        break;
      default:
        throw new PatchError(`unknown op ${JSON.stringify((op as { op: unknown }).op)}`);
    }
  }
  return root as D;
}
