// Agent runs through the UI against a real `hearth serve` and a scripted
// OpenAI-compatible server that streams text and `delta.tool_calls` as
// OpenAI does: "Send with agent" in the composer's menu sends the message
// and starts a run; the run panel streams the model's text, shows a card
// per tool call (write_file → commit → finish), the status, the live
// workspace tree with a file viewer, checkpoints with a diff; the reply
// lands in the chat. A profile made in the profile editor that asks
// before workspace.write_file shows Approve / Deny (a denial's reason
// reaches the model) and continues after Approve. Rolling back with "also
// take the reply back out" after a later edit shows the conflict; without
// it the workspace rolls back. A page closed while the model stalls: the
// run finishes anyway, and a new page shows the reply and the completed
// run. A run whose key the provider refuses fails in the panel with an
// "Open Connections" button that opens them. A phone shows the panel as a
// full-screen sheet with 44 px targets.
// Screenshots at 1280×800 and 390×844.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { messageRow, openApp, pageUrl, screenshot, useHearth, waitFor } from './harness.mjs';
import { scriptedModel } from './scripted-model.mjs';

const PHONE = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true };

const write = (id, path, content) => ({ id, name: 'workspace_write_file', args: { path, content } });
const commit = (id) => ({ id, name: 'workspace_commit', args: { reason: 'the reply' } });
const finish = (id) => ({ id, name: 'workspace_finish', args: { reason: 'done' } });

const chatOf = (page) => page.evaluate(() => window.__HEARTH__.getContext().chat.map((m) => ({ mes: m.mes, is_user: m.is_user, agent: m.extra?.hearth?.agent?.runId ?? null })));

/** sendWithAgent types text (if any) and picks "Send with agent" in the composer's menu. */
async function sendWithAgent(page, text, tap = false) {
  const box = page.getByRole('textbox', { name: 'Message' });
  if (text) await box.fill(text);
  const menu = page.getByRole('button', { name: 'Reply actions' });
  await (tap ? menu.tap() : menu.click());
  const item = page.getByRole('menuitem', { name: /Send with agent/ });
  await (tap ? item.tap() : item.click());
}

/** sticksOut lists the elements inside rootSelector that reach past its right edge (not clipped by a scroller). */
function sticksOut(page, rootSelector) {
  return page.evaluate((sel) => {
    const root = document.querySelector(sel);
    const right = root.getBoundingClientRect().right;
    const out = [];
    for (const el of root.querySelectorAll('*')) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.right <= right + 1) continue;
      let clipped = false;
      for (let up = el.parentElement; up && up !== root; up = up.parentElement) {
        if (getComputedStyle(up).overflowX !== 'visible' && up.getBoundingClientRect().right <= right + 1) {
          clipped = true;
          break;
        }
      }
      if (!clipped) out.push(`<${el.tagName.toLowerCase()} class="${el.className?.baseVal ?? el.className}"> ends at ${Math.round(r.right)} > ${Math.round(right)}`);
    }
    return out.slice(0, 8);
  }, rootSelector);
}

/** smallTargets lists visible controls inside root smaller than 44×44 px. */
function smallTargets(page, rootSelector) {
  return page.evaluate((sel) => {
    const root = document.querySelector(sel);
    const out = [];
    for (const el of root?.querySelectorAll('button, input:not([type=hidden]), textarea, select, summary, [role=tab], [tabindex]:not([tabindex="-1"])') ?? []) {
      if (el.closest('[inert]') || el.closest('.md')) continue;
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.height === 0 || getComputedStyle(el).visibility !== 'visible') continue;
      if (r.bottom < 0 || r.top > window.innerHeight || r.right < 0 || r.left > window.innerWidth) continue;
      if (r.width < 43.5 || r.height < 43.5) out.push(`${el.tagName.toLowerCase()} "${el.getAttribute('aria-label') || el.textContent?.trim().slice(0, 30)}" ${Math.round(r.width)}×${Math.round(r.height)}`);
    }
    return out;
  }, rootSelector);
}

describe('agent runs in the UI', () => {
  const env = useHearth({ before, after });
  let llm;
  let avatar;
  const pages = [];

  async function newChat() {
    return (await env.server.invoke('chat.create', { avatar })).chatId;
  }

  /** open opens Hearth on chatId, in a fresh browser context unless one is given. */
  async function open(chatId, target = env.browser) {
    const page = await openApp(target, env.server.url);
    pages.push(page);
    await page.evaluate((id) => window.__HEARTH__.api.chat.select(id), chatId);
    await messageRow(page, 0).waitFor();
    return page;
  }

  const runsOf = (chatId) => env.server.invoke('agent.listRuns', { chatId });
  const FINISHED = new Set(['completed', 'cancelled', 'failed', 'interrupted']);

  before(async () => {
    llm = await scriptedModel({ delayMs: 30, fallback: { text: ['(the test queued no script)'] }, usage: { prompt_tokens: 300, completion_tokens: 40, total_tokens: 340 } });
    const card = await env.server.invoke('characters.create', { name: 'Wren', description: 'Wren keeps the lighthouse.', first_mes: 'The lamp is lit, {{user}}.' });
    avatar = card.avatar;
    const conn = await env.server.invoke('connections.save', { name: 'Scripted', provider: 'openai-compatible', baseUrl: llm.url, model: 'scripted', apiKey: 'sk-e2e' });
    await env.server.invoke('connections.select', conn.id);
  });

  // A test that fails half-way leaves its run going and its scripts
  // queued, which the next test's run would get. Each test starts clean:
  // the runs still going are cancelled (cancel returns once a run ended),
  // then the model forgets what is left.
  afterEach(async () => {
    const { runs } = await env.server.invoke('agent.listRuns', { limit: 100 });
    for (const run of runs) if (!FINISHED.has(run.status)) await env.server.invoke('agent.cancel', run.runId);
    llm.reset();
  });

  after(async () => {
    llm?.release();
    await new Promise((r) => llm?.server.close(r) ?? r());
    for (const p of pages) if (!p.isClosed()) assert.deepEqual(p.errors, [], 'uncaught errors in the page');
  });

  it('Send with agent: write_file → commit → finish, watched in the run panel; the reply lands in the chat', async () => {
    const chatId = await newChat();
    const page = await open(chatId);
    // A long unbroken word must wrap in the viewer and the diff, not widen the panel.
    const reply = `# The storm\n\nThe storm is still far out at sea.\n\nWe have until **midnight**.\n\nWh${'o'.repeat(240)}a.\n`;
    llm.next(
      { text: ['I will draft ', 'the reply ', 'first.', ' Then I', ' commit it.'], stallAt: 3, calls: [write('call_1', 'output/main.md', 'The storm is close.\n')] },
      { text: ['Let me revise it.'], calls: [write('call_2', 'output/main.md', reply), write('call_3', 'scratch/notes.md', 'keeper is worried')] },
      { text: [], calls: [commit('call_4')] },
      { text: ['Done.'], calls: [finish('call_5')] },
    );
    await sendWithAgent(page, 'Is the storm close?');
    // The message went through the chat first.
    await messageRow(page, 1).getByText('Is the storm close?').waitFor();
    const panel = page.getByRole('complementary', { name: 'Agent panel' });
    await panel.waitFor();
    await llm.stalled();
    const round1 = panel.getByRole('region', { name: 'Model round 1' });
    await round1.getByText('I will draft the reply first.').waitFor();
    assert.doesNotMatch(await round1.innerText(), /commit it/, 'the text streams: the end has not arrived yet');
    await panel.getByRole('button', { name: 'Cancel run' }).waitFor();
    await page.mouse.move(0, 0);
    await screenshot(page, 'agent-streaming-desktop');
    // The workspace tree is live: the files appear as the agent writes them.
    await panel.getByRole('tab', { name: 'Workspace' }).click();
    await panel.getByText('The workspace is empty so far.').waitFor();
    llm.release();
    const tree = panel.getByRole('list', { name: 'Workspace files' });
    await tree.getByRole('button', { name: /main\.md/ }).waitFor();
    await tree.getByRole('button', { name: /notes\.md/ }).waitFor();
    await panel.getByRole('tab', { name: 'Activity' }).click();

    await panel.locator('.summary [data-status="completed"]').waitFor();
    await messageRow(page, 2).getByText('We have until').waitFor();
    const chat = await chatOf(page);
    assert.equal(chat.length, 3);
    assert.equal(chat[2].is_user, false);
    assert.equal(chat[2].mes.trim(), reply.trim());
    const [run] = (await runsOf(chatId)).runs;
    assert.equal(run.status, 'completed');
    assert.equal(chat[2].agent, run.runId, 'the reply carries extra.hearth.agent');
    // The run was streamed, for the chat the UI has open, with the default profile.
    const events = await env.server.invoke('agent.readEvents', { runId: run.runId });
    const created = events.events.find((e) => e.type === 'run_created');
    assert.equal(created.payload.stream, true);
    assert.equal(created.payload.presentation, 'foreground');
    assert.ok(events.events.some((e) => e.type === 'model_delta'), 'model_delta events');

    // A card per call, each done; the commit and the end are in the activity.
    const cards = await panel.locator('details[data-call] summary').evaluateAll((els) => els.map((e) => e.getAttribute('aria-label')));
    assert.deepEqual(cards, [
      'Write a file: workspace.write_file output/main.md — Done',
      'Write a file: workspace.write_file output/main.md — Done',
      'Write a file: workspace.write_file scratch/notes.md — Done',
      'Commit to the chat: workspace.commit the reply — Done',
      'Finish: workspace.finish done — Done',
    ]);
    await panel.getByText(/Committed output\/main\.md to the chat \(message #2\)/).waitFor();
    await panel.getByText('Done — the reply is in the chat (1 commit).').waitFor();
    // A card opens to its arguments and result.
    const card2 = panel.locator('details[data-call="call_2"]');
    await card2.locator('summary').click();
    await card2.getByText('"path": "output/main.md"').first().waitFor();
    await card2.getByText('Result').waitFor();
    await page.mouse.move(0, 0);
    assert.deepEqual(await sticksOut(page, 'aside[aria-label="Agent panel"]'), [], 'nothing in the panel sticks out sideways');
    await screenshot(page, 'agent-activity-desktop');

    // The workspace: the tree and the file viewer (now, and at a checkpoint).
    await panel.getByRole('tab', { name: 'Workspace' }).click();
    const files = panel.getByRole('list', { name: 'Workspace files' });
    await files.getByRole('button', { name: /notes\.md/ }).waitFor();
    await files.getByRole('button', { name: /main\.md/ }).click();
    const viewer = panel.getByRole('region', { name: 'File output/main.md' });
    await viewer.getByRole('heading', { name: 'The storm' }).waitFor();
    await viewer.getByRole('button', { name: 'Source' }).click();
    await viewer.getByText('We have until **midnight**.').waitFor();
    await viewer.getByLabel('Version').selectOption({ label: 'Checkpoint 2 · write output/main.md' });
    await viewer.getByText('The storm is close.').waitFor();
    assert.deepEqual(await sticksOut(page, 'aside[aria-label="Agent panel"]'), [], 'nothing in the panel sticks out sideways');
    await screenshot(page, 'agent-workspace-desktop');

    // Checkpoints: a diff with added and removed lines coloured.
    await panel.getByRole('tab', { name: 'Checkpoints' }).click();
    const checkpoints = panel.getByRole('list', { name: 'Checkpoints' }).getByRole('listitem');
    await panel.getByRole('listitem', { name: 'Checkpoint 1' }).waitFor();
    const before = await checkpoints.count();
    // The commit is marked on the checkpoint it committed from (the newest then: the notes).
    await panel.getByRole('listitem', { name: 'Checkpoint 4' }).getByText('in chat').waitFor();
    await panel.getByRole('listitem', { name: 'Checkpoint 3' }).getByRole('button', { name: 'Diff from previous' }).click();
    const diff = panel.getByRole('region', { name: 'Diff Checkpoint 2 → 3' });
    await diff.getByRole('table', { name: 'Unified diff of output/main.md' }).waitFor();
    assert.equal(await diff.locator('.line.del .text').first().innerText(), 'The storm is close.');
    assert.ok((await diff.locator('.line.add .text').allInnerTexts()).includes('The storm is still far out at sea.'));
    const colours = await diff.locator('.line.add').first().evaluate((el) => getComputedStyle(el).backgroundColor);
    assert.notEqual(colours, 'rgba(0, 0, 0, 0)', 'added lines are coloured');
    assert.deepEqual(await sticksOut(page, 'aside[aria-label="Agent panel"]'), [], 'nothing in the panel sticks out sideways');
    await screenshot(page, 'agent-diff-desktop');
    await diff.getByRole('button', { name: 'Back to the checkpoints' }).click();

    // Roll back with the reply after a later edit of it: a conflict, nothing changed.
    await page.evaluate((id) => window.__HEARTH__.api.chat.updateMessages(id, { index: 2, patch: { mes: 'Edited by hand.' } }), chatId);
    await messageRow(page, 2).getByText('Edited by hand.').waitFor();
    await panel.getByRole('listitem', { name: 'Checkpoint 1' }).getByRole('button', { name: 'Roll back here' }).click();
    const dialog = page.getByRole('dialog', { name: 'Roll back to checkpoint 1?' });
    await dialog.getByRole('checkbox', { name: /Also take the reply back out of the chat/ }).check();
    await dialog.getByRole('button', { name: 'Roll back' }).click();
    await dialog.getByRole('alert').getByText(/cannot be taken back out/).waitFor();
    assert.match(await dialog.getByRole('alert').innerText(), /agent\.rollback_conflict/);
    await screenshot(page, 'agent-rollback-conflict-desktop');
    assert.equal((await chatOf(page))[2].mes, 'Edited by hand.');
    // The workspace alone rolls back.
    await dialog.getByRole('checkbox', { name: /Also take the reply back out of the chat/ }).uncheck();
    await dialog.getByRole('button', { name: 'Roll back' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await panel.getByRole('listitem', { name: `Checkpoint ${before + 1}` }).waitFor();
    await panel.getByRole('tab', { name: 'Activity' }).click();
    await panel.getByText('Rolled back the workspace (2 files).').waitFor();
    assert.equal((await chatOf(page)).length, 3);
  });

  it('a profile that asks before writing: Deny (the model is told why), then Approve, and the run goes on', async () => {
    const chatId = await newChat();
    const page = await open(chatId);
    // Make the profile in the editor: a copy of Default writer that asks before workspace.write_file.
    await page.getByRole('button', { name: 'Reply actions' }).click();
    await page.getByRole('menuitem', { name: 'Edit agent profiles…' }).click();
    const list = page.getByRole('dialog', { name: 'Agent profiles' });
    await list.getByRole('button', { name: 'New profile' }).click();
    const editor = page.getByRole('dialog', { name: 'New agent profile' });
    await editor.getByLabel('Name', { exact: true }).fill('Careful writer');
    await editor.getByRole('checkbox', { name: 'Ask first: workspace.write_file' }).check();
    await editor.getByLabel('Most model rounds').fill('0');
    await editor.getByRole('list', { name: 'Problems' }).getByText('tools.maxRounds is a whole number, 1 or more.').waitFor();
    await editor.getByLabel('Most model rounds').fill('12');
    assert.match(await editor.getByLabel('Profile JSON').inputValue(), /"requireApproval": \[\s*"workspace\.write_file"\s*\]/);
    // A rule only the backend knows: the error names its field.
    const json = editor.getByLabel('Profile JSON');
    const text = await json.inputValue();
    await json.fill(text.replace(/"writableRoots": \[[^\]]*\]/, '"writableRoots": ["nowhere"]'));
    await editor.getByRole('button', { name: 'Save' }).click();
    await editor.locator('#agent-profile-issues').getByText(/workspace\.writableRoots/).first().waitFor();
    await screenshot(page, 'agent-profile-error-desktop');
    await json.fill(text);
    await editor.getByRole('button', { name: 'Save' }).click();
    await list.getByText('Careful writer').waitFor();
    await list.getByRole('button', { name: 'Done' }).click();

    llm.next(
      { text: ['Drafting.'], calls: [write('call_a', 'output/main.md', 'A very long answer about the storm.')] },
      { text: ['Shorter then.'], calls: [write('call_b', 'output/main.md', 'The storm is far out.')] },
      { text: [], calls: [commit('call_c'), finish('call_d')] },
    );
    await page.getByRole('button', { name: 'Reply actions' }).click();
    await page.getByRole('menuitemradio', { name: 'Careful writer' }).click();
    await sendWithAgent(page, 'Will the storm reach us?');
    const panel = page.getByRole('complementary', { name: 'Agent panel' });
    const approval = panel.getByRole('region', { name: 'Approval needed' });
    await approval.getByText('"content": "A very long answer about the storm."').waitFor();
    await panel.locator('.summary [data-status="awaiting_approval"]').waitFor();
    assert.equal((await runsOf(chatId)).runs[0].status, 'awaiting_approval');
    await page.mouse.move(0, 0);
    await screenshot(page, 'agent-approval-desktop');
    await approval.getByLabel(/Reason/).fill('keep it shorter');
    await approval.getByRole('button', { name: 'Deny' }).click();
    await panel.locator('details[data-call="call_a"] summary', { hasText: 'Denied' }).waitFor();

    await approval.getByText('"content": "The storm is far out."').waitFor();
    await approval.getByRole('button', { name: 'Approve' }).click();
    await panel.locator('.summary [data-status="completed"]').waitFor();
    await messageRow(page, 2).getByText('The storm is far out.').waitFor();
    await panel.locator('details[data-call="call_b"] summary', { hasText: 'Approved · done' }).waitFor();
    // The denial's reason went back to the model as the call's result.
    const toolResults = llm.requests[llm.requests.length - 2].messages.filter((m) => m.role === 'tool').map((m) => m.content);
    assert.ok(toolResults.some((c) => /keep it shorter/.test(c)), `the model was told why: ${toolResults.join(' | ')}`);
    const [run] = (await runsOf(chatId)).runs;
    assert.equal(run.profileId, 'default-writer-copy');
  });

  it('installs a skill folder from the profiles dialog', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hearth-skill-'));
    await mkdir(join(dir, 'storm-lore'));
    await writeFile(join(dir, 'storm-lore', 'SKILL.md'), '---\nname: storm-lore\ndescription: What the harbour knows about storms.\n---\nStorms from the west break before midnight.\n');
    const chatId = await newChat();
    const page = await open(chatId);
    await page.getByRole('button', { name: 'Reply actions' }).click();
    await page.getByRole('menuitem', { name: 'Edit agent profiles…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Agent profiles' });
    await dialog.locator('input[type=file][webkitdirectory]').setInputFiles(join(dir, 'storm-lore'));
    await dialog.getByRole('list', { name: 'Installed skills' }).getByText('storm-lore').waitFor();
    await dialog.getByRole('button', { name: 'Install skill folder…' }).scrollIntoViewIfNeeded();
    await screenshot(page, 'agent-skills');
    const listed = await env.server.invoke('agent.skills.list');
    assert.deepEqual(listed.skills.map((s) => s.name), ['storm-lore']);
    await rm(dir, { recursive: true, force: true });
  });

  it('a page closed while the model stalls: the run still commits, and a new page shows it completed', async () => {
    const chatId = await newChat();
    const page = await open(chatId);
    llm.next({ text: ['Slowly ', 'thinking ', 'it ', 'over.'], stallAt: 2, calls: [write('call_x', 'output/main.md', 'Written with no window open.')] }, { text: [], calls: [commit('call_y'), finish('call_z')] });
    await sendWithAgent(page, 'Take your time.');
    await llm.stalled();
    await page.getByRole('complementary', { name: 'Agent panel' }).getByText('Slowly thinking').waitFor();
    await page.close();
    llm.release();
    await waitFor(async () => (await runsOf(chatId)).runs[0]?.status === 'completed', 'the run to complete with no window open');

    // The same browser profile: the panel was left open there.
    const again = await open(chatId, page.context());
    await messageRow(again, 2).getByText('Written with no window open.').waitFor();
    const panel = again.getByRole('complementary', { name: 'Agent panel' });
    // The panel was left open, and opens on the chat's newest run.
    await panel.locator('.summary [data-status="completed"]').waitFor();
    await panel.getByRole('region', { name: 'Model round 1' }).getByText('Slowly thinking it over.').waitFor();
    assert.equal(await panel.locator('details[data-call]').count(), 3);
    assert.match(await panel.getByRole('combobox', { name: 'Agent run' }).inputValue(), /^run_/);
  });

  it('a run the provider refuses (401) fails in the panel with Open Connections, which opens them', async () => {
    const chatId = await newChat();
    const page = await open(chatId);
    llm.next({ status: 401, message: 'Incorrect API key provided' });
    await sendWithAgent(page, 'Are you there?');
    const panel = page.getByRole('complementary', { name: 'Agent panel' });
    await panel.locator('.summary [data-status="failed"]').waitFor();
    // The run's code is model.request_failed; run_failed's details.cause says the key was refused.
    const failure = panel.getByRole('alert');
    await failure.getByText('model.request_failed').waitFor();
    await failure.getByText(/API key/).waitFor();
    assert.equal((await runsOf(chatId)).runs[0]?.error?.details?.cause, 'model.auth_failed');
    await screenshot(page, 'agent-failed-auth');
    await failure.getByRole('button', { name: 'Open Connections' }).click();
    await page.getByRole('dialog', { name: 'Connections' }).waitFor();
  });

  it('on a phone: the panel is a full-screen sheet with 44 px targets', async () => {
    const chatId = await newChat();
    const context = await env.browser.newContext({ ...PHONE, reducedMotion: 'reduce' });
    await context.addInitScript(() => localStorage.setItem('hearth.theme', 'dark'));
    const phone = await context.newPage();
    phone.errors = [];
    phone.on('pageerror', (err) => phone.errors.push(err));
    pages.push(phone);
    await phone.goto(pageUrl(env.server.url));
    await phone.waitForFunction(() => typeof window.__HEARTH__ === 'object' && window.__HEARTH__ !== null);
    await phone.evaluate(() => window.__HEARTH__.ready);
    await phone.evaluate((id) => window.__HEARTH__.api.chat.select(id), chatId);
    await messageRow(phone, 0).waitFor();
    llm.next({ text: ['On it.'], calls: [write('p1', 'output/main.md', 'Phone reply.'), commit('p2')] }, { text: [], calls: [finish('p3')] });
    await sendWithAgent(phone, 'Quick one?', true);
    const sheet = phone.getByRole('dialog', { name: 'Agent panel' });
    await sheet.locator('.summary [data-status="completed"]').waitFor();
    const box = await sheet.boundingBox();
    assert.deepEqual([box.x, box.y, box.width, box.height].map(Math.round), [0, 0, 390, 844], 'the sheet covers the screen');
    assert.deepEqual(await smallTargets(phone, 'aside[aria-label="Agent panel"]'), [], 'touch targets are at least 44×44 px');
    await screenshot(phone, 'agent-activity-phone');
    await sheet.getByRole('tab', { name: 'Workspace' }).tap();
    await sheet.getByRole('button', { name: /main\.md/ }).tap();
    await sheet.getByRole('region', { name: 'File output/main.md' }).getByText('Phone reply.').waitFor();
    assert.deepEqual(await smallTargets(phone, 'aside[aria-label="Agent panel"]'), [], 'workspace: touch targets are at least 44×44 px');
    assert.deepEqual(await sticksOut(phone, 'aside[aria-label="Agent panel"]'), [], 'nothing in the sheet sticks out sideways');
    await screenshot(phone, 'agent-workspace-phone');
    await sheet.getByRole('tab', { name: 'Checkpoints' }).tap();
    await sheet.getByRole('button', { name: 'Diff from first' }).first().tap();
    await sheet.getByRole('table', { name: 'Unified diff of output/main.md' }).waitFor();
    await screenshot(phone, 'agent-diff-phone');
    await sheet.getByRole('button', { name: 'Close agent panel' }).tap();
    await sheet.waitFor({ state: 'detached' });
    await messageRow(phone, 2).getByText('Phone reply.').waitFor();
    await context.close();
  });
});
