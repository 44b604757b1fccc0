// Prompt hooks in sandboxed frames (issue 37, EXTENSIONS.md §6), in
// Chromium against `hearth serve` and a scripted model server that keeps
// every request. Two sandboxed extensions listen for
// chat_completion_prompt_ready in their frames: fixtures/ext-frame-hooks
// holds prompt.hooks and changes the prompt, fixtures/ext-frame-nohooks
// holds chat.read only and would. Each keeps what it was handed in its own
// storage. A message sent through the UI: the hooking frame's change
// reaches the model's request, the stored chat never holds it, the record
// says the prompt changed; a dry run shows the hooked prompt; a frame that
// hangs or throws is skipped with a warning in the record and the
// generation goes on; revoking prompt.hooks stops the prompt reaching the
// frame; the frame without the grant is never handed a prompt.
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { call, launchBrowser, messageRow, openApp, repoRoot, startHearth, waitFor } from './harness.mjs';
import { characterChat, connectScripted, scriptedModel } from './scripted-model.mjs';

const LINE = 'FRAME-HOOK: speak softly.';
const MARK = ' [seen by the frame]';

const root = mkdtempSync(join(tmpdir(), 'hearth-frame-hooks-e2e-'));
for (const name of ['ext-frame-hooks', 'ext-frame-nohooks']) cpSync(join(repoRoot, 'frontend/e2e/fixtures', name), join(root, name), { recursive: true });

describe('prompt hooks in sandboxed frames', () => {
  let server;
  let browser;
  let page;
  let llm;
  let chatId;
  const stored = async () => (await server.invoke('chat.getStMessages', chatId)).map((m) => m.mes);
  /** seen is what an extension's frame kept of the prompts it was handed. */
  const seen = async (id = 'frame-hooks') => (await server.invoke('extensions.storage.get', 'seen', { extensionId: id })) ?? [];
  const recordOf = async (generationId) => (await server.invoke('generate.status', generationId)).hooks;

  /** send types text into the composer and waits for the reply's row at index. */
  async function send(text, index, reply) {
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.fill(text);
    await box.press('Enter');
    await messageRow(page, index).getByText(reply).waitFor();
    const last = (await server.invoke('chat.getStMessages', chatId)).at(-1);
    assert.equal(last.mes, reply);
    return last.extra.hearth.generationId;
  }

  before(async () => {
    llm = await scriptedModel({ delayMs: 10 });
    server = await startHearth(['--library-root', root]);
    browser = await launchBrowser();
    ({ chatId } = await characterChat(server, { name: 'Wren', first_mes: 'The lamp is lit.' }));
    await connectScripted(server, llm);
    for (const name of ['ext-frame-hooks', 'ext-frame-nohooks']) {
      const entry = await server.invoke('extensions.install', { path: join(root, name) }, { enable: true });
      assert.equal(entry.status, 'active');
    }
    assert.deepEqual((await server.invoke('extensions.list')).find((e) => e.id === 'frame-hooks').granted, ['prompt.hooks']);
    page = await openApp(browser, server.url);
    for (const id of ['frame-hooks', 'frame-nohooks']) {
      await waitFor(() => server.invoke('extensions.storage.get', 'activated', { extensionId: id }), `${id} to activate`);
    }
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

  it('sends the frame’s change to the model and never stores it', async () => {
    llm.next({ text: ['The keeper ', 'nods.'] });
    const generationId = await send('Is anyone there?', 2, 'The keeper nods.');

    const s = await seen();
    assert.equal(s.length, 1, `the frame's hook ran ${s.length} times: ${JSON.stringify(s)}`);
    assert.deepEqual({ ...s[0], roles: undefined }, { dryRun: false, chatId, generationId, frozen: false, roles: undefined, last: 'Is anyone there?' });
    assert.equal(s[0].roles.at(-1), 'user');

    const sent = llm.requests.at(-1).messages;
    assert.deepEqual(sent.at(-1), { role: 'system', content: LINE }, `the frame's line does not end the request: ${JSON.stringify(sent)}`);
    assert.ok(sent.some((m) => m.role === 'user' && m.content === `Is anyone there?${MARK}`), `the frame's edit is not in the request: ${JSON.stringify(sent)}`);
    assert.ok(!JSON.stringify(sent).includes('NOHOOKS'), 'the frame without prompt.hooks changed the prompt');

    assert.deepEqual(await stored(), ['The lamp is lit.', 'Is anyone there?', 'The keeper nods.']);
    assert.deepEqual(await page.evaluate(() => window.__HEARTH__.getContext().chat.map((m) => m.mes)), ['The lamp is lit.', 'Is anyone there?', 'The keeper nods.']);
    const rec = await recordOf(generationId);
    assert.equal(rec.promptReady.changed, true, JSON.stringify(rec));
    assert.equal(rec.promptReady.warnings, undefined);
    assert.equal(rec.promptReady.timedOut, undefined);
  });

  it('shows the hooked prompt in a dry run', async () => {
    const requests = llm.requests.length;
    const r = await call(page, 'generate.dryRun', { chatId, type: 'normal' });
    assert.ok(r.ok, JSON.stringify(r));
    const snap = r.value;
    assert.deepEqual(snap.chatCompletionPayload.messages.at(-1), { role: 'system', content: LINE, source: 'promptHook' });
    assert.equal(snap.hooks.promptReady.changed, true);
    const s = await seen();
    assert.equal(s.at(-1).dryRun, true);
    assert.equal(s.at(-1).generationId, null);
    assert.equal(llm.requests.length, requests, 'a dry run sent a request');
    assert.equal((await stored()).length, 3);
  });

  it('skips a frame that hangs after the prompt hooks’ time, with a warning, and the generation goes on', async () => {
    const before = (await seen()).length;
    llm.next({ text: ['Still here.'] });
    const t0 = Date.now();
    const generationId = await send('HANG for a while?', 4, 'Still here.');
    const took = Date.now() - t0;
    assert.ok(took >= 4000, `the generation went on after ${took} ms, before the frame's time was up`);
    assert.equal((await seen()).length, before + 1, 'the frame was not handed the prompt');
    const body = JSON.stringify(llm.requests.at(-1).messages);
    assert.ok(!body.includes(LINE) && body.includes('HANG for a while?"'), `the hanging frame's change went: ${body}`);
    const rec = await recordOf(generationId);
    assert.equal(rec.promptReady.changed, false, JSON.stringify(rec));
    assert.equal(rec.promptReady.timedOut, undefined, 'the window did not answer in time');
    assert.equal(rec.promptReady.warnings.length, 1, JSON.stringify(rec));
    assert.match(rec.promptReady.warnings[0], /^The extension Frame Hooks \(frame-hooks\)'s prompt hook was skipped: it did not answer within 4\.\d s$/);
  });

  it('skips a frame that throws, with its error in the record', async () => {
    llm.next({ text: ['Careful now.'] });
    const generationId = await send('THROW something?', 6, 'Careful now.');
    const body = JSON.stringify(llm.requests.at(-1).messages);
    assert.ok(!body.includes(LINE) && !body.includes(MARK), `the throwing frame's change went: ${body}`);
    const rec = await recordOf(generationId);
    assert.deepEqual(rec.promptReady.warnings, ["The extension Frame Hooks (frame-hooks)'s prompt hook was skipped: it failed: the frame hook threw on purpose"]);
    assert.equal(rec.promptReady.changed, false);
  });

  it('hands the prompt to no frame once prompt.hooks is revoked', async () => {
    const before = (await seen()).length;
    const r = await call(page, 'extensions.revoke', 'frame-hooks', ['prompt.hooks']);
    assert.ok(r.ok, JSON.stringify(r));
    llm.next({ text: ['Quiet again.'] });
    const generationId = await send('Anyone listening now?', 8, 'Quiet again.');
    const body = JSON.stringify(llm.requests.at(-1).messages);
    assert.ok(!body.includes(LINE) && !body.includes(MARK), `a revoked frame changed the prompt: ${body}`);
    assert.equal((await seen()).length, before, 'a frame without prompt.hooks was handed the prompt');
    // No frame hooks now, and the window has no listener of its own: nothing was waited for.
    assert.deepEqual(await recordOf(generationId), {});
  });

  it('never hands the prompt to the frame without prompt.hooks', async () => {
    assert.deepEqual(await seen('frame-nohooks'), []);
    const all = JSON.stringify(llm.requests);
    assert.ok(!all.includes('NOHOOKS'), 'the frame without prompt.hooks reached a request');
  });
});
