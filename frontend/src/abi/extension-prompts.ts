// Extension prompts (HOST-ABI §6): setExtensionPrompt's registry. They live
// in the window, as in SillyTavern; every generate.start/run/dryRun from
// this window evaluates their filters and sends the list to the backend,
// which places them in the prompt.
import { HostError } from './errors';

/** One registered extension prompt, as getContext().extensionPrompts shows it. */
export interface ExtensionPromptEntry {
  readonly value: string;
  readonly position: number;
  readonly depth: number;
  readonly scan: boolean;
  readonly role: number;
  readonly filter: (() => boolean | Promise<boolean>) | null;
}

/** What the backend receives for each prompt that passed its filter. */
export interface ExtensionPromptWire {
  key: string;
  value: string;
  position: number;
  depth: number;
  scan: boolean;
  role: number;
}

export interface ExtensionPrompts {
  set(key: string, value: string, position: number, depth: number, scan?: boolean, role?: number, filter?: (() => boolean | Promise<boolean>) | null): void;
  /** view is a frozen snapshot, keyed like SillyTavern's extension_prompts. */
  view(): Readonly<Record<string, ExtensionPromptEntry>>;
  /** resolve evaluates the filters (a throwing filter skips its prompt) and returns the wire list. */
  resolve(): Promise<ExtensionPromptWire[]>;
  clear(): void;
}

function invalid(message: string): HostError {
  return new HostError('validation.invalid_argument', message);
}

/**
 * integer checks a number argument. A string of digits counts as its
 * number, as SillyTavern's setExtensionPrompt reads its arguments with
 * Number() (extensions pass an input's .val(), say).
 */
function integer(v: unknown, name: string, min: number, max: number): number {
  if (typeof v === 'string' && /^\s*-?\d+\s*$/.test(v)) v = Number(v);
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
    throw invalid(`${name} must be an integer from ${min} to ${max}, got ${String(v)}`);
  }
  return v;
}

/** createExtensionPrompts returns an empty registry. */
export function createExtensionPrompts(): ExtensionPrompts {
  const entries = new Map<string, ExtensionPromptEntry>();
  let snapshot: Readonly<Record<string, ExtensionPromptEntry>> | null = null;
  return {
    set(key, value, position, depth, scan = false, role = 0, filter = null) {
      if (typeof key !== 'string' || key === '') throw invalid('key must be a non-empty string');
      if (typeof value !== 'string') throw invalid('value must be a string');
      snapshot = null;
      if (value === '') {
        entries.delete(key);
        return;
      }
      const entry: ExtensionPromptEntry = Object.freeze({
        value,
        position: integer(position, 'position', -1, 2),
        depth: integer(depth ?? 0, 'depth', 0, 10000),
        scan: scan === true,
        role: integer(role ?? 0, 'role', 0, 2),
        filter: typeof filter === 'function' ? filter : null,
      });
      entries.set(key, entry);
    },
    view() {
      snapshot ??= Object.freeze(Object.fromEntries(entries));
      return snapshot;
    },
    async resolve() {
      const out: ExtensionPromptWire[] = [];
      for (const [key, e] of entries) {
        if (e.filter) {
          try {
            if (!(await e.filter())) continue;
          } catch (err) {
            console.warn(`Hearth: the filter of extension prompt "${key}" threw; the prompt is skipped`, err);
            continue;
          }
        }
        out.push({ key, value: e.value, position: e.position, depth: e.depth, scan: e.scan, role: e.role });
      }
      return out;
    },
    clear() {
      entries.clear();
      snapshot = null;
    },
  };
}
