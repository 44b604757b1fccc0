// The method registry check (issue 35): window.__HEARTH__.api and the Go
// host's route table must agree. Every routed method is an api function of
// the same name ("agent.profiles.list" is api.agent.profiles.list) that
// calls that route, and every api function is a routed method, unless one
// of the two lists below names it with the reason. The routes come from
// testing/host-methods.gen.ts, which backend/tools/abimethods writes from
// the router itself (a Go test fails when it is stale).
import { describe, expect, it } from 'vitest';
import { createHearthAbi } from './abi';
import { install } from './install';
import { HOST_METHODS } from './testing/host-methods.gen';
import type { Transport } from './transport';
import type { HearthAbi } from './types';

/** PAGE_ONLY are api functions the page implements itself: no route has their name. */
const PAGE_ONLY: Readonly<Record<string, string>> = {
  'chat.select': "makes a chat this window's own: loads it through chat.getStMessages into the window's cache",
  'chat.current': "sync: the window's current chat, from its cache",
  'chat.loaded': 'sync: the part of the current chat loaded so far, from the cache',
  'characters.avatarUrl': 'sync: the avatar image URL, which the asset handlers serve without a call',
  'state.updateChatState': "runs the caller's updater in the page, in rounds of state.beginUpdate and state.setChatState",
  'state.createFloorState': 'a floor-state instance, over state.floorGet, state.floorUpdate and state.floorPatch',
  'agent.subscribe': "a run's events in order, from the event stream and agent.readEvents",
  'events.on': "the window's event fan-out: host events arrive on the transport's stream",
  'events.once': "the window's event fan-out",
  'events.off': "the window's event fan-out",
};

/** NOT_ON_API are routes with no api function of their name: the page calls them for one. */
const NOT_ON_API: Readonly<Record<string, string>> = {
  'host.capabilities': 'ready reads it once; h.capabilities() returns the answer, sync',
  'state.beginUpdate': "one round of state.updateChatState: waits the namespace's turn, then reads",
  'state.endUpdate': 'ends a state.updateChatState round whose updater wrote nothing',
  'state.floorGet': "a floor-state instance's get()",
  'state.floorUpdate': "a floor-state instance's update()",
  'state.floorPatch': "a floor-state instance's patch()",
  'generate.promptHookReply': "the window's prompt hook answers PROMPT_HOOK_REQUEST with it (prompt-hooks.ts); no frame may",
};

/** ARG is every positional argument of the calls below: enough for each method to reach its call. */
const ARG = Object.freeze({ chatId: 'chat-1' });

/** recorder is a transport that records the methods called and refuses each one. */
function recorder(): Transport & { calls: string[] } {
  const calls: string[] = [];
  return {
    mode: 'desktop',
    calls,
    invoke: (method) => {
      calls.push(method);
      return Promise.reject(new Error('recorded'));
    },
    subscribe: () => () => {},
  };
}

/** installed is window.__HEARTH__ as install publishes it, over transport, never ready. */
function installed(transport: Transport): HearthAbi {
  const w: { __HEARTH__?: HearthAbi } = {};
  install(w, createHearthAbi(transport, { connected: new Promise(() => {}) }));
  return w.__HEARTH__!;
}

/** functions maps the dotted path of every function under api (nested objects too) to it. */
function functions(api: object, prefix = ''): Map<string, (...args: unknown[]) => unknown> {
  const out = new Map<string, (...args: unknown[]) => unknown>();
  for (const [key, value] of Object.entries(api)) {
    const path = prefix + key;
    if (typeof value === 'function') out.set(path, value as (...args: unknown[]) => unknown);
    else if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      for (const [p, f] of functions(value as object, `${path}.`)) out.set(p, f);
    }
  }
  return out;
}

const routed = new Set<string>(HOST_METHODS);

describe('window.__HEARTH__ and the host routes', () => {
  const api = functions(installed(recorder()).api);

  it('has an api function for every routed method', () => {
    const missing = [...routed].filter((m) => !api.has(m) && !(m in NOT_ON_API));
    expect(missing, 'routed in Go, absent from window.__HEARTH__.api (bind it, or list it in NOT_ON_API with why)').toEqual([]);
  });

  it('has no api function that is neither routed nor the page’s own', () => {
    const unrouted = [...api.keys()].filter((p) => !routed.has(p) && !(p in PAGE_ONLY));
    expect(unrouted, 'on window.__HEARTH__.api with no route of that name (route it, or list it in PAGE_ONLY with why)').toEqual([]);
  });

  it('lists only what is so', () => {
    for (const p of Object.keys(PAGE_ONLY)) {
      expect(api.has(p), `PAGE_ONLY names ${p}, which is not on the api`).toBe(true);
      expect(routed.has(p), `PAGE_ONLY names ${p}, which is routed`).toBe(false);
    }
    for (const m of Object.keys(NOT_ON_API)) {
      expect(routed.has(m), `NOT_ON_API names ${m}, which is not routed`).toBe(true);
      expect(api.has(m), `NOT_ON_API names ${m}, which is on the api`).toBe(false);
    }
  });

  it('calls its own route from each routed api function', async () => {
    const wrong: string[] = [];
    for (const path of [...api.keys()].filter((p) => routed.has(p))) {
      const transport = recorder();
      const fn = functions(installed(transport).api).get(path)!;
      await Promise.resolve(fn(ARG, ARG, ARG, ARG)).catch(() => undefined);
      if (transport.calls[0] !== path) wrong.push(`${path} called ${transport.calls[0] ?? 'nothing'}`);
    }
    expect(wrong).toEqual([]);
  });
});
