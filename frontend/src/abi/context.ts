// getContext(): the SillyTavern/Luker facade over this window's current
// chat (HOST-ABI §9). It reads the chat cache and writes through the host;
// a write resolves only once the cache shows it (persist → cache → events),
// so `await ctx.addMessages(m); ctx.chat` already holds the new message.
import { asDetails } from './chat-load';
import { createContextLifecycle } from './context-lifecycle';
import type { ContextGenerate } from './context-generate';
import { createContextState } from './context-state';
import type { CharactersCache } from './characters-cache';
import type { GroupsCache } from './groups-cache';
import type { ChatCache, Committed } from './chat-cache';
import type { Generations } from './generations';
import { HostError } from './errors';
import type { Call } from './host';
import { ensureMessageMediaIsArray, getMediaDisplay, getMediaIndex } from './media';
import { appendMediaToMessage, scrollChatToBottom, scrollOnMediaLoad } from './media-dom';
import { definePageMembers } from './page-extras';
import { readonlyView } from './readonly';
import type { EventSource, Group, HearthContext, MessageUpdate, StMessage } from './types';

/** How long a write waits for its events before the cache re-fetches instead. */
export const SETTLE_MS = 2000;

/** ContextDeps are what getContext() reads and writes through. */
export interface ContextDeps {
  call: Call;
  cache: ChatCache;
  characters: CharactersCache;
  /** groups backs `groups`; absent, the list is empty. */
  groups?: Pick<GroupsCache, 'list'>;
  eventSource: EventSource;
  types: () => Readonly<Record<string, string>>;
  /** name1 is the persona name ("User" until personas exist). */
  userName?: () => string;
  settleMs?: number;
  /** generation and generations back the generation half of the context. */
  generation: ContextGenerate;
  generations: Generations;
}

const EMPTY_CHAT: readonly StMessage[] = Object.freeze([]);
const NO_GROUPS: readonly Group[] = Object.freeze([]);
const EMPTY_METADATA: Readonly<Record<string, unknown>> = Object.freeze({});

type Options = { silent?: unknown; swipe?: unknown } | undefined;

/** createContext returns the one frozen context object getContext() hands out. */
export function createContext(deps: ContextDeps): HearthContext {
  const { characters } = deps;
  const settleMs = deps.settleMs ?? SETTLE_MS;
  // Calls are counted for saveChat(); the cache hides a chat cleared by clearChat({ clearData: true }).
  const life = createContextLifecycle({ ...deps, settleMs });
  const { call, cache } = life;
  const userName = deps.userName ?? (() => 'User');

  function open(): Committed {
    const c = cache.committed();
    if (!c) throw new HostError('chat.not_found', 'no chat is open in this window; open one with api.chat.select(chatId)');
    return c;
  }

  /**
   * settle waits until the cache reflects chatId at least at revision (or,
   * unknown, at the chat's revision now). Silent writes send no events, so
   * the cache re-fetches at once.
   */
  async function settle(chatId: string, silent: boolean, revision?: number): Promise<void> {
    let target = revision;
    if (target === undefined) {
      try {
        target = asDetails(await call('chat.get', chatId)).revision;
      } catch {
        return; // the chat is gone; CHAT_DELETED closes it
      }
    }
    await cache.waitFor(chatId, target, silent ? 0 : settleMs);
  }

  /** writeOptions forwards only what the host understands (not scroll/rerender). */
  function writeOptions(o: Options, withSwipe: boolean): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    if (o?.silent !== undefined) out.silent = o.silent;
    if (withSwipe && o?.swipe !== undefined) out.swipe = o.swipe;
    return out;
  }

  function currentCharacter(c: Committed | null): { index: number; name: string } | null {
    const avatar = c?.details.avatar;
    if (!avatar) return null;
    const list = characters.list();
    const index = list.findIndex((ch) => ch.avatar === avatar);
    return index < 0 ? null : { index, name: list[index]!.name };
  }

  const ctx: HearthContext = {
    get chat() {
      return cache.committed()?.messages ?? EMPTY_CHAT;
    },
    get characters() {
      return characters.list();
    },
    get groups() {
      return deps.groups?.list() ?? NO_GROUPS;
    },
    get groupId() {
      return cache.committed()?.details.groupId ?? null;
    },
    get selected_group() {
      return cache.committed()?.details.groupId ?? null;
    },
    get name1() {
      return userName();
    },
    get name2() {
      return currentCharacter(cache.committed())?.name ?? '';
    },
    get characterId() {
      return currentCharacter(cache.committed())?.index;
    },
    get chat_metadata() {
      return cache.committed()?.details.metadata ?? EMPTY_METADATA;
    },
    get chatMetadata() {
      return cache.committed()?.details.metadata ?? EMPTY_METADATA;
    },
    async addMessages(messages: Partial<StMessage> | Partial<StMessage>[], options?: { silent?: boolean }) {
      const { chatId } = open();
      const out = (await call('chat.addMessages', chatId, messages, writeOptions(options, false))) as number | number[];
      await settle(chatId, options?.silent === true);
      return out;
    },
    async updateMessages(updates: MessageUpdate | MessageUpdate[], options?: { silent?: boolean }) {
      const { chatId } = open();
      await call('chat.updateMessages', chatId, updates, writeOptions(options, false));
      await settle(chatId, options?.silent === true);
    },
    async deleteMessages(index: number | number[], options?: { swipe?: number; silent?: boolean }) {
      const { chatId } = open();
      const out = (await call('chat.deleteMessages', chatId, index, writeOptions(options, true))) as StMessage | StMessage[];
      await settle(chatId, options?.silent === true);
      return out;
    },
    getMessage(index: number) {
      const m = cache.message(index);
      return m ? readonlyView(m, 'getContext().updateMessages()') : null;
    },
    getMessageCount() {
      return cache.committed()?.messages.length ?? 0;
    },
    async saveChatMetadata(withMetadata?: Record<string, unknown>) {
      const { chatId } = open();
      const { revision } = (await call('chat.saveMetadata', chatId, withMetadata)) as { revision: number };
      await settle(chatId, false, revision);
      return true;
    },
    getCurrentChatId() {
      return cache.committed()?.details.fileName;
    },
    /** chatId is SillyTavern's getContext().chatId: getCurrentChatId() as a property. */
    get chatId() {
      return cache.committed()?.details.fileName;
    },
    generate: deps.generation.generate,
    generateQuietPrompt: deps.generation.generateQuietPrompt,
    stopGeneration: deps.generation.stopGeneration,
    setExtensionPrompt: deps.generation.setExtensionPrompt,
    get extensionPrompts() {
      return deps.generation.extensionPrompts;
    },
    swipe: deps.generation.swipe,
    ensureMessageMediaIsArray,
    getMediaDisplay,
    getMediaIndex,
    appendMediaToMessage,
    scrollChatToBottom,
    scrollOnMediaLoad,
    get online_status() {
      return deps.generations.onlineStatus();
    },
    get maxContext() {
      return deps.generations.maxContext();
    },
    ...createContextState(call, () => cache.current()?.chatId ?? null),
    ...life.methods,
    async clearChat(options?: { clearData?: boolean }) {
      await life.methods.clearChat(options);
      // SillyTavern resets extension prompts with the chat's data.
      if (options?.clearData === true) deps.generation.clearExtensionPrompts();
    },
    eventSource: deps.eventSource,
    get eventTypes() {
      return deps.types();
    },
    get event_types() {
      return deps.types();
    },
  } as HearthContext;
  return Object.freeze(definePageMembers(life.attach(ctx)));
}
