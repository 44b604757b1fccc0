// The permission table must name every method of the real page ABI, so a
// method added to window.__HEARTH__.api is refused to frames until someone
// gives it a rule; and every routed host method reachable from the api is
// covered through it.
import { describe, expect, it } from 'vitest';
import { createHearthAbi } from '../abi/abi';
import { EVENT_PERMISSIONS, EVENT_TYPES } from '../abi/event-registry.gen';
import { HOST_METHODS } from '../abi/testing/host-methods.gen';
import type { Transport } from '../abi/transport';
import { apiMethods } from './bridge';
import { eventPermission, METHOD_RULES, PERMISSIONS, STORAGE_OPTS_AT, UI_RULES } from './permissions';

/** pageApi is the real window.__HEARTH__.api over a transport that answers nothing. */
function pageApi(): object {
  const transport: Transport = { mode: 'desktop', invoke: () => Promise.reject(new Error('offline')), subscribe: () => () => {} };
  return createHearthAbi(transport, { connected: new Promise(() => {}) }).api;
}

describe('METHOD_RULES', () => {
  const methods = apiMethods(pageApi());

  it('has a rule for every method of the page api', () => {
    expect(methods.length).toBeGreaterThan(100);
    const missing = methods.filter((m) => !METHOD_RULES.has(m));
    expect(missing, 'api methods with no rule in permissions.ts (decide their permission, or never)').toEqual([]);
  });

  it('names only methods the page api has', () => {
    const stale = [...METHOD_RULES.keys()].filter((m) => !methods.includes(m));
    expect(stale, 'rules for methods the api no longer has').toEqual([]);
  });

  it('covers every routed host method of the api', () => {
    const routedOnApi = HOST_METHODS.filter((m) => methods.includes(m));
    expect(routedOnApi.filter((m) => !METHOD_RULES.has(m))).toEqual([]);
  });

  it('uses only declared permissions, own-storage, never or not-bridged', () => {
    const allowed = new Set<string>([...PERMISSIONS, 'own-storage', 'never', 'not-bridged']);
    expect([...METHOD_RULES.values()].filter((r) => !allowed.has(r))).toEqual([]);
    expect([...UI_RULES.values()].filter((r) => !PERMISSIONS.includes(r))).toEqual([]);
  });

  it('refuses every extension management method and lets storage through on the own namespace', () => {
    const management = methods.filter((m) => m.startsWith('extensions.') && !m.startsWith('extensions.storage.'));
    expect(management.length).toBeGreaterThanOrEqual(11);
    for (const m of management) expect(METHOD_RULES.get(m), m).toBe('never');
    const storage = methods.filter((m) => m.startsWith('extensions.storage.'));
    expect(storage.sort()).toEqual([...STORAGE_OPTS_AT.keys()].sort());
    for (const m of storage) expect(METHOD_RULES.get(m), m).toBe('own-storage');
  });

  it('refuses connections, personas and the library', () => {
    for (const m of methods.filter((x) => /^(connections|personas|library)\./.test(x))) expect(METHOD_RULES.get(m), m).toBe('never');
  });

  it('keeps the frame-only methods apart from the api', () => {
    for (const m of UI_RULES.keys()) expect(methods, m).not.toContain(m);
  });
});

describe('eventPermission', () => {
  it('follows the event registry by wire value', () => {
    for (const name of Object.keys(EVENT_TYPES) as (keyof typeof EVENT_TYPES)[]) {
      expect(eventPermission(EVENT_TYPES[name]), name).toBe(EVENT_PERMISSIONS[name]);
    }
    expect(eventPermission('message_sent')).toBe('chat.read');
  });

  it('delivers nothing of a type the registry does not list', () => {
    expect(eventPermission('user_message_rendered')).toBe('none');
    expect(eventPermission('MESSAGE_SENT')).toBe('none');
    expect(eventPermission('toString')).toBe('none');
  });
});
