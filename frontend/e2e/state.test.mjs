// Chat state and floor state through window.__HEARTH__ in a browser, against
// a real `hearth serve`: floor states settled by the backend before the
// events that change the chat's structure reach handlers; branches that
// isolate state; updateChatState from two windows losing no update.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openApp, useHearth, waitFor } from './harness.mjs';

const three = [
  { name: 'User', is_user: true, mes: 'Hello there.' },
  { name: 'Ada', is_user: false, mes: 'First answer.', swipes: ['First answer.', 'Second answer.', 'Third answer.'], swipe_id: 0 },
  { name: 'User', is_user: true, mes: 'Tell me more.' },
];

let page;
let avatar;

describe('chat state and floor state in a browser', () => {
  const env = useHearth({ before, after });

  /** freshChat makes a chat holding `three` and opens it in the page. */
  async function freshChat() {
    const { chatId } = await env.server.invoke('chat.create', { avatar });
    await env.server.invoke('chat.deleteMessages', chatId, 0);
    await env.server.invoke('chat.addMessages', chatId, three);
    await page.evaluate((id) => window.__HEARTH__.api.chat.select(id), chatId);
    await waitFor(() => page.evaluate(() => window.__HEARTH__.getContext().chat.length === 3), 'the chat to be open');
    return chatId;
  }

  before(async () => {
    avatar = (await env.server.invoke('characters.create', { name: 'Ada', first_mes: 'Hi.' })).avatar;
    page = await openApp(env.browser, env.server.url);
  });

  after(() => {
    assert.deepEqual(page?.errors ?? [], [], 'uncaught errors in the page');
  });

  it('handlers of structural events observe the settled floor state', async () => {
    const chatId = await freshChat();
    const seen = await page.evaluate(async (chatId) => {
      const h = window.__HEARTH__;
      const ctx = h.getContext();
      const T = ctx.eventTypes;
      const fs = ctx.createFloorState({ namespace: 'story' });
      const out = { initial: await fs.get() };
      await fs.update((s) => ({ ...s, f0: 1 }), { floor: 0 });
      await fs.update((s) => ({ ...s, f1: 'first' }), { floor: 1 });
      await fs.update((s) => ({ ...s, f1b: 'second' }), { floor: 1, swipeId: 1 });
      await fs.update((s) => ({ ...s, f2: 1 }));
      out.start = await fs.get();
      const record = (name) => async () => {
        out[name] = await fs.get();
      };
      const handlers = {
        [T.MESSAGE_SWIPED]: record('swiped'),
        [T.MESSAGE_DELETED]: record('deleted'),
        [T.MESSAGE_SWIPE_DELETED]: record('swipeDeleted'),
      };
      for (const [ev, fn] of Object.entries(handlers)) ctx.eventSource.on(ev, fn);
      const once = (ev) => new Promise((r) => ctx.eventSource.once(ev, r));
      let done = once(T.MESSAGE_SWIPED);
      await h.api.chat.swipe(chatId, 1, { to: 1 });
      await done;
      done = once(T.MESSAGE_DELETED);
      await ctx.deleteMessages(2);
      await done;
      done = once(T.MESSAGE_SWIPE_DELETED);
      await h.api.chat.deleteSwipe(chatId, 1, 0);
      await done;
      for (const [ev, fn] of Object.entries(handlers)) ctx.eventSource.off(ev, fn);
      out.log = (await ctx.getChatState('story__floor_log')).commits.map((c) => [c.floor, c.swipeId]);
      return out;
    }, chatId);
    assert.equal(seen.initial, null, 'get() is null before any commit');
    assert.deepEqual(seen.start, { f0: 1, f1: 'first', f2: 1 });
    assert.deepEqual(seen.swiped, { f0: 1, f1b: 'second', f2: 1 }, 'swipe 1 of floor 1 active, in the MESSAGE_SWIPED handler');
    assert.deepEqual(seen.deleted, { f0: 1, f1b: 'second' }, 'the tail commit gone, in the MESSAGE_DELETED handler');
    assert.deepEqual(seen.swipeDeleted, { f0: 1, f1b: 'second' }, 'swipe 0 gone, swipe 1 renumbered to 0');
    assert.deepEqual(seen.log, [
      [0, 0],
      [1, 0],
    ]);
  });

  it('CHAT_CHANGED and CHAT_BRANCH_CREATED handlers see the state of the chat they announce', async () => {
    const chatId = await freshChat();
    const seen = await page.evaluate(async (chatId) => {
      const h = window.__HEARTH__;
      const ctx = h.getContext();
      const T = ctx.eventTypes;
      const fs = ctx.createFloorState({ namespace: 'story' });
      await fs.update(() => ({ at: 'root' }), { floor: 0 });
      await fs.update((s) => ({ ...s, later: true }));
      await ctx.updateChatState('plugin', () => ({ n: 1 }));
      const out = {};
      const branched = new Promise((resolve) => {
        const off = h.api.events.on(T.CHAT_BRANCH_CREATED, async (p) => {
          off();
          const branchFs = ctx.createFloorState({ namespace: 'story', chatId: p.chatId });
          out.branchCreated = { state: await branchFs.get(), plugin: await ctx.getChatState('plugin', { target: p.chatId }) };
          resolve();
        });
      });
      const changed = new Promise((resolve) => {
        const fn = async () => {
          ctx.eventSource.off(T.CHAT_CHANGED, fn);
          out.changed = { current: h.api.chat.current()?.chatId, state: await fs.get() };
          resolve();
        };
        ctx.eventSource.on(T.CHAT_CHANGED, fn);
      });
      const branch = await h.api.chat.createBranch(chatId, 1);
      await Promise.all([branched, changed]);
      out.branchId = branch.chatId;
      out.open = h.api.chat.current()?.chatId === branch.chatId;
      // Isolation both ways.
      await ctx.updateChatState('plugin', (s) => ({ n: s.n + 10 }));
      await fs.update((s) => ({ ...s, inBranch: true }));
      out.sourcePlugin = await ctx.getChatState('plugin', { target: chatId });
      out.sourceStory = await h.getContext().createFloorState({ namespace: 'story', chatId }).get();
      await h.api.state.setChatState(chatId, 'plugin', { n: 99 });
      out.branchPlugin = await ctx.getChatState('plugin');
      out.branchStory = await fs.get();
      return out;
    }, chatId);
    assert.deepEqual(seen.branchCreated, { state: { at: 'root' }, plugin: { n: 1 } }, 'settled before CHAT_BRANCH_CREATED');
    assert.equal(seen.open, true, 'the branch opens in the calling window');
    assert.deepEqual(seen.changed, { current: seen.branchId, state: { at: 'root' } }, 'CHAT_CHANGED sees the branch');
    assert.deepEqual(seen.sourcePlugin, { n: 1 });
    assert.deepEqual(seen.sourceStory, { at: 'root', later: true });
    assert.deepEqual(seen.branchPlugin, { n: 11 });
    assert.deepEqual(seen.branchStory, { at: 'root', inBranch: true });
  });

  it('validates floor-state options and goes inert after destroy', async () => {
    await freshChat();
    const r = await page.evaluate(async () => {
      const ctx = window.__HEARTH__.getContext();
      const fs = ctx.createFloorState({ namespace: 'opts' });
      const bad = [];
      for (const opts of [{ floor: 3 }, { floor: -1 }, { floor: 1.5 }, { floor: NaN }, { swipeId: -1 }, { swipeId: 0.5 }]) {
        bad.push(await fs.update(() => ({ a: 1 }), opts));
      }
      const noChange = await fs.update(() => [1, 2]);
      const afterBad = await fs.get();
      const pinned = await fs.update(() => ({ a: 1 }), { floor: 1, swipeId: 2 });
      const inactive = await fs.get();
      const rootPatch = await fs.patch([{ op: 'replace', path: '', value: { b: 2 } }]);
      const badPatch = await fs.patch([{ op: 'remove', path: '/zz' }]);
      const afterPatch = await fs.get();
      fs.destroy();
      return { bad, noChange, afterBad, pinned, inactive, rootPatch, badPatch, afterPatch, destroyed: [await fs.update(() => ({ c: 1 })), await fs.get()] };
    });
    assert.deepEqual(r.bad, [false, false, false, false, false, false]);
    assert.equal(r.noChange, true, 'a non-object result is no change');
    assert.equal(r.afterBad, null, 'nothing was written');
    assert.equal(r.pinned, true);
    assert.deepEqual(r.inactive, {}, '{} when no commit is active');
    assert.deepEqual([r.rootPatch, r.badPatch, r.afterPatch], [true, false, { b: 2 }]);
    assert.deepEqual(r.destroyed, [false, null]);
  });

  it('updateChatState from two windows, five writers each, loses no update', async () => {
    const chatId = await freshChat();
    const other = await openApp(env.browser, env.server.url);
    const run = (p) =>
      p.evaluate(async (chatId) => {
        const ctx = window.__HEARTH__.getContext();
        const writer = async () => {
          const results = [];
          for (let i = 0; i < 100; i++) {
            results.push(await ctx.updateChatState('counter', (s) => ({ n: (s.n ?? 0) + 1 }), { target: chatId }));
          }
          return results;
        };
        const all = (await Promise.all(Array.from({ length: 5 }, writer))).flat();
        return all.filter((r) => !r.ok).length;
      }, chatId);
    const failures = await Promise.all([run(page), run(other)]);
    assert.deepEqual(failures, [0, 0], 'every update succeeded');
    const value = await page.evaluate((id) => window.__HEARTH__.getContext().getChatState('counter', { target: id }), chatId);
    assert.deepEqual(value, { n: 1000 });
    const reserved = await page.evaluate(async () => window.__HEARTH__.getContext().updateChatState('x__floor_log', () => ({})));
    assert.deepEqual(reserved, { ok: false, reason: 'reserved_namespace' });
    assert.deepEqual(other.errors, []);
    await other.context().close();
  });
});
