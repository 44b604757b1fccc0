// The chat list of the selected character or group: newest first, kept fresh by events.
import { get, writable, type Readable } from 'svelte/store';
import type { ChatOwner, ChatSummary, HearthAbi } from '../../abi/types';
import { listen, MESSAGE_EVENTS } from '../lib/events';
import type { ToastStore } from './toasts';

export interface ChatListStore {
  chats: Readable<ChatSummary[]>;
  loading: Readable<boolean>;
  /** avatar is the listed character's avatar key (null when a group's chats, or none, are listed). */
  avatar: Readable<string | null>;
  /** groupId is the listed group's id (null when a character's chats, or none, are listed). */
  groupId: Readable<string | null>;
  /** load shows the chats of a character (its avatar key) or a group ({ groupId }); null clears the list. */
  load(owner: string | ChatOwner | null): Promise<void>;
  refresh(): Promise<void>;
  create(): Promise<ChatSummary | null>;
  rename(chatId: string, fileName: string): Promise<boolean>;
  remove(chatId: string): Promise<boolean>;
  start(): () => void;
}

export function createChatListStore(hearth: HearthAbi, toasts: ToastStore): ChatListStore {
  const chats = writable<ChatSummary[]>([]);
  const loading = writable(false);
  const avatar = writable<string | null>(null);
  const groupId = writable<string | null>(null);
  let seq = 0;

  /** currentOwner is the owner whose chats are listed, as chat.list and chat.create take it. */
  function currentOwner(): ChatOwner | null {
    const a = get(avatar);
    if (a) return { avatar: a };
    const g = get(groupId);
    return g ? { groupId: g } : null;
  }

  async function fetchList(showLoading: boolean): Promise<void> {
    const owner = currentOwner();
    const mine = ++seq;
    if (!owner) {
      chats.set([]);
      loading.set(false);
      return;
    }
    if (showLoading) loading.set(true);
    try {
      const list = await hearth.api.chat.list(owner);
      if (mine === seq) chats.set(list);
    } catch (err) {
      if (mine === seq) toasts.error(err, 'Could not load chats');
    } finally {
      if (mine === seq) loading.set(false);
    }
  }

  let timer: ReturnType<typeof setTimeout> | null = null;
  function refreshSoon(): void {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = null;
      void fetchList(false);
    }, 250);
  }

  return {
    chats,
    loading,
    avatar,
    groupId,
    async load(owner) {
      const next: ChatOwner | null = typeof owner === 'string' ? { avatar: owner } : owner;
      const nextAvatar = next && 'avatar' in next ? next.avatar : null;
      const nextGroup = next && 'groupId' in next ? next.groupId : null;
      if (nextAvatar !== get(avatar) || nextGroup !== get(groupId)) chats.set([]);
      avatar.set(nextAvatar);
      groupId.set(nextGroup);
      await fetchList(true);
    },
    refresh: () => fetchList(false),
    async create() {
      const owner = currentOwner();
      if (!owner) return null;
      try {
        const chat = await hearth.api.chat.create(owner);
        await fetchList(false);
        return chat;
      } catch (err) {
        toasts.error(err, 'Could not create a chat');
        return null;
      }
    },
    async rename(chatId, fileName) {
      const name = fileName.trim();
      const old = get(chats).find((c) => c.chatId === chatId);
      if (!name || name === old?.fileName) return true;
      try {
        const updated = await hearth.api.chat.rename(chatId, name);
        chats.update((list) => list.map((c) => (c.chatId === chatId ? updated : c)));
        return true;
      } catch (err) {
        toasts.error(err, 'Could not rename the chat');
        return false;
      }
    },
    async remove(chatId) {
      try {
        await hearth.api.chat.delete(chatId);
        chats.update((list) => list.filter((c) => c.chatId !== chatId));
        return true;
      } catch (err) {
        toasts.error(err, 'Could not delete the chat');
        return false;
      }
    },
    start() {
      const off = listen(hearth, ['CHAT_CREATED', 'CHAT_DELETED', 'CHAT_RENAMED', ...MESSAGE_EVENTS], (p, name) => {
        const owner = currentOwner();
        if (!owner) return;
        const known = typeof p.chatId === 'string' && get(chats).some((c) => c.chatId === p.chatId);
        const chat = p.chat as { avatar?: unknown; groupId?: unknown } | undefined;
        const mentionsOwner =
          'avatar' in owner ? p.avatar === owner.avatar || chat?.avatar === owner.avatar : p.groupId === owner.groupId || chat?.groupId === owner.groupId;
        if (known || mentionsOwner || name === 'CHAT_CREATED') refreshSoon();
      });
      return () => {
        off();
        if (timer) clearTimeout(timer);
      };
    },
  };
}
