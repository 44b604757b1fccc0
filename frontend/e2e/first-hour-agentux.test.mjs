// The first hour (issue 39, items 3 and 4), through the UI against a real
// `hearth serve` and a scripted OpenAI-compatible model server. The chat's
// search bar searches as the query is typed, with no Enter, and a changed
// query drops the old hits at once; Enter then walks the hits. An agent run
// against a model that only ever answers in plain text ends after two model
// requests (counted at the server), not 80 rounds, and says in words what
// to change; with the panel closed, after switching chats and back, and
// after a reload, the user's message carries a "No reply" notice with
// Retry, a reply without the agent, and a way to open the run. A normal
// generation the server refuses leaves the same notice, and Retry answers
// it. Screenshots at 1280×800 and 390×844.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { messageRow, openApp, pageUrl, screenshot, useHearth, waitFor } from './harness.mjs';
import { scriptedModel } from './scripted-model.mjs';

const PHONE = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true };

/** PLAIN is the plain-text answer of a model that never calls a tool; the test queues nothing else for a run. */
const PLAIN = { text: ['I would rather ', 'just talk about the lighthouse.'] };
const NO_TOOLS_MESSAGE = "The model answered in plain text instead of using Hearth's tools. Pick a model that supports tool calling in the connection, or send without the agent.";

/** sendWithAgent types text (if any) and picks "Send with agent" in the composer's menu. */
async function sendWithAgent(page, text, tap = false) {
  const box = page.getByRole('textbox', { name: 'Message' });
  if (text) await box.fill(text);
  const menu = page.getByRole('button', { name: 'Reply actions' });
  await (tap ? menu.tap() : menu.click());
  const item = page.getByRole('menuitem', { name: /Send with agent/ });
  await (tap ? item.tap() : item.click());
}

/** openPhone opens Hearth at 390×844 (touch) on chatId. */
async function openPhone(env, chatId) {
  const context = await env.browser.newContext({ ...PHONE, reducedMotion: 'reduce' });
  await context.addInitScript(() => localStorage.setItem('hearth.theme', 'dark'));
  const phone = await context.newPage();
  phone.errors = [];
  phone.on('pageerror', (err) => phone.errors.push(err));
  await phone.goto(pageUrl(env.server.url));
  await phone.waitForFunction(() => typeof window.__HEARTH__ === 'object' && window.__HEARTH__ !== null);
  await phone.evaluate(() => window.__HEARTH__.ready);
  await phone.evaluate((id) => window.__HEARTH__.api.chat.select(id), chatId);
  await messageRow(phone, 0).waitFor();
  return phone;
}

/** select opens chatId in page and waits for its first row. */
async function select(page, chatId) {
  await page.evaluate((id) => window.__HEARTH__.api.chat.select(id), chatId);
  await waitFor(() => page.evaluate((id) => window.__HEARTH__.api.chat.current()?.chatId === id, chatId), `chat ${chatId} to open`);
  await messageRow(page, 0).waitFor();
}

/** dismissToasts closes the error toasts, so a screenshot shows the chat. */
async function dismissToasts(page) {
  for (const b of await page.getByRole('alert').getByRole('button', { name: 'Dismiss' }).all()) await b.click().catch(() => {});
}

describe('the first hour: search as you type, and replies that did not come', () => {
  const env = useHearth({ before, after });
  let llm;
  let avatar;
  const pages = [];

  const newChat = async (messages = []) => {
    const { chatId } = await env.server.invoke('chat.create', { avatar });
    if (messages.length) await env.server.invoke('chat.addMessages', chatId, messages);
    return chatId;
  };
  const open = async (chatId, target = env.browser) => {
    const page = await openApp(target, env.server.url);
    pages.push(page);
    await select(page, chatId);
    return page;
  };
  const runsOf = async (chatId) => (await env.server.invoke('agent.listRuns', { chatId })).runs;
  const notice = (page) => page.getByRole('region', { name: 'No reply' });

  before(async () => {
    llm = await scriptedModel({ delayMs: 20, fallback: PLAIN });
    const card = await env.server.invoke('characters.create', { name: 'Wren', description: 'Wren keeps the lighthouse.', first_mes: 'The lamp is lit, {{user}}.' });
    avatar = card.avatar;
    const conn = await env.server.invoke('connections.save', { name: 'Scripted', provider: 'openai-compatible', baseUrl: llm.url, model: 'scripted', apiKey: 'sk-e2e' });
    await env.server.invoke('connections.select', conn.id);
  });

  afterEach(async () => {
    const { runs } = await env.server.invoke('agent.listRuns', { limit: 100 });
    for (const run of runs) if (!['completed', 'cancelled', 'failed', 'interrupted'].includes(run.status)) await env.server.invoke('agent.cancel', run.runId);
    llm.reset();
  });

  after(async () => {
    await new Promise((r) => llm?.server.close(r) ?? r());
    for (const p of pages) if (!p.isClosed()) assert.deepEqual(p.errors, [], 'uncaught errors in the page');
  });

  it('the chat’s search bar searches as the query is typed, and a new query drops the old hits at once', async () => {
    const chatId = await newChat([
      { is_user: true, name: 'User', mes: 'Where is the silver lantern?' },
      { is_user: false, name: 'Wren', mes: 'The lantern hangs by the door, as always.' },
      { is_user: true, name: 'User', mes: 'And the kestrel?' },
      { is_user: false, name: 'Wren', mes: 'It nests under the eaves. The lantern keeps it warm.' },
    ]);
    const page = await open(chatId);
    await page.getByRole('region', { name: 'Chat' }).getByRole('button', { name: 'Search this chat' }).click();
    const bar = page.getByRole('region', { name: 'Search this chat' });
    const box = bar.getByRole('searchbox', { name: 'Search this chat' });
    const hits = bar.getByRole('list', { name: 'Matches' }).getByRole('button');

    // Typed key by key, no Enter: the hits come once typing pauses.
    await box.pressSequentially('lantern', { delay: 40 });
    await waitFor(async () => (await hits.count()) === 3, 'three hits for lantern, without Enter');
    await bar.getByText('3 matches').waitFor();
    assert.deepEqual(await bar.locator('mark').allInnerTexts(), ['lantern', 'lantern', 'lantern']);
    await page.mouse.move(0, 0);
    await screenshot(page, 'first-hour-agentux-search-typed-desktop');

    // A new query: in the same frame as the keystroke, the lantern hits are gone.
    const right = await page.evaluate(async () => {
      const input = document.querySelector('input[aria-label="Search this chat"]');
      input.value = 'kestrel';
      input.dispatchEvent(new Event('input', { bubbles: true }));
      await new Promise((r) => requestAnimationFrame(() => r()));
      return {
        hits: document.querySelectorAll('#chat-search-hits li').length,
        marks: [...document.querySelectorAll('section[aria-label="Search this chat"] mark')].map((m) => m.textContent),
        searching: document.querySelector('section[aria-label="Search this chat"] .count')?.textContent ?? '',
      };
    });
    assert.deepEqual(right.hits, 0, `no stale hits once the query changed: ${JSON.stringify(right)}`);
    assert.deepEqual(right.marks, []);
    assert.doesNotMatch(right.searching, /match/, 'no count of the old query');
    await waitFor(async () => (await hits.count()) === 1, 'the kestrel hit, without Enter');
    assert.match(await hits.first().innerText(), /kestrel/);

    // Enter walks the hits (here, the one): it jumps to the message.
    await box.press('Enter');
    await bar.getByText('1 / 1').waitFor();
    await page.locator('.row[data-search-hit] article[aria-label^="Message 3 from "]').waitFor();

    // Emptied, the bar shows nothing; typed again, Enter right away searches at once.
    await box.fill('');
    await waitFor(async () => (await hits.count()) === 0, 'no hits for an empty query');
    await box.fill('eaves');
    await box.press('Enter');
    await waitFor(async () => (await hits.count()) === 1, 'the eaves hit');
    await bar.getByText(/^1 match$|^1 \/ 1$/).waitFor();
  });

  it('an agent run with a model that only answers in plain text ends after two requests, in words; the chat marks the message', async () => {
    const other = await newChat();
    const chatId = await newChat();
    const page = await open(chatId);
    const requestsBefore = llm.requests.length;
    const began = Date.now();
    await sendWithAgent(page, 'Tell me about the lighthouse.');
    await messageRow(page, 1).getByText('Tell me about the lighthouse.').waitFor();
    const panel = page.getByRole('complementary', { name: 'Agent panel' });
    await panel.locator('.summary [data-status="failed"]').waitFor();
    const failure = panel.getByRole('alert');
    await failure.getByText(NO_TOOLS_MESSAGE).waitFor();
    const requests = llm.requests.length - requestsBefore;
    assert.equal(requests, 2, `the run made ${requests} model requests, not 80`);
    assert.ok(Date.now() - began < 15_000, 'the run ended in seconds');
    const [run] = await runsOf(chatId);
    assert.equal(run.status, 'failed');
    assert.equal(run.error.code, 'agent.no_tool_calls');
    assert.equal(run.rounds, 2);
    // The panel leads to the fix: the connection's model. The chat marks the message already; the run is open.
    await failure.getByRole('button', { name: 'Open Connections' }).waitFor();
    await notice(page).getByText(NO_TOOLS_MESSAGE).waitFor();
    assert.equal(await notice(page).getByRole('button', { name: 'Open the run' }).count(), 0, 'the run shows already');
    await page.mouse.move(0, 0);
    await screenshot(page, 'first-hour-agentux-agent-failed-panel-desktop');

    // With the panel closed, the chat says the message got no reply, and why.
    await page.getByRole('button', { name: 'Agent panel', exact: true }).click();
    await panel.waitFor({ state: 'detached' });
    const mark = notice(page);
    await mark.waitFor();
    const said = await mark.locator('.what').innerText();
    assert.match(said, /^The agent did not reply\./);
    assert.ok(said.includes(NO_TOOLS_MESSAGE), said);
    assert.doesNotMatch(said, /agent\.no_tool_calls/, 'no code in the main text');
    for (const name of ['Retry', 'Reply without the agent', 'Open Connections', 'Open the run']) await mark.getByRole('button', { name, exact: true }).waitFor();
    await mark.getByText('Details').click();
    await mark.getByText('agent.no_tool_calls').waitFor();
    await mark.getByText('Details').click();
    await page.mouse.move(0, 0);
    await screenshot(page, 'first-hour-agentux-agent-no-reply-desktop');

    // It stays: after switching chats and back, and after a reload (from the run list).
    await select(page, other);
    assert.equal(await notice(page).count(), 0, 'another chat has no notice');
    await select(page, chatId);
    await notice(page).waitFor();
    await page.reload();
    await page.evaluate(() => window.__HEARTH__.ready);
    await select(page, chatId);
    await notice(page).getByText(NO_TOOLS_MESSAGE).waitFor();

    // Open the run: the panel shows it, failed.
    await notice(page).getByRole('button', { name: 'Open the run' }).click();
    await panel.locator('.summary [data-status="failed"]').waitFor();
    assert.equal(await panel.getByRole('combobox', { name: 'Agent run' }).inputValue(), run.runId);
    await page.getByRole('button', { name: 'Agent panel', exact: true }).click();
    await panel.waitFor({ state: 'detached' });

    // Retry runs the agent again (the same model, the same end: two requests more).
    const beforeRetry = llm.requests.length;
    await notice(page).getByRole('button', { name: 'Retry' }).click();
    await waitFor(async () => (await runsOf(chatId)).length === 2 && (await runsOf(chatId))[0].status === 'failed', 'the retried run to fail too');
    assert.equal(llm.requests.length - beforeRetry, 2);
    assert.equal((await env.server.invoke('chat.getStMessages', chatId)).length, 2, 'Retry sent no second message');
    await page.getByRole('button', { name: 'Agent panel', exact: true }).click();
    await panel.waitFor({ state: 'detached' });
    await notice(page).waitFor();

    // Without the agent, the same model answers: the notice goes.
    llm.next({ text: ['The lamp ', 'has burned for a hundred years.'] });
    await notice(page).getByRole('button', { name: 'Reply without the agent' }).click();
    await messageRow(page, 2).getByText('The lamp has burned for a hundred years.').waitFor();
    await notice(page).waitFor({ state: 'detached' });

    // A phone, reopened on the failed chat from scratch, marks it too.
    const failed = await newChat([{ is_user: true, name: 'User', mes: 'Is the lamp lit tonight?' }]);
    await env.server.invoke('agent.startRunFromLegacyGenerate', { chatId: failed });
    await waitFor(async () => (await runsOf(failed))[0]?.status === 'failed', 'a run started from the host to fail');
    const phone = await openPhone(env, failed);
    try {
      const phoneMark = notice(phone);
      await phoneMark.getByText(NO_TOOLS_MESSAGE).waitFor();
      const box = await phoneMark.boundingBox();
      assert.ok(box.x >= 0 && box.x + box.width <= 390, `the notice fits the screen: ${JSON.stringify(box)}`);
      for (const b of await phoneMark.getByRole('button').all()) {
        const r = await b.boundingBox();
        assert.ok(r.height >= 43.5 && r.x + r.width <= 390, `a 44 px target inside the screen: ${JSON.stringify(r)}`);
      }
      assert.equal(await phone.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), true, 'nothing sticks out sideways');
      await screenshot(phone, 'first-hour-agentux-agent-no-reply-phone');
      assert.deepEqual(phone.errors, [], 'uncaught errors on the phone');
    } finally {
      await phone.context().close();
    }
  });

  it('a generation the server refuses leaves the same notice, and Retry answers the message', async () => {
    const other = await newChat();
    const chatId = await newChat();
    const page = await open(chatId);
    llm.next({ status: 400, message: 'The model scripted-7b does not exist.' });
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.fill('Will the storm reach us?');
    await box.press('Enter');
    await messageRow(page, 1).getByText('Will the storm reach us?').waitFor();
    const mark = notice(page);
    await mark.waitFor();
    const said = await mark.locator('.what').innerText();
    assert.match(said, /^No reply\. The model server refused the request\. The server said: The model scripted-7b does not exist\./);
    assert.doesNotMatch(said, /model\.request_failed/, 'no code in the main text');
    assert.equal(await mark.getByRole('button', { name: 'Open the run' }).count(), 0, 'no run to open');
    await dismissToasts(page);
    await page.mouse.move(0, 0);
    await screenshot(page, 'first-hour-agentux-generation-no-reply-desktop');

    await select(page, other);
    assert.equal(await notice(page).count(), 0);
    await select(page, chatId);
    await notice(page).waitFor();

    llm.next({ text: ['Not tonight; ', 'the wind has turned.'] });
    await notice(page).getByRole('button', { name: 'Retry' }).click();
    await messageRow(page, 2).getByText('Not tonight; the wind has turned.').waitFor();
    await notice(page).waitFor({ state: 'detached' });
    const msgs = await env.server.invoke('chat.getStMessages', chatId);
    assert.deepEqual(
      msgs.slice(1).map((m) => [m.is_user, m.mes]),
      [
        [true, 'Will the storm reach us?'],
        [false, 'Not tonight; the wind has turned.'],
      ],
      'Retry asked for the reply, and sent nothing twice',
    );

    // The same on a phone.
    const phone = await openPhone(env, chatId);
    try {
      llm.next({ status: 400, message: 'The model scripted-7b does not exist.' });
      const phoneBox = phone.getByRole('textbox', { name: 'Message' });
      await phoneBox.fill('And tomorrow?');
      await phone.getByRole('button', { name: 'Send message' }).tap();
      const phoneMark = notice(phone);
      await phoneMark.waitFor();
      await dismissToasts(phone);
      await phoneMark.scrollIntoViewIfNeeded();
      const b = await phoneMark.boundingBox();
      assert.ok(b.x >= 0 && b.x + b.width <= 390, `the notice fits the screen: ${JSON.stringify(b)}`);
      await screenshot(phone, 'first-hour-agentux-generation-no-reply-phone');
      assert.deepEqual(phone.errors, [], 'uncaught errors on the phone');
    } finally {
      await phone.context().close();
    }
  });

  it('on a phone the search bar searches as the query is typed', async () => {
    const chatId = await newChat([
      { is_user: true, name: 'User', mes: 'Where is the silver lantern?' },
      { is_user: false, name: 'Wren', mes: 'The lantern hangs by the door, as always.' },
    ]);
    const phone = await openPhone(env, chatId);
    try {
      await phone.getByRole('region', { name: 'Chat' }).getByRole('button', { name: 'Search this chat' }).tap();
      const bar = phone.getByRole('region', { name: 'Search this chat' });
      const box = bar.getByRole('searchbox', { name: 'Search this chat' });
      await box.pressSequentially('lante', { delay: 40 });
      const hits = bar.getByRole('list', { name: 'Matches' }).getByRole('button');
      await waitFor(async () => (await hits.count()) === 2, 'two hits while typing, no Enter');
      await screenshot(phone, 'first-hour-agentux-search-typed-phone');
      assert.deepEqual(phone.errors, [], 'uncaught errors on the phone');
    } finally {
      await phone.context().close();
    }
  });
});
