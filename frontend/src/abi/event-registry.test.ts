import { describe, expect, it } from 'vitest';
import { eventType } from '../ui/lib/events';
import { EVENT_PERMISSIONS, EVENT_TYPES, WINDOW_EVENTS, type EventPayloadByType, type GenerationEndedPayload } from './event-registry.gen';
import { BACKEND_EVENT_TYPES, FRONTEND_EVENT_TYPES, mergeEventTypes, T } from './event-types';
import { tick } from './testing/fake-host';
import { setup } from './testing/setup';

describe('the generated event registry', () => {
  it('is the constant map the ABI falls back to before the host answers', () => {
    expect(BACKEND_EVENT_TYPES).toBe(EVENT_TYPES);
    const merged = mergeEventTypes(undefined);
    for (const [name, value] of Object.entries(EVENT_TYPES)) expect(merged[name]).toBe(value);
    for (const [name, value] of Object.entries(FRONTEND_EVENT_TYPES)) expect(merged[name]).toBe(value);
    expect(T.WORLDINFO_SCAN_DONE).toBe('worldinfo_scan_done');
  });

  it('gives every event one value and a permission', () => {
    const values = Object.values(EVENT_TYPES);
    expect(new Set(values).size).toBe(values.length);
    expect(Object.keys(EVENT_PERMISSIONS).sort()).toEqual(Object.keys(EVENT_TYPES).sort());
    expect(EVENT_PERMISSIONS.MESSAGE_SENT).toBe('chat.read');
    expect(EVENT_PERMISSIONS.LIBRARY_PROGRESS).toBe('none');
    for (const name of WINDOW_EVENTS) expect(EVENT_TYPES[name]).toBeTypeOf('string');
  });

  it("keeps the window's own events apart from the backend's", () => {
    const backend = new Set<string>(Object.values(EVENT_TYPES));
    for (const [name, value] of Object.entries(FRONTEND_EVENT_TYPES)) {
      if (name === 'APP_READY') expect(WINDOW_EVENTS).toContain('APP_READY');
      else expect(backend.has(value)).toBe(false);
    }
  });

  it('is what the UI falls back to for a host whose map lacks a name', () => {
    const bare = { api: { events: { types: {} } } } as unknown as Parameters<typeof eventType>[0];
    expect(eventType(bare, 'CHARACTER_DELETED')).toBe('characterDeleted');
    expect(eventType(bare, 'CHAT_LOAD_PROGRESS')).toBe('chat_load_progress');
  });
});

describe('typed api.events handlers', () => {
  it('hands a backend event its registry payload type', async () => {
    const { host, h } = await setup();
    const seen: GenerationEndedPayload[] = [];
    const off = h.api.events.on(T.GENERATION_ENDED, (p) => {
      // p is GenerationEndedPayload: these compile only with the generated type.
      const id: string = p.generationId;
      const index: number | null = p.index;
      expect(id).toBe('g1');
      expect(index).toBe(3);
      seen.push(p);
    });
    host.push('generation_ended', { chatId: 'c', generationId: 'g1', index: 3, swipeId: 0 });
    await tick();
    off();
    expect(seen).toHaveLength(1);

    // @ts-expect-error — the registry declares no such key on GENERATION_ENDED's payload.
    h.api.events.off(T.GENERATION_ENDED, (p) => p.nope);
    // Any other string still takes the structured payload.
    h.api.events.off('my_extension_event', (p) => p.anything);
    const typed: EventPayloadByType['message_sent']['stMessage'] | undefined = undefined;
    expect(typed).toBeUndefined();
  });
});
