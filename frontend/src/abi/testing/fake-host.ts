// An in-memory stand-in for the Go host, for unit tests of the ABI: a
// Transport whose calls run against a few scripted chats and characters,
// with events pushed the way the real bus does (after the write, carrying
// chatId and the new revision). Values cross it as JSON, like the wire.
import { HostError } from '../errors';
import type { EventHandler, HostEvent, Transport } from '../transport';
import type { Persona } from '../types';

/** FakeMessage is a stored StMessage as the fake keeps it. */
export interface FakeMessage {
  id: string;
  name: string;
  is_user: boolean;
  is_system: boolean;
  mes: string;
  swipes: string[];
  swipe_id: number;
  swipe_info: Record<string, unknown>[];
  extra: Record<string, unknown>;
  [key: string]: unknown;
}

/** FakeChat is one chat of the fake backend. */
export interface FakeChat {
  chatId: string;
  fileName: string;
  avatar: string | null;
  /** groupId names the group of a group chat (avatar null then). */
  groupId?: string | null;
  revision: number;
  metadata: Record<string, unknown>;
  messages: FakeMessage[];
}

const wire = <T>(v: T): T => (v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T));

let ids = 0;
/** message builds a message the way the backend stores one. */
export function message(mes: string, isUser = false): FakeMessage {
  return { id: `m-${++ids}`, name: isUser ? 'User' : 'Seraphina', is_user: isUser, is_system: false, mes, swipes: [mes], swipe_id: 0, swipe_info: [{}], extra: {} };
}

/** tick waits for queued macrotasks (pushed events, load pauses) to run. */
export async function tick(n = 5): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((r) => setTimeout(r, 0));
}

type Handler = (args: unknown[]) => unknown;

/** FakeHost is both the Transport under test and the backend behind it. */
export class FakeHost implements Transport {
  readonly mode = 'desktop' as const;
  readonly chats = new Map<string, FakeChat>();
  characters: Record<string, unknown>[] = [{ avatar: 'Seraphina.png', name: 'Seraphina', description: 'A guardian.' }];
  readonly calls: { method: string; args: unknown[] }[] = [];
  /** gate, when set, runs before every call (tests hold calls with it). */
  gate: ((method: string, args: unknown[]) => Promise<void>) | null = null;
  /** failures: the next call of a listed method rejects with that error shape as JSON text (as the Wails bridge does). */
  readonly failures = new Map<string, { code: string; message: string; details?: Record<string, unknown> }>();
  /** lose, when true, commits without delivering their events (a lost event stream). */
  lose = false;
  private handlers = new Set<EventHandler>();
  private reconnects = new Set<() => void>();
  private methods: Record<string, Handler> = {};
  /** What generate.status() answers, connections.active() and presets.active().maxContext. */
  generation: Record<string, unknown> | null = null;
  activeConnection: Record<string, unknown> | null = null;
  maxContext = 8192;
  /** What personas.list answers (isActive/isDefault as the backend sets them). */
  personas: Persona[] = [];
  /** What groups.list answers. */
  groups: Record<string, unknown>[] = [];

  constructor() {
    this.define();
  }

  /** addChat creates a chat of n messages "m0"…"m{n-1}" owned by Seraphina. */
  addChat(chatId: string, n: number): FakeChat {
    const chat: FakeChat = {
      chatId,
      fileName: `Seraphina - ${chatId}`,
      avatar: 'Seraphina.png',
      revision: 0,
      metadata: {},
      messages: Array.from({ length: n }, (_, i) => message(`m${i}`, i % 2 === 1)),
    };
    this.chats.set(chatId, chat);
    return chat;
  }

  chat(chatId: string): FakeChat {
    const c = this.chats.get(chatId);
    if (!c) throw new HostError('chat.not_found', `no chat ${chatId}`);
    return c;
  }

  /** push delivers a backend event to subscribers now. */
  push(type: string, payload: Record<string, unknown>): void {
    const ev: HostEvent = wire({ type, payload });
    for (const h of [...this.handlers]) h(ev);
  }

  /**
   * commit bumps the chat's revision and, unless silent, pushes the events
   * (stamped with chatId and the revision) on the next macrotask, after
   * the call's answer, as the real bus may.
   */
  commit(chat: FakeChat, events: [string, Record<string, unknown>][], silent = false): number {
    chat.revision++;
    const rev = chat.revision;
    if (!silent && !this.lose) {
      const stamped = events.map(([t, p]) => [t, { ...wire(p), chatId: chat.chatId, revision: rev }] as const);
      setTimeout(() => stamped.forEach(([t, p]) => this.push(t, p)), 0);
    }
    return rev;
  }

  /** reconnect tells onReconnect handlers the event stream came back after a drop. */
  reconnect(): void {
    for (const h of [...this.reconnects]) h();
  }

  async invoke(method: string, args: readonly unknown[]): Promise<unknown> {
    const a = wire([...args]);
    this.calls.push({ method, args: a });
    if (this.gate) await this.gate(method, a);
    const fail = this.failures.get(method);
    if (fail) {
      this.failures.delete(method);
      throw JSON.stringify(fail);
    }
    const fn = this.methods[method];
    if (!fn) throw new HostError('host.unknown_method', `no method ${method}`);
    return wire(fn(a));
  }

  subscribe(handler: EventHandler): () => void {
    const h: EventHandler = (e) => handler(e);
    this.handlers.add(h);
    return () => void this.handlers.delete(h);
  }

  onReconnect(handler: () => void): () => void {
    const h = () => handler();
    this.reconnects.add(h);
    return () => void this.reconnects.delete(h);
  }

  /** count returns how often method was called. */
  count(method: string): number {
    return this.calls.filter((c) => c.method === method).length;
  }

  private details(c: FakeChat) {
    return {
      chatId: c.chatId,
      fileName: c.fileName,
      file_name: `${c.fileName}.jsonl`,
      file_id: c.fileName,
      messageCount: c.messages.length,
      revision: c.revision,
      avatar: c.avatar,
      groupId: c.groupId ?? null,
      metadata: c.metadata,
    };
  }

  private payload(index: number, m: FakeMessage) {
    return { index, id: m.id, message: { id: m.id, content: m.mes }, stMessage: m };
  }

  private define(): void {
    const m = this.methods;
    m['host.capabilities'] = () => ({
      abiVersion: 1,
      namespaces: { chat: 1, characters: 1, events: 1 },
      methods: Object.keys(this.methods),
      features: ['chat.revision'],
      eventTypes: { CHAT_CHANGED: 'chat_id_changed', MESSAGE_SENT: 'message_sent', HEARTH_TEST: 'hearth_test' },
      stCompat: '1.18.0',
    });
    // Generation: no connection, the built-in preset; run answers with a
    // scripted result (generations) and records nothing else.
    m['generate.status'] = () => this.generation ?? { generating: false, generationId: null, chatId: null, type: null };
    m['connections.active'] = () => this.activeConnection;
    m['presets.active'] = () => ({ id: 'default', name: 'Default', maxContext: this.maxContext });
    m['generate.run'] = ([o]) => ({ generationId: 'g-1', index: null, swipeId: null, text: `reply to ${JSON.stringify(o)}`, stopped: false });
    m['generate.dryRun'] = ([o]) => ({ chatCompletionPayload: { model: '', messages: [], stream: true, options: o }, worldInfoActivation: { timestampMs: 0, trigger: 'normal', entries: [] }, tokenCounts: {} });
    m['generate.start'] = () => ({ generationId: 'g-1' });
    m['generate.stop'] = ([id]) => id !== undefined;
    m['generate.promptHookReply'] = ([, chat]) => ({ accepted: true, changed: chat !== null });
    m['characters.list'] = () => this.characters.map((c) => ({ avatar: c.avatar, name: c.name, tags: [], createdAt: 0, lastChatAt: null, chatCount: 0, hasImage: false }));
    m['groups.list'] = () => this.groups;
    m['characters.get'] = ([avatar]) => {
      const c = this.characters.find((x) => x.avatar === avatar);
      if (!c) throw new HostError('character.not_found', `no character ${String(avatar)}`);
      return c;
    };
    m['chat.get'] = ([id]) => this.details(this.chat(id as string));
    m['chat.getStMessages'] = ([id, range]) => {
      const msgs = this.chat(id as string).messages;
      const r = (range ?? {}) as Record<string, number>;
      if (r.tail !== undefined) return msgs.slice(Math.max(0, msgs.length - r.tail));
      if (r.before !== undefined) return msgs.slice(Math.max(0, r.before - (r.limit ?? 0)), r.before);
      return msgs.slice(r.start ?? 0, r.end ?? msgs.length);
    };
    m['chat.addMessages'] = ([id, input, opts]) => {
      const c = this.chat(id as string);
      const list = (Array.isArray(input) ? input : [input]) as Partial<FakeMessage>[];
      const out: number[] = [];
      const events: [string, Record<string, unknown>][] = [];
      for (const raw of list) {
        const msg = { ...message(raw.mes ?? '', raw.is_user === true), ...raw } as FakeMessage;
        msg.swipes = [msg.mes];
        c.messages.push(msg);
        const index = c.messages.length - 1;
        out.push(index);
        events.push(msg.is_user ? ['message_sent', this.payload(index, msg)] : ['message_received', { ...this.payload(index, msg), type: 'normal' }]);
      }
      this.commit(c, events, (opts as { silent?: boolean } | null)?.silent === true);
      return Array.isArray(input) ? out : out[0];
    };
    m['chat.updateMessages'] = ([id, updates, opts]) => {
      const c = this.chat(id as string);
      const events: [string, Record<string, unknown>][] = [];
      for (const u of (Array.isArray(updates) ? updates : [updates]) as { index: number; patch: Partial<FakeMessage> }[]) {
        const old = c.messages[u.index];
        if (!old) throw new HostError('message.index_out_of_range', `no message ${u.index}`, { index: u.index });
        const next = { ...old, ...u.patch, id: old.id };
        if (u.patch.mes !== undefined) next.swipes = next.swipes.map((s, i) => (i === next.swipe_id ? next.mes : s));
        c.messages[u.index] = next;
        events.push(['message_edited', this.payload(u.index, next)], ['message_updated', this.payload(u.index, next)]);
      }
      this.commit(c, events, (opts as { silent?: boolean } | null)?.silent === true);
      return null;
    };
    m['chat.deleteMessages'] = ([id, index, opts]) => {
      const c = this.chat(id as string);
      const list = (Array.isArray(index) ? index : [index]) as number[];
      const removed = list.map((i) => {
        const msg = c.messages[i];
        if (!msg) throw new HostError('message.index_out_of_range', `no message ${i}`, { index: i });
        return msg;
      });
      const sorted = [...list].sort((x, y) => x - y);
      const deleted = sorted.map((i) => ({ index: i, id: c.messages[i]!.id }));
      for (const i of [...sorted].reverse()) c.messages.splice(i, 1);
      this.commit(c, [['message_deleted', { length: c.messages.length, deleted }]], (opts as { silent?: boolean } | null)?.silent === true);
      return Array.isArray(index) ? removed : removed[0];
    };
    m['chat.saveMetadata'] = ([id, withMeta]) => {
      const c = this.chat(id as string);
      const next = { ...c.metadata };
      for (const [k, v] of Object.entries((withMeta ?? {}) as Record<string, unknown>)) {
        if (v === null) delete next[k];
        else next[k] = v;
      }
      if (JSON.stringify(next) === JSON.stringify(c.metadata)) return { revision: c.revision };
      c.metadata = next;
      return { revision: this.commit(c, [['chat_metadata_updated', { metadata: next }]]) };
    };
    // Personas: the list is host.personas; a lock is the chat's metadata key "persona".
    m['personas.list'] = () => this.personas;
    m['personas.lockToChat'] = ([id, personaId]) => {
      if (personaId !== null && !this.personas.some((p) => p.id === personaId)) throw new HostError('persona.not_found', `no persona ${String(personaId)}`);
      const { revision } = m['chat.saveMetadata']!([id, { persona: personaId }]) as { revision: number };
      return { revision, persona: this.personas.find((p) => p.id === personaId) ?? null };
    };
  }
}
