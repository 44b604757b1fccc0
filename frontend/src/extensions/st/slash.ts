// SillyTavern's slash command classes for page extensions: what they build
// their commands with (SlashCommand.fromProps, SlashCommandArgument,
// SlashCommandNamedArgument, SlashCommandEnumValue, commonEnumProviders)
// and where they register them (SlashCommandParser.addCommandObject, the
// older registerSlashCommand). Registered commands land in Hearth's
// registry (../st-commands.ts), which the composer and
// executeSlashCommandsWithOptions run. Enum providers only feed
// SillyTavern's autocomplete, which Hearth does not have: the boolean one
// is here, the others (characters, worlds, …) throw ext.unsupported naming
// themselves if an extension calls one.
import { commands, CommandLineError, emptyResult, register, runLine, type CommandResult, type StCommand } from '../st-commands';
import { ST_DATA } from './st-compat.gen';
import { unsupportedError } from './unsupported';

const ENUMS = '/scripts/slash-commands/SlashCommandCommonEnumsProvider.js';
const ARGUMENT_TYPE = ST_DATA['/scripts/slash-commands/SlashCommandArgument.js']!.ARGUMENT_TYPE as Record<string, string>;
const enumIcons = ST_DATA[ENUMS]!.enumIcons as Record<string, string>;

export class SlashCommandEnumValue {
  value: string;
  description: string | null;
  type: string;
  typeIcon: string;
  matchProvider: ((input: string) => boolean) | null;
  valueProvider: ((input: string) => string) | null;
  makeSelectable: boolean;

  constructor(
    value: string,
    description: string | null = null,
    type = 'enum',
    typeIcon = '◊',
    matchProvider: ((input: string) => boolean) | null = null,
    valueProvider: ((input: string) => string) | null = null,
    makeSelectable = false,
  ) {
    this.value = value;
    this.description = description;
    this.type = type ?? 'enum';
    this.typeIcon = typeIcon;
    this.matchProvider = matchProvider;
    this.valueProvider = valueProvider;
    this.makeSelectable = makeSelectable;
  }

  toString(): string {
    return this.value;
  }
}

type Provider = (...args: unknown[]) => SlashCommandEnumValue[];

function booleanProvider(mode: unknown = 'trueFalse'): Provider {
  const v = (value: string, icon: string | undefined) => new SlashCommandEnumValue(value, null, 'macro', icon ?? '◊');
  switch (mode) {
    case 'onOff':
      return () => [v('on', enumIcons.true), v('off', enumIcons.false)];
    case 'onOffToggle':
      return () => [v('on', enumIcons.true), v('off', enumIcons.false), v('toggle', enumIcons.boolean)];
    case 'trueFalse':
      return () => [v('true', enumIcons.true), v('false', enumIcons.false)];
    default:
      throw new Error(`Invalid boolean enum provider mode: ${String(mode)}`);
  }
}

/**
 * commonEnumProviders: boolean as in SillyTavern; every other member makes
 * a provider that throws ext.unsupported when asked for values.
 */
export const commonEnumProviders: Record<string, (...args: unknown[]) => Provider> = new Proxy(
  { boolean: booleanProvider } as Record<string, (...args: unknown[]) => Provider>,
  {
    get(target, key) {
      if (typeof key !== 'string' || Object.hasOwn(target, key)) return Reflect.get(target, key);
      return () => () => {
        throw unsupportedError(`commonEnumProviders.${key}`, ENUMS);
      };
    },
  },
);

function toEnums(list: unknown): SlashCommandEnumValue[] {
  const items = list === undefined || list === null ? [] : Array.isArray(list) ? list : [list];
  return items.map((it) => (it instanceof SlashCommandEnumValue ? it : new SlashCommandEnumValue(String(it))));
}

export class SlashCommandArgument {
  static fromProps(props: Record<string, unknown>): SlashCommandArgument {
    return new SlashCommandArgument(
      props.description as string,
      (props.typeList as string[]) ?? [ARGUMENT_TYPE.STRING],
      (props.isRequired as boolean) ?? false,
      (props.acceptsMultiple as boolean) ?? false,
      props.defaultValue ?? null,
      props.enumList ?? [],
      (props.enumProvider as Provider) ?? null,
      (props.forceEnum as boolean) ?? false,
    );
  }

  description: string;
  typeList: string[];
  isRequired: boolean;
  acceptsMultiple: boolean;
  defaultValue: unknown;
  enumList: SlashCommandEnumValue[];
  enumProvider: Provider | null;
  forceEnum: boolean;

  constructor(
    description: string,
    types: string | string[],
    isRequired = false,
    acceptsMultiple = false,
    defaultValue: unknown = null,
    enums: unknown = [],
    enumProvider: Provider | null = null,
    forceEnum = false,
  ) {
    this.description = description;
    this.typeList = types ? (Array.isArray(types) ? types : [types]) : [];
    this.isRequired = isRequired ?? false;
    this.acceptsMultiple = acceptsMultiple ?? false;
    this.defaultValue = defaultValue;
    this.enumList = toEnums(enums);
    this.enumProvider = enumProvider;
    this.forceEnum = forceEnum;
    if (!this.enumList.length && this.typeList.length === 1 && this.typeList[0] === ARGUMENT_TYPE.BOOLEAN) {
      this.enumList = booleanProvider()();
    }
  }
}

export class SlashCommandNamedArgument extends SlashCommandArgument {
  static override fromProps(props: Record<string, unknown>): SlashCommandNamedArgument {
    return new SlashCommandNamedArgument(
      props.name as string,
      props.description as string,
      (props.typeList as string[]) ?? [ARGUMENT_TYPE.STRING],
      (props.isRequired as boolean) ?? false,
      (props.acceptsMultiple as boolean) ?? false,
      props.defaultValue ?? null,
      props.enumList ?? [],
      (props.aliasList as string[]) ?? [],
      (props.enumProvider as Provider) ?? null,
      (props.forceEnum as boolean) ?? false,
    );
  }

  name: string;
  aliasList: string[];

  constructor(
    name: string,
    description: string,
    types: string | string[],
    isRequired = false,
    acceptsMultiple = false,
    defaultValue: unknown = null,
    enums: unknown = [],
    aliases: string | string[] = [],
    enumProvider: Provider | null = null,
    forceEnum = false,
  ) {
    super(description, types, isRequired, acceptsMultiple, defaultValue, enums, enumProvider, forceEnum);
    this.name = name;
    this.aliasList = aliases ? (Array.isArray(aliases) ? aliases : [aliases]) : [];
  }
}

export class SlashCommand implements StCommand {
  static fromProps(props: Record<string, unknown>): SlashCommand {
    return Object.assign(new this(), props);
  }

  name = '';
  callback: StCommand['callback'] = () => '';
  helpString = '';
  splitUnnamedArgument = false;
  splitUnnamedArgumentCount: number | undefined;
  aliases: string[] = [];
  returns: string | undefined;
  namedArgumentList: SlashCommandNamedArgument[] = [];
  unnamedArgumentList: SlashCommandArgument[] = [];
  isExtension = true;
  isThirdParty = true;
  source: string | undefined;
}

const PARSER = '/scripts/slash-commands/SlashCommandParser.js';

export class SlashCommandParser {
  static commands = commands;

  /** SillyTavern's deprecated form (registerSlashCommand is this). */
  static addCommand(command: string, callback: StCommand['callback'], aliases?: string[], helpString = ''): void {
    SlashCommandParser.addCommandObject(SlashCommand.fromProps({ name: command, callback, aliases: aliases ?? [], helpString }));
  }

  static addCommandObject(command: StCommand): void {
    register(command);
  }

  static addCommandObjectUnsafe(command: StCommand): void {
    register(command);
  }

  parse(): never {
    throw unsupportedError('SlashCommandParser.parse', PARSER);
  }
}

export const registerSlashCommand = SlashCommandParser.addCommand.bind(SlashCommandParser);

export interface ExecuteOptions {
  handleParserErrors?: boolean;
  handleExecutionErrors?: boolean;
}

/**
 * executeSlashCommandsWithOptions runs a command line (../st-commands.ts
 * says which): parse errors become an error toast and an empty result
 * unless handleParserErrors is false; a command that throws rejects unless
 * handleExecutionErrors, which turns it into a toast and isError.
 */
export function createExecutor(toastError: (message: string, title: string) => void) {
  async function executeSlashCommandsWithOptions(text: unknown, options: ExecuteOptions = {}): Promise<CommandResult | null> {
    if (!text) return null;
    const o = { handleParserErrors: true, handleExecutionErrors: false, ...options };
    try {
      return await runLine(String(text));
    } catch (err) {
      if (err instanceof CommandLineError) {
        if (!o.handleParserErrors) throw err;
        toastError(err.message, 'SlashCommandParserError');
        return emptyResult();
      }
      if (!o.handleExecutionErrors) throw err;
      const message = err instanceof Error ? err.message : String(err);
      toastError(message, 'SlashCommandExecutionError');
      return { ...emptyResult(), isError: true, errorMessage: message };
    }
  }
  function executeSlashCommands(text: unknown, handleParserErrors = true, _scope: unknown = null, handleExecutionErrors = false): Promise<CommandResult | null> {
    return executeSlashCommandsWithOptions(text, { handleParserErrors, handleExecutionErrors });
  }
  return { executeSlashCommandsWithOptions, executeSlashCommands };
}
