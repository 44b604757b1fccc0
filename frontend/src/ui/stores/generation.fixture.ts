// The generation store's test setup: a fake host, the chat view on chat
// c1 and the store, with helpers that commit messages as the backend would.
import { get } from 'svelte/store';
import { vi } from 'vitest';
import type { StMessage } from '../../abi/types';
import { createChatViewStore } from './chat';
import { createConfirm } from './confirm';
import { createFakeHearth, message } from './fake-hearth';
import { createGenerationStore } from './generation';
import { createToasts } from './toasts';

export const flush = () => new Promise((r) => setTimeout(r, 0));

export function hostError(code: string, message = code, details?: Record<string, unknown>) {
  return Object.assign(new Error(message), { code, ...(details ? { details } : {}) });
}

/** reply is the character's committed reply of a generation, as the backend stamps it. */
export function reply(id: string, generationId: string, fields: Partial<StMessage> = {}): StMessage {
  return message(id, { extra: { hearth: { generationId } }, ...fields });
}

export async function setup(messages: StMessage[] = [message('m0'), message('m1', { is_user: true, name: 'Me' })]) {
  const fake = createFakeHearth();
  const toasts = createToasts(0);
  const chat = createChatViewStore(fake.hearth, toasts, createConfirm());
  const stopChat = chat.start();
  let msgs = messages;
  const load = (next: StMessage[]) => {
    msgs = next;
    fake.setLoaded({ chatId: 'c1', start: 0, total: next.length, messages: next }, true);
  };
  load(messages);
  await chat.select('c1');
  const openConnections = vi.fn();
  const gen = createGenerationStore({ hearth: fake.hearth, toasts, chat, commitWaitMs: 50, staleTurnMs: 30, openConnections });
  const stopGen = gen.start();
  await flush();
  /**
   * commit puts a message in the chat as the backend's MESSAGE_RECEIVED
   * would, and waits the microtask in which the chat view refreshes (still
   * the same task).
   */
  const commit = async (m: StMessage, event = 'message_received') => {
    load([...msgs, m]);
    fake.emit(event, { chatId: 'c1', index: msgs.length - 1, id: m.id });
    await Promise.resolve();
  };
  const replace = async (i: number, m: StMessage, event = 'message_updated') => {
    const next = [...msgs];
    next[i] = m;
    load(next);
    fake.emit(event, { chatId: 'c1', index: i, id: m.id });
    await Promise.resolve();
  };
  const toastTexts = () => get(toasts).map((t) => `${t.code}: ${t.message}`);
  return { fake, toasts, chat, gen, commit, replace, toastTexts, openConnections, stop: () => (stopGen(), stopChat()) };
}

