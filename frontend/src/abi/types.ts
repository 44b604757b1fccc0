// The public shape of window.__HEARTH__ (HOST-ABI.md, abiVersion 1).
// Hearth's own UI, extensions and console scripts all see exactly this;
// nothing else in the page is public. The generation, agent, library,
// persona, group and World Info types live in types-<namespace>.ts,
// re-exported here.

import type { AgentApi } from './types-agent';
import type { ExtensionPromptView, GenerateApi, GenerationType, SwipeApi } from './types-generate';
import type { LibraryApi } from './types-library';
import type { ExtensionsApi } from './types-extensions';
import type { Group, GroupsApi } from './types-groups';
import type { PersonasApi } from './types-personas';
import type { WorldInfoApi } from './types-worldinfo';
import type { EventPayloadByType } from './event-registry.gen';

export type * from './types-agent';
export type * from './types-generate';
export type * from './types-library';
export type * from './types-extensions';
export type * from './types-groups';
export type * from './types-personas';
export type * from './types-worldinfo';
export type * from './event-registry.gen';

/** A SillyTavern chat message, lossless: unknown keys survive round-trips. */
export interface StMessage {
  /** Hearth's stable message id (read-only). */
  readonly id: string;
  name: string;
  is_user: boolean;
  is_system: boolean;
  mes: string;
  swipe_id: number;
  swipes: string[];
  swipe_info: SwipeInfo[];
  extra: Record<string, unknown>;
  send_date?: string;
  force_avatar?: string;
  title?: string;
  gen_started?: string | null;
  gen_finished?: string | null;
  [key: string]: unknown;
}

export interface SwipeInfo {
  send_date?: string;
  gen_started?: string | null;
  gen_finished?: string | null;
  extra?: Record<string, unknown>;
  [key: string]: unknown;
}

/** The id-based (Lumiverse Spindle) message view. */
export interface ChatMessage {
  id: string;
  role: 'system' | 'user' | 'assistant';
  content: string;
  name: string;
  extra: Record<string, unknown>;
  metadata?: Record<string, unknown>;
  swipe_id: number;
  swipes: string[];
  /** Unix epoch seconds, aligned with swipes. */
  swipe_dates: number[];
}

export interface ChatSummary {
  chatId: string;
  fileName: string;
  file_name: string;
  file_id: string;
  file_size: string;
  bytes: number;
  mes: string;
  last_mes: number;
  messageCount: number;
  revision: number;
  kind: 'main' | 'checkpoint' | 'branch';
  parentChatId: string | null;
  branchPoint: number | null;
  avatar: string | null;
  groupId: string | null;
  createdAt: number;
}

export type ChatDetails = ChatSummary & { metadata: Record<string, unknown> };

export type ChatOwner = { avatar: string } | { groupId: string };
export type ChatRef = { chatId: string } | { avatar: string; fileName: string } | { groupId: string; fileName: string };
export type MessageRange = { start?: number; end?: number } | { tail: number } | { before: number; limit: number };

export interface WriteOptions {
  silent?: boolean;
  ifRevision?: number;
}

export interface CharacterSummary {
  avatar: string;
  name: string;
  tags: string[];
  createdAt: number;
  lastChatAt: number | null;
  chatCount: number;
  /** Whether avatarUrl(avatar) serves an image (else show an initial). */
  hasImage: boolean;
}

/** A character card: the V2 `data` fields flattened, plus avatar and times. */
export interface Character {
  avatar: string;
  name: string;
  description: string;
  personality: string;
  scenario: string;
  first_mes: string;
  mes_example: string;
  creator_notes: string;
  system_prompt: string;
  post_history_instructions: string;
  alternate_greetings: string[];
  tags: string[];
  creator: string;
  character_version: string;
  extensions: Record<string, unknown>;
  createdAt: number;
  updatedAt: number;
  hasImage: boolean;
  [key: string]: unknown;
}

/** chat.uploadMedia's answer: an extra.media[] (image, video, audio) or extra.files[] (file) entry. */
export interface MediaRef {
  url: string;
  type: 'image' | 'video' | 'audio' | 'file';
  mime: string;
  size: number;
  name: string;
}

export interface ChatApi {
  /** uploadMedia stores an attachment (≤ 32 MB; the bytes decide its type) and resolves its reference. */
  uploadMedia(file: Blob | { fileName?: string; base64: string }): Promise<MediaRef>;
  list(owner: ChatOwner): Promise<ChatSummary[]>;
  create(owner: ChatOwner, options?: { fileName?: string }): Promise<ChatSummary>;
  get(chatId: string): Promise<ChatDetails>;
  resolve(ref: ChatRef): Promise<string>;
  rename(chatId: string, newFileName: string): Promise<ChatSummary>;
  delete(chatId: string): Promise<void>;
  /**
   * Makes chatId this window's current chat (null closes it). The tail is
   * loaded and shown first, the rest in pages; the promise resolves, and
   * CHAT_CHANGED fires, once the whole chat is in getContext().chat.
   * A newer select() replaces one still loading (which rejects with
   * chat.select_superseded). With { automatic: true } it is a choice the
   * window makes on its own (restoring the last chat): it never replaces a
   * chat chosen by an explicit select() and rejects with
   * chat.select_superseded (details.reason 'explicit') instead.
   */
  select(chatId: string | null, options?: { automatic?: boolean }): Promise<void>;
  /** sync: this window's current chat. */
  current(): { chatId: string; avatar: string | null; groupId: string | null } | null;
  /**
   * sync: the part of the current chat loaded so far, for progressive
   * rendering while select() is still filling it: messages[i] is the message
   * at whole-chat index start + i. After select() resolves, start is 0 and
   * messages is the whole chat. Changes are announced by CHAT_LOAD_PROGRESS
   * while loading and by the usual message events afterwards.
   */
  loaded(): { chatId: string; start: number; total: number; revision: number; messages: readonly Readonly<StMessage>[] } | null;

  getMessages(chatId: string, range?: MessageRange): Promise<ChatMessage[]>;
  getStMessages(chatId: string, range?: MessageRange): Promise<StMessage[]>;
  count(chatId: string): Promise<number>;

  addMessages(chatId: string, msg: Partial<StMessage>, options?: WriteOptions): Promise<number>;
  addMessages(chatId: string, msgs: Partial<StMessage>[], options?: WriteOptions): Promise<number[]>;
  updateMessages(chatId: string, updates: MessageUpdate | MessageUpdate[], options?: WriteOptions): Promise<void>;
  deleteMessages(chatId: string, index: number, options?: WriteOptions & { swipe?: number }): Promise<StMessage>;
  deleteMessages(chatId: string, indexes: number[], options?: WriteOptions): Promise<StMessage[]>;
  patch(chatId: string, ops: JsonPatchOp[], options?: { ifRevision?: number }): Promise<{ revision: number }>;

  appendMessage(chatId: string, message: { role: ChatMessage['role']; content: string; metadata?: Record<string, unknown>; name?: string; extra?: Record<string, unknown> }, options?: WriteOptions): Promise<{ id: string; index: number }>;
  updateMessage(chatId: string, messageId: string, patch: SpindlePatch): Promise<void>;
  deleteMessage(chatId: string, messageId: string): Promise<void>;
  setMessageHidden(chatId: string, messageId: string, hidden: boolean): Promise<void>;
  setMessagesHidden(chatId: string, messageIds: string[], hidden: boolean): Promise<void>;
  isMessageHidden(chatId: string, messageId: string): Promise<boolean>;

  swipe(chatId: string, index: number, target: { to: number } | { direction: 'left' | 'right' }, options?: WriteOptions): Promise<{ swipeId: number }>;
  addSwipe(chatId: string, index: number, content: string, options?: WriteOptions & { select?: boolean }): Promise<{ swipeId: number }>;
  deleteSwipe(chatId: string, index: number, swipeId: number, options?: WriteOptions): Promise<{ swipeId: number }>;
  getMetadata(chatId: string): Promise<Record<string, unknown>>;
  saveMetadata(chatId: string, withMetadata?: Record<string, unknown>, options?: WriteOptions): Promise<{ revision: number }>;

  /**
   * undo reverts the chat's newest write not undone yet, as a new write
   * (shared by every window of the chat); redo re-applies the write undone
   * last, until an ordinary write empties the redo stack.
   */
  undo(chatId: string, options?: { ifRevision?: number }): Promise<UndoStep>;
  redo(chatId: string, options?: { ifRevision?: number }): Promise<UndoStep>;
  /**
   * undoStatus says what the next undo and redo would act on (null:
   * nothing), without changing anything: for a UI's Undo and Redo.
   */
  undoStatus(chatId: string): Promise<UndoStatus>;

  createCheckpoint(chatId: string, index: number, options?: { name?: string }): Promise<ChatSummary>;
  createBranch(chatId: string, index: number, options?: BranchOptions): Promise<ChatSummary>;
  tree(chatId: string): Promise<ChatTree>;

  /** The chat as a SillyTavern JSONL file: a header line, then one message per line (without Hearth's ids). */
  exportJsonl(chatId: string): Promise<JsonlFile>;
  /** Stores a SillyTavern JSONL file as a new chat (fileName: ".jsonl" stripped; a taken name is chat.name_taken). */
  importJsonl(owner: ChatOwner, file: { fileName?: string; text: string }): Promise<ChatSummary>;
  /**
   * Desktop window only: exports the chat and writes it where the person
   * picks in the system's Save dialog. saved is false when they cancel.
   * Elsewhere the host has no such method (host.unknown_method).
   */
  saveJsonl(chatId: string): Promise<{ saved: boolean; path: string | null }>;

  /**
   * Full-text search of one chat's active message texts, or of every chat
   * when chatId is null: a literal, case-insensitive substring in any script
   * (CJK too, from one character). Hidden messages (extra.hidden) only with
   * includeHidden; start/end bound message indexes (end exclusive) and need
   * a chatId. Best first; see docs/API.md "Search".
   */
  search(chatId: string | null, query: string, options?: SearchOptions): Promise<SearchHit[]>;
}

/** api.chat.search options: limit 1–200 (default 20); unknown keys are refused. */
export interface SearchOptions {
  limit?: number;
  role?: 'user' | 'assistant' | 'system';
  start?: number;
  end?: number;
  includeHidden?: boolean;
}

/**
 * One message found: its current index and id, role, a plain-text snippet
 * around the first match (about 100 characters, … where cut) and a score
 * (higher is better, comparable within one search). A search of every chat
 * also names the hit's chat.
 */
export interface SearchHit {
  index: number;
  id: string;
  role: 'user' | 'assistant' | 'system';
  snippet: string;
  score: number;
  chatId?: string;
  fileName?: string;
  avatar?: string;
  groupId?: string;
}

/** A chat file: its name (with ".jsonl") and its text. */
export interface JsonlFile {
  fileName: string;
  text: string;
}

/** The ordinary write an undo or redo would act on: its revision and method ('deleteMessages', …). */
export interface UndoTarget {
  revision: number;
  method: string;
}

/** What api.chat.undoStatus returns: the chat's revision and what the next undo and redo would act on. */
export interface UndoStatus {
  revision: number;
  undo: UndoTarget | null;
  redo: UndoTarget | null;
}

/** What api.chat.undo and api.chat.redo return: the chat revision after the step, the revision of the write it reverted or re-applied, and that write's method ('updateMessages', …). */
export interface UndoStep {
  revision: number;
  undoneRevision?: number;
  redoneRevision?: number;
  method: string;
}

/** createBranch's options: the swipe message index switches to, and whether this window opens the branch. */
export interface BranchOptions {
  swipeId?: number;
  open?: boolean;
  isolateLorebook?: boolean;
}

/** A chat with the checkpoints and branches made from it (api.chat.tree). */
export interface ChatTree {
  chat: ChatSummary;
  children: ChatTree[];
}

export interface MessageUpdate {
  index: number;
  patch: Partial<StMessage>;
}

export interface SpindlePatch {
  content?: string;
  metadata?: Record<string, unknown>;
  swipes?: string[];
  swipe_id?: number;
  swipe_dates?: number[];
  reasoning?: { text?: string | null; duration?: number | null };
  skipChunkRebuild?: boolean;
}

export type JsonPatchOp =
  | { op: 'add' | 'replace' | 'test'; path: string; value: unknown }
  | { op: 'remove'; path: string }
  | { op: 'move' | 'copy'; from: string; path: string };

export interface CharactersApi {
  list(): Promise<CharacterSummary[]>;
  get(avatar: string): Promise<Character>;
  create(fields: Partial<Character> & { name: string }, options?: { image?: string }): Promise<Character>;
  update(avatar: string, patch: Partial<Character> & { image?: string }): Promise<Character>;
  delete(avatar: string, options?: { deleteChats?: boolean }): Promise<void>;
  /**
   * Reads a card file (PNG with ccv3/chara chunks, JSON V1/V2/V3, CHARX) and stores it as a new
   * character. Rejects with card.invalid (details.reason) for a file that is no readable card.
   */
  importCard(file: { fileName: string; base64: string }): Promise<Character & { importWarnings: string[] }>;
  /** Writes the card as a PNG carrying chara (V2) and ccv3 (V3) chunks, or as JSON. */
  exportCard(avatar: string, options?: { format?: 'png' | 'json' }): Promise<{ fileName: string; base64: string }>;
  /** Desktop window only: the card file written where the person picks in the system's Save dialog. */
  saveCard(avatar: string, options?: { format?: 'png' | 'json' }): Promise<{ saved: boolean; path: string | null }>;
  /** sync: a URL the page can use as <img src> for the avatar image. */
  avatarUrl(avatar: string): string;
}

/** A model connection (HOST-ABI §6). The API key is never returned: apiKeySet says whether one is stored. */
export interface Connection {
  id: string;
  name: string;
  provider: 'openai-compatible' | 'anthropic' | 'google';
  baseUrl: string;
  model: string;
  headers: Record<string, string>;
  apiKeySet: boolean;
  createdAt: number;
  updatedAt: number;
}

/**
 * connections.save's argument: without id it creates, with one it updates
 * the fields given. apiKey: left out or null keeps the key, '' removes it.
 * A stored key is bound to the server (scheme, host, port) and provider it
 * was entered for: a save that changes either drops it unless the same save
 * gives an apiKey (the answer's apiKeySet says which).
 */
export interface ConnectionInput {
  id?: string;
  name?: string;
  provider?: Connection['provider'];
  baseUrl?: string;
  model?: string;
  apiKey?: string | null;
  headers?: Record<string, string>;
}

/** connections.test's answer: ok, or the model.* error that says why not. */
export interface ConnectionTest {
  ok: boolean;
  /** How many models the server listed, when it lists them. */
  models?: number;
  error?: { code: string; message: string; details?: Record<string, unknown> };
}

/**
 * connections.probe's answer: the models a server lists for settings not
 * saved yet (models is [] when not ok), or the model.* error that says why not.
 */
export interface ConnectionProbe {
  ok: boolean;
  models: string[];
  error?: { code: string; message: string; details?: Record<string, unknown> };
}

export interface ConnectionsApi {
  save(connection: ConnectionInput): Promise<Connection>;
  list(): Promise<Connection[]>;
  get(id: string): Promise<Connection>;
  delete(id: string): Promise<void>;
  /** select makes a connection the active one (null: none) and resolves it. */
  select(id: string | null): Promise<Connection | null>;
  active(): Promise<Connection | null>;
  test(id: string): Promise<ConnectionTest>;
  models(id: string): Promise<string[]>;
  /**
   * probe lists the models of a server before its connection is saved: settings as save reads
   * them (with an id, the stored fields fill in the rest; a stored key goes only to the server
   * and provider it was entered for). Nothing is stored.
   */
  probe(settings: ConnectionInput): Promise<ConnectionProbe>;
}

/** A preset's sampler settings (HOST-ABI §6); null leaves a sampler to the provider. */
export interface Sampling {
  temperature: number | null;
  topP: number | null;
  topK: number | null;
  minP: number | null;
  frequencyPenalty: number | null;
  presencePenalty: number | null;
  repetitionPenalty: number | null;
  /** The reply budget in tokens; 0 is the provider's default. */
  maxTokens: number;
  stop: string[];
  seed: number | null;
  reasoningEffort: '' | 'low' | 'medium' | 'high';
}

/** One prompt-order item: a built-in slot (marker) or a prompt with its own text. */
export interface PresetItem {
  /** A built-in slot ('main', 'chatHistory', 'charDescription'…) or any unique string. */
  identifier: string;
  name: string;
  enabled: boolean;
  role: '' | 'system' | 'user' | 'assistant';
  content: string;
  /** The text comes from the card, persona, chat or world info. */
  marker: boolean;
  /** Placed inside the chat history at depth (0: after the last message) instead of at its place. */
  inChat: boolean;
  depth: number;
}

/** A generation preset: samplers, context size, reply budget and prompt order. */
export interface Preset {
  id: string;
  name: string;
  sampling: Sampling;
  /** The model's context size in tokens; prompt plus reply must fit. */
  maxContext: number;
  prompts: PresetItem[];
  mergeConsecutive: boolean;
  namesInHistory: boolean;
  continuePrefill: boolean;
  continueNudge: string;
  impersonationPrompt: string;
  newChatPrompt: string;
  exampleSeparator: string;
  /** groupNudge ends a group member's history ('[Write the next reply only as {{char}}.]'); the host always sends it. */
  groupNudge?: string;
  /** newGroupChatPrompt starts the history in a group chat instead of newChatPrompt; the host always sends it. */
  newGroupChatPrompt?: string;
}

/** One row of presets.list ('default', the built-in, comes first). */
export interface PresetSummary {
  id: string;
  name: string;
  builtin: boolean;
  active: boolean;
  createdAt: number;
  updatedAt: number;
}

/**
 * presets.save's argument: without id it creates, with one it replaces the
 * preset whole. Fields left out take the default preset's values (samplers
 * left out: the provider's default; prompts left out: the default order).
 */
export type PresetInput = Partial<Omit<Preset, 'sampling' | 'prompts'>> & {
  name: string;
  sampling?: Partial<Sampling>;
  prompts?: (Partial<PresetItem> & { identifier: string })[];
};

/** presets.import's answer: the stored preset and what of the file was not kept as it was. */
export interface PresetImportResult {
  preset: Preset;
  warnings: string[];
}

/** presets.export's answer: a SillyTavern chat-completion preset to save as fileName. */
export interface PresetExport {
  fileName: string;
  json: Record<string, unknown>;
}

export interface PresetsApi {
  list(): Promise<PresetSummary[]>;
  get(id: string): Promise<Preset>;
  save(preset: PresetInput): Promise<Preset>;
  delete(id: string): Promise<void>;
  /** import stores a SillyTavern preset file (its text, or the parsed object) as a new preset. */
  import(file: { fileName?: string; json: string | Record<string, unknown> }): Promise<PresetImportResult>;
  export(id: string): Promise<PresetExport>;
  /** Desktop window only: the preset file written where the person picks in the system's Save dialog. */
  saveFile(id: string): Promise<{ saved: boolean; path: string | null }>;
  /** select makes a preset the active one (null: the built-in default) and resolves it. */
  select(id: string | null): Promise<Preset>;
  /** active resolves the active preset ('default' when none was chosen). */
  active(): Promise<Preset>;
}

/** A chat-state namespace's value with its revision. */
export interface StateEntry {
  value: unknown;
  revision: number;
}

/** What updateChatState resolves: ok, or why not (reason 'conflict' after the retries). */
export interface UpdateResult {
  ok: boolean;
  value?: unknown;
  reason?: string;
}

/** Options pinning a floor-state commit to a floor (message index) and swipe. */
export interface FloorTarget {
  floor?: number;
  swipeId?: number;
}

/** A floor state (HOST-ABI §4.2): reducer writes that follow swipes, deletes and branches. */
export interface FloorStateInstance {
  readonly namespace: string;
  update(reducer: (current: Record<string, unknown>) => unknown, options?: FloorTarget): Promise<boolean>;
  patch(operations: JsonPatchOp[], options?: FloorTarget): Promise<boolean>;
  get(): Promise<unknown>;
  ready(): Promise<void>;
  destroy(): void;
}

export interface StateApi {
  getChatState(chatId: string, namespace: string): Promise<StateEntry | null>;
  getChatStateBatch(chatId: string, namespaces: string[]): Promise<Record<string, StateEntry | null>>;
  setChatState(chatId: string, namespace: string, value: unknown, options?: { ifRevision?: number }): Promise<{ ok: true; revision: number }>;
  deleteChatState(chatId: string, namespace: string, options?: { ifRevision?: number }): Promise<{ ok: boolean }>;
  updateChatState(chatId: string, namespace: string, updater: (current: unknown) => unknown, options?: { maxRetries?: number }): Promise<UpdateResult>;
  createFloorState(options: { namespace: string; chatId?: string }): FloorStateInstance;
  getCharacterState(avatar: string, namespace: string): Promise<unknown>;
  setCharacterState(avatar: string, namespace: string, data: unknown): Promise<void>;
}

/** A structured event payload: chatId and revision whenever a chat is involved. */
export type EventPayload = Record<string, unknown> & { chatId?: string; revision?: number };
export type Unsubscribe = () => void;

/**
 * api.events. A backend event's type as a literal (T.MESSAGE_SENT,
 * 'message_sent') types its handler's payload from the registry
 * (event-registry.gen.ts); any other string gets the structured EventPayload.
 */
export interface EventsApi {
  on<K extends keyof EventPayloadByType>(type: K, handler: (payload: EventPayloadByType[K]) => void): Unsubscribe;
  on(type: string, handler: (payload: EventPayload) => void): Unsubscribe;
  once<K extends keyof EventPayloadByType>(type: K, handler: (payload: EventPayloadByType[K]) => void): Unsubscribe;
  once(type: string, handler: (payload: EventPayload) => void): Unsubscribe;
  off<K extends keyof EventPayloadByType>(type: K, handler: (payload: EventPayloadByType[K]) => void): void;
  off(type: string, handler: (payload: EventPayload) => void): void;
  /** sync: SillyTavern-style constant names → event type strings. */
  readonly types: Readonly<Record<string, string>>;
}

export interface Capabilities {
  abiVersion: 1;
  namespaces: Record<string, number>;
  /** Every host method name ("chat.addMessages"). */
  methods: string[];
  features: string[];
  /** The backend's event constants (names → values), as in api.events.types. */
  eventTypes: Record<string, string>;
  /** The SillyTavern version the page tier's compat modules follow; a manifest's minimum_client_version is compared with it. */
  stCompat: string;
}

export interface HearthAbi {
  readonly abiVersion: 1;
  readonly ready: Promise<void>;
  capabilities(): Capabilities;
  readonly api: {
    readonly chat: ChatApi;
    readonly characters: CharactersApi;
    readonly groups: GroupsApi;
    readonly state: StateApi;
    readonly connections: ConnectionsApi;
    readonly personas: PersonasApi;
    readonly presets: PresetsApi;
    readonly worldinfo: WorldInfoApi;
    readonly library: LibraryApi;
    readonly extensions: ExtensionsApi;
    readonly generate: GenerateApi;
    readonly agent: AgentApi;
    readonly events: EventsApi;
  };
  getContext(): HearthContext;
}

/** SillyTavern's event emitter semantics: listeners awaited in turn. */
export interface EventSource {
  on(event: string, listener: (...args: unknown[]) => unknown): void;
  once(event: string, listener: (...args: unknown[]) => unknown): void;
  off(event: string, listener: (...args: unknown[]) => unknown): void;
  removeListener(event: string, listener: (...args: unknown[]) => unknown): void;
  makeFirst(event: string, listener: (...args: unknown[]) => unknown): void;
  makeLast(event: string, listener: (...args: unknown[]) => unknown): void;
  emit(event: string, ...args: unknown[]): Promise<void>;
  /** SillyTavern's synchronous emit: calls listeners in turn without awaiting them. */
  emitAndWait(event: string, ...args: unknown[]): void;
}

/** Which chat a context state call is about: a chatId, or any ChatRef; default the current chat. */
export type ChatTarget = string | ChatRef;

/** getContext(): the SillyTavern/Luker facade over this window's current chat. */
export interface HearthContext {
  readonly chat: readonly Readonly<StMessage>[];
  readonly characters: readonly Readonly<Character>[];
  /** Every group (SillyTavern's `groups`), kept fresh from GROUP_* events. */
  readonly groups: readonly Readonly<Group>[];
  /** The open chat's group id, null for a character's chat or no chat; selected_group is SillyTavern's name for it. */
  readonly groupId: string | null;
  readonly selected_group: string | null;
  readonly name1: string;
  readonly name2: string;
  readonly characterId: number | undefined;
  readonly chat_metadata: Readonly<Record<string, unknown>>;
  readonly chatMetadata: Readonly<Record<string, unknown>>;
  addMessages(messages: Partial<StMessage> | Partial<StMessage>[], options?: { scroll?: boolean; silent?: boolean }): Promise<number | number[]>;
  updateMessages(updates: MessageUpdate | MessageUpdate[], options?: { rerender?: boolean; silent?: boolean }): Promise<void>;
  deleteMessages(index: number | number[], options?: { swipe?: number; silent?: boolean }): Promise<StMessage | StMessage[]>;
  getMessage(index: number): Readonly<StMessage> | null;
  getMessageCount(): number;
  saveChatMetadata(withMetadata?: Record<string, unknown>): Promise<boolean>;
  getCurrentChatId(): string | undefined;
  /** chatId is SillyTavern's name for getCurrentChatId(): the open chat's file name, undefined when none. */
  readonly chatId: string | undefined;
  getChatState(namespace: string, options?: { target?: ChatTarget }): Promise<unknown>;
  getChatStateBatch(namespaces: string[], options?: { target?: ChatTarget }): Promise<Record<string, unknown>>;
  updateChatState(namespace: string, updater: (current: unknown) => unknown, options?: { target?: ChatTarget; maxRetries?: number }): Promise<UpdateResult>;
  deleteChatState(namespace: string, options?: { target?: ChatTarget }): Promise<UpdateResult>;
  createFloorState(options: { namespace: string; chatId?: string }): FloorStateInstance;
  getCharacterState(avatar: string, namespace: string): Promise<unknown>;
  setCharacterState(avatar: string, namespace: string, data: unknown): Promise<void>;
  /** Chat lifecycle (context-lifecycle.ts): SillyTavern/Luker signatures; file names without ".jsonl" (tolerated). */
  reloadCurrentChat(): Promise<void>;
  renameChat(oldFileName: string, newName: string): Promise<void>;
  openCharacterChat(fileName: string): Promise<void>;
  closeCurrentChat(): Promise<boolean>;
  doNewChat(options?: { deleteCurrentChat?: boolean }): Promise<void>;
  getPastCharacterChats(characterId?: number | string | null): Promise<ChatSummary[]>;
  deleteCharacterChat(characterId: number | string, fileName: string): Promise<void>;
  saveChat(): Promise<void>;
  printMessages(options?: { clear?: boolean }): Promise<void>;
  clearChat(options?: { clearData?: boolean }): Promise<void>;
  sendSystemMessage(type: string, text?: string, extra?: Record<string, unknown>): Promise<void>;
  /** @deprecated use addMessages() */
  addOneMessage(mes: Partial<StMessage>, options?: Record<string, unknown>): Promise<void>;
  /** @deprecated use deleteMessages(chat.length - 1) */
  deleteLastMessage(): Promise<void>;
  /** @deprecated use deleteMessages() */
  deleteMessage(id: number, swipeDeletionIndex?: number | null, askConfirmation?: boolean): Promise<void>;
  /** @deprecated use updateMessages() */
  updateMessageBlock(messageId: number, message: Partial<StMessage>, options?: Record<string, unknown>): Promise<void>;
  /** @deprecated use updateMessages() / deleteMessages(); paths point into the chat array ("/3/mes") */
  patchChatMessages(operations: JsonPatchOp[]): Promise<boolean>;
  /** @deprecated use addMessages() */
  appendChatMessages(messages: Partial<StMessage>[]): Promise<boolean>;
  /** Generation (context-generate.ts): SillyTavern's Generate; resolves the result (the text for quiet/impersonate). */
  generate(type?: GenerationType | string, options?: { quiet_prompt?: string; quietPrompt?: string }, dryRun?: boolean): Promise<unknown>;
  generateQuietPrompt(prompt: string | { quietPrompt?: string }): Promise<string>;
  stopGeneration(): Promise<boolean>;
  setExtensionPrompt(key: string, value: string, position: number, depth: number, scan?: boolean, role?: number, filter?: (() => boolean | Promise<boolean>) | null): void;
  readonly extensionPrompts: Readonly<Record<string, ExtensionPromptView>>;
  readonly swipe: SwipeApi;
  /** Media helpers (SillyTavern's): legacy single attachments into arrays, in place; display mode; gallery index. */
  ensureMessageMediaIsArray(message: { extra?: Record<string, unknown> }): void;
  getMediaDisplay(message: { extra?: Record<string, unknown> }): string;
  getMediaIndex(message: { extra?: Record<string, unknown> }): number;
  /** Draws a message's attachments into an element (or $(element)); with scrollBehavior, then scrolls the chat to its end. */
  appendMediaToMessage(message: { extra?: Record<string, unknown> }, element: unknown, scrollBehavior?: string): void;
  scrollChatToBottom(): void;
  /** Waits for the chat's images, video and audio to load (at most 3 s), then scrolls to the end. */
  scrollOnMediaLoad(): Promise<void>;
  /** The active connection's model, or 'no_connection'. */
  readonly online_status: string;
  /** The active preset's context size in tokens. */
  readonly maxContext: number;
  readonly eventSource: EventSource;
  readonly eventTypes: Readonly<Record<string, string>>;
  readonly event_types: Readonly<Record<string, string>>;
}
