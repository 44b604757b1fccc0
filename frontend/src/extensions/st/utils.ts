// Helpers of SillyTavern's scripts/utils.js that page extensions import,
// written for Hearth with the same results (an extension compares what
// they give with what it stored under SillyTavern: getStringHash must hash
// as SillyTavern does).
import { escapeHtml as escapeText } from '../../lib/html';

const TRUE_WORDS = new Set(['on', 'true', '1']);
const FALSE_WORDS = new Set(['off', 'false', '0']);

function word(arg: unknown): string | undefined {
  return typeof arg === 'string' ? arg.trim().toLowerCase() : undefined;
}

/** isTrueBoolean: "on", "true" or "1", any case and spacing. */
export function isTrueBoolean(arg: unknown): boolean {
  const w = word(arg);
  return w !== undefined && TRUE_WORDS.has(w);
}

/** isFalseBoolean: "off", "false" or "0". */
export function isFalseBoolean(arg: unknown): boolean {
  const w = word(arg);
  return w !== undefined && FALSE_WORDS.has(w);
}

/** escapeHtml, as SillyTavern's, takes anything and escapes its string form (null and undefined as ''). */
export function escapeHtml(text: unknown): string {
  return escapeText(String(text ?? ''));
}

/** escapeRegex escapes what a RegExp would read as syntax, slashes and dashes included. */
export function escapeRegex(text: string): string {
  return text.replace(/[-/\\^$*+?.()|[\]{}]/g, (c) => `\\${c}`);
}

/** onlyUnique is a filter callback keeping each value's first place. */
export function onlyUnique(value: unknown, index: number, array: readonly unknown[]): boolean {
  return array.indexOf(value) === index;
}

/** getStringHash is the 53-bit cyrb53 hash SillyTavern keys things by; 0 for a non-string. */
export function getStringHash(text: unknown, seed = 0): number {
  if (typeof text !== 'string') return 0;
  let a = 0xdeadbeef ^ seed;
  let b = 0x41c6ce57 ^ seed;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 2654435761);
    b = Math.imul(b ^ c, 1597334677);
  }
  a = Math.imul(a ^ (a >>> 16), 2246822507) ^ Math.imul(b ^ (b >>> 13), 3266489909);
  b = Math.imul(b ^ (b >>> 16), 2246822507) ^ Math.imul(a ^ (a >>> 13), 3266489909);
  return 4294967296 * (2097151 & b) + (a >>> 0);
}

/**
 * waitUntilCondition polls condition every interval ms and resolves once
 * it holds; after timeout ms it rejects (or resolves, with
 * rejectOnTimeout: false) with a "Timed out" error.
 */
export function waitUntilCondition(condition: () => unknown, timeout = 1000, interval = 100, options: { rejectOnTimeout?: boolean } = {}): Promise<void> {
  const rejectOnTimeout = options.rejectOnTimeout ?? true;
  return new Promise((resolve, reject) => {
    const poll = setInterval(() => {
      if (condition()) {
        clearTimeout(limit);
        clearInterval(poll);
        resolve();
      }
    }, interval);
    const limit = setTimeout(() => {
      clearInterval(poll);
      const err = new Error('Timed out waiting for condition to be true');
      if (rejectOnTimeout) reject(err);
      else resolve();
    }, timeout);
  });
}

/** regexFromString reads "/body/flags" (or a bare pattern) as a RegExp; undefined when it is not one. */
export function regexFromString(input: string): RegExp | undefined {
  try {
    const m = /(\/?)(.+)\1([a-z]*)/i.exec(input);
    if (!m) return undefined;
    const flags = m[3] ?? '';
    if (flags && !/^(?!.*?(.).*?\1)[gmixXsuUAJ]+$/.test(flags)) return new RegExp(input);
    return new RegExp(m[2]!, flags);
  } catch {
    return undefined;
  }
}

/** stringFormat fills {0}, {1}, … with the arguments; a missing one stays as written. */
export function stringFormat(format: string, ...args: unknown[]): string {
  return format.replace(/{(\d+)}/g, (m, n: string) => (args[Number(n)] !== undefined ? String(args[Number(n)]) : m));
}
