// The seed examples, run in the page against window.__HEARTH__ served by a
// real `hearth serve`: Luker's getContext() writes, Spindle's id-based
// writes, SillyTavern eventSource arguments, APP_READY replay, HostError
// codes.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openApp, useHearth, waitFor } from './harness.mjs';

let page;
let chatId;
let avatar;

describe('window.__HEARTH__ in a browser (seed examples)', () => {
  const env = useHearth({ before, after });

  before(async () => {
    const card = await env.server.invoke('characters.create', {
      name: 'Ada',
      first_mes: 'Hello {{user}}, I am {{char}}.',
      alternate_greetings: ['Alt one', 'Alt two'],
    });
    avatar = card.avatar;
    chatId = (await env.server.invoke('chat.create', { avatar })).chatId;
    page = await openApp(env.browser, env.server.url);
    // Open the chat the way a person does; the UI selects it through
    // api.chat.select (a second select of our own would race with it).
    await page.getByRole('option', { name: /Ada/ }).click();
    await waitFor(
      () => page.evaluate((id) => window.__HEARTH__.api.chat.current()?.chatId === id && window.__HEARTH__.getContext().chat.length === 1, chatId),
      'the chat to be open in the window',
    );
  });

  after(() => {
    assert.deepEqual(page?.errors ?? [], [], 'uncaught errors in the page');
  });

  /** inPage runs fn(h, ctx, chatId, arg) in the page and returns its result. */
  function inPage(fn, arg = null) {
    const args = [JSON.stringify(chatId), JSON.stringify(arg)].join(', ');
    return page.evaluate(`(${fn.toString()})(window.__HEARTH__, window.__HEARTH__.getContext(), ${args})`);
  }

  describe('getContext() (Luker)', () => {
    it('is the same function under SillyTavern and Luker aliases, on the selected chat', async () => {
      const r = await inPage(async (h, ctx, id) => ({
        same: window.SillyTavern.getContext === h.getContext && window.Luker.getContext === h.getContext,
        length: ctx.chat.length,
        greeting: ctx.chat[0].mes,
        swipes: ctx.chat[0].swipes,
        name2: ctx.name2,
        currentIsFileName: ctx.getCurrentChatId() === (await h.api.chat.get(id)).fileName,
      }));
      assert.equal(r.same, true);
      assert.equal(r.length, 1);
      assert.equal(r.greeting, 'Hello User, I am Ada.');
      assert.deepEqual(r.swipes, ['Hello User, I am Ada.', 'Alt one', 'Alt two']);
      assert.equal(r.name2, 'Ada');
      assert.equal(r.currentIsFileName, true, 'getCurrentChatId() is the file name, as in SillyTavern');
    });

    it('addMessages: single and batch, with MESSAGE_SENT/RECEIVED positional arguments', async () => {
      const r = await inPage(async (h, ctx) => {
        const seen = [];
        const types = ctx.eventTypes;
        const onSent = (...args) => seen.push(['sent', ...args]);
        const onRecv = (...args) => seen.push(['recv', ...args]);
        ctx.eventSource.on(types.MESSAGE_SENT, onSent);
        ctx.eventSource.on(types.MESSAGE_RECEIVED, onRecv);
        const one = await ctx.addMessages({ name: ctx.name1, is_user: true, mes: 'Hello!' });
        const afterOne = ctx.chat.length;
        const many = await ctx.addMessages([{ is_user: true, mes: 'A' }, { mes: 'B' }, { mes: 'C' }]);
        const deadline = Date.now() + 10000;
        while (seen.length < 4 && Date.now() < deadline) await new Promise((res) => setTimeout(res, 10));
        ctx.eventSource.off(types.MESSAGE_SENT, onSent);
        ctx.eventSource.off(types.MESSAGE_RECEIVED, onRecv);
        return {
          one,
          afterOne,
          many,
          texts: ctx.chat.map((m) => m.mes),
          users: ctx.chat.map((m) => m.is_user),
          bName: ctx.chat[3].name,
          seen,
        };
      });
      assert.equal(r.one, 1);
      assert.equal(r.afterOne, 2, 'ctx.chat already holds the message when addMessages resolves');
      assert.deepEqual(r.many, [2, 3, 4]);
      assert.deepEqual(r.texts.slice(1), ['Hello!', 'A', 'B', 'C']);
      assert.deepEqual(r.users.slice(1), [true, true, false, false]);
      assert.equal(r.bName, 'Ada', 'name defaults to the character');
      assert.deepEqual(r.seen, [
        ['sent', 1],
        ['sent', 2],
        ['recv', 3, 'normal'],
        ['recv', 4, 'normal'],
      ]);
    });

    it('updateMessages: single and batch, mes rewrites the active swipe, MESSAGE_EDITED(index)', async () => {
      const r = await inPage(async (h, ctx) => {
        const edited = [];
        const onEdit = (...args) => edited.push(args);
        ctx.eventSource.on(ctx.eventTypes.MESSAGE_EDITED, onEdit);
        await ctx.updateMessages({ index: 1, patch: { mes: 'Hello again!' } });
        const single = { mes: ctx.chat[1].mes, active: ctx.chat[1].swipes[ctx.chat[1].swipe_id] };
        await ctx.updateMessages([
          { index: 2, patch: { mes: 'A2' } },
          { index: 3, patch: { mes: 'B2', extra: { model: 'local' } } },
        ]);
        const deadline = Date.now() + 10000;
        while (edited.length < 3 && Date.now() < deadline) await new Promise((res) => setTimeout(res, 10));
        ctx.eventSource.off(ctx.eventTypes.MESSAGE_EDITED, onEdit);
        return { single, texts: ctx.chat.map((m) => m.mes), model: ctx.chat[3].extra.model, edited };
      });
      assert.deepEqual(r.single, { mes: 'Hello again!', active: 'Hello again!' });
      assert.deepEqual(r.texts.slice(1), ['Hello again!', 'A2', 'B2', 'C']);
      assert.equal(r.model, 'local');
      assert.deepEqual(r.edited, [[1], [2], [3]]);
    });

    it('getMessage returns a read-only Proxy whose writes throw an error naming updateMessages', async () => {
      const r = await inPage((h, ctx) => {
        const m = ctx.getMessage(1);
        const attempt = (f) => {
          try {
            f();
            return null;
          } catch (err) {
            return { isError: err instanceof Error, message: err.message };
          }
        };
        return {
          mes: m.mes,
          sameAsChat: m.id === ctx.chat[1].id,
          set: attempt(() => {
            m.mes = 'changed';
          }),
          nested: attempt(() => {
            m.extra.foo = 1;
          }),
          del: attempt(() => {
            delete m.name;
          }),
          push: attempt(() => m.swipes.push('x')),
          after: ctx.chat[1].mes,
          missing: ctx.getMessage(999),
          count: ctx.getMessageCount(),
        };
      });
      assert.equal(r.mes, 'Hello again!');
      assert.equal(r.sameAsChat, true);
      for (const k of ['set', 'nested', 'del', 'push']) {
        assert.ok(r[k], `${k} must throw`);
        assert.equal(r[k].isError, true);
        assert.match(r[k].message, /updateMessages/, `${k}: ${r[k].message}`);
      }
      assert.equal(r.after, 'Hello again!');
      assert.equal(r.missing, null);
      assert.equal(r.count, 5);
    });

    it('deleteMessages: a batch uses the indexes from before the call; MESSAGE_DELETED(newLength)', async () => {
      const r = await inPage(async (h, ctx) => {
        await ctx.addMessages([{ mes: 'D' }, { mes: 'E' }]); // [greeting, Hello again!, A2, B2, C, D, E]
        const lengths = [];
        const onDel = (...args) => lengths.push(args);
        ctx.eventSource.on(ctx.eventTypes.MESSAGE_DELETED, onDel);
        const deleted = await ctx.deleteMessages([2, 4, 5]);
        const one = await ctx.deleteMessages(3);
        const deadline = Date.now() + 10000;
        while (lengths.length < 2 && Date.now() < deadline) await new Promise((res) => setTimeout(res, 10));
        ctx.eventSource.off(ctx.eventTypes.MESSAGE_DELETED, onDel);
        return {
          deleted: deleted.map((m) => m.mes),
          one: one.mes,
          texts: ctx.chat.map((m) => m.mes),
          lengths,
        };
      });
      assert.deepEqual(r.deleted, ['A2', 'C', 'D']);
      assert.equal(r.one, 'E');
      assert.deepEqual(r.texts.slice(1), ['Hello again!', 'B2']);
      assert.deepEqual(r.lengths, [[4], [3]]);
    });
  });

  describe('api.chat (Spindle)', () => {
    it('appendMessage maps roles to SillyTavern messages', async () => {
      const r = await inPage(async (h, ctx, id) => {
        const u = await h.api.chat.appendMessage(id, { role: 'user', content: 'from the user' });
        const a = await h.api.chat.appendMessage(id, { role: 'assistant', content: 'from the character' });
        const s = await h.api.chat.appendMessage(id, { role: 'system', content: '[Scene: the glade]', metadata: { source: 'e2e' } });
        const st = await h.api.chat.getStMessages(id, { start: u.index, end: s.index + 1 });
        const views = await h.api.chat.getMessages(id, { start: u.index, end: s.index + 1 });
        return { u, a, s, st, views };
      });
      assert.equal(r.a.index, r.u.index + 1);
      assert.equal(r.s.index, r.a.index + 1);
      const [u, a, s] = r.st;
      assert.equal(u.is_user, true);
      assert.equal(u.name, 'User');
      assert.equal(u.id, r.u.id);
      assert.equal(a.is_user, false);
      assert.equal(a.name, 'Ada');
      assert.equal(s.name, 'System');
      assert.equal(s.extra.type, 'narrator');
      assert.deepEqual(s.extra.spindle_metadata, { source: 'e2e' });
      assert.deepEqual(
        r.views.map((m) => m.role),
        ['user', 'assistant', 'system'],
      );
      assert.deepEqual(r.views[2].metadata, { source: 'e2e' });
      assert.equal(r.views[2].extra.spindle_metadata, undefined, 'metadata is surfaced, not left in extra');
    });

    it('updateMessage: swipes, swipe_id and content precedence; reasoning text/duration clear independently', async () => {
      const r = await inPage(async (h, ctx, id) => {
        const { id: mid, index } = await h.api.chat.appendMessage(id, { role: 'assistant', content: 'first' });
        const read = async () => (await h.api.chat.getMessages(id, { start: index, end: index + 1 }))[0];
        const st = async () => (await h.api.chat.getStMessages(id, { start: index, end: index + 1 }))[0];
        const swipeEdited = [];
        const off = h.api.events.on(h.api.events.types.SWIPE_EDITED, (p) => swipeEdited.push(p.previousSwipeId));
        const steps = {};
        await h.api.chat.updateMessage(id, mid, { swipes: ['one', 'two', 'three'], swipe_id: 2 });
        steps.swipesAndId = await read();
        await h.api.chat.updateMessage(id, mid, { swipe_id: 0 });
        steps.navigate = await read();
        await h.api.chat.updateMessage(id, mid, { swipe_id: 1, content: 'TWO' });
        steps.contentWins = await read();
        await h.api.chat.updateMessage(id, mid, { swipes: ['a', 'b'] });
        steps.swipesOnly = await read();
        await h.api.chat.updateMessage(id, mid, { content: 'plain edit' });
        steps.content = await read();
        await h.api.chat.updateMessage(id, mid, { reasoning: { text: 'Because.', duration: 1842 } });
        steps.reasoning = (await st()).extra;
        await h.api.chat.updateMessage(id, mid, { reasoning: { duration: null } });
        steps.noDuration = (await st()).extra;
        await h.api.chat.updateMessage(id, mid, { reasoning: { text: null } });
        steps.noText = (await st()).extra;
        const errors = {};
        const before = await h.api.chat.get(id);
        for (const [name, patch] of [
          ['empty', { swipes: [] }],
          ['range', { swipe_id: 7 }],
          ['fraction', { swipe_id: 0.5 }],
          ['dates', { swipes: ['x', 'y', 'z'], swipe_dates: [1] }],
        ]) {
          try {
            await h.api.chat.updateMessage(id, mid, patch);
            errors[name] = 'resolved';
          } catch (err) {
            errors[name] = err.code;
          }
        }
        const afterErrors = await h.api.chat.get(id);
        const deadline = Date.now() + 10000;
        while (swipeEdited.length < 4 && Date.now() < deadline) await new Promise((res) => setTimeout(res, 10));
        off();
        return { steps, errors, revisionBefore: before.revision, revisionAfter: afterErrors.revision, swipeEdited, final: await read() };
      });
      const s = r.steps;
      assert.deepEqual([s.swipesAndId.content, s.swipesAndId.swipe_id, s.swipesAndId.swipes], ['three', 2, ['one', 'two', 'three']]);
      assert.equal(s.swipesAndId.swipe_dates.length, 3, 'new slots are padded with dates');
      assert.deepEqual([s.navigate.content, s.navigate.swipe_id], ['one', 0]);
      assert.deepEqual([s.contentWins.content, s.contentWins.swipe_id, s.contentWins.swipes], ['TWO', 1, ['one', 'TWO', 'three']]);
      assert.deepEqual([s.swipesOnly.content, s.swipesOnly.swipe_id, s.swipesOnly.swipes], ['b', 1, ['a', 'b']]);
      assert.equal(s.swipesOnly.swipe_dates.length, 2, 'extra dates are truncated');
      assert.deepEqual([s.content.content, s.content.swipes], ['plain edit', ['a', 'plain edit']]);
      assert.equal(s.reasoning.reasoning, 'Because.');
      assert.equal(s.reasoning.reasoning_duration, 1842);
      assert.equal(s.noDuration.reasoning, 'Because.');
      assert.equal(s.noDuration.reasoning_duration ?? null, null);
      assert.equal(s.noText.reasoning ?? null, null);
      assert.deepEqual(r.errors, {
        empty: 'validation.invalid_argument',
        range: 'swipe.out_of_range',
        fraction: 'validation.invalid_argument',
        dates: 'validation.invalid_argument',
      });
      assert.equal(r.revisionAfter, r.revisionBefore, 'failed updates write nothing');
      assert.equal(r.final.content, 'plain edit');
      assert.deepEqual(r.swipeEdited, [0, 2, 0, 1], 'SWIPE_EDITED for swipes/swipe_id patches, with the previous swipe');
    });
  });

  describe('events', () => {
    it('APP_READY is replayed to late eventSource listeners', async () => {
      const r = await inPage(async (h, ctx) => {
        let on = 0;
        let once = 0;
        ctx.eventSource.on(ctx.eventTypes.APP_READY, () => on++);
        ctx.eventSource.once(ctx.eventTypes.APP_READY, () => once++);
        await new Promise((res) => setTimeout(res, 0));
        return { on, once, type: ctx.eventTypes.APP_READY };
      });
      assert.deepEqual(r, { on: 1, once: 1, type: 'app_ready' });
    });

    it('api.events payloads carry chatId and revision; CHAT_CHANGED(chatId) on select', async () => {
      const r = await inPage(async (h, ctx, id) => {
        const got = [];
        const off = h.api.events.on(h.api.events.types.MESSAGE_SENT, (p) => got.push({ chatId: p.chatId, revision: p.revision, index: p.index }));
        const changed = [];
        const onChanged = (...args) => changed.push(args);
        ctx.eventSource.on(ctx.eventTypes.CHAT_CHANGED, onChanged);
        const before = await h.api.chat.get(id);
        const index = await h.api.chat.addMessages(id, { is_user: true, mes: 'ping' });
        const deadline = Date.now() + 10000;
        while (got.length < 1 && Date.now() < deadline) await new Promise((res) => setTimeout(res, 10));
        off();
        await h.api.chat.select(null);
        await h.api.chat.select(id);
        while (changed.length < 2 && Date.now() < deadline) await new Promise((res) => setTimeout(res, 10));
        ctx.eventSource.off(ctx.eventTypes.CHAT_CHANGED, onChanged);
        return { got, index, before: before.revision, changed, current: h.api.chat.current() };
      });
      assert.deepEqual(r.got, [{ chatId, revision: r.before + 1, index: r.index }]);
      assert.deepEqual(r.changed, [[undefined], [chatId]]);
      assert.equal(r.current.chatId, chatId);
      assert.equal(r.current.avatar, avatar);
    });
  });

  describe('HostError', () => {
    it('rejects with stable codes and details, changing nothing', async () => {
      const r = await inPage(async (h, ctx, id) => {
        const codeOf = async (p) => {
          try {
            await p;
            return { resolved: true };
          } catch (err) {
            return { isError: err instanceof Error, name: err.name, code: err.code, details: err.details ?? null };
          }
        };
        const before = await h.api.chat.get(id);
        const out = {
          range: await codeOf(h.api.chat.updateMessages(id, { index: 999, patch: { mes: 'x' } })),
          negative: await codeOf(h.api.chat.getStMessages(id, { start: -1, end: 2 })),
          fraction: await codeOf(h.api.chat.deleteMessages(id, 1.5)),
          chat: await codeOf(h.api.chat.get('00000000-0000-0000-0000-000000000000')),
          character: await codeOf(h.api.characters.get('Nobody.png')),
          conflict: await codeOf(h.api.chat.addMessages(id, { mes: 'x' }, { ifRevision: 0 })),
          lastSwipe: await codeOf(h.api.chat.deleteMessages(id, 1, { swipe: 0 })),
          context: await codeOf(ctx.updateMessages({ index: 12345, patch: { mes: 'x' } })),
        };
        const after = await h.api.chat.get(id);
        return { out, before: before.revision, after: after.revision, length: ctx.chat.length, count: after.messageCount };
      });
      const { out } = r;
      assert.deepEqual(out.range, {
        isError: true,
        name: 'HostError',
        code: 'message.index_out_of_range',
        details: out.range.details,
      });
      assert.equal(out.range.details.index, 999);
      assert.equal(out.range.details.length, r.count);
      assert.equal(out.negative.code, 'message.index_out_of_range');
      assert.equal(out.fraction.code, 'validation.invalid_argument');
      assert.equal(out.chat.code, 'chat.not_found');
      assert.equal(out.character.code, 'character.not_found');
      assert.equal(out.conflict.code, 'chat.conflict');
      assert.equal(out.conflict.details.currentRevision, r.before);
      assert.equal(out.lastSwipe.code, 'swipe.last_swipe');
      assert.equal(out.context.code, 'message.index_out_of_range');
      assert.equal(r.after, r.before, 'no failed call changed the chat');
      assert.equal(r.length, r.count);
    });
  });
});
