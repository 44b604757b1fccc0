import { get, writable } from 'svelte/store';
import { describe, expect, it, vi } from 'vitest';
import type { ChatSummary, ChatTree, HearthAbi } from '../../abi/types';
import { bookmarkName, createBranchStore, familyTitle, flattenTree, forkLabel, linkNames, MAX_LINKS } from './branches';
import type { ChatView } from './chat';
import { createToasts } from './toasts';

function summary(chatId: string, fields: Partial<ChatSummary> = {}): ChatSummary {
  return {
    chatId,
    fileName: `file ${chatId}`,
    file_name: `file ${chatId}.jsonl`,
    file_id: chatId,
    file_size: '1 kb',
    bytes: 1,
    mes: '',
    last_mes: 0,
    messageCount: 3,
    revision: 1,
    kind: 'main',
    parentChatId: null,
    branchPoint: null,
    avatar: 'Ann.png',
    groupId: null,
    createdAt: 0,
    ...fields,
  };
}

function node(chat: ChatSummary, children: ChatTree[] = []): ChatTree {
  return { chat, children };
}

/** family: root → cp (at 2), br (at 4) → sub (at 5). */
function family(): ChatTree {
  return node(summary('root'), [
    node(summary('cp', { kind: 'checkpoint', parentChatId: 'root', branchPoint: 2 })),
    node(summary('br', { kind: 'branch', parentChatId: 'root', branchPoint: 4 }), [
      node(summary('sub', { kind: 'branch', parentChatId: 'br', branchPoint: 5 })),
    ]),
  ]);
}

describe('flattenTree', () => {
  it('lists depth first with depth, parent and the current chat', () => {
    const { rows, hidden } = flattenTree(family(), 'br');
    expect(rows.map((r) => [r.chat.chatId, r.depth, r.parent?.chatId ?? null, r.current, r.parentMissing])).toEqual([
      ['root', 0, null, false, false],
      ['cp', 1, 'root', false, false],
      ['br', 1, 'root', true, false],
      ['sub', 2, 'br', false, false],
    ]);
    expect(hidden).toBe(0);
  });

  it('marks a root whose parent is gone', () => {
    const { rows } = flattenTree(node(summary('orphan', { kind: 'branch', parentChatId: 'deleted', branchPoint: 1 })), 'orphan');
    expect(rows[0]?.parentMissing).toBe(true);
    expect(flattenTree(null, 'x')).toEqual({ rows: [], hidden: 0 });
  });

  it('bounds the rows, and lists a chat once even if the data repeats it', () => {
    const kids = Array.from({ length: 30 }, (_, i) => node(summary(`k${i}`, { parentChatId: 'root' })));
    const { rows, hidden } = flattenTree(node(summary('root'), [...kids, kids[0] as ChatTree]), null, 10);
    expect(rows).toHaveLength(10);
    expect(hidden).toBe(21);
  });

  it('walks a very deep chain without recursion', () => {
    let tree = node(summary('c5000'));
    for (let i = 4999; i >= 0; i--) tree = node(summary(`c${i}`), [tree]);
    const { rows, hidden } = flattenTree(tree, 'c5000', 6000);
    expect(rows).toHaveLength(5001);
    expect(rows.at(-1)?.current).toBe(true);
    expect(hidden).toBe(0);
  });
});

describe('labels', () => {
  it('reads fork points, links and titles defensively', () => {
    expect(forkLabel({ branchPoint: 12 })).toBe('at #12');
    expect(forkLabel({ branchPoint: null })).toBe('');
    expect(forkLabel({ branchPoint: -1 })).toBe('');
    expect(linkNames(['a', 'a', 3, '', 'b', null])).toEqual(['a', 'b']);
    expect(linkNames('a')).toEqual([]);
    expect(linkNames(Array.from({ length: 500 }, (_, i) => `n${i}`))).toHaveLength(MAX_LINKS);
    expect(bookmarkName('Before the storm')).toBe('Before the storm');
    expect(bookmarkName({})).toBeNull();
    expect(bookmarkName('  ')).toBeNull();
    expect(familyTitle('Ann - 2026-11-22@03h04m05s123ms - Branch #3', 'Ann')).toBe('Branch #3');
    expect(familyTitle('Ann - 2026-11-22@03h04m05s123ms - Checkpoint #12', 'Ann')).toBe('Checkpoint #12');
    expect(familyTitle('Before the storm', 'Ann')).toBe('Before the storm');
  });
});

function setup() {
  const view = writable<ChatView>({ chatId: 'br', avatar: 'Ann.png', groupId: null, start: 0, total: 3, messages: [], version: 1, loading: false });
  const handlers = new Map<string, Set<() => void>>();
  const chat = {
    tree: vi.fn(async (_id: string): Promise<ChatTree> => family()),
    createCheckpoint: vi.fn(async (_id: string, _i: number, o?: { name?: string }) => summary('new', { kind: 'checkpoint', fileName: o?.name ?? 'file br - Checkpoint #1' })),
    createBranch: vi.fn(async () => summary('nb', { kind: 'branch', fileName: 'file br - Branch #1' })),
    resolve: vi.fn(async () => 'cp'),
    current: () => ({ chatId: get(view).chatId ?? '', avatar: 'Ann.png', groupId: null }),
  };
  const hearth = {
    api: {
      chat,
      events: {
        types: { CHAT_CREATED: 'chat_created', CHAT_BRANCH_CREATED: 'chat_branch_created' },
        on(type: string, h: () => void) {
          let set = handlers.get(type);
          if (!set) handlers.set(type, (set = new Set()));
          set.add(h);
          return () => set.delete(h);
        },
      },
    },
    getContext: () => ({ getCurrentChatId: () => 'file br' }),
  } as unknown as HearthAbi;
  const toasts = createToasts(0);
  const opened: string[] = [];
  const show = vi.fn();
  const openChat = (id: string) => {
    opened.push(id);
    view.update((v) => ({ ...v, chatId: id, version: v.version + 1 }));
  };
  const store = createBranchStore({ hearth, toasts, layout: { show }, view, openChat });
  const emit = (type: string) => handlers.get(type)?.forEach((h) => h());
  return { store, chat, view, toasts, opened, show, emit, handlers };
}

const flush = () => new Promise((r) => setTimeout(r, 0));

describe('the branch store', () => {
  it('loads the open chat’s tree, refreshes on events, and follows chat switches', async () => {
    const { store, chat, view, emit, handlers } = setup();
    const off = store.tree.subscribe(() => {});
    await flush();
    expect(chat.tree).toHaveBeenCalledWith('br');
    expect(get(store.tree).rows.find((r) => r.current)?.chat.chatId).toBe('br');
    expect(get(store.parent)?.chatId).toBe('root');

    emit('chat_branch_created');
    emit('chat_deleted'); // the fallback name of a constant the host map lacks
    await flush();
    await flush();
    expect(chat.tree.mock.calls.length).toBeGreaterThanOrEqual(2);

    view.update((v) => ({ ...v, chatId: 'root' }));
    await flush();
    expect(chat.tree).toHaveBeenLastCalledWith('root');
    expect(get(store.parent)).toBeNull();

    off();
    expect([...handlers.values()].every((s) => s.size === 0)).toBe(true);
  });

  it('drops a tree that answers after the chat changed', async () => {
    const { store, chat, view } = setup();
    let release: (t: ChatTree) => void = () => {};
    chat.tree.mockImplementationOnce(() => new Promise<ChatTree>((r) => (release = r)));
    const off = store.tree.subscribe(() => {});
    view.update((v) => ({ ...v, chatId: 'cp' }));
    release(node(summary('stale')));
    await flush();
    await flush();
    const t = get(store.tree);
    expect(t.chatId).toBe('cp');
    expect(t.rows.some((r) => r.chat.chatId === 'stale')).toBe(false);
    expect(t.rows.find((r) => r.current)?.chat.chatId).toBe('cp');
    off();
  });

  it('branches at the shown swipe and opens the branch as a person’s choice', async () => {
    const { store, chat, opened, show, toasts } = setup();
    const made = await store.createBranch(4, 1);
    expect(chat.createBranch).toHaveBeenCalledWith('br', 4, { swipeId: 1, open: false });
    expect(made?.chatId).toBe('nb');
    expect(opened).toEqual(['nb']);
    expect(show).toHaveBeenCalledWith('chat');
    expect(get(toasts).map((t) => t.message)).toEqual(['Branch created: Branch #1 · file br']);
    await store.createBranch(2);
    expect(chat.createBranch).toHaveBeenLastCalledWith('nb', 2, { open: false });
  });

  it('saves checkpoints with a trimmed name or the default, and reports failures', async () => {
    const { store, chat, toasts } = setup();
    await store.createCheckpoint('br', 2, '  Before the storm ');
    expect(chat.createCheckpoint).toHaveBeenLastCalledWith('br', 2, { name: 'Before the storm' });
    await store.createCheckpoint('br', 2, '   ');
    expect(chat.createCheckpoint).toHaveBeenLastCalledWith('br', 2, undefined);
    chat.createCheckpoint.mockRejectedValueOnce(Object.assign(new Error('bad name'), { code: 'validation.invalid_argument' }));
    expect(await store.createCheckpoint('br', 2, 'x/y')).toBeNull();
    const list = get(toasts);
    expect(list.map((t) => t.message)).toEqual([
      'Checkpoint saved: Before the storm',
      'Checkpoint saved: Checkpoint #1 · file br',
      'Could not save the checkpoint: bad name',
    ]);
    expect(list[2]?.code).toBe('validation.invalid_argument');
  });

  it('opens a linked chat by its file name under the open chat’s owner', async () => {
    const { store, chat, opened, toasts } = setup();
    expect(await store.openByName('Before the storm', 'checkpoint')).toBe(true);
    expect(chat.resolve).toHaveBeenCalledWith({ avatar: 'Ann.png', fileName: 'Before the storm' });
    expect(opened).toEqual(['cp']);
    chat.resolve.mockRejectedValueOnce(Object.assign(new Error('no such chat'), { code: 'chat.not_found' }));
    expect(await store.openByName('Gone', 'branch')).toBe(false);
    expect(get(toasts).at(-1)?.message).toBe('Could not open the branch “Gone”: That chat no longer exists.');
  });

  it('asks for a checkpoint name for the open chat', () => {
    const { store } = setup();
    store.askCheckpoint(3);
    expect(get(store.naming)).toEqual({ chatId: 'br', index: 3, fileName: 'file br' });
  });
});
