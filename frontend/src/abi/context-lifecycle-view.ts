// clearChat() and printMessages() for a window whose chat is a live mirror
// of the backend. SillyTavern's clearChat empties #chat (and, with
// clearData, the chat array) until something prints it again; here nothing
// is deleted anywhere: a cleared chat is the window's current chat *as it
// was when cleared*, hidden. Any change to it — a message added, edited or
// deleted by anyone, a reload, another chat selected — is a new state of the
// chat, which shows in full again (a partial chat would not match the
// backend's indexes). printMessages() shows the rendered rows again, but not
// data cleared with clearData: like SillyTavern it prints the (empty)
// in-memory chat.
//
// The UI hears this through chatRender(ctx), which is not public: the
// signal is window-local and no extension should depend on it.
import type { ChatCache, Committed } from './chat-cache';
import type { HearthContext, StMessage } from './types';

/** A hidden state: the chat and its messages array (frozen, replaced on every change) when cleared. */
interface Hidden {
  chatId: string;
  messages: readonly StMessage[];
}

/** ChatRender is what the UI reads: a store of the render generation and the hidden test. */
export interface ChatRender {
  /** subscribe calls fn now and after every clearChat/printMessages/reload (Svelte's store contract). */
  subscribe(fn: (generation: number) => void): () => void;
  /** hidden reports whether the rows of chatId, showing messages, are cleared. */
  hidden(chatId: string | null, messages: readonly unknown[]): boolean;
}

/** ChatView is the context's side of clearChat/printMessages. */
export interface ChatView extends ChatRender {
  /** cache is the ChatCache getContext() reads: with the chat emptied while clearChat({ clearData }) holds. */
  cache: ChatCache;
  /** clear hides the current rows (and, with data, empties getContext().chat and chat_metadata). */
  clear(data: boolean): void;
  /** print shows the rows again (data cleared stays cleared until the chat changes). */
  print(): void;
  /** reset forgets every clear (a reload). */
  reset(): void;
}

const EMPTY_CHAT: readonly StMessage[] = Object.freeze([]);
const EMPTY_METADATA: Readonly<Record<string, unknown>> = Object.freeze({});

function matches(h: Hidden | null, chatId: string | null | undefined, messages: readonly unknown[] | undefined): boolean {
  return h !== null && h.chatId === chatId && h.messages === messages;
}

/** createChatView returns the view over cache with nothing cleared. */
export function createChatView(cache: ChatCache): ChatView {
  let rows: Hidden | null = null;
  let data: Hidden | null = null;
  let generation = 0;
  const listeners = new Set<(generation: number) => void>();

  function notify(): void {
    generation++;
    for (const fn of [...listeners]) fn(generation);
  }

  function snapshot(c: Committed | null): Hidden | null {
    return c ? { chatId: c.chatId, messages: c.messages } : null;
  }

  function dataHidden(c: Committed | null): boolean {
    return c !== null && matches(data, c.chatId, c.messages);
  }

  const view: ChatCache = Object.freeze({
    ...cache,
    committed() {
      const c = cache.committed();
      if (!c || !dataHidden(c)) return c;
      return { ...c, messages: EMPTY_CHAT, details: Object.freeze({ ...c.details, metadata: EMPTY_METADATA }) };
    },
    message(index: number) {
      return dataHidden(cache.committed()) ? null : cache.message(index);
    },
  });

  return {
    cache: view,
    clear(withData) {
      const now = snapshot(cache.committed());
      rows = now;
      if (withData) data = now;
      notify();
    },
    print() {
      rows = null;
      notify();
    },
    reset() {
      rows = null;
      data = null;
      notify();
    },
    hidden(chatId, messages) {
      return matches(rows, chatId, messages) || matches(data, chatId, messages);
    },
    subscribe(fn) {
      listeners.add(fn);
      fn(generation);
      return () => void listeners.delete(fn);
    },
  };
}

const renders = new WeakMap<object, ChatRender>();

/** registerChatRender makes chatRender(ctx) answer for ctx. */
export function registerChatRender(ctx: HearthContext, render: ChatRender): void {
  renders.set(ctx, render);
}

const NOTHING: ChatRender = Object.freeze({
  subscribe(fn: (generation: number) => void) {
    fn(0);
    return () => {};
  },
  hidden: () => false,
});

/**
 * chatRender is how Hearth's own UI follows getContext().clearChat() and
 * printMessages() (not part of the public ABI). A context it does not know
 * (a test double) never clears.
 */
export function chatRender(ctx: HearthContext): ChatRender {
  return renders.get(ctx) ?? NOTHING;
}
