// A bounded check of a frame's call arguments before any of them reaches
// the page's api: structured clone hands the window whatever the frame
// built (cycles, Maps, a million-deep nest), and the api functions expect
// JSON values. The walk stops at the first bound it crosses, so its cost is
// bounded by the limits, not by the input.
import { LIMITS } from './protocol';

/** Bounds of checkArgs; LIMITS by default, smaller in tests. */
export interface ArgBounds {
  depth: number;
  values: number;
  jsonChars: number;
}

/**
 * checkArgs returns null when args is an array of JSON values (plain
 * objects, arrays, strings, finite or not numbers, booleans, null,
 * undefined) and Blobs (chat.uploadMedia), within bounds; else why not,
 * in words a developer can act on.
 */
export function checkArgs(args: unknown, bounds: ArgBounds = LIMITS): string | null {
  if (!Array.isArray(args)) return 'args is not an array';
  let values = 0;
  let chars = 0;

  function walk(v: unknown, depth: number): string | null {
    if (++values > bounds.values) return `the arguments hold more than ${bounds.values} values`;
    if (depth > bounds.depth) return `the arguments nest deeper than ${bounds.depth} levels`;
    switch (typeof v) {
      case 'string':
        chars += v.length + 2;
        break;
      case 'number':
        chars += 8;
        break;
      case 'boolean':
        chars += 5;
        break;
      case 'undefined':
        chars += 4;
        break;
      case 'object': {
        if (v === null) {
          chars += 4;
          break;
        }
        if (typeof Blob !== 'undefined' && v instanceof Blob) {
          chars += v.size;
          break;
        }
        if (Array.isArray(v)) {
          chars += 2;
          for (let i = 0; i < v.length; i++) {
            const why = walk(v[i], depth + 1);
            if (why) return why;
            chars += 1;
          }
          break;
        }
        const proto = Object.getPrototypeOf(v) as unknown;
        if (proto !== Object.prototype && proto !== null) return `the arguments hold a ${describe(v)}, which is not a JSON value`;
        chars += 2;
        for (const key of Object.keys(v)) {
          chars += key.length + 4;
          const why = walk((v as Record<string, unknown>)[key], depth + 1);
          if (why) return why;
        }
        break;
      }
      default:
        return `the arguments hold a ${typeof v}, which is not a JSON value`;
    }
    if (chars > bounds.jsonChars) return `the arguments are larger than ${bounds.jsonChars} characters of JSON`;
    return null;
  }

  return walk(args, 1);
}

function describe(v: object): string {
  const name = (v as { constructor?: { name?: unknown } }).constructor?.name;
  return typeof name === 'string' && name !== '' ? name : 'non-plain object';
}
