// Group turns and auto mode through window.__HEARTH__ against a real
// `hearth serve` and a scripted OpenAI-compatible model (issue 38): a list
// strategy's turn writes one reply per member in order, each by its speaker
// and from a prompt with that member's card and the group nudge; the
// natural strategy answers a Cyrillic and a CJK name mentioned in the
// user's message; memberAvatar makes a muted member speak; auto mode keeps
// turns coming until the user's message turns it off (seen through
// events).
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { call, openApp, useHearth, waitFor } from './harness.mjs';
import { scriptedModel } from './scripted-model.mjs';

describe('group turns', () => {
  const env = useHearth({ before, after });
  let page;
  let llm;

  /** ok unwraps call's answer, failing on a refusal. */
  const ok = async (method, ...args) => {
    const r = await call(page, method, ...args);
    assert.ok(r.ok, `${method}: ${r.code} ${r.message}`);
    return r.value;
  };
  /** member makes a character whose card text names it. */
  const member = async (name, talkativeness = 0.5) =>
    (await ok('characters.create', { name, description: `CARD-OF-${name}: {{char}} lives by the harbour.`, first_mes: `I am ${name}.`, extensions: { talkativeness } })).avatar;
  /** groupChat makes a group of avatars with fields and one chat of it. */
  const groupChat = async (avatars, fields) => {
    const g = await ok('groups.create', { members: avatars, ...fields });
    const { chatId } = await ok('chat.create', { groupId: g.id });
    return { group: g, chatId };
  };
  const say = (chatId, mes) => ok('chat.addMessages', chatId, { is_user: true, mes });
  const stMessages = (chatId) => ok('chat.getStMessages', chatId);
  /** prompt is request i's messages, one "role: content" a line. */
  const prompt = (i) => llm.requests[i].messages.map((m) => `${m.role}: ${typeof m.content === 'string' ? m.content : JSON.stringify(m.content)}`).join('\n');

  before(async () => {
    llm = await scriptedModel({ delayMs: 5, fallback: { text: ['Auto ', 'reply.'] } });
    const conn = await env.server.invoke('connections.save', { name: 'Scripted', provider: 'openai-compatible', baseUrl: llm.url, model: 'scripted', apiKey: 'sk-e2e' });
    await env.server.invoke('connections.select', conn.id);
    page = await openApp(env.browser, env.server.url);
    await page.evaluate(() => window.__HEARTH__.ready);
  });

  afterEach(async () => {
    llm.reset();
    await waitFor(async () => !(await env.server.invoke('generate.status')).generating, 'the generation to end');
  });

  after(async () => {
    llm?.release();
    await new Promise((r) => llm?.server.close(r) ?? r());
    assert.deepEqual(page?.errors ?? [], [], 'uncaught errors in the page');
  });

  it('runs a list turn: three replies in order, each by its speaker, from its own prompt with the nudge', async () => {
    const names = ['Ada', 'Brann', 'Cato'];
    const avatars = [];
    for (const n of names) avatars.push(await member(n));
    const { chatId } = await groupChat(avatars, { activation_strategy: 1 });
    await say(chatId, 'Who is on watch tonight?');
    llm.next({ text: ['Ada ', 'answers.'] }, { text: ['Brann ', 'answers.'] }, { text: ['Cato ', 'answers.'] });
    const first = llm.requests.length;

    const turn = await ok('generate.run', { chatId, type: 'normal' });
    assert.deepEqual(turn.replies.map((r) => r.text), ['Ada answers.', 'Brann answers.', 'Cato answers.']);
    assert.equal(turn.index, turn.replies[2].index, 'the answer is the last reply');

    const msgs = await stMessages(chatId);
    const replies = msgs.slice(-3);
    assert.deepEqual(replies.map((m) => [m.name, m.original_avatar, m.mes, m.is_user]), names.map((n, i) => [n, avatars[i], `${n} answers.`, false]));
    for (const m of replies) assert.equal(m.force_avatar, `/thumbnail?type=avatar&file=${encodeURIComponent(m.original_avatar)}`);

    assert.equal(llm.requests.length - first, 3, 'one request per member');
    names.forEach((n, i) => {
      const text = prompt(first + i);
      assert.match(text, new RegExp(`CARD-OF-${n}: ${n} lives by the harbour\\.`), `${n}'s request carries ${n}'s card`);
      for (const other of names.filter((o) => o !== n)) assert.doesNotMatch(text, new RegExp(`CARD-OF-${other}`), `${n}'s request (swap mode) carries no other card`);
      const last = llm.requests[first + i].messages.at(-1);
      assert.equal(last.content, `[Write the next reply only as ${n}.]`, `${n}'s request ends with the nudge`);
    });
  });

  it('natural strategy: the member a Cyrillic or CJK mention names speaks', async () => {
    const alisa = await member('Алиса', 0);
    const xh = await member('小红', 0);
    const bob = await member('Bob', 0);
    const { chatId } = await groupChat([alisa, xh, bob], { activation_strategy: 0 });

    await say(chatId, '小红你好，今天怎么样？');
    llm.next({ text: ['我很好。'] });
    let turn = await ok('generate.run', { chatId });
    assert.equal(turn.replies.length, 1, 'talkativeness 0: only the mentioned member speaks');
    let last = (await stMessages(chatId)).at(-1);
    assert.deepEqual([last.name, last.original_avatar, last.mes], ['小红', xh, '我很好。']);

    await say(chatId, 'Алиса, что скажешь?');
    llm.next({ text: ['Скажу ', 'да.'] });
    turn = await ok('generate.run', { chatId });
    assert.equal(turn.replies.length, 1);
    last = (await stMessages(chatId)).at(-1);
    assert.deepEqual([last.name, last.original_avatar, last.mes], ['Алиса', alisa, 'Скажу да.']);
    assert.equal(llm.requests.at(-1).messages.at(-1).content, '[Write the next reply only as Алиса.]');
  });

  it('memberAvatar makes a muted member speak', async () => {
    const a = await member('Dara');
    const muted = await member('Eno');
    const { chatId } = await groupChat([a, muted], { activation_strategy: 1, disabled_members: [muted] });
    await say(chatId, 'Eno, you have been quiet.');
    llm.next({ text: ['Eno ', 'speaks.'] });
    const turn = await ok('generate.run', { chatId, memberAvatar: muted });
    assert.equal(turn.replies.length, 1);
    const last = (await stMessages(chatId)).at(-1);
    assert.deepEqual([last.name, last.original_avatar, last.mes], ['Eno', muted, 'Eno speaks.']);
    assert.match(prompt(llm.requests.length - 1), /CARD-OF-Eno/);
  });

  it('auto mode keeps turns coming until the user types', async () => {
    const f = await member('Fenn');
    const g = await member('Gale');
    const { group, chatId } = await groupChat([f, g], { activation_strategy: 1, auto_mode_delay: 1 });
    await page.evaluate((chatId) => {
      const h = window.__HEARTH__;
      window.__autoLog = [];
      for (const t of ['GROUP_WRAPPER_STARTED', 'GROUP_WRAPPER_FINISHED', 'GROUP_AUTO_MODE_CHANGED']) {
        h.api.events.on(h.api.events.types[t], (p) => {
          if (p.chatId === chatId) window.__autoLog.push({ t, on: p.on ?? null, reason: p.reason ?? null });
        });
      }
    }, chatId);
    const log = () => page.evaluate(() => window.__autoLog);
    const count = async (t) => (await log()).filter((e) => e.t === t).length;

    assert.deepEqual(await ok('groups.autoMode', chatId), { chatId, on: false, delaySeconds: 1 });
    assert.deepEqual(await ok('groups.setAutoMode', chatId, true), { chatId, on: true, delaySeconds: 1 });
    assert.deepEqual(await ok('groups.autoMode', chatId), { chatId, on: true, delaySeconds: 1 });
    await waitFor(async () => (await count('GROUP_WRAPPER_FINISHED')) >= 2, 'two auto turns');
    const written = (await stMessages(chatId)).filter((m) => m.mes === 'Auto reply.');
    assert.ok(written.length >= 2, 'the auto turns wrote replies');
    assert.ok(written.every((m) => m.original_avatar === f || m.original_avatar === g), 'each by a member');

    await say(chatId, 'That is enough, you two.');
    await waitFor(async () => (await log()).some((e) => e.t === 'GROUP_AUTO_MODE_CHANGED' && e.on === false), 'auto mode to go off');
    const changes = (await log()).filter((e) => e.t === 'GROUP_AUTO_MODE_CHANGED');
    assert.deepEqual(changes, [{ t: 'GROUP_AUTO_MODE_CHANGED', on: true, reason: 'set' }, { t: 'GROUP_AUTO_MODE_CHANGED', on: false, reason: 'user_message' }]);
    assert.deepEqual(await ok('groups.autoMode', chatId), { chatId, on: false, delaySeconds: 1 });
    // A turn under way when the user typed may finish; none starts after.
    await waitFor(async () => (await count('GROUP_WRAPPER_STARTED')) === (await count('GROUP_WRAPPER_FINISHED')), 'the last turn to end');
    const started = await count('GROUP_WRAPPER_STARTED');
    await new Promise((r) => setTimeout(r, 2500));
    assert.equal(await count('GROUP_WRAPPER_STARTED'), started, 'no turn after auto mode went off (the delay is 1 s)');

    // Bad input changes nothing and sends nothing.
    const before = (await log()).length;
    const solo = await ok('chat.create', { avatar: f });
    assert.equal((await call(page, 'groups.setAutoMode', solo.chatId, true)).code, 'validation.invalid_argument');
    assert.equal((await call(page, 'groups.setAutoMode', chatId, 'yes')).code, 'validation.invalid_argument');
    assert.equal((await call(page, 'groups.setAutoMode', 'no-such-chat', true)).code, 'chat.not_found');
    assert.deepEqual(await ok('groups.autoMode', chatId), { chatId, on: false, delaySeconds: 1 });
    assert.equal((await log()).length, before);
    assert.ok(group.id);
  });
});
