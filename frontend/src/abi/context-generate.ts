// getContext()'s generation half (HOST-ABI §6, §9): generate,
// generateQuietPrompt, stopGeneration, setExtensionPrompt/extensionPrompts,
// the swipe API, online_status and maxContext — SillyTavern's names and
// signatures over api.generate and the current chat.
import type { ChatCache } from './chat-cache';
import { HostError } from './errors';
import type { ExtensionPrompts } from './extension-prompts';
import type { Call } from './host';
import type { GenerateApi, GenerationResult, GenerationType, ExtensionPromptView, SwipeApi } from './types';

/** SillyTavern's SWIPE_STATE values. */
export const SWIPE_STATE = Object.freeze({ NONE: 'none', SWIPING: 'swiping', GENERATING: 'generating' });

export interface GenerateDeps {
  call: Call;
  cache: ChatCache;
  generate: GenerateApi;
  prompts: ExtensionPrompts;
  /** running returns the generation running in chatId (from events), if any. */
  running: (chatId: string) => string | undefined;
  /** onSwipeUi is told when show/hide/refresh change what the UI should draw. */
  onSwipeUi: () => void;
}

export interface ContextGenerate {
  generate(type?: GenerationType | string, options?: { quiet_prompt?: string; quietPrompt?: string }, dryRun?: boolean): Promise<unknown>;
  generateQuietPrompt(prompt: string | { quietPrompt?: string }): Promise<string>;
  stopGeneration(): Promise<boolean>;
  setExtensionPrompt(key: string, value: string, position: number, depth: number, scan?: boolean, role?: number, filter?: (() => boolean | Promise<boolean>) | null): void;
  readonly extensionPrompts: Readonly<Record<string, ExtensionPromptView>>;
  readonly swipe: SwipeApi;
  /** clearExtensionPrompts empties the registry (clearChat({ clearData: true })). */
  clearExtensionPrompts(): void;
}

/** createContextGenerate returns the generation methods getContext() spreads in. */
export function createContextGenerate(deps: GenerateDeps): ContextGenerate {
  const { call, cache, generate, prompts } = deps;
  let swiping = false;
  let hidden = { hidden: false, hideCounters: false };

  function chatId(): string {
    const id = cache.current()?.chatId;
    if (!id) throw new HostError('chat.not_found', 'no chat is open in this window; open one with api.chat.select(chatId)');
    return id;
  }

  function quietText(p: string | { quietPrompt?: string } | undefined): string {
    const text = typeof p === 'string' ? p : p?.quietPrompt;
    if (typeof text !== 'string' || text.trim() === '') {
      throw new HostError('validation.invalid_argument', 'generateQuietPrompt needs a prompt: a string or { quietPrompt }');
    }
    return text;
  }

  async function swipeTo(direction: 'left' | 'right', options?: { forceMesId?: number; forceSwipeId?: number }): Promise<void> {
    const id = chatId();
    const msgs = cache.committed()?.messages ?? [];
    const index = options?.forceMesId ?? msgs.length - 1;
    const msg = msgs[index];
    if (!msg) throw new HostError('message.index_out_of_range', `no message ${index} to swipe`);
    swiping = true;
    try {
      if (options?.forceSwipeId !== undefined) {
        await call('chat.swipe', id, index, { to: options.forceSwipeId });
        return;
      }
      const last = index === msgs.length - 1;
      if (direction === 'right' && last && msg.swipe_id >= msg.swipes.length - 1 && !msg.is_user && !msg.is_system) {
        await generate.run({ chatId: id, type: 'swipe' });
        return;
      }
      await call('chat.swipe', id, index, { direction });
    } finally {
      swiping = false;
    }
  }

  const swipe: SwipeApi = Object.freeze({
    left: (_e?: unknown, o?: { forceSwipeId?: number }) => swipeTo('left', o),
    right: (_e?: unknown, o?: { forceSwipeId?: number }) => swipeTo('right', o),
    to: (_e: unknown, direction: 'left' | 'right', o?: { forceMesId?: number; forceSwipeId?: number }) => {
      if (direction !== 'left' && direction !== 'right') {
        return Promise.reject(new HostError('validation.invalid_argument', "direction must be 'left' or 'right'"));
      }
      return swipeTo(direction, o);
    },
    show() {
      hidden = { hidden: false, hideCounters: false };
      deps.onSwipeUi();
    },
    hide(options?: { hideCounters?: boolean }) {
      hidden = { hidden: true, hideCounters: options?.hideCounters === true };
      deps.onSwipeUi();
    },
    refresh() {
      deps.onSwipeUi();
    },
    isAllowed() {
      const id = cache.current()?.chatId;
      return id !== undefined && !swiping && deps.running(id) === undefined && (cache.committed()?.messages.length ?? 0) > 0;
    },
    state() {
      const id = cache.current()?.chatId;
      if (id !== undefined && deps.running(id) !== undefined) return SWIPE_STATE.GENERATING;
      return swiping ? SWIPE_STATE.SWIPING : SWIPE_STATE.NONE;
    },
    hidden: () => hidden,
  });

  return {
    async generate(type = 'normal', options, dryRun) {
      const opts = { chatId: chatId(), type: type as GenerationType, ...quietOption(options) };
      if (dryRun === true) return generate.dryRun(opts);
      const res: GenerationResult = await generate.run(opts);
      return type === 'quiet' || type === 'impersonate' ? res.text : res;
    },
    async generateQuietPrompt(p) {
      const res = await generate.run({ chatId: chatId(), type: 'quiet', quietPrompt: quietText(p) });
      return res.text;
    },
    async stopGeneration() {
      const id = cache.current()?.chatId;
      const running = id === undefined ? undefined : deps.running(id);
      return running === undefined ? false : generate.stop(running);
    },
    setExtensionPrompt(key, value, position, depth, scan, role, filter) {
      prompts.set(key, value, position, depth, scan, role, filter);
    },
    get extensionPrompts() {
      return prompts.view();
    },
    swipe,
    clearExtensionPrompts: () => prompts.clear(),
  };
}

function quietOption(o: { quiet_prompt?: string; quietPrompt?: string } | undefined): { quietPrompt?: string } {
  const q = o?.quietPrompt ?? o?.quiet_prompt;
  return typeof q === 'string' ? { quietPrompt: q } : {};
}
