// Checkpoints and branches in the UI (HOST-ABI §3.7): the open chat's
// family tree (api.chat.tree), kept fresh by chat events, and the actions
// the message rows and the chat header offer (create a checkpoint or a
// branch, open one by the name a message links to, go back to the parent).
import { getContext, setContext, tick } from 'svelte';
import { derived, get, writable, type Readable, type Writable } from 'svelte/store';
import type { ChatSummary, ChatTree, HearthAbi } from '../../abi/types';
import { chatTitle } from '../lib/chatname';
import { eventType } from '../lib/events';
import type { ChatView } from './chat';
import type { LayoutStore } from './layout';
import type { ToastStore } from './toasts';

/** MAX_TREE_ROWS bounds the rows the timeline renders; a family can hold thousands of chats. */
export const MAX_TREE_ROWS = 400;

/** MAX_LINKS bounds the branch names one message lists (extra.branches comes from files and scripts). */
export const MAX_LINKS = 50;

/** TREE_EVENTS are the constant names whose events can change a family tree. */
export const TREE_EVENTS = ['CHAT_CREATED', 'CHAT_BRANCH_CREATED', 'CHAT_DELETED', 'CHAT_RENAMED', 'CHAT_CHANGED'] as const;

/** TreeRow is one chat of the timeline, in depth-first order. */
export interface TreeRow {
  chat: ChatSummary;
  depth: number;
  /** parent is the chat this one was made from, when it is in the tree. */
  parent: ChatSummary | null;
  /** parentMissing: the chat names a parent that no longer exists. */
  parentMissing: boolean;
  current: boolean;
}

/** TreeState is what the timeline shows for the open chat. */
export interface TreeState {
  chatId: string | null;
  rows: TreeRow[];
  /** hidden counts the rows left out past MAX_TREE_ROWS. */
  hidden: number;
  loading: boolean;
  failed: boolean;
}

/**
 * flattenTree lists a tree depth first (children oldest first, as the host
 * sends them), without recursion so a deep chain of branches cannot
 * overflow the stack, and at most max rows.
 */
export function flattenTree(root: ChatTree | null, currentId: string | null, max = MAX_TREE_ROWS): { rows: TreeRow[]; hidden: number } {
  const rows: TreeRow[] = [];
  if (!root) return { rows, hidden: 0 };
  const ids = new Set<string>();
  const stack: { node: ChatTree; depth: number; parent: ChatSummary | null }[] = [{ node: root, depth: 0, parent: null }];
  const all: { node: ChatTree; depth: number; parent: ChatSummary | null }[] = [];
  let hidden = 0;
  while (stack.length > 0) {
    const top = stack.pop();
    if (!top || ids.has(top.node.chat.chatId)) continue;
    ids.add(top.node.chat.chatId);
    if (all.length >= max) {
      hidden++;
    } else {
      all.push(top);
    }
    const kids = Array.isArray(top.node.children) ? top.node.children : [];
    for (let i = kids.length - 1; i >= 0; i--) {
      const k = kids[i];
      if (k?.chat) stack.push({ node: k, depth: top.depth + 1, parent: top.node.chat });
    }
  }
  for (const { node, depth, parent } of all) {
    const p = node.chat.parentChatId;
    rows.push({
      chat: node.chat,
      depth,
      parent,
      parentMissing: p !== null && p !== undefined && parent === null && !ids.has(p),
      current: node.chat.chatId === currentId,
    });
  }
  return { rows, hidden };
}

/** forkLabel says where a checkpoint or branch forks from its parent: "at #12". */
export function forkLabel(chat: Pick<ChatSummary, 'branchPoint'>): string {
  return typeof chat.branchPoint === 'number' && Number.isInteger(chat.branchPoint) && chat.branchPoint >= 0 ? `at #${chat.branchPoint}` : '';
}

/** linkNames reads a message's extra.branches: strings only, at most MAX_LINKS, no repeats. */
export function linkNames(raw: unknown): string[] {
  if (!Array.isArray(raw)) return [];
  const out: string[] = [];
  for (const v of raw.slice(0, MAX_LINKS * 4)) {
    if (typeof v === 'string' && v.trim() !== '' && !out.includes(v)) out.push(v);
    if (out.length >= MAX_LINKS) break;
  }
  return out;
}

/** bookmarkName reads a message's extra.bookmark_link (SillyTavern's checkpoint link). */
export function bookmarkName(raw: unknown): string | null {
  return typeof raw === 'string' && raw.trim() !== '' ? raw : null;
}

/** NamingRequest is the message a checkpoint is being named for. */
export interface NamingRequest {
  chatId: string;
  index: number;
  fileName: string;
}

export interface BranchStore {
  tree: Readable<TreeState>;
  /** parent is the open chat's parent while it still exists. */
  parent: Readable<ChatSummary | null>;
  /** naming is the checkpoint the name dialog is open for. */
  naming: Writable<NamingRequest | null>;
  /** askCheckpoint opens the name dialog for the message at index of the open chat. */
  askCheckpoint(index: number): void;
  /** createCheckpoint makes a checkpoint (the default name when name is empty) and stays on the chat. */
  createCheckpoint(chatId: string, index: number, name?: string): Promise<ChatSummary | null>;
  /** createBranch makes a branch of the open chat at index (at its swipe swipeId) and opens it. */
  createBranch(index: number, swipeId?: number): Promise<ChatSummary | null>;
  /** openByName opens a chat of the open chat's owner by its file name (a message's link). */
  openByName(fileName: string, what: string): Promise<boolean>;
  /** open opens a chat, shows the chat pane, and once it is loaded calls reveal (if any). */
  open(chatId: string, reveal?: () => void): Promise<void>;
  refresh(): void;
}

/** BranchDeps is what the store needs from the app. */
export interface BranchDeps {
  hearth: HearthAbi;
  toasts: ToastStore;
  layout: Pick<LayoutStore, 'show'>;
  view: Readable<ChatView>;
  /** openChat opens a chat as a person's choice (App remembers it as the character's last). */
  openChat(chatId: string): void;
  /** characterName is the open chat's character, for friendly chat titles in notices. */
  characterName?: () => string | null | undefined;
}

const EMPTY: TreeState = { chatId: null, rows: [], hidden: 0, loading: false, failed: false };

export function createBranchStore({ hearth, toasts, layout, view, openChat, characterName }: BranchDeps): BranchStore {
  const naming = writable<NamingRequest | null>(null);
  let seq = 0;
  let inFlight = false;
  let again = false;

  function currentChat(): string | null {
    return get(view).chatId;
  }

  /**
   * load fetches the open chat's tree. Calls made while one is in flight
   * coalesce into one more fetch after it, and an answer for a chat no
   * longer open is dropped.
   */
  async function load(set: (s: TreeState) => void, update: (fn: (s: TreeState) => TreeState) => void): Promise<void> {
    if (inFlight) {
      again = true;
      return;
    }
    const chatId = currentChat();
    const mine = ++seq;
    if (!chatId) {
      set(EMPTY);
      return;
    }
    inFlight = true;
    update((s) => (s.chatId === chatId ? { ...s, loading: true } : { ...EMPTY, chatId, loading: true }));
    try {
      const root = await hearth.api.chat.tree(chatId);
      if (mine === seq && currentChat() === chatId) set({ chatId, ...flattenTree(root, chatId), loading: false, failed: false });
    } catch {
      // A chat deleted or closed meanwhile: its tree is simply gone.
      if (mine === seq && currentChat() === chatId) set({ ...EMPTY, chatId, failed: true });
    } finally {
      inFlight = false;
      if (again) {
        again = false;
        void load(set, update);
      }
    }
  }

  let reload: () => void = () => {};
  const tree = writable<TreeState>(EMPTY, (set, update) => {
    reload = () => void load(set, update);
    let last: string | null | undefined;
    const offView = view.subscribe((v) => {
      if (v.chatId === last) return;
      last = v.chatId;
      seq++; // an answer for the chat left behind is stale
      reload();
    });
    const offs = TREE_EVENTS.map((name) => hearth.api.events.on(eventType(hearth, name), () => reload()));
    return () => {
      offView();
      offs.forEach((off) => off());
      reload = () => {};
    };
  });

  const parent = derived(tree, (t) => {
    const row = t.rows.find((r) => r.current);
    return row?.parent ?? null;
  });

  /** whenOpen resolves true once the view shows chatId loaded, false if it moves to another chat first. */
  function whenOpen(chatId: string): Promise<boolean> {
    return new Promise((resolve) => {
      let settled = false;
      let off: (() => void) | null = null;
      const finish = (ok: boolean) => {
        settled = true;
        resolve(ok);
        off?.();
      };
      off = view.subscribe((v) => {
        if (settled) return;
        if (v.chatId === chatId && !v.loading) finish(true);
        else if (v.chatId !== chatId) finish(false);
      });
      if (settled) off();
    });
  }

  async function open(chatId: string, reveal?: () => void): Promise<void> {
    openChat(chatId);
    layout.show('chat');
    if (!reveal) return;
    if (await whenOpen(chatId)) {
      await tick();
      reveal();
    }
  }

  async function openByName(fileName: string, what: string): Promise<boolean> {
    const cur = hearth.api.chat.current();
    if (!cur) return false;
    const ref = cur.avatar ? { avatar: cur.avatar, fileName } : cur.groupId ? { groupId: cur.groupId, fileName } : null;
    if (!ref) return false;
    try {
      const chatId = await hearth.api.chat.resolve(ref);
      await open(chatId);
      return true;
    } catch (err) {
      toasts.error(err, `Could not open the ${what} “${chatTitle(fileName, characterName?.())}”`);
      return false;
    }
  }

  return {
    tree,
    parent,
    naming,
    askCheckpoint(index) {
      const chatId = currentChat();
      if (!chatId) return;
      const row = get(tree).rows.find((r) => r.chat.chatId === chatId);
      naming.set({ chatId, index, fileName: row?.chat.fileName ?? hearth.getContext().getCurrentChatId() ?? '' });
    },
    async createCheckpoint(chatId, index, name) {
      const trimmed = name?.trim() ?? '';
      try {
        const made = await hearth.api.chat.createCheckpoint(chatId, index, trimmed ? { name: trimmed } : undefined);
        toasts.info(`Checkpoint saved: ${chatTitle(made.fileName, characterName?.())}`);
        return made;
      } catch (err) {
        toasts.error(err, 'Could not save the checkpoint');
        return null;
      }
    },
    async createBranch(index, swipeId) {
      const chatId = currentChat();
      if (!chatId) return null;
      try {
        // Opened here rather than by the ABI, so the app remembers it as a person's choice.
        const made = await hearth.api.chat.createBranch(chatId, index, swipeId === undefined ? { open: false } : { swipeId, open: false });
        await open(made.chatId);
        toasts.info(`Branch created: ${chatTitle(made.fileName, characterName?.())}`);
        return made;
      } catch (err) {
        toasts.error(err, 'Could not create the branch');
        return null;
      }
    },
    openByName,
    open,
    refresh: () => reload(),
  };
}

const KEY = Symbol('hearth.branches');

/** setBranches hands the store to the components below (App sets it once). */
export function setBranches(store: BranchStore): void {
  setContext(KEY, store);
}

/** getBranches is the store App set. */
export function getBranches(): BranchStore {
  const store = getContext<BranchStore | undefined>(KEY);
  if (!store) throw new Error('getBranches() outside the Hearth app');
  return store;
}

const FAMILY_SUFFIX = / - (Checkpoint|Branch) #(\d{1,9})$/;

/**
 * familyTitle is the short label of a chat in its family: "Checkpoint #2"
 * for Hearth's and SillyTavern's default names, else the friendlier chat
 * title (lib/chatname) of a name the user chose.
 */
export function familyTitle(fileName: string, characterName?: string | null): string {
  const m = FAMILY_SUFFIX.exec(fileName);
  if (m) return `${m[1]} #${m[2]}`;
  return chatTitle(fileName, characterName);
}
