// Slash commands page extensions add (SillyTavern's SlashCommandParser
// registry), and the part of STscript Hearth runs: SillyTavern extensions
// register commands while they load (Objective, Message Limit, LALib …) and
// some run command lines themselves (executeSlashCommandsWithOptions).
// Hearth has none of SillyTavern's own commands, so the registry starts
// empty, and a command line is:
//
//   /name key=value key="quoted value" the unnamed argument | /next …
//
// commands joined by `|`, each one's result passed on as the pipe: it is
// the next command's unnamed argument when that one has none, and
// {{pipe}} stands for it anywhere in the next command's arguments. Named
// arguments come first, as in SillyTavern. Closures ({: … :}), variables
// and SillyTavern's built-in commands are not there; a line using them is
// refused with a sentence before anything runs. The composer runs a line
// whose first command is registered (ChatView), so a message that merely
// starts with a slash is still sent as a message.
//
// This file holds no SillyTavern classes (st/slash.ts has them, loaded only
// with the compat runtime); the UI imports it to ask whether a line is a
// command.
import { writable, type Readable } from 'svelte/store';

/** A registered command, as SillyTavern's SlashCommand carries it. */
export interface StCommand {
  name: string;
  callback: (named: Record<string, unknown>, unnamed: unknown) => unknown;
  aliases?: string[];
  helpString?: string;
  namedArgumentList?: ReadonlyArray<{ name?: string; defaultValue?: unknown; aliasList?: string[] }>;
  unnamedArgumentList?: ReadonlyArray<{ defaultValue?: unknown }>;
  splitUnnamedArgument?: boolean;
  splitUnnamedArgumentCount?: number | undefined;
  /** source is the extension that registered it (its folder under third-party/). */
  source?: string | undefined;
}

/** MAX_LINE bounds a command line's length; MAX_COMMANDS its commands. */
export const MAX_LINE = 100_000;
export const MAX_COMMANDS = 100;

/** commands is SillyTavern's SlashCommandParser.commands: by name and by alias. */
export const commands: Record<string, StCommand> = {};

const count = writable(0);
/** commandCount is how many commands are registered (the composer shows a hint once there are some). */
export const commandCount: Readable<number> = { subscribe: count.subscribe };

const RESERVED = ['/', '#', ':', 'parser-flag', 'breakpoint'];

/** register adds a command under its name and aliases, as SlashCommandParser.addCommandObject does. */
export function register(command: StCommand): void {
  if (!command || typeof command.name !== 'string' || command.name.trim() === '') {
    throw new Error('A slash command needs a name.');
  }
  if (typeof command.callback !== 'function') throw new Error(`The slash command /${command.name} has no callback.`);
  const aliases = Array.isArray(command.aliases) ? command.aliases.map(String) : [];
  for (const n of [command.name, ...aliases]) {
    const start = RESERVED.find((r) => n.toLowerCase().startsWith(r));
    if (start) throw new Error(`Illegal Name. Slash command name cannot begin with "${start}".`);
  }
  if ([command.name, ...aliases].some((n) => Object.hasOwn(commands, n))) {
    console.warn('Hearth: a slash command was registered twice:', [command.name, ...aliases]);
  }
  command.source ??= sourceOf(new Error().stack ?? '');
  commands[command.name] = command;
  for (const a of aliases) commands[a] = command;
  count.set(new Set(Object.values(commands)).size);
}

/** sourceOf names the extension folder in a stack, as SillyTavern records a command's source. */
export function sourceOf(stack: string): string | undefined {
  const m = /\/scripts\/extensions\/third-party\/([^/]+)\//.exec(stack);
  return m ? decodeURIComponent(m[1]!) : undefined;
}

/** clearCommands empties the registry (tests). */
export function clearCommands(): void {
  for (const k of Object.keys(commands)) delete commands[k];
  count.set(0);
}

/** CommandLineError is a line Hearth cannot run: SillyTavern's SlashCommandParserError. */
export class CommandLineError extends Error {
  override name = 'SlashCommandParserError';
}

/** A parsed command: its name, named arguments and unnamed text (null when none). */
export interface ParsedCommand {
  name: string;
  named: Record<string, string>;
  unnamed: string | null;
}

/** splitTop splits at c outside double quotes, honouring backslash escapes. */
function splitTop(text: string, c: string): string[] {
  const parts: string[] = [];
  let quoted = false;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '\\') {
      i++;
      continue;
    }
    if (ch === '"') quoted = !quoted;
    else if (ch === c && !quoted) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

/** unquote reads "…" with \" and \\ escapes, or returns text as it is. */
function unquote(text: string): string {
  if (text.length >= 2 && text.startsWith('"') && text.endsWith('"')) {
    return text.slice(1, -1).replace(/\\(["\\|])/g, '$1');
  }
  return text.replace(/\\\|/g, '|');
}

const NAMED = /^([A-Za-z_][\w-]*)=("(?:[^"\\]|\\.)*"|\S*)/;

/** parseLine reads a command line; it throws CommandLineError for what Hearth does not run. */
export function parseLine(line: string): ParsedCommand[] {
  if (line.length > MAX_LINE) throw new CommandLineError(`The command line is longer than ${MAX_LINE} characters.`);
  const out: ParsedCommand[] = [];
  for (const raw of splitTop(line.trim(), '|')) {
    const part = raw.trim();
    if (part === '' || part.startsWith('//') || part.startsWith('/#')) continue;
    if (!part.startsWith('/')) throw new CommandLineError(`Expected a command (/name) at "${part.slice(0, 40)}".`);
    if (/\{:|:\}/.test(part.replace(/"(?:[^"\\]|\\.)*"/g, ''))) {
      throw new CommandLineError('Hearth runs single commands and pipes (/a | /b); closures ({: … :}) are not supported.');
    }
    const m = /^\/(\S+)/.exec(part)!;
    const name = m[1]!;
    let rest = part.slice(m[0].length).trimStart();
    const named: Record<string, string> = {};
    for (let a = NAMED.exec(rest); a; a = NAMED.exec(rest)) {
      named[a[1]!] = unquote(a[2]!);
      rest = rest.slice(a[0].length).trimStart();
    }
    out.push({ name, named, unnamed: rest === '' ? null : rest.replace(/\\\|/g, '|') });
    if (out.length > MAX_COMMANDS) throw new CommandLineError(`A command line runs at most ${MAX_COMMANDS} commands.`);
  }
  if (out.length === 0) throw new CommandLineError('The command line has no command.');
  for (const c of out) {
    if (!Object.hasOwn(commands, c.name)) {
      throw new CommandLineError(`Unknown command /${c.name}. Hearth runs the commands its extensions add${knownList()}.`);
    }
  }
  return out;
}

function knownList(): string {
  const names = [...new Set(Object.values(commands).map((c) => c.name))].sort();
  if (names.length === 0) return ' (none is installed)';
  const shown = names.slice(0, 12).map((n) => `/${n}`);
  return `: ${shown.join(', ')}${names.length > shown.length ? ', …' : ''}`;
}

/** splitArgs splits an unnamed argument at spaces outside quotes, into at most count parts. */
function splitArgs(text: string, count: number | undefined): string[] {
  const parts: string[] = [];
  const re = /"(?:[^"\\]|\\.)*"|\S+/g;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (count !== undefined && parts.length === count - 1) {
      parts.push(text.slice(m.index).trim());
      break;
    }
    parts.push(unquote(m[0]));
  }
  return parts;
}

/** SillyTavern's SlashCommandClosureResult, the shape executeSlashCommands resolves to. */
export interface CommandResult {
  interrupt: boolean;
  pipe: string;
  isBreak: boolean;
  isAborted: boolean;
  isQuietlyAborted: boolean;
  abortReason: string | null;
  isError: boolean;
  errorMessage: string | null;
}

export function emptyResult(): CommandResult {
  return { interrupt: false, pipe: '', isBreak: false, isAborted: false, isQuietlyAborted: false, abortReason: null, isError: false, errorMessage: null };
}

/** pipeText is what a callback's return passes on: text as it is, nothing as '', anything else as JSON. */
function pipeText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return String(value);
  }
}

/** runLine parses line and runs its commands in turn; parse errors throw before any runs. */
export async function runLine(line: string): Promise<CommandResult> {
  const parsed = parseLine(line);
  let pipe = '';
  for (const p of parsed) {
    const command = commands[p.name]!;
    const sub = (s: string) => s.replace(/\{\{pipe\}\}/gi, () => pipe);
    const named: Record<string, unknown> = {};
    for (const arg of command.namedArgumentList ?? []) {
      if (arg?.name && arg.defaultValue !== undefined && arg.defaultValue !== null) named[arg.name] = arg.defaultValue;
    }
    for (const [k, v] of Object.entries(p.named)) {
      const canonical = (command.namedArgumentList ?? []).find((a) => a?.aliasList?.includes(k))?.name ?? k;
      named[canonical] = sub(v);
    }
    let text = p.unnamed === null ? pipe : sub(p.unnamed);
    if (text === '') {
      const dflt = command.unnamedArgumentList?.[0]?.defaultValue;
      if (typeof dflt === 'string') text = dflt;
    }
    const unnamed: unknown = command.splitUnnamedArgument ? splitArgs(text, command.splitUnnamedArgumentCount) : text;
    pipe = pipeText(await command.callback(named, unnamed));
  }
  return { ...emptyResult(), pipe };
}

/** isCommandLine says whether the composer should run text: its first command is registered. */
export function isCommandLine(text: string): boolean {
  const m = /^\s*\/([^\s|]+)/.exec(text);
  return m !== null && Object.hasOwn(commands, m[1]!);
}
