import { get } from 'svelte/store';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { message } from './fake-hearth';
import { AUTHOR_NOTE_DEFAULTS } from '../lib/author-note';
import { flush, hostError, reply, setup } from './generation.fixture';

afterEach(() => vi.useRealTimers());

describe('generation store', () => {
  it('sends the message, then streams the reply and drops it in the view update its message arrives in', async () => {
    const { fake, gen, chat, commit } = await setup();
    expect(await gen.send('Hello there')).toBe(true);
    expect(fake.chat.addMessages).toHaveBeenCalledWith('c1', { is_user: true, name: 'Me', mes: 'Hello there' });
    expect(fake.generate.start).toHaveBeenCalledWith({ chatId: 'c1', type: 'normal' });
    expect(get(gen.running)).toMatchObject({ chatId: 'c1', type: 'normal', own: true });
    expect(get(gen.display)).toEqual({ mode: 'row', replaces: null });
    expect(get(gen.busy)).toBe(true);
    await flush();
    expect(get(gen.running)?.generationId).toBe('g-1');

    fake.emit('generation_started', { chatId: 'c1', generationId: 'g-1', type: 'normal' });
    fake.emit('stream_token_received', { chatId: 'c1', generationId: 'g-1', text: '', reasoning: 'Hmm, ' });
    fake.emit('stream_token_received', { chatId: 'c1', generationId: 'g-1', text: '', reasoning: 'a greeting.' });
    fake.emit('stream_token_received', { chatId: 'c1', generationId: 'g-1', text: 'Hi' });
    fake.emit('stream_token_received', { chatId: 'c1', generationId: 'g-1', text: ', you.' });
    fake.emit('stream_token_received', { chatId: 'c2', generationId: 'g-9', text: 'another chat' });
    const l = get(gen.live);
    expect(l).toMatchObject({ text: 'Hi, you.', reasoning: 'Hmm, a greeting.' });
    expect(l.reasoningStart).not.toBeNull();
    expect(l.reasoningEnd).not.toBeNull();

    const committing = commit(reply('r1', 'g-1', { mes: 'Hi, you.' }));
    // Dropped with the chat view's refresh that adds the message (a microtask later), not before it.
    expect(get(gen.running)).not.toBeNull();
    await committing;
    expect(get(chat.view).messages.at(-1)?.id).toBe('r1');
    expect(get(gen.running)).toBeNull();
    expect(get(gen.live).text).toBe('');
    fake.emit('generation_ended', { chatId: 'c1', generationId: 'g-1', index: 2, swipeId: 0 });
    expect(get(gen.running)).toBeNull();
  });

  it('keeps the live text after the end until the message arrives, or gives up after a while', async () => {
    const { fake, gen, commit } = await setup();
    await gen.send('one');
    await flush();
    fake.emit('stream_token_received', { chatId: 'c1', generationId: 'g-1', text: 'Partial' });
    fake.emit('generation_ended', { chatId: 'c1', generationId: 'g-1', index: 2, swipeId: 0 });
    expect(get(gen.live).text).toBe('Partial');
    fake.emit('message_updated', { chatId: 'c1', index: 0 }); // not the reply
    expect(get(gen.running)).not.toBeNull();
    await commit(reply('r1', 'g-1'));
    expect(get(gen.running)).toBeNull();

    await gen.regenerate();
    await flush();
    fake.emit('generation_ended', { chatId: 'c1', generationId: 'g-2', index: 2, swipeId: 0 });
    expect(get(gen.running)).not.toBeNull();
    await new Promise((r) => setTimeout(r, 80));
    expect(get(gen.running)).toBeNull();
  });

  it('an empty send asks for a reply only after the user’s own message', async () => {
    const { fake, gen } = await setup();
    expect(gen.canSendEmpty()).toBe(true);
    expect(await gen.send('  ')).toBe(true);
    expect(fake.chat.addMessages).not.toHaveBeenCalled();
    expect(fake.generate.start).toHaveBeenCalledTimes(1);
    expect(await gen.send('more')).toBe(false); // busy: the composer keeps the text

    const other = await setup([message('m0')]);
    expect(other.gen.canSendEmpty()).toBe(false);
    expect(await other.gen.send('')).toBe(false);
    expect(other.fake.generate.start).not.toHaveBeenCalled();
  });

  it('says what to do when start is refused, and keeps the user message', async () => {
    const { fake, gen, toasts, toastTexts, openConnections } = await setup();
    fake.generate.start.mockRejectedValueOnce(hostError('generate.no_connection', 'no connection is selected'));
    expect(await gen.send('Hello')).toBe(true);
    await flush();
    expect(get(gen.running)).toBeNull();
    expect(toastTexts()).toEqual(['generate.no_connection: No connection selected — open Connections (the plug button) to add or pick one.']);
    // The toast has a button that opens Connections.
    const action = get(toasts)[0]?.action;
    expect(action?.label).toBe('Open Connections');
    action?.run();
    expect(openConnections).toHaveBeenCalledTimes(1);

    fake.generate.start.mockRejectedValueOnce(hostError('prompt.too_large', 'the history takes 9000 tokens, but only 7168 fit', { tokens: 9000, budget: 7168 }));
    expect(await gen.regenerate()).toBe(false);
    expect(toastTexts()[1]).toBe('prompt.too_large: The prompt does not fit the context size: the history takes 9000 tokens, but only 7168 fit');
    expect(get(toasts)[1]?.action, 'nothing in Connections fixes a prompt that is too large').toBeNull();
  });

  it('stops a generation, also one whose id is not known yet, and keeps what was committed', async () => {
    const { fake, gen, commit } = await setup();
    let resolve!: (v: { generationId: string }) => void;
    fake.generate.start.mockImplementationOnce(() => new Promise((r) => (resolve = r)));
    void gen.continue();
    await gen.stop();
    expect(get(gen.running)?.stopping).toBe(true);
    expect(fake.generate.stop).not.toHaveBeenCalled();
    resolve({ generationId: 'g-7' });
    await flush();
    expect(fake.generate.stop).toHaveBeenCalledWith('g-7');
    fake.emit('generation_stopped', { chatId: 'c1', generationId: 'g-7', index: null });
    expect(get(gen.running)).toBeNull();

    await gen.send('again');
    await flush();
    fake.emit('generation_started', { chatId: 'c1', generationId: 'g-1', type: 'normal' });
    fake.emit('stream_token_received', { chatId: 'c1', generationId: 'g-1', text: 'Half a th' });
    await gen.stop();
    expect(fake.generate.stop).toHaveBeenLastCalledWith('g-1');
    await commit(reply('r1', 'g-1', { mes: 'Half a th' }));
    fake.emit('generation_stopped', { chatId: 'c1', generationId: 'g-1', index: 3 });
    expect(get(gen.running)).toBeNull();
  });

  it('adopts the id from GENERATION_STARTED when the event beats the answer to start', async () => {
    const { fake, gen } = await setup();
    let resolve!: (v: { generationId: string }) => void;
    fake.generate.start.mockImplementationOnce(() => new Promise((r) => (resolve = r)));
    void gen.send('');
    fake.emit('generation_started', { chatId: 'c1', generationId: 'g-5', type: 'normal' });
    fake.emit('generation_ended', { chatId: 'c1', generationId: 'g-5', index: null, swipeId: null, error: { code: 'model.auth_failed', message: '401' } });
    expect(get(gen.running)).toBeNull();
    resolve({ generationId: 'g-5' });
    await flush();
    expect(get(gen.running)).toBeNull();
  });

  it('reports a failure of its own generation, rate limits with their wait, and keeps streamed text to save', async () => {
    const { fake, gen, toastTexts } = await setup();
    await gen.send('Hi');
    await flush();
    fake.emit('stream_token_received', { chatId: 'c1', generationId: 'g-1', text: 'Once upon' });
    fake.emit('generation_ended', {
      chatId: 'c1',
      generationId: 'g-1',
      index: null,
      swipeId: null,
      text: 'Once upon',
      error: { code: 'model.rate_limited', message: 'slow down', details: { retryAfterMs: 12000 } },
    });
    expect(get(gen.running)).toBeNull();
    expect(toastTexts()).toEqual(['model.rate_limited: Rate limited; retry in 12 s.']);
    expect(get(gen.failed)).toMatchObject({ chatId: 'c1', text: 'Once upon', code: 'model.rate_limited' });
    expect(await gen.keepFailed()).toBe(true);
    expect(fake.chat.addMessages).toHaveBeenLastCalledWith('c1', { is_user: false, name: 'Ann', mes: 'Once upon' });
    expect(get(gen.failed)).toBeNull();

    await gen.send('Again');
    await flush();
    fake.emit('generation_ended', { chatId: 'c1', generationId: 'g-2', index: null, swipeId: null, error: { code: 'model.auth_failed', message: 'bad key' } });
    expect(toastTexts()[1]).toBe('model.auth_failed: The model server refused the API key — check it in Connections.');
    expect(get(gen.failed)).toBeNull(); // nothing streamed, nothing to keep
  });

  it('shows another window’s generation but leaves its failures to it', async () => {
    const { fake, gen, toastTexts } = await setup();
    fake.emit('generation_started', { chatId: 'c1', generationId: 'x-1', type: 'swipe' });
    expect(get(gen.running)).toMatchObject({ generationId: 'x-1', own: false, targetId: 'm1' });
    expect(get(gen.display)).toEqual({ mode: 'inplace', targetId: 'm1', type: 'swipe' });
    fake.emit('generation_ended', { chatId: 'c1', generationId: 'x-1', index: null, error: { code: 'model.timeout', message: 'late' } });
    expect(get(gen.running)).toBeNull();
    expect(toastTexts()).toEqual([]);
  });

  it('joins a generation already under way: on tokens from an unknown id, and when the chat opens', async () => {
    const { fake, gen, chat } = await setup();
    fake.generate.status.mockResolvedValueOnce({ generationId: 'x-2', chatId: 'c1', type: 'continue', status: 'running' });
    fake.emit('stream_token_received', { chatId: 'c1', generationId: 'x-2', text: 'tail' });
    expect(get(gen.running)).toMatchObject({ generationId: 'x-2', type: null, joined: true });
    expect(get(gen.display)).toBeNull();
    await flush();
    expect(fake.generate.status).toHaveBeenCalledWith('x-2');
    expect(get(gen.display)).toEqual({ mode: 'inplace', targetId: 'm1', type: 'continue' });
    expect(get(gen.live).text).toBe('tail');

    // Another chat drops it; coming back finds the one running there.
    fake.setLoaded({ chatId: 'c2', start: 0, total: 1, messages: [message('n0')] }, true);
    await chat.select('c2');
    expect(get(gen.running)).toBeNull();
    fake.generate.status.mockResolvedValueOnce({ generating: true, generationId: 'x-3', chatId: 'c1', type: 'normal' });
    fake.setLoaded({ chatId: 'c1', start: 0, total: 2, messages: [message('m0'), message('m1', { is_user: true })] }, true);
    await chat.select('c1');
    await flush();
    expect(get(gen.running)).toMatchObject({ generationId: 'x-3', type: 'normal', joined: true });
  });

  it('regenerate writes a new swipe of the last reply; continue and swipe write into it; impersonate fills the composer', async () => {
    const { fake, gen, replace } = await setup([message('m0', { is_user: true }), message('m1')]);
    await gen.regenerate();
    expect(fake.generate.start).toHaveBeenLastCalledWith({ chatId: 'c1', type: 'swipe' });
    expect(get(gen.display)).toEqual({ mode: 'inplace', targetId: 'm1', type: 'swipe' });
    await flush();
    fake.emit('generation_ended', { chatId: 'c1', generationId: 'g-1', index: 1, swipeId: 1 });
    await replace(1, reply('m9', 'g-1', { swipes: ['a', 'b'], swipe_id: 1 }), 'message_swiped');
    expect(get(gen.running)).toBeNull();

    await gen.swipeRight();
    expect(fake.generate.start).toHaveBeenLastCalledWith({ chatId: 'c1', type: 'swipe' });
    await flush();
    await replace(1, reply('m9', 'g-2', { swipes: ['a', 'b', 'c'], swipe_id: 2 }), 'message_swiped');
    expect(get(gen.running)).toBeNull();

    await gen.continue();
    expect(get(gen.display)).toEqual({ mode: 'inplace', targetId: 'm9', type: 'continue' });
    await flush();
    await replace(1, reply('m9', 'g-3'));
    expect(get(gen.running)).toBeNull();

    const text = gen.impersonate();
    expect(get(gen.running)).toMatchObject({ type: 'impersonate' });
    expect(get(gen.display)).toBeNull();
    expect(get(gen.busy)).toBe(true);
    expect(await text).toBe('I say hello.');
    expect(fake.generate.run).toHaveBeenCalledWith({ chatId: 'c1', type: 'impersonate' });
    expect(get(gen.running)).toBeNull();
  });

  it('regenerate after anything but a reply of the character simply writes the reply', async () => {
    for (const last of [
      message('u', { is_user: true, name: 'Me' }),
      message('x', { is_system: true }),
      message('n', { extra: { type: 'narrator' } }),
    ]) {
      const { fake, gen } = await setup([message('m0'), last]);
      expect(await gen.regenerate()).toBe(true);
      expect(fake.generate.start).toHaveBeenCalledWith({ chatId: 'c1', type: 'normal' });
      expect(get(gen.display)).toEqual({ mode: 'row', replaces: null });
    }
  });

  it('a script’s regenerate stands in for the reply it replaces, never for the user’s message', async () => {
    const { fake, gen } = await setup([message('m0'), message('m1', { is_user: true })]);
    fake.emit('generation_started', { chatId: 'c1', generationId: 'x-1', type: 'regenerate' });
    expect(get(gen.display)).toEqual({ mode: 'row', replaces: null });

    const other = await setup([message('m0', { is_user: true }), message('m1')]);
    other.fake.emit('generation_started', { chatId: 'c1', generationId: 'x-2', type: 'regenerate' });
    expect(get(other.gen.display)).toEqual({ mode: 'row', replaces: 'm1' });
  });

  it('impersonate reports its failure once, from run', async () => {
    const { fake, gen, toastTexts } = await setup();
    let reject!: (e: unknown) => void;
    fake.generate.run.mockImplementationOnce(() => new Promise((_, r) => (reject = r)));
    const text = gen.impersonate();
    fake.emit('generation_started', { chatId: 'c1', generationId: 'g-i', type: 'impersonate' });
    expect(get(gen.running)?.generationId).toBe('g-i');
    fake.emit('generation_ended', { chatId: 'c1', generationId: 'g-i', index: null, error: { code: 'model.unavailable', message: '503' } });
    reject(hostError('model.unavailable', '503'));
    expect(await text).toBeNull();
    expect(toastTexts()).toEqual(['model.unavailable: The model server is unavailable or overloaded; try again shortly.']);
  });

  it('follows SWIPE_UI_CHANGED', async () => {
    const { fake, gen } = await setup();
    fake.swipeUi.hidden = true;
    fake.emit('swipe_ui_changed', {});
    expect(get(gen.swipeUi)).toEqual({ hidden: true, hideCounters: false });
  });

  it('inspects the prompt and explains a prompt that does not fit', async () => {
    const { fake, gen } = await setup();
    fake.generate.dryRun.mockResolvedValueOnce({ chatCompletionPayload: { messages: [] } });
    expect(await gen.inspect('c1')).toMatchObject({ ok: true, snapshot: { chatCompletionPayload: { messages: [] } } });
    expect(fake.generate.dryRun).toHaveBeenCalledWith({ chatId: 'c1', type: 'normal' });
    fake.generate.dryRun.mockRejectedValueOnce(hostError('prompt.too_large', 'the card takes 9000 tokens, but only 100 fit', { tokens: 9000, budget: 100 }));
    const r = await gen.inspect('c1');
    expect(r).toMatchObject({ ok: false, code: 'prompt.too_large', details: { tokens: 9000, budget: 100 } });
    expect(r.ok ? '' : r.message).toBe('The prompt does not fit the context size: the card takes 9000 tokens, but only 100 fit');
  });

  it('reads and saves the Author’s Note with SillyTavern’s keys and defaults', async () => {
    const { fake, gen, toastTexts } = await setup();
    expect(await gen.loadNote('c1')).toEqual(AUTHOR_NOTE_DEFAULTS);
    fake.chat.getMetadata!.mockResolvedValueOnce({ note_prompt: 'Rain.', note_interval: 0, note_depth: '2', note_position: 2, note_role: 7 });
    expect(await gen.loadNote('c1')).toEqual({ note_prompt: 'Rain.', note_interval: 0, note_depth: 2, note_position: 2, note_role: 0 });
    const note = { note_prompt: 'Keep it short.', note_interval: 3, note_depth: 1, note_position: 1 as const, note_role: 2 as const };
    expect(await gen.saveNote('c1', note)).toBe(true);
    expect(fake.chat.saveMetadata).toHaveBeenCalledWith('c1', note);
    expect(await gen.saveNote('c1', { ...note, note_depth: -1 })).toBe(false);
    expect(fake.chat.saveMetadata).toHaveBeenCalledTimes(1);
    expect(toastTexts()[0]).toMatch(/^validation\.invalid_argument: .*depth/);
  });
});
