// What Hearth gives for each backed SillyTavern export (stcompat.Backed),
// mapped onto window.__HEARTH__: static values (functions, constants) per
// module, and the live ones (the modules' `let` exports) recomputed by
// live() whenever the window's chat, characters or settings move. A test
// holds this file to the generated table: every backed name has a value
// here and nothing else does, so the compatibility report and what runs
// agree.
import DOMPurify from 'dompurify';
import { loadLodash } from './lazy-libs.cjs';
import type { HearthAbi, HearthContext } from '../../abi/types';
import type { StLocale } from './i18n';
import type { ExtensionSettings } from './settings';
import { EventEmitter } from './event-emitter';
import { createWorkingMetadata } from './metadata';
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
import { ST_DATA, ST_EVENT_TYPES } from './st-compat.gen';
import {
  escapeHtml,
  escapeRegex,
  getStringHash,
  isFalseBoolean,
  isTrueBoolean,
  onlyUnique,
  regexFromString,
  stringFormat,
  waitUntilCondition,
} from './utils';
import { compileTemplate, type CompiledTemplate } from './template';
import { POPUP_RESULT, POPUP_TYPE, Popup, callGenericPopup, callPopup } from './popup';

export interface BackingDeps {
  hearth: Pick<HearthAbi, 'getContext' | 'api'>;
  settings: ExtensionSettings;
  /** locale is the window's translations (/scripts/i18n.js; templates are translated with it). */
  locale: StLocale;
  /** fetchText reads a package file (a template); fetch by default. */
  fetchText?: ((url: string) => Promise<string>) | undefined;
  /** toastError shows a command line's error (executeSlashCommands' toasts); console by default. */
  toastError?: ((message: string, title: string) => void) | undefined;
}

/** deepFreeze freezes SillyTavern's constant data, so one extension cannot change another's. */
function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

/** dataValues are the ST_DATA tables, by module, as module values. */
function dataValues(): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const [path, names] of Object.entries(ST_DATA)) {
    out[path] = {};
    for (const [name, value] of Object.entries(names)) out[path][name] = deepFreeze(structuredClone(value));
  }
  return out;
}

/** SillyTavern's extension_prompt_types and extension_prompt_roles. */
export const extension_prompt_types = Object.freeze({ NONE: -1, IN_PROMPT: 0, IN_CHAT: 1, BEFORE_PROMPT: 2 });
export const extension_prompt_roles = Object.freeze({ SYSTEM: 0, USER: 1, ASSISTANT: 2 });

/** debounce is SillyTavern's utils.debounce: the last call's arguments, timeout ms after the last call. */
export function debounce<A extends unknown[]>(fn: (...args: A) => unknown, timeout = 300): (...args: A) => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return (...args: A) => {
    clearTimeout(timer);
    timer = setTimeout(() => void fn(...args), timeout);
  };
}

export const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export function uuidv4(): string {
  return crypto.randomUUID();
}

/**
 * substituteParams replaces SillyTavern's name macros — {{user}}, {{char}},
 * <USER>, <BOT>, <CHAR>, {{group}} (the character, with no group chats
 * yet), {{newline}} — and the caller's dynamicMacros, case-insensitively.
 * Other macros stay as written: the prompt's macros are evaluated by the
 * backend when it assembles a prompt, not in the window. Both of
 * SillyTavern's signatures are taken: (content, name1, name2) and
 * (content, { name1Override, name2Override, dynamicMacros }).
 */
export function substituteParams(ctx: Pick<HearthContext, 'name1' | 'name2'>, content: unknown, a?: unknown, b?: unknown): string {
  if (content === null || content === undefined || content === '') return '';
  const text = String(content);
  const options = a && typeof a === 'object' && !Array.isArray(a) ? (a as Record<string, unknown>) : null;
  const user = String((options ? options.name1Override : a) ?? ctx.name1);
  const char = String((options ? options.name2Override : b) ?? ctx.name2);
  const dynamic = (options?.dynamicMacros ?? {}) as Record<string, unknown>;
  const macros: Record<string, () => string> = { user: () => user, char: () => char, group: () => char, newline: () => '\n' };
  for (const [k, v] of Object.entries(dynamic)) macros[k.toLowerCase()] = () => String(typeof v === 'function' ? v() : v);
  return text
    .replace(/\{\{([a-z0-9_]+)\}\}/gi, (m, name: string) => macros[name.toLowerCase()]?.() ?? m)
    .replace(/<USER>/gi, user)
    .replace(/<(BOT|CHAR)>/gi, char);
}

/** templateUrl is where SillyTavern's renderExtensionTemplate reads from (extensionName is usually 'third-party/<id>'). */
export function templateUrl(extensionName: string, templateId: string): string {
  const parts = `${extensionName}/${templateId}.html`.split('/').filter((p) => p !== '' && p !== '.');
  if (parts.some((p) => p === '..')) throw new Error(`template path ${extensionName}/${templateId} leaves the extensions folder`);
  return `/scripts/extensions/${parts.map(encodeURIComponent).join('/')}`;
}

/** render applies a compiled template, then SillyTavern's sanitizing and translating (its data-i18n elements), in its order. */
function render(t: CompiledTemplate, data: unknown, sanitize: boolean, locale: StLocale | null): string {
  let html = t(data ?? {});
  if (sanitize) html = DOMPurify.sanitize(html);
  return locale ? String(locale.applyLocale(html)) : html;
}

/** POWER_USER_DEFAULTS are the power_user fields page extensions commonly read, at SillyTavern's defaults. */
const POWER_USER_DEFAULTS = {
  auto_fix_generated_markdown: true,
  chat_display: 0,
  custom_stopping_strings: '',
  custom_stopping_strings_macro: true,
  disable_group_trimming: false,
  encode_tags: false,
  forbid_external_media: true,
  instruct: { enabled: false },
  context: { story_string: '' },
  persona_description: '',
  personas: {},
  prefer_character_prompt: true,
  prefer_character_jailbreak: true,
  sysprompt: { enabled: false },
  token_padding: 64,
  user_prompt_bias: '',
};

export interface Backing {
  /** values are each module's backed static exports. */
  values: Record<string, Record<string, unknown>>;
  /** live are each module's backed `let` exports now. */
  live(): Record<string, Record<string, unknown>>;
  /** setSending moves is_send_press: a generation started or ended (the runtime follows the events). */
  setSending(on: boolean): void;
  /** setGroupGenerating moves is_group_generating: a group turn started or finished (GROUP_WRAPPER_STARTED/FINISHED). */
  setGroupGenerating(on: boolean): void;
}

export function createBacking(deps: BackingDeps): Backing {
  const { hearth, settings, locale } = deps;
  let sending = false;
  let groupGenerating = false;
  const ctx = () => hearth.getContext();
  const fetchText =
    deps.fetchText ??
    (async (url: string) => {
      const res = await fetch(url, { credentials: 'same-origin' });
      if (!res.ok) throw new Error(`${url}: ${res.status} ${res.statusText}`);
      return res.text();
    });
  const templates = new Map<string, Promise<CompiledTemplate>>();
  const power_user = structuredClone(POWER_USER_DEFAULTS);
  let worldInfo: Record<string, unknown> = { globalSelect: [] };
  void hearth.api.worldinfo
    .getSettings()
    .then((s) => (worldInfo = s))
    .catch(() => undefined);

  async function renderExtensionTemplateAsync(extensionName: string, templateId: string, data?: unknown, sanitize = true, localize = true): Promise<string> {
    const url = templateUrl(extensionName, templateId);
    let t = templates.get(url);
    if (!t) {
      t = fetchText(url).then(compileTemplate);
      templates.set(url, t);
      t.catch(() => templates.delete(url));
    }
    return render(await t, data, sanitize, localize ? locale : null);
  }

  /** renderExtensionTemplate is the synchronous form SillyTavern still exports: a synchronous request, as there. */
  function renderExtensionTemplate(extensionName: string, templateId: string, data?: unknown, sanitize = true, localize = true): string {
    const xhr = new XMLHttpRequest();
    xhr.open('GET', templateUrl(extensionName, templateId), false);
    xhr.send();
    if (xhr.status !== 200 && xhr.status !== 203) throw new Error(`${extensionName}/${templateId}.html: ${xhr.status}`);
    return render(compileTemplate(xhr.responseText), data, sanitize, localize ? locale : null);
  }

  async function writeExtensionField(characterId: number | string, key: string, value: unknown): Promise<void> {
    const c = ctx().characters[Number(characterId)];
    if (!c) throw new Error(`no character at index ${String(characterId)}`);
    await hearth.api.characters.update(c.avatar, { extensions: { ...(c.extensions ?? {}), [key]: value } });
  }

  async function loadWorldInfo(name: string): Promise<unknown> {
    if (!name) return null;
    try {
      return await hearth.api.worldinfo.get(name);
    } catch (err) {
      if ((err as { code?: string }).code === 'worldinfo.not_found') return null;
      throw err;
    }
  }

  const executor = createExecutor(deps.toastError ?? ((message, title) => console.error(`Hearth: ${title}: ${message}`)));
  const data = dataValues();
  const metadata = createWorkingMetadata({
    committed: () => ctx().chat_metadata,
    chatKey: () => ctx().getCurrentChatId(),
    save: (changes) => ctx().saveChatMetadata(changes),
  });
  const saveMetadata = () => metadata.save();
  const saveChat = async () => {
    await metadata.save();
    await ctx().saveChat();
  };

  return {
    values: {
      '/script.js': {
        callPopup,
        eventSource: ctx().eventSource,
        // SillyTavern's whole table, so `'X' in event_types` holds for its
        // events Hearth never sends too (a chat-completion app never
        // combines a text-completion prompt, say); Hearth's strings win.
        event_types: Object.freeze({ ...ST_EVENT_TYPES, ...ctx().event_types }),
        extension_prompt_roles,
        extension_prompt_types,
        generateQuietPrompt: (...args: unknown[]) => (ctx().generateQuietPrompt as (...a: unknown[]) => unknown)(...args),
        getCurrentChatId: () => ctx().getCurrentChatId(),
        getRequestHeaders: () => ({ 'Content-Type': 'application/json' }),
        reloadCurrentChat: () => ctx().reloadCurrentChat(),
        saveChat,
        saveChatConditional: saveChat,
        saveChatDebounced: debounce(saveChat, 1000),
        saveMetadata,
        saveSettingsDebounced: () => settings.saveDebounced(),
        sendSystemMessage: (type: string, text?: string, extra?: Record<string, unknown>) => ctx().sendSystemMessage(type, text, extra),
        setExtensionPrompt: (...args: unknown[]) => (ctx().setExtensionPrompt as (...a: unknown[]) => unknown)(...args),
        stopGeneration: () => ctx().stopGeneration(),
        substituteParams: (content: unknown, a?: unknown, b?: unknown) => substituteParams(ctx(), content, a, b),
      },
      '/scripts/extensions.js': {
        extension_settings: settings.object,
        getContext: () => hearth.getContext(),
        renderExtensionTemplate,
        renderExtensionTemplateAsync,
        saveMetadataDebounced: debounce(saveMetadata, 1000),
        writeExtensionField,
      },
      '/scripts/group-chats.js': { ...data['/scripts/group-chats.js'] },
      '/scripts/power-user.js': { power_user, ...data['/scripts/power-user.js'] },
      '/scripts/world-info.js': {
        ...data['/scripts/world-info.js'],
        loadWorldInfo,
        saveWorldInfo: (name: string, data: unknown) => hearth.api.worldinfo.save(name, data as never),
      },
      '/scripts/utils.js': {
        debounce,
        delay,
        escapeHtml,
        escapeRegex,
        getStringHash,
        isFalseBoolean,
        isTrueBoolean,
        onlyUnique,
        regexFromString,
        stringFormat,
        uuidv4,
        waitUntilCondition,
      },
      '/scripts/popup.js': { POPUP_RESULT, POPUP_TYPE, Popup, callGenericPopup },
      '/scripts/i18n.js': {
        addLocaleData: locale.addLocaleData,
        applyLocale: locale.applyLocale,
        getCurrentLocale: locale.getCurrentLocale,
        t: locale.t,
        translate: locale.translate,
      },
      '/lib.js': { DOMPurify, get lodash() { return loadLodash(); } },
      '/lib/eventemitter.js': { EventEmitter },
      '/scripts/slash-commands.js': { ...executor, registerSlashCommand },
      '/scripts/slash-commands/SlashCommand.js': { SlashCommand },
      '/scripts/slash-commands/SlashCommandArgument.js': {
        ...data['/scripts/slash-commands/SlashCommandArgument.js'],
        SlashCommandArgument,
        SlashCommandNamedArgument,
      },
      '/scripts/slash-commands/SlashCommandCommonEnumsProvider.js': {
        ...data['/scripts/slash-commands/SlashCommandCommonEnumsProvider.js'],
        commonEnumProviders,
      },
      '/scripts/slash-commands/SlashCommandEnumValue.js': { ...data['/scripts/slash-commands/SlashCommandEnumValue.js'], SlashCommandEnumValue },
      '/scripts/slash-commands/SlashCommandParser.js': { ...data['/scripts/slash-commands/SlashCommandParser.js'], SlashCommandParser },
    },
    live() {
      const c = ctx();
      return {
        '/script.js': {
          characters: c.characters,
          chat: c.chat,
          chat_metadata: c.getCurrentChatId() === undefined ? c.chat_metadata : metadata.current(),
          is_send_press: sending,
          main_api: 'openai',
          name1: c.name1,
          name2: c.name2,
          online_status: c.online_status,
          this_chid: c.characterId,
        },
        '/scripts/group-chats.js': { groups: c.groups, is_group_generating: groupGenerating, selected_group: c.selected_group },
        '/scripts/world-info.js': { world_info: worldInfo },
      };
    },
    setSending(on) {
      sending = on;
    },
    setGroupGenerating(on) {
      groupGenerating = on;
    },
  };
}
