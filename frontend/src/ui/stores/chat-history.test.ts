import { get, writable } from 'svelte/store';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { UndoStatus } from '../../abi/types';
import { createChatHistory } from './chat-history';
import { createFakeHearth } from './fake-hearth';
import { createToasts } from './toasts';

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

function setup() {
  const fake = createFakeHearth();
  const toasts = createToasts(0);
  const view = writable<{ chatId: string | null; version: number }>({ chatId: null, version: 0 });
  const history = createChatHistory({ hearth: fake.hearth, toasts, view, refreshMs: 5 });
  const stop = history.start();
  return { fake, toasts, view, history, stop };
}

const status = (undo: string | null, redo: string | null = null, revision = 5): UndoStatus => ({
  revision,
  undo: undo ? { revision: revision, method: undo } : null,
  redo: redo ? { revision: revision - 1, method: redo } : null,
});

describe('chat history', () => {
  afterEach(() => vi.useRealTimers());

  it('reads the status of the open chat once a burst of changes is over, and again on a metadata write', async () => {
    const { fake, view, history } = setup();
    fake.chat.undoStatus!.mockResolvedValue(status('deleteMessages'));
    view.set({ chatId: 'c1', version: 1 });
    view.set({ chatId: 'c1', version: 2 });
    view.set({ chatId: 'c1', version: 3 });
    await wait(20);
    expect(fake.chat.undoStatus).toHaveBeenCalledTimes(1);
    expect(fake.chat.undoStatus).toHaveBeenCalledWith('c1');
    expect(get(history.status)).toMatchObject({ chatId: 'c1', undo: { method: 'deleteMessages' }, redo: null });

    fake.chat.undoStatus!.mockResolvedValue(status('saveMetadata'));
    fake.emit('chat_metadata_updated', { chatId: 'other', revision: 2 });
    await wait(20);
    expect(fake.chat.undoStatus).toHaveBeenCalledTimes(1);
    fake.emit('chat_metadata_updated', { chatId: 'c1', revision: 6 });
    await wait(20);
    expect(get(history.status)?.undo?.method).toBe('saveMetadata');
  });

  it('forgets the last chat’s status at once and drops an answer that came too late', async () => {
    const { fake, view, history } = setup();
    fake.chat.undoStatus!.mockResolvedValueOnce(status('deleteMessages'));
    view.set({ chatId: 'c1', version: 1 });
    await wait(20);
    let late!: (s: UndoStatus) => void;
    fake.chat.undoStatus!.mockImplementationOnce(() => new Promise((r) => (late = r)));
    view.set({ chatId: 'c1', version: 2 });
    await wait(20);
    fake.chat.undoStatus!.mockResolvedValueOnce(status(null));
    view.set({ chatId: 'c2', version: 3 });
    expect(get(history.status)).toBeNull();
    await wait(20);
    late(status('commitReply'));
    await wait(0);
    expect(get(history.status)).toMatchObject({ chatId: 'c2', undo: null });

    fake.chat.undoStatus!.mockRejectedValueOnce(Object.assign(new Error('gone'), { code: 'chat.not_found' }));
    view.set({ chatId: 'c2', version: 4 });
    await wait(20);
    expect(get(history.status)).toBeNull();
    view.set({ chatId: null, version: 5 });
    await wait(20);
    expect(get(history.status)).toBeNull();
  });

  it('undoes without ifRevision when the write’s event never came, and stops listening after a while', async () => {
    vi.useFakeTimers();
    const { fake, toasts, history } = setup();
    const write = history.watch('c1', ['MESSAGE_DELETED'], () => true);
    history.offer('Message deleted', 'c1', write);
    get(toasts)[0]!.action!.run();
    await history.idle();
    expect(fake.chat.undo).toHaveBeenCalledWith('c1', undefined);

    const later = history.watch('c1', ['MESSAGE_DELETED'], () => true);
    vi.advanceTimersByTime(61_000);
    fake.emit('message_deleted', { chatId: 'c1', revision: 9, deleted: [] });
    expect(later.revision()).toBeNull();
    const other = history.watch('c1', ['MESSAGE_DELETED'], (p) => p.length === 0);
    fake.emit('message_deleted', { chatId: 'c2', revision: 3, length: 0 });
    fake.emit('message_deleted', { chatId: 'c1', revision: 4, length: 1 });
    expect(other.revision()).toBeNull();
    fake.emit('message_deleted', { chatId: 'c1', revision: 5, length: 0 });
    fake.emit('message_deleted', { chatId: 'c1', revision: 6, length: 0 });
    expect(other.revision()).toBe(5);
  });
});
