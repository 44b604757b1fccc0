// A small in-memory stand-in for the public ABI, for store tests.
import { vi } from 'vitest';
import type { EventPayload, HearthAbi, StMessage } from '../../abi/types';

export interface FakeHearth {
  hearth: HearthAbi;
  /** emit delivers an event to api.events subscribers. */
  emit(type: string, payload: EventPayload): void;
  /** setLoaded sets what api.chat.loaded() shows; complete makes it getContext()'s chat too. */
  setLoaded(l: { chatId: string; start: number; total: number; messages: StMessage[] } | null, complete?: boolean): void;
  emitted: { type: string; args: unknown[] }[];
  chat: Record<string, ReturnType<typeof vi.fn>>;
  /** generate is api.generate; start answers g-1, g-2… unless mocked. */
  generate: Record<'start' | 'run' | 'dryRun' | 'stop' | 'status', ReturnType<typeof vi.fn>>;
  /** swipeUi is what getContext().swipe.hidden() answers. */
  swipeUi: { hidden: boolean; hideCounters: boolean };
  /** characters is getContext().characters (tests push into it). */
  characters: { avatar: string; name: string }[];
  /** owner is whose chat the loaded one is, as api.chat.current() says (a character's by default). */
  owner: { avatar: string | null; groupId: string | null };
  groups: Record<'setAutoMode' | 'autoMode', ReturnType<typeof vi.fn>>;
}

export function message(id: string, fields: Partial<StMessage> = {}): StMessage {
  const mes = fields.mes ?? `text of ${id}`;
  return { id, name: 'Ann', is_user: false, is_system: false, mes, swipe_id: 0, swipes: [mes], swipe_info: [{}], extra: {}, ...fields };
}

export function createFakeHearth(): FakeHearth {
  const handlers = new Map<string, Set<(p: EventPayload) => void>>();
  let loaded: { chatId: string; start: number; total: number; revision: number; messages: StMessage[] } | null = null;
  let complete = false;
  const emitted: { type: string; args: unknown[] }[] = [];
  const chat = {
    list: vi.fn(async () => []),
    select: vi.fn(async () => {}),
    addMessages: vi.fn(async () => 0),
    updateMessages: vi.fn(async () => {}),
    deleteMessages: vi.fn(async () => ({})),
    setMessageHidden: vi.fn(async () => {}),
    swipe: vi.fn(async () => ({ swipeId: 1 })),
    getMetadata: vi.fn(async () => ({})),
    saveMetadata: vi.fn(async () => ({ revision: 2 })),
    undo: vi.fn(async () => ({ revision: 3, undoneRevision: 2, method: 'deleteMessages' })),
    redo: vi.fn(async () => ({ revision: 4, redoneRevision: 2, method: 'deleteMessages' })),
    undoStatus: vi.fn(async () => ({ revision: 1, undo: null, redo: null })),
    create: vi.fn(),
    rename: vi.fn(),
    delete: vi.fn(),
  };
  let generations = 0;
  const generate = {
    start: vi.fn(async () => ({ generationId: `g-${++generations}` })),
    run: vi.fn(async () => ({ generationId: 'g-run', index: null, swipeId: null, text: 'I say hello.', stopped: false })),
    dryRun: vi.fn(async () => ({})),
    stop: vi.fn(async () => true),
    status: vi.fn(async () => ({ generating: false, generationId: null, chatId: null, type: null })),
  };
  const swipeUi = { hidden: false, hideCounters: false };
  const characters: { avatar: string; name: string }[] = [];
  const owner: { avatar: string | null; groupId: string | null } = { avatar: 'Ann.png', groupId: null };
  const groups = {
    setAutoMode: vi.fn(async (chatId: string, on: boolean) => ({ chatId, on, delaySeconds: 5 })),
    autoMode: vi.fn(async (chatId: string) => ({ chatId, on: false, delaySeconds: 5 })),
  };
  const types: Record<string, string> = {
    MESSAGE_SENT: 'message_sent',
    MESSAGE_RECEIVED: 'message_received',
    CHAT_LOAD_PROGRESS: 'chat_load_progress',
    USER_MESSAGE_RENDERED: 'user_message_rendered',
    CHARACTER_MESSAGE_RENDERED: 'character_message_rendered',
  };
  const hearth = {
    abiVersion: 1,
    ready: Promise.resolve(),
    capabilities: () => ({ abiVersion: 1, namespaces: {}, features: [] }),
    api: {
      chat: {
        ...chat,
        loaded: () => loaded,
        current: () => (loaded ? { chatId: loaded.chatId, ...owner } : null),
      },
      characters: { list: vi.fn(async () => []), avatarUrl: (a: string) => `/api/avatar/${a}` },
      generate,
      groups,
      events: {
        types,
        on(type: string, h: (p: EventPayload) => void) {
          let set = handlers.get(type);
          if (!set) handlers.set(type, (set = new Set()));
          set.add(h);
          return () => set.delete(h);
        },
        once: vi.fn(),
        off: vi.fn(),
      },
    },
    getContext: () => ({
      name1: 'Me',
      name2: 'Ann',
      characters,
      get chat() {
        return loaded && complete ? loaded.messages : [];
      },
      swipe: { hidden: () => swipeUi },
      getCurrentChatId: () => (loaded && complete ? `file of ${loaded.chatId}` : undefined),
      eventSource: {
        emit: async (type: string, ...args: unknown[]) => void emitted.push({ type, args }),
      },
    }),
  } as unknown as HearthAbi;

  return {
    hearth,
    emit(type, payload) {
      handlers.get(type)?.forEach((h) => h(payload));
    },
    setLoaded(l, isComplete = false) {
      loaded = l ? { ...l, revision: 1 } : null;
      complete = isComplete;
    },
    emitted,
    chat,
    generate,
    swipeUi,
    characters,
    owner,
    groups,
  };
}
