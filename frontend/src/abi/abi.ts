// createHearthAbi assembles window.__HEARTH__ (HOST-ABI §0) over one
// transport: the host calls, the current-chat cache, the two event
// fan-outs (api.events, structured; getContext().eventSource, SillyTavern
// style and ordered) and getContext().
import { createAgentApi } from './api-agent';
import { createCharactersApi } from './api-characters';
import { createGroupsApi } from './api-groups';
import { createConnectionsApi } from './api-connections';
import { createPersonasApi } from './api-personas';
import { createPresetsApi } from './api-presets';
import { createWorldInfoApi } from './api-worldinfo';
import { createLibraryApi } from './api-library';
import { createExtensionsApi } from './api-extensions';
import { createGenerateApi } from './api-generate';
import { createChatApi } from './api-chat';
import { createStateApi } from './api-state';
import { createCharactersCache } from './characters-cache';
import { createGroupsCache } from './groups-cache';
import { createChatCache } from './chat-cache';
import type { LoadOptions } from './chat-load';
import { createContext, SETTLE_MS } from './context';
import { createContextGenerate } from './context-generate';
import { createEmitter } from './emitter';
import { createExtensionPrompts } from './extension-prompts';
import { createGenerations } from './generations';
import { createPersonaCache } from './persona-cache';
import { createPromptHooks } from './prompt-hooks';
import { HostError } from './errors';
import { createEmitQueue, createEventSource } from './event-source';
import { CHAT_LIST_EVENTS, mergeEventTypes, stArgs, T } from './event-types';
import { createCall } from './host';
import { deepFreeze } from './readonly';
import type { HostEvent, Transport } from './transport';
import type { Capabilities, EventPayload, HearthAbi } from './types';

/** AbiOptions configure createHearthAbi. */
export interface AbiOptions {
  /** connected resolves once the transport may be used (after login in browser mode). */
  connected: Promise<void>;
  /** load tunes windowed chat loading (tests use small pages). */
  load?: Omit<LoadOptions, 'first'>;
  /** settleMs is how long a context write waits for its events before re-fetching. */
  settleMs?: number;
}

/**
 * createHearthAbi returns the frozen public object. Nothing talks to the
 * host before opts.connected resolves; ready then subscribes to events,
 * loads capabilities and characters, and fires APP_READY.
 */
export function createHearthAbi(transport: Transport, opts: AbiOptions): HearthAbi {
  const call = createCall(transport);
  let types = mergeEventTypes(undefined);
  let caps: Capabilities | null = null;

  const events = createEmitter(() => types);
  events.sticky(T.APP_READY);
  // The UI emits *_RENDERED on the eventSource once a new message's row is
  // in the DOM; api.events hears them too, as structured payloads.
  const eventSource = createEventSource([T.APP_READY], (event, args) => {
    if (event !== T.USER_MESSAGE_RENDERED && event !== T.CHARACTER_MESSAGE_RENDERED) return;
    const chatId = cache.current()?.chatId;
    const payload: Record<string, unknown> = { ...(chatId === undefined ? {} : { chatId }), index: args[0] };
    if (event === T.CHARACTER_MESSAGE_RENDERED) payload.type = args[1];
    events.emit(event, Object.freeze(payload) as EventPayload);
  });
  const queue = createEmitQueue(eventSource);
  const characters = createCharactersCache(call);
  const groups = createGroupsCache(call);
  const personaCache = createPersonaCache(call);
  const prompts = createExtensionPrompts();
  const generations = createGenerations(call);
  const hooks = createPromptHooks({ call, cache: { committed: () => cache.committed(), waitFor: (...a) => cache.waitFor(...a) }, eventSource, maxContext: () => generations.maxContext() });
  const generateApi = createGenerateApi(call, prompts, hooks);

  /** characterIndex is an avatar key's index in getContext().characters (-1: none). */
  const characterIndex = (avatar: string) => characters.list().findIndex((c) => c.avatar === avatar);

  /** publish sends a window-made event to both fan-outs. */
  function publish(type: string, payload: EventPayload): void {
    const p = Object.freeze(payload);
    queue.push(type, stArgs(type, p, characterIndex));
    events.emit(type, p);
  }

  /** toSource queues a backend event for the eventSource, after everything queued before it. */
  function toSource(ev: HostEvent): void {
    queue.push(ev.type, stArgs(ev.type, ev.payload, characterIndex));
  }

  const cache = createChatCache(
    call,
    {
      progress: (chatId, start, total, revision) => publish(T.CHAT_LOAD_PROGRESS, { chatId, start, total, revision }),
      // A closed chat has no chatId, as SillyTavern's getCurrentChatId() is undefined then.
      changed: (chatId) => publish(T.CHAT_CHANGED, chatId === null ? {} : { chatId }),
      applied: toSource,
    },
    opts.load,
  );

  function onEvent(raw: HostEvent): void {
    const ev: HostEvent = { type: raw.type, payload: deepFreeze(raw.payload) };
    characters.ingest(ev);
    groups.ingest(ev);
    personaCache.ingest(ev);
    generations.ingest(ev);
    hooks.ingest(ev);
    const chatId = ev.payload.chatId;
    const current = cache.current()?.chatId;
    // A hooked prompt's announcement: the starting window's listeners had
    // it already (PROMPT_HOOK_REQUEST), and no other window's would in
    // SillyTavern; api.events still hears it.
    const hooked = ev.type === T.CHAT_COMPLETION_PROMPT_READY && ev.payload.hooked === true;
    // The cache reports its own events (in revision order) through applied.
    if (!cache.ingest(ev) && !hooked && (chatId === undefined || chatId === current || CHAT_LIST_EVENTS.has(ev.type))) toSource(ev);
    events.emit(ev.type, ev.payload);
  }

  const ready = (async () => {
    await opts.connected;
    transport.subscribe(onEvent);
    transport.onReconnect?.(() => {
      cache.resync();
      characters.load().catch((err: unknown) => console.warn('Hearth: could not reload characters', err));
      groups.load().catch((err: unknown) => console.warn('Hearth: could not reload the groups', err));
      personaCache.load().catch((err: unknown) => console.warn('Hearth: could not reload the personas', err));
      generations.load().catch((err: unknown) => console.warn('Hearth: could not reload the generation state', err));
    });
    const c = (await call('host.capabilities')) as Capabilities | null;
    if (typeof c !== 'object' || c === null || c.abiVersion !== 1) {
      throw new HostError('host.incompatible', 'the backend does not serve Hearth host ABI version 1');
    }
    caps = deepFreeze({ ...c });
    types = mergeEventTypes(c.eventTypes);
    await Promise.all([characters.load(), groups.load(), generations.load(), personaCache.load()]);
    publish(T.APP_READY, {});
  })();

  const context = createContext({
    call,
    cache,
    characters,
    groups,
    eventSource,
    types: () => types,
    // name1 follows the persona in effect in this window's chat.
    userName: () => personaCache.effective(cache.committed()?.details.metadata ?? null)?.name ?? 'User',
    generation: createContextGenerate({
      call,
      cache,
      generate: generateApi,
      prompts,
      running: (chatId) => generations.running(chatId),
      onSwipeUi: () => events.emit(T.SWIPE_UI_CHANGED, Object.freeze({})),
    }),
    generations,
    ...(opts.settleMs === undefined ? {} : { settleMs: opts.settleMs }),
  });
  const getContext = () => context;

  return Object.freeze({
    abiVersion: 1 as const,
    ready,
    capabilities(): Capabilities {
      if (!caps) throw new HostError('host.not_ready', 'capabilities() is available once __HEARTH__.ready has resolved');
      return caps;
    },
    api: Object.freeze({
      chat: createChatApi(call, cache),
      characters: createCharactersApi(call),
      groups: createGroupsApi(call),
      state: createStateApi(call, () => cache.current()?.chatId ?? null),
      connections: createConnectionsApi(call),
      personas: createPersonasApi(call, { personas: personaCache, cache, settleMs: opts.settleMs ?? SETTLE_MS }),
      presets: createPresetsApi(call),
      worldinfo: createWorldInfoApi(call),
      library: createLibraryApi(call),
      extensions: createExtensionsApi(call),
      generate: generateApi,
      agent: createAgentApi(call, {
        currentChatId: () => cache.current()?.chatId ?? null,
        prompts,
        listen: (handler) => events.api.on(T.AGENT_RUN_EVENT, handler),
        onReconnect: (handler) => transport.onReconnect?.(handler) ?? (() => {}),
      }),
      events: events.api,
    }),
    getContext,
  });
}
