import { afterEach, describe, expect, it, vi } from 'vitest';
import { clearCommands, commands } from '../st-commands';
import {
  commonEnumProviders,
  createExecutor,
  registerSlashCommand,
  SlashCommand,
  SlashCommandArgument,
  SlashCommandEnumValue,
  SlashCommandNamedArgument,
  SlashCommandParser,
} from './slash';

afterEach(() => clearCommands());

describe("SillyTavern's slash command classes", () => {
  it('registers a command built the way extensions build them, and runs it', async () => {
    const state = { enabled: false };
    SlashCommandParser.addCommandObject(
      SlashCommand.fromProps({
        name: 'ml-state',
        returns: 'boolean',
        namedArgumentList: [SlashCommandNamedArgument.fromProps({ name: 'quiet', description: 'q', typeList: ['bool'], defaultValue: 'false' })],
        unnamedArgumentList: [
          SlashCommandArgument.fromProps({ description: 'state', typeList: 'string', isRequired: true, enumProvider: commonEnumProviders.boolean!('onOffToggle') }),
        ],
        callback: (_named: unknown, s: unknown) => {
          if (s === 'toggle') state.enabled = !state.enabled;
          return String(state.enabled);
        },
      }),
    );
    const cmd = commands['ml-state'] as SlashCommand;
    expect(cmd).toBeInstanceOf(SlashCommand);
    expect(cmd.unnamedArgumentList[0]!.enumProvider!().map(String)).toEqual(['on', 'off', 'toggle']);
    expect(cmd.namedArgumentList[0]!.enumList.map(String)).toEqual(['true', 'false']);
    const { executeSlashCommandsWithOptions } = createExecutor(() => {});
    expect((await executeSlashCommandsWithOptions('/ml-state toggle'))?.pipe).toBe('true');
    expect(state.enabled).toBe(true);
  });

  it('takes the old registerSlashCommand and turns errors into toasts when asked', async () => {
    const toast = vi.fn();
    const { executeSlashCommands, executeSlashCommandsWithOptions } = createExecutor(toast);
    registerSlashCommand('boom', () => {
      throw new Error('it broke');
    }, ['b'], 'help');
    expect(commands.b).toBe(commands.boom);
    await expect(executeSlashCommands('/boom')).rejects.toThrow('it broke');
    const r = await executeSlashCommandsWithOptions('/boom', { handleExecutionErrors: true });
    expect(r).toMatchObject({ isError: true, errorMessage: 'it broke' });
    expect(toast).toHaveBeenLastCalledWith('it broke', 'SlashCommandExecutionError');
    const p = await executeSlashCommands('/missing');
    expect(p?.pipe).toBe('');
    expect(toast).toHaveBeenLastCalledWith(expect.stringContaining('Unknown command /missing'), 'SlashCommandParserError');
    await expect(executeSlashCommandsWithOptions('/missing', { handleParserErrors: false })).rejects.toThrow(/Unknown command/);
    expect(await executeSlashCommands('')).toBeNull();
  });

  it('has enum providers Hearth cannot fill throw ext.unsupported only when asked for values', () => {
    const provider = commonEnumProviders.characters!('character');
    expect(() => provider()).toThrow(expect.objectContaining({ code: 'ext.unsupported', details: expect.objectContaining({ name: 'commonEnumProviders.characters' }) }));
    expect(() => commonEnumProviders.boolean!('nope')).toThrow(/Invalid boolean enum provider mode/);
    expect(String(new SlashCommandEnumValue('x', 'd'))).toBe('x');
    expect(() => new SlashCommandParser().parse()).toThrow(expect.objectContaining({ code: 'ext.unsupported' }));
  });
});
