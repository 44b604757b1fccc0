import { afterEach, describe, expect, it, vi } from 'vitest';
import { clearCommands, CommandLineError, commands, isCommandLine, parseLine, register, runLine, sourceOf } from './st-commands';

afterEach(() => clearCommands());

describe('slash command lines', () => {
  it('runs named, quoted and unnamed arguments, aliases, defaults and pipes', async () => {
    const seen: unknown[] = [];
    register({
      name: 'say',
      aliases: ['s'],
      namedArgumentList: [{ name: 'who', defaultValue: 'Wren' }, { name: 'mood', aliasList: ['m'] }],
      callback: (named, unnamed) => {
        seen.push([named, unnamed]);
        return `${String(named.who)}:${String(unnamed)}`;
      },
    });
    register({ name: 'upper', callback: (_n, u) => String(u).toUpperCase() });
    expect(isCommandLine('/say hi')).toBe(true);
    expect(isCommandLine('/me waves')).toBe(false);
    expect(isCommandLine('say hi')).toBe(false);

    const r = await runLine('/s who="Old Kai" m=calm hello there | /upper');
    expect(seen[0]).toEqual([{ who: 'Old Kai', mood: 'calm' }, 'hello there']);
    expect(r.pipe).toBe('OLD KAI:HELLO THERE');
    expect(r.isError).toBe(false);

    await runLine('/say a "quoted \\| bar" | /say [{{pipe}}]');
    expect(seen.at(-1)).toEqual([{ who: 'Wren' }, '[Wren:a "quoted | bar"]']);
  });

  it('splits the unnamed argument when the command asks, up to its count', async () => {
    let got: unknown;
    register({ name: 'pair', splitUnnamedArgument: true, splitUnnamedArgumentCount: 2, callback: (_n, u) => void (got = u) });
    await runLine('/pair "one two" three four');
    expect(got).toEqual(['one two', 'three four']);
  });

  it('refuses what it cannot run before running anything, in sentences', async () => {
    const cb = vi.fn(() => 'x');
    register({ name: 'ok', callback: cb });
    expect(() => parseLine('/ok | /nope')).toThrow(/Unknown command \/nope\. Hearth runs the commands its extensions add: \/ok/);
    expect(() => parseLine('/ok {: /ok :}')).toThrow(CommandLineError);
    expect(() => parseLine('/ok {: /ok :}')).toThrow(/closures/);
    expect(() => parseLine('hello')).toThrow(/Expected a command/);
    expect(() => parseLine('// just a comment')).toThrow(/no command/);
    expect(() => parseLine('/ok ' + 'x'.repeat(100_001))).toThrow(/longer than/);
    expect(() => parseLine(Array(102).fill('/ok').join('|'))).toThrow(/at most 100/);
    await expect(runLine('/ok | /nope')).rejects.toThrow(CommandLineError);
    expect(cb).not.toHaveBeenCalled();
    expect(parseLine('/ok "{: not a closure :}"')).toHaveLength(1);
  });

  it('keeps SillyTavern\'s registry rules: reserved names, a callback, aliases by name, the source extension', () => {
    expect(() => register({ name: ':x', callback: () => '' })).toThrow(/cannot begin with ":"/);
    expect(() => register({ name: 'x', aliases: ['#y'], callback: () => '' })).toThrow(/cannot begin with "#"/);
    expect(() => register({ name: 'x' } as never)).toThrow(/no callback/);
    expect(Object.keys(commands)).toEqual([]);
    register({ name: 'x', aliases: ['y'], callback: () => '' });
    expect(commands.y).toBe(commands.x);
    expect(sourceOf('at http://127.0.0.1:1/scripts/extensions/third-party/Extension-Objective/index.js:5:3')).toBe('Extension-Objective');
    expect(sourceOf('at http://127.0.0.1:1/assets/index.js')).toBeUndefined();
  });

  it('passes on what a command returns: text as is, nothing as empty, objects as JSON', async () => {
    register({ name: 'obj', callback: () => ({ a: 1 }) });
    register({ name: 'none', callback: () => undefined });
    register({ name: 'echo', callback: (_n, u) => u });
    expect((await runLine('/obj | /echo')).pipe).toBe('{"a":1}');
    expect((await runLine('/none')).pipe).toBe('');
  });
});
