import { get } from 'svelte/store';
import { describe, expect, it, vi } from 'vitest';
import { createChatViewStore, LOAD_REFRESH_MS } from './chat';
import { createConfirm } from './confirm';
import { createFakeHearth, message } from './fake-hearth';
import { createToasts } from './toasts';

const flush = () => new Promise((r) => setTimeout(r, 0));

function setup() {
  const fake = createFakeHearth();
  const toasts = createToasts(0);
  const confirm = createConfirm();
  const store = createChatViewStore(fake.hearth, toasts, confirm);
  const stop = store.start();
  return { fake, toasts, confirm, store, stop };
}

describe('chat view store', () => {
  it('shows the tail first while select() loads, then the whole chat', async () => {
    const { fake, store } = setup();
    let finish!: () => void;
    fake.chat.select!.mockImplementation(() => new Promise<void>((r) => (finish = r)));
    const selecting = store.select('c1');
    expect(get(store.view)).toMatchObject({ chatId: 'c1', loading: true, messages: [] });

    fake.setLoaded({ chatId: 'c1', start: 8, total: 10, messages: [message('m8'), message('m9')] });
    fake.emit('chat_load_progress', { chatId: 'c1' });
    await flush();
    expect(get(store.view)).toMatchObject({ start: 8, total: 10, loading: true });
    expect(get(store.view).messages.map((m) => m.id)).toEqual(['m8', 'm9']);

    const all = Array.from({ length: 10 }, (_, i) => message(`m${i}`));
    fake.setLoaded({ chatId: 'c1', start: 0, total: 10, messages: all });
    finish();
    await selecting;
    expect(get(store.view)).toMatchObject({ start: 0, total: 10, loading: false, avatar: 'Ann.png' });
  });

  it('updates the list for later pages at most every LOAD_REFRESH_MS', async () => {
    vi.useFakeTimers();
    try {
      const { fake, store } = setup();
      fake.chat.select!.mockImplementation(() => new Promise<void>(() => {}));
      void store.select('c1');
      const page = (start: number) => {
        fake.setLoaded({ chatId: 'c1', start, total: 10, messages: Array.from({ length: 10 - start }, (_, i) => message(`m${start + i}`)) });
        fake.emit('chat_load_progress', { chatId: 'c1' });
      };
      page(8);
      await vi.advanceTimersByTimeAsync(0);
      expect(get(store.view).start).toBe(8);
      const shown = get(store.view).version;
      page(6);
      page(4);
      await vi.advanceTimersByTimeAsync(LOAD_REFRESH_MS - 1);
      expect(get(store.view)).toMatchObject({ start: 8, version: shown });
      await vi.advanceTimersByTimeAsync(1);
      expect(get(store.view)).toMatchObject({ start: 4, version: shown + 1, loading: true });
    } finally {
      vi.useRealTimers();
    }
  });

  it('follows a select() made outside the UI from its first page to CHAT_CHANGED', async () => {
    const { fake, store } = setup();
    fake.setLoaded({ chatId: 'mine', start: 0, total: 1, messages: [message('a0')] });
    await store.select('mine');
    store.editing.set('a0');

    fake.setLoaded({ chatId: 'theirs', start: 3, total: 5, messages: [message('t3'), message('t4')] });
    fake.emit('chat_load_progress', { chatId: 'theirs' });
    expect(get(store.view)).toMatchObject({ chatId: 'theirs', avatar: 'Ann.png', start: 3, total: 5, loading: true });
    expect(get(store.editing)).toBeNull();

    fake.setLoaded({ chatId: 'theirs', start: 0, total: 5, messages: ['t0', 't1', 't2', 't3', 't4'].map((id) => message(id)) });
    fake.emit('chat_id_changed', { chatId: 'theirs' });
    expect(get(store.view)).toMatchObject({ chatId: 'theirs', start: 0, total: 5, loading: false });
  });

  it('gives way quietly when a script selects another chat while the UI is opening one', async () => {
    const { fake, store, toasts } = setup();
    let fail!: (err: unknown) => void;
    fake.chat.select!.mockImplementation(() => new Promise<void>((_, reject) => (fail = reject)));
    const mine = store.select('mine');
    fake.setLoaded({ chatId: 'theirs', start: 0, total: 1, messages: [message('t0')] });
    fake.emit('chat_load_progress', { chatId: 'theirs' });
    fail(Object.assign(new Error('replaced'), { code: 'chat.select_superseded' }));
    await mine;
    expect(get(toasts)).toEqual([]);
    fake.emit('chat_id_changed', { chatId: 'theirs' });
    expect(get(store.view)).toMatchObject({ chatId: 'theirs', total: 1, loading: false });
  });

  it('finishes opening a chat when a script selects the same chat meanwhile', async () => {
    const { fake, store } = setup();
    let fail!: (err: unknown) => void;
    fake.chat.select!.mockImplementation(() => new Promise<void>((_, reject) => (fail = reject)));
    const mine = store.select('c1');
    fake.setLoaded({ chatId: 'c1', start: 1, total: 2, messages: [message('m1')] });
    fake.emit('chat_load_progress', { chatId: 'c1' });
    fail(Object.assign(new Error('replaced'), { code: 'chat.select_superseded' }));
    await mine;
    fake.setLoaded({ chatId: 'c1', start: 0, total: 2, messages: [message('m0'), message('m1')] });
    fake.emit('chat_id_changed', { chatId: 'c1' });
    expect(get(store.view)).toMatchObject({ chatId: 'c1', start: 0, total: 2, loading: false });
  });

  it('finishes opening a chat when a script selects the same chat before either has a page', async () => {
    const { fake, store } = setup();
    let fail!: (err: unknown) => void;
    fake.chat.select!.mockImplementation(() => new Promise<void>((_, reject) => (fail = reject)));
    const mine = store.select('c1');
    fail(Object.assign(new Error('replaced'), { code: 'chat.select_superseded' }));
    await mine;
    expect(get(store.view)).toMatchObject({ chatId: 'c1', loading: true });
    fake.setLoaded({ chatId: 'c1', start: 0, total: 2, messages: [message('m0'), message('m1')] }, true);
    fake.emit('chat_id_changed', { chatId: 'c1' });
    await flush();
    expect(get(store.view)).toMatchObject({ chatId: 'c1', start: 0, total: 2, loading: false });
  });

  it('finishes opening a chat when a script selects the same chat and is done before the UI hears it was replaced', async () => {
    const { fake, store } = setup();
    let fail!: (err: unknown) => void;
    fake.chat.select!.mockImplementation(() => new Promise<void>((_, reject) => (fail = reject)));
    const mine = store.select('c1');
    // The script's select() overtook the UI's: the whole chat is in, its CHAT_CHANGED has gone…
    fake.setLoaded({ chatId: 'c1', start: 0, total: 2, messages: [message('m0'), message('m1')] }, true);
    fake.emit('chat_load_progress', { chatId: 'c1' });
    fake.emit('chat_id_changed', { chatId: 'c1' });
    // …and only then does the UI's select() hear that it was replaced.
    fail(Object.assign(new Error('replaced'), { code: 'chat.select_superseded' }));
    await mine;
    expect(get(store.view)).toMatchObject({ chatId: 'c1', start: 0, total: 2, loading: false });
  });

  it('closes the view when the script that took over closes the chat', async () => {
    const { fake, store } = setup();
    fake.chat.select!.mockRejectedValueOnce(
      Object.assign(new Error('an explicit select() chose this window\'s chat'), { code: 'chat.select_superseded', details: { reason: 'explicit' } }),
    );
    await store.select('mine', { automatic: true });
    expect(get(store.view)).toMatchObject({ chatId: 'mine', loading: true });
    fake.setLoaded(null);
    fake.emit('chat_id_changed', {});
    await flush();
    expect(get(store.view)).toMatchObject({ chatId: null, loading: false });
  });

  it('ignores a select that was superseded', async () => {
    const { fake, store } = setup();
    const resolvers: (() => void)[] = [];
    fake.chat.select!.mockImplementation(() => new Promise<void>((r) => resolvers.push(r)));
    const a = store.select('a');
    const b = store.select('b');
    fake.setLoaded({ chatId: 'b', start: 0, total: 1, messages: [message('x')] });
    resolvers[1]!();
    await b;
    resolvers[0]!();
    await a;
    expect(get(store.view)).toMatchObject({ chatId: 'b', loading: false });
  });

  it('re-reads loaded() on message events of the open chat only', async () => {
    const { fake, store } = setup();
    fake.setLoaded({ chatId: 'c1', start: 0, total: 1, messages: [message('m0')] });
    await store.select('c1');
    const v0 = get(store.view).version;
    fake.setLoaded({ chatId: 'c1', start: 0, total: 2, messages: [message('m0'), message('m1')] });
    fake.emit('message_received', { chatId: 'other', id: 'zz' });
    await flush();
    expect(get(store.view).version).toBe(v0);
    fake.emit('message_received', { chatId: 'c1', id: 'm1', index: 1 });
    fake.emit('message_edited', { chatId: 'c1', id: 'm1', index: 1 });
    await flush();
    expect(get(store.view).version).toBe(v0 + 1); // coalesced
    expect(get(store.view).total).toBe(2);
  });

  it('emits a render event once per new message, after its row mounts', async () => {
    const { fake, store } = setup();
    fake.setLoaded({ chatId: 'c1', start: 0, total: 1, messages: [message('m0')] });
    await store.select('c1');
    fake.setLoaded({
      chatId: 'c1',
      start: 0,
      total: 3,
      messages: [message('m0'), message('u1', { is_user: true }), message('m2')],
    });
    fake.emit('message_sent', { chatId: 'c1', id: 'u1', index: 1 });
    fake.emit('message_received', { chatId: 'c1', id: 'm2', index: 2, type: 'normal' });
    await flush();
    store.rowMounted('m0'); // loaded with the chat: no event
    expect(fake.emitted).toEqual([]);
    store.rowMounted('u1');
    store.rowMounted('u1'); // remounted after scrolling: still once
    store.rowMounted('m2');
    await flush();
    expect(fake.emitted).toEqual([
      { type: 'user_message_rendered', args: [1] },
      { type: 'character_message_rendered', args: [2, 'normal'] },
    ]);
  });

  it('acts on messages by id, at their current index', async () => {
    const { fake, store, confirm, toasts } = setup();
    fake.setLoaded({ chatId: 'c1', start: 5, total: 7, messages: [message('a'), message('b', { is_user: true })] });
    await store.select('c1');

    await store.saveEdit('b', 'new text');
    expect(fake.chat.updateMessages).toHaveBeenCalledWith('c1', { index: 6, patch: { mes: 'new text' } });
    await store.setExcluded('a', true);
    expect(fake.chat.updateMessages).toHaveBeenLastCalledWith('c1', { index: 5, patch: { is_system: true } });
    await store.setHidden('a', true);
    expect(fake.chat.setMessageHidden).toHaveBeenCalledWith('c1', 'a', true);
    await store.swipe('a', 'right');
    expect(fake.chat.swipe).toHaveBeenCalledWith('c1', 5, { direction: 'right' });

    const removing = store.remove('b');
    expect(get(confirm)).toMatchObject({ danger: true });
    confirm.answer(true);
    await removing;
    expect(fake.chat.deleteMessages).toHaveBeenCalledWith('c1', 6);
    expect(get(toasts).map((t) => [t.message, t.action?.label])).toEqual([['Message deleted', 'Undo']]);

    const cancelled = store.remove('a');
    confirm.answer(false);
    await cancelled;
    expect(fake.chat.deleteMessages).toHaveBeenCalledTimes(1);
  });

  it('sends user messages as the persona and edits the last one on request', async () => {
    const { fake, store } = setup();
    fake.setLoaded({ chatId: 'c1', start: 0, total: 3, messages: [message('a'), message('u', { is_user: true }), message('b')] });
    await store.select('c1');
    expect(await store.send('   ')).toBe(false);
    expect(await store.send('Hello')).toBe(true);
    expect(fake.chat.addMessages).toHaveBeenCalledWith('c1', { is_user: true, name: 'Me', mes: 'Hello' });
    expect(store.editLastUserMessage()).toBe('u');
    expect(get(store.editing)).toBe('u');
  });

  it('turns failures into toasts', async () => {
    const { fake, store, toasts } = setup();
    fake.setLoaded({ chatId: 'c1', start: 0, total: 1, messages: [message('a')] });
    await store.select('c1');
    fake.chat.swipe!.mockRejectedValueOnce(Object.assign(new Error('no such swipe'), { code: 'swipe.out_of_range' }));
    await store.swipe('a', 'right');
    expect(get(toasts)).toMatchObject([{ kind: 'error', code: 'swipe.out_of_range', message: 'Could not swipe: no such swipe' }]);
  });

  it('closes the view when the open chat is deleted', async () => {
    const { fake, store } = setup();
    fake.setLoaded({ chatId: 'c1', start: 0, total: 1, messages: [message('a')] });
    await store.select('c1');
    fake.emit('chat_deleted', { chatId: 'c1' });
    await flush();
    expect(get(store.view).chatId).toBeNull();
    expect(fake.chat.select).toHaveBeenLastCalledWith(null, { automatic: true });
  });
});

describe('chat view store: automatic selects', () => {
  const yielded = () => Object.assign(new Error('an explicit select() chose this window\'s chat'), { code: 'chat.select_superseded', details: { reason: 'explicit' } });

  it('asks the ABI for an automatic select only when told to', async () => {
    const { fake, store } = setup();
    await store.select('c1', { automatic: true });
    expect(fake.chat.select).toHaveBeenLastCalledWith('c1', { automatic: true });
    await store.select('c2');
    expect(fake.chat.select).toHaveBeenLastCalledWith('c2', undefined);
  });

  it('shows the explicitly chosen chat, still loading, when an automatic select yields to it', async () => {
    const { fake, store, toasts } = setup();
    fake.setLoaded({ chatId: 'theirs', start: 8, total: 10, messages: [message('t8'), message('t9')] });
    fake.chat.select!.mockRejectedValueOnce(yielded());
    await store.select('mine', { automatic: true });
    expect(get(store.view)).toMatchObject({ chatId: 'theirs', avatar: 'Ann.png', loading: true, start: 8 });
    fake.setLoaded({ chatId: 'theirs', start: 0, total: 10, messages: Array.from({ length: 10 }, (_, i) => message(`t${i}`)) }, true);
    fake.emit('chat_id_changed', { chatId: 'theirs' });
    await flush();
    expect(get(store.view)).toMatchObject({ chatId: 'theirs', loading: false, start: 0 });
    expect(get(toasts)).toEqual([]);
  });

  it('shows the explicitly chosen chat, complete, when an automatic select yields to it', async () => {
    const { fake, store } = setup();
    fake.setLoaded({ chatId: 'theirs', start: 0, total: 1, messages: [message('t0')] }, true);
    fake.chat.select!.mockRejectedValueOnce(yielded());
    await store.select('mine', { automatic: true });
    expect(get(store.view)).toMatchObject({ chatId: 'theirs', loading: false, total: 1 });
  });

  it('shows an explicit select that has no page yet from its first page on', async () => {
    const { fake, store } = setup();
    fake.chat.select!.mockRejectedValueOnce(yielded());
    await store.select('mine', { automatic: true });
    // Not closed meanwhile: a phone would go back to the list just before the explicit select opens its chat.
    expect(get(store.view)).toMatchObject({ chatId: 'mine', loading: true });
    fake.setLoaded({ chatId: 'theirs', start: 9, total: 10, messages: [message('t9')] });
    fake.emit('chat_load_progress', { chatId: 'theirs' });
    await flush();
    expect(get(store.view)).toMatchObject({ chatId: 'theirs', loading: true });
    fake.setLoaded({ chatId: 'theirs', start: 0, total: 10, messages: Array.from({ length: 10 }, (_, i) => message(`t${i}`)) }, true);
    fake.emit('chat_id_changed', { chatId: 'theirs' });
    await flush();
    expect(get(store.view)).toMatchObject({ chatId: 'theirs', loading: false, total: 10 });
  });

  it('says a delete in a toast whose Undo takes back exactly that delete', async () => {
    const { fake, store, confirm, toasts } = setup();
    fake.setLoaded({ chatId: 'c1', start: 0, total: 2, messages: [message('a'), message('b', { swipes: ['one', 'two'], swipe_id: 1, mes: 'two' })] });
    await store.select('c1');
    fake.chat.deleteMessages!.mockImplementationOnce(async () => {
      // The backend's event may come before the answer: the revision is caught either way.
      fake.emit('message_deleted', { chatId: 'c1', revision: 7, length: 1, deleted: [{ index: 1, id: 'b' }] });
      return [];
    });
    const removing = store.remove('b');
    expect(get(confirm)?.message).toMatch(/will be deleted, with all 2 versions\. Undo brings it back\./);
    confirm.answer(true);
    await removing;
    const [t] = get(toasts);
    expect(t).toMatchObject({ kind: 'info', message: 'Message deleted', action: { label: 'Undo' } });
    // A delete elsewhere in the chat later does not move what the Undo is for.
    fake.emit('message_deleted', { chatId: 'c1', revision: 8, length: 0, deleted: [{ index: 0, id: 'a' }] });
    t!.action!.run();
    await store.history.idle();
    expect(fake.chat.undo).toHaveBeenCalledWith('c1', { ifRevision: 7 });
    expect(get(toasts).map((x) => x.message)).toContain('Message restored');
  });

  it('says nothing after a delete that failed or was cancelled', async () => {
    const { fake, store, confirm, toasts } = setup();
    fake.setLoaded({ chatId: 'c1', start: 0, total: 1, messages: [message('a')] });
    await store.select('c1');
    fake.chat.deleteMessages!.mockRejectedValueOnce(Object.assign(new Error('nope'), { code: 'chat.conflict' }));
    const failing = store.remove('a');
    confirm.answer(true);
    await failing;
    expect(get(toasts).map((t) => [t.kind, t.action])).toEqual([['error', null]]);
    const cancelled = store.remove('a');
    confirm.answer(false);
    await cancelled;
    expect(get(toasts)).toHaveLength(1);
  });
});
