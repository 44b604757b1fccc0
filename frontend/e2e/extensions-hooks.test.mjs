// SillyTavern's prompt hooks in Hearth (issue 37, EXTENSIONS.md §6): a page
// extension (fixtures/ext-st-hooks) with a generate_interceptor named in
// its manifest and a CHAT_COMPLETION_PROMPT_READY handler, installed and on,
// against `hearth serve` and a scripted model server that keeps every
// request. A message sent through the UI: the interceptor's narrator note
// (and the extension prompt it set) and the handler's line reach the
// model's request, the stored chat never holds them, and the generation's
// record says what each hook did. A dry run shows the hooked prompt (the
// handler hears dryRun: true, the interceptor does not run, as in
// SillyTavern); an interceptor's abort() keeps a generation from starting
// (generate.aborted, nothing sent); a generation no window started skips
// the hooks and its record says so.
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { call, launchBrowser, messageRow, openApp, repoRoot, startHearth, waitFor } from './harness.mjs';
import { characterChat, connectScripted, scriptedModel } from './scripted-model.mjs';

const NOTE = '[Hook note: the keeper is listening.]';
const READY = 'PROMPT-READY: answer in one line.';
const EXT_PROMPT = 'Hook Notes remembers: the lamp needs oil.';

const root = mkdtempSync(join(tmpdir(), 'hearth-hooks-e2e-'));
cpSync(join(repoRoot, 'frontend/e2e/fixtures/ext-st-hooks'), join(root, 'st-hooks'), { recursive: true });

const seen = (p) => p.evaluate(() => JSON.parse(JSON.stringify(window.__stHooks)));

describe('SillyTavern prompt hooks: generate_interceptor and CHAT_COMPLETION_PROMPT_READY', () => {
  let server;
  let browser;
  let page;
  let llm;
  let chatId;
  const stored = async () => (await server.invoke('chat.getStMessages', chatId)).map((m) => m.mes);

  before(async () => {
    llm = await scriptedModel({ delayMs: 10 });
    server = await startHearth(['--library-root', root]);
    browser = await launchBrowser();
    ({ chatId } = await characterChat(server, { name: 'Wren', first_mes: 'The lamp is lit.' }));
    await connectScripted(server, llm);
    const entry = await server.invoke('extensions.install', { path: join(root, 'st-hooks') }, { enable: true });
    assert.equal(entry.status, 'active');
    page = await openApp(browser, server.url);
    await page.waitForFunction(() => window.__stHooks?.ready === true);
    await page.evaluate((id) => window.__HEARTH__.api.chat.select(id), chatId);
    await messageRow(page, 0).getByText('The lamp is lit.').waitFor();
  });

  afterEach(async () => {
    llm.reset();
    await waitFor(async () => !(await server.invoke('generate.status')).generating, 'the reply to end');
  });

  after(async () => {
    assert.deepEqual(page?.errors?.map(String) ?? [], [], 'uncaught errors in the page');
    await browser?.close();
    await server?.stop();
    await new Promise((r) => llm?.server.close(r) ?? r());
    rmSync(root, { recursive: true, force: true });
  });

  it('sends the interceptor’s note and the handler’s edit to the model, and never stores them', async () => {
    llm.next({ text: ['The keeper ', 'nods.'] });
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.fill('Is anyone there?');
    await box.press('Enter');
    await messageRow(page, 2).getByText('The keeper nods.').waitFor();

    // The interceptor saw the chat with the message just sent.
    const s = await seen(page);
    assert.deepEqual(s.interceptor, [{ type: 'normal', contextSize: 8192, length: 2, last: 'Is anyone there?' }]);
    // The handler ran once: the announcement of a hooked prompt does not call it again.
    assert.equal(s.promptReady.length, 1);
    assert.equal(s.promptReady[0].dryRun, false);

    const sent = llm.requests.at(-1).messages;
    const at = (text) => sent.findIndex((m) => m.content === text);
    assert.ok(at(NOTE) >= 0, `the interceptor's note is not in the request: ${JSON.stringify(sent)}`);
    assert.equal(sent[at(NOTE)].role, 'system', 'a narrator note goes as a system message');
    assert.equal(at('Is anyone there?'), at(NOTE) + 1, 'the note goes right before the last message');
    assert.deepEqual(sent.at(-1), { role: 'system', content: READY }, 'the prompt-ready edit ends the request');
    assert.ok(sent.some((m) => m.content.includes(EXT_PROMPT)), 'the extension prompt the interceptor set is sent');

    assert.deepEqual(await stored(), ['The lamp is lit.', 'Is anyone there?', 'The keeper nods.']);
    assert.deepEqual(await page.evaluate(() => window.__HEARTH__.getContext().chat.map((m) => m.mes)), ['The lamp is lit.', 'Is anyone there?', 'The keeper nods.']);

    const reply = (await server.invoke('chat.getStMessages', chatId)).at(-1);
    const record = await server.invoke('generate.status', reply.extra.hearth.generationId);
    assert.equal(record.hooks.interceptor.changed, true);
    assert.equal(record.hooks.promptReady.changed, true);
    assert.equal(typeof record.hooks.interceptor.ms, 'number');
    assert.equal(record.hooks.promptReady.timedOut, undefined);
  });

  it('shows the hooked prompt in a dry run, without running the interceptor', async () => {
    const before = await seen(page);
    const requests = llm.requests.length;
    const r = await call(page, 'generate.dryRun', { chatId, type: 'normal' });
    assert.ok(r.ok, JSON.stringify(r));
    const snap = r.value;
    assert.deepEqual(snap.chatCompletionPayload.messages.at(-1), { role: 'system', content: READY, source: 'promptHook' });
    assert.equal(snap.hooks.promptReady.changed, true);
    assert.equal(snap.hooks.interceptor, undefined);
    assert.ok(snap.tokenCounts.parts.some((p) => p.source === 'promptHook'));
    const after = await seen(page);
    assert.equal(after.interceptor.length, before.interceptor.length, 'the interceptor ran for a dry run');
    assert.deepEqual(after.promptReady.at(-1).dryRun, true);
    assert.equal(llm.requests.length, requests, 'a dry run sent a request');
    assert.equal((await stored()).length, 3);
  });

  it('starts nothing when the interceptor aborts', async () => {
    const requests = llm.requests.length;
    await page.evaluate(() => {
      window.__stHooks.abortNext = true;
    });
    const r = await call(page, 'generate.start', { chatId, type: 'normal' });
    assert.equal(r.ok, false);
    assert.equal(r.code, 'generate.aborted');
    assert.deepEqual(r.details, { extensionId: 'st-hooks', interceptor: 'hookNotesInterceptor' });
    assert.match(r.message, /Hook Notes's generate interceptor aborted the generation/);
    assert.equal(llm.requests.length, requests);
    assert.equal((await server.invoke('generate.status')).generating, false);
    assert.equal((await stored()).length, 3);
  });

  it('skips the hooks of a generation no window started, and records it', async () => {
    const before = await seen(page);
    llm.next({ text: ['A quiet summary.'] });
    const res = await server.invoke('generate.run', { chatId, type: 'quiet', quietPrompt: 'Sum up the chat.' });
    assert.equal(res.text, 'A quiet summary.');
    const body = JSON.stringify(llm.requests.at(-1).messages);
    assert.ok(!body.includes(NOTE) && !body.includes(READY), `a windowless generation was hooked: ${body}`);
    assert.deepEqual((await server.invoke('generate.status', res.generationId)).hooks, { skipped: 'no window' });
    assert.equal((await seen(page)).interceptor.length, before.interceptor.length, 'the interceptor ran for a generation no window started');
  });
});
