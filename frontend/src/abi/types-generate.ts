// The generation half of the public shape (HOST-ABI §6): api.generate,
// prompt snapshots, extension prompts and getContext().swipe. types.ts
// re-exports all of it.

import type { WorldInfoDisabledKey } from './types-worldinfo';

/** One entry of getContext().extensionPrompts. */
export interface ExtensionPromptView {
  readonly value: string;
  readonly position: number;
  readonly depth: number;
  readonly scan: boolean;
  readonly role: number;
  readonly filter: (() => boolean | Promise<boolean>) | null;
}

/** getContext().swipe (Luker's swipe API). */
export interface SwipeApi {
  left(event?: unknown, options?: { forceSwipeId?: number }): Promise<void>;
  right(event?: unknown, options?: { forceSwipeId?: number }): Promise<void>;
  to(event: unknown, direction: 'left' | 'right', options?: { forceMesId?: number; forceSwipeId?: number }): Promise<void>;
  show(): void;
  hide(options?: { hideCounters?: boolean }): void;
  refresh(updateCounters?: boolean, fade?: boolean): void;
  isAllowed(): boolean;
  /** 'none', 'swiping' or 'generating'. */
  state(): string;
  /** hidden says whether show()/hide() asked the UI to hide the swipe controls. */
  hidden(): { hidden: boolean; hideCounters: boolean };
}

/** The generation types of api.generate (HOST-ABI §6). */
export type GenerationType = 'normal' | 'regenerate' | 'swipe' | 'continue' | 'impersonate' | 'quiet';

/** One extension prompt as the backend receives it (setExtensionPrompt's arguments). */
export interface ExtensionPromptInput {
  key: string;
  value: string;
  /** -1 none, 0 after the main prompt, 1 in the chat at depth, 2 before the main prompt. */
  position: number;
  depth?: number;
  scan?: boolean;
  /** 0 system, 1 user, 2 assistant. */
  role?: number;
}

/** generate.start/run/dryRun's argument. */
export interface GenerateOptions {
  chatId: string;
  type?: GenerationType;
  quietPrompt?: string;
  extensionPrompts?: ExtensionPromptInput[];
  connectionId?: string;
  presetId?: string;
  /**
   * memberAvatar, in a group chat, is the member who replies (muted or
   * not), whatever the group's strategy (SillyTavern's /trigger); for
   * swipe and continue it must be the last message's speaker. dryRun
   * shows this member's prompt.
   */
  memberAvatar?: string;
  /**
   * hooks is what this window brings of SillyTavern's prompt hooks
   * (EXTENSIONS.md §6). api.generate sets it itself; a value passed in
   * is replaced.
   */
  hooks?: PromptHooksOption;
}

/**
 * One message of an interceptor's chat as the backend receives it: `{ ref }`
 * is the stored message at that index, unchanged; with `mes` it is a message
 * of its own (with ref: the stored message it came from, for its media).
 */
export interface InterceptedItem {
  ref?: number;
  mes?: string;
  name?: string;
  is_user?: boolean;
  is_system?: boolean;
  narrator?: boolean;
}

/** The `hooks` option: the window's interceptor run and its prompt-ready token. */
export interface PromptHooksOption {
  /** promptReady is the token PROMPT_HOOK_REQUEST will carry, when the window listens for CHAT_COMPLETION_PROMPT_READY. */
  promptReady?: string;
  /** interceptor is what the generate_interceptor functions did; chat only when they changed it. */
  interceptor?: { ms: number; timedOut?: boolean; chat?: { revision: number; items: InterceptedItem[] } };
}

/** What a generation's prompt hooks did (its record, a dry run's snapshot). */
export interface PromptHooksRecord {
  interceptor?: { ms: number; changed: boolean; timedOut?: boolean; ignored?: string };
  promptReady?: { ms: number; changed: boolean; timedOut?: boolean; error?: string; warnings?: string[] };
  /** skipped: 'no window' when no window started it (an agent run, a script over HTTP). */
  skipped?: 'no window';
}

/**
 * generate.run's answer; index and swipeId are null for impersonate and
 * quiet. In a group chat it is the last member's reply, with every reply
 * of the turn in replies (empty, generationId '' and index null when
 * nobody was drafted).
 */
export interface GenerationResult {
  generationId: string;
  index: number | null;
  swipeId: number | null;
  text: string;
  stopped: boolean;
  /** replies are a group turn's replies in speaking order; absent in a character's chat. */
  replies?: GenerationResult[];
}

/** generate.status()'s answer: the latest running generation, if any. */
export interface GenerationStatus {
  generating: boolean;
  generationId: string | null;
  chatId: string | null;
  type: GenerationType | null;
}

/** generate.status(generationId)'s answer: one generation, running or done. */
export interface GenerationRecord {
  generationId: string;
  chatId: string;
  type: GenerationType;
  status: 'running' | 'ended' | 'stopped' | 'failed';
  error?: { code: string; message: string; details?: Record<string, unknown> };
  messageId: string | null;
  index: number | null;
  swipeId: number | null;
  startedAt: number;
  endedAt: number | null;
  /** hooks is what the window's prompt hooks did; absent for generations recorded before Hearth kept it. */
  hooks?: PromptHooksRecord;
}

/** One message of a chat-completion payload; source names the prompt part it came from. */
export interface PayloadMessage {
  role: 'system' | 'user' | 'assistant';
  content: string | { type: 'text' | 'image_url'; text?: string; image_url?: { url: string } }[];
  name?: string;
  source?: string;
}

/** The prompt budget: what each part costs, in tokens of the named tokenizer. */
export interface TokenCounts {
  total: number;
  maxContext: number;
  maxTokens: number;
  budget: number;
  parts: { source: string; tokens: number }[];
  historyMessages: number;
  historyDropped: number;
  examplesDropped: number;
  tokenizer: string;
}

/** generate.dryRun's answer: the exact request the next generation would send. */
export interface PromptSnapshot {
  chatCompletionPayload: { model: string; messages: PayloadMessage[]; stream: boolean } & Record<string, unknown>;
  worldInfoActivation: {
    timestampMs: number;
    trigger: string;
    entries: { world: string; uid: string | number; displayName: string; constant: boolean; content: string; position?: string }[];
    /** warnings say in words what the lorebook scan could not do; left out when nothing. */
    warnings?: string[];
    /** disabledKeys are the regex keys the scan did not run; left out when none. */
    disabledKeys?: WorldInfoDisabledKey[];
  };
  tokenCounts: TokenCounts;
  /** hooks says what the window's prompt hooks did to this prompt. */
  hooks: PromptHooksRecord;
}

export interface GenerateApi {
  /** start begins a generation and resolves once its prompt is assembled. */
  start(options: GenerateOptions): Promise<{ generationId: string }>;
  /** run resolves when the generation ends; it rejects with the provider's model.* error. */
  run(options: GenerateOptions): Promise<GenerationResult>;
  dryRun(options: GenerateOptions): Promise<PromptSnapshot>;
  /** stop stops one generation, or every running one; true when something was running. */
  stop(generationId?: string): Promise<boolean>;
  status(): Promise<GenerationStatus>;
  status(generationId: string): Promise<GenerationRecord>;
}
