// Test fixture for the lifecycle tests: the shared FakeHost plus the chat
// lifecycle host methods (list, create, resolve, rename, delete, patch),
// behaving like the Go host: errors as HostError codes, events after the
// answer, chats of a character newest first.
import { createHearthAbi } from './abi';
import { HostError } from './errors';
import { applyPatch, PatchError } from './json-patch';
import { FakeHost, message, type FakeChat } from './testing/fake-host';
import type { HearthAbi, JsonPatchOp } from './types';

const wire = <T>(v: T): T => (v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T));

/** LifecycleHost is a FakeHost that also knows the chat lifecycle methods. */
export class LifecycleHost extends FakeHost {
  /** order of last change, for chat.list's newest-first order. */
  private readonly touched = new Map<string, number>();
  private clock = 0;
  private created = 0;
  private readonly more: Record<string, (a: unknown[]) => unknown> = {
    'chat.list': ([owner]) => {
      const avatar = (owner as { avatar?: unknown }).avatar;
      return [...this.chats.values()]
        .filter((c) => c.avatar === avatar)
        .sort((a, b) => (this.touched.get(b.chatId) ?? 0) - (this.touched.get(a.chatId) ?? 0))
        .map((c) => this.summary(c));
    },
    'chat.create': ([owner]) => {
      const avatar = (owner as { avatar?: unknown }).avatar;
      if (typeof avatar !== 'string') throw new HostError('group.not_found', 'group chats are not available yet');
      if (!this.characters.some((c) => c.avatar === avatar)) throw new HostError('character.not_found', `no character ${avatar}`);
      const chatId = `new-${++this.created}`;
      const chat = this.addChat(chatId, 0);
      chat.avatar = avatar;
      chat.fileName = `Seraphina - new ${this.created}`;
      chat.messages.push(message('Greetings.'));
      this.touch(chatId);
      setTimeout(() => this.push('chat_created', { chatId, revision: 0, avatar }), 0);
      return this.summary(chat);
    },
    'chat.resolve': ([ref]) => {
      const r = ref as { chatId?: string; avatar?: string; fileName?: string };
      if (r.chatId) return this.chat(r.chatId).chatId;
      if (typeof r.avatar !== 'string' || typeof r.fileName !== 'string') throw new HostError('validation.invalid_argument', 'a chat ref is { chatId } or { avatar, fileName }');
      const name = r.fileName.replace(/\.jsonl$/, '');
      const hit = [...this.chats.values()].find((c) => c.avatar === r.avatar && c.fileName === name);
      if (!hit) throw new HostError('chat.not_found', `no chat "${name}" for character "${r.avatar}"`, { fileName: name });
      return hit.chatId;
    },
    'chat.rename': ([id, newName]) => {
      const c = this.chat(id as string);
      const name = String(newName).trim().replace(/\.jsonl$/, '');
      if (name === '') throw new HostError('validation.invalid_argument', 'fileName must not be empty');
      if ([...this.chats.values()].some((o) => o !== c && o.avatar === c.avatar && o.fileName === name)) {
        throw new HostError('chat.name_taken', `a chat named "${name}" exists`);
      }
      const old = c.fileName;
      c.fileName = name;
      setTimeout(() => this.push('chat_renamed', { chatId: c.chatId, revision: c.revision, oldFileName: old, fileName: name }), 0);
      return this.summary(c);
    },
    'chat.delete': ([id]) => {
      const c = this.chat(id as string);
      this.chats.delete(c.chatId);
      setTimeout(() => this.push('chat_deleted', { chatId: c.chatId, revision: c.revision, fileName: c.fileName, avatar: c.avatar }), 0);
      return null;
    },
    'chat.patch': ([id, ops]) => {
      const c = this.chat(id as string);
      let next: { metadata: Record<string, unknown>; messages: FakeChat['messages'] };
      try {
        next = applyPatch({ metadata: c.metadata, messages: c.messages }, ops as JsonPatchOp[]);
      } catch (err) {
        if (err instanceof PatchError) throw new HostError('patch.invalid', err.message);
        throw err;
      }
      c.metadata = next.metadata;
      c.messages = next.messages;
      return { revision: this.commit(c, [['chat_patched', { ops, length: c.messages.length }]]) };
    },
  };

  /** touch marks chatId as the most recently changed chat. */
  touch(chatId: string): void {
    this.touched.set(chatId, ++this.clock);
  }

  private summary(c: FakeChat) {
    return {
      chatId: c.chatId,
      fileName: c.fileName,
      file_name: `${c.fileName}.jsonl`,
      file_id: c.fileName,
      file_size: '1.0 KB',
      mes: c.messages.at(-1)?.mes ?? '',
      last_mes: this.touched.get(c.chatId) ?? 0,
      messageCount: c.messages.length,
      revision: c.revision,
      avatar: c.avatar,
    };
  }

  override async invoke(method: string, args: readonly unknown[]): Promise<unknown> {
    const fn = this.more[method];
    if (!fn) return super.invoke(method, args);
    const a = wire([...args]);
    this.calls.push({ method, args: a });
    if (this.gate) await this.gate(method, a);
    const fail = this.failures.get(method);
    if (fail) {
      this.failures.delete(method);
      throw JSON.stringify(fail);
    }
    return wire(fn(a));
  }
}

/** setupLifecycle builds a ready ABI over a LifecycleHost prepared by prepare. */
export async function setupLifecycle(prepare: (host: LifecycleHost) => void = () => {}): Promise<{ host: LifecycleHost; h: HearthAbi }> {
  const host = new LifecycleHost();
  prepare(host);
  const h = createHearthAbi(host, { connected: Promise.resolve(), load: { tailSize: 10, pageSize: 7 }, settleMs: 50 });
  await h.ready;
  return { host, h };
}
