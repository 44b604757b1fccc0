// SillyTavern extensions of the newer kind in Hearth (issue 37): a fixture
// (fixtures/ext-st-commands) that imports slash-commands/ classes,
// lib/eventemitter.js, SillyTavern's Popup class and utils helpers, checks
// event_types for an event Hearth never sends before it loads, writes
// chat_metadata in place, and sets an extension prompt whose depth is a
// text box's value — the things Message Limit, Prompt Inspector and
// Objective needed. Its commands run from the composer; a line whose first
// word is no registered command is still sent as a message.
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { launchBrowser, messageRow, openApp, repoRoot, screenshot, startHearth, waitFor } from './harness.mjs';
import { characterChat, connectScripted, scriptedModel } from './scripted-model.mjs';

const root = mkdtempSync(join(tmpdir(), 'hearth-st-commands-e2e-'));
cpSync(join(repoRoot, 'frontend/e2e/fixtures/ext-st-commands'), join(root, 'st-commands'), { recursive: true });

describe('SillyTavern extensions: slash commands, EventEmitter, Popup, chat_metadata', () => {
  let server;
  let browser;
  let page;
  let llm;
  let chatId;
  const stored = async () => (await server.invoke('chat.getStMessages', chatId)).map((m) => m.mes);
  const toastTexts = () => page.locator('[role=status], [role=alert]').allInnerTexts();
  async function command(text) {
    const box = page.locator('#send_textarea');
    await box.fill(text);
    await box.press('Enter');
  }

  before(async () => {
    llm = await scriptedModel({ delayMs: 5 });
    server = await startHearth(['--library-root', root]);
    browser = await launchBrowser();
    ({ chatId } = await characterChat(server, { name: 'Wren', first_mes: 'The lamp is dark.' }));
    await connectScripted(server, llm);
    const entry = await server.invoke('extensions.install', { path: join(root, 'st-commands') }, { enable: true });
    assert.equal(entry.status, 'active');
    page = await openApp(browser, server.url);
    await page.waitForFunction(() => window.__lampCommands?.ready === true);
    await page.evaluate((id) => window.__HEARTH__.api.chat.select(id), chatId);
    await messageRow(page, 0).getByText('The lamp is dark.').waitFor();
  });

  after(async () => {
    assert.deepEqual(page?.errors?.map(String) ?? [], [], 'uncaught errors in the page');
    await browser?.close();
    await server?.stop();
    llm?.reset();
    await new Promise((r) => llm?.server.close(r) ?? r());
    rmSync(root, { recursive: true, force: true });
  });

  it('loads: event_types has SillyTavern\'s whole table, and its EventEmitter and utils work', async () => {
    const list = await server.invoke('extensions.list');
    assert.equal(list.find((e) => e.id === 'st-commands')?.status, 'active');
    const state = await page.evaluate(() => ({ ...window.__lampCommands }));
    // SillyTavern's getStringHash('lamp'), the cyrb53 hash.
    assert.equal(state.hash, 4087579089072959);
  });

  it('runs a command typed in the composer instead of sending it, and shows what it returned', async () => {
    await command('/lamp-state on');
    await waitFor(async () => (await toastTexts()).some((t) => t.includes('/lamp-state: true')), 'the command\'s result');
    assert.equal(await page.evaluate(() => window.__lampCommands.on), true);
    assert.equal(await page.locator('#send_textarea').inputValue(), '');
    assert.deepEqual(await stored(), ['The lamp is dark.']);
    assert.equal(llm.requests.length, 0);
  });

  it('passes named arguments, defaults and aliases; chat_metadata written in place is saved to the chat', async () => {
    await command('/ln mood="very calm" The wick is trimmed');
    const meta = await waitFor(async () => {
      const m = await server.invoke('chat.getMetadata', chatId);
      return m.lamp_note ? m : null;
    }, 'the metadata to be saved');
    assert.deepEqual(meta.lamp_note, { text: 'The wick is trimmed', mood: 'very calm' });
    assert.deepEqual(await page.evaluate(() => window.__lampCommands.heard), ['The wick is trimmed']);
    await command('/lamp-note Oil is low');
    await waitFor(async () => (await server.invoke('chat.getMetadata', chatId)).lamp_note?.text === 'Oil is low', 'the second note');
    assert.equal((await server.invoke('chat.getMetadata', chatId)).lamp_note.mood, 'calm');
    assert.deepEqual(await stored(), ['The lamp is dark.']);
  });

  it('shows SillyTavern\'s Popup with custom buttons and gives the chosen result back', async () => {
    await command('/lamp-ask');
    const dialog = page.locator('dialog.hearth-st-popup');
    await dialog.getByText('Light the lamp?').waitFor();
    assert.deepEqual(await dialog.getByRole('button').allInnerTexts(), ['Ask later', 'Leave it', 'Light it']);
    await screenshot(page, 'extensions-st-commands-popup');
    await dialog.getByRole('button', { name: 'Ask later' }).click();
    await waitFor(async () => (await toastTexts()).some((t) => t.includes('/lamp-ask: 1001')), 'the custom button\'s result');
    assert.equal(await dialog.count(), 0);
  });

  it('an extension prompt set with a depth typed as text reaches the model', async () => {
    await command('/lamp-depth 2');
    await waitFor(async () => (await toastTexts()).some((t) => t.includes('/lamp-depth: 2')), 'the depth command');
    await command('Is the lamp lit?');
    await waitFor(() => llm.requests.length === 1, 'the model request');
    const sent = JSON.stringify(llm.requests[0].messages);
    assert.match(sent, /LAMP-PROMPT: the lamp is lit\./);
    await waitFor(async () => (await stored()).length === 3, 'the reply');
  });

  it('sends a line starting with a slash that names no command, and refuses unknown commands in executeSlashCommands', async () => {
    await command('/me waves at Wren');
    await waitFor(async () => (await stored()).includes('/me waves at Wren'), 'the message to be sent');
    await waitFor(async () => !(await server.invoke('generate.status')).generating, 'the reply to end');
    const result = await page.evaluate(async () => {
      const m = await import('/scripts/slash-commands.js');
      const r = await m.executeSlashCommandsWithOptions('/lamp-state off | /lamp-nope');
      const strict = await m.executeSlashCommandsWithOptions('/lamp-nope', { handleParserErrors: false }).then(() => 'ran', (e) => e.message);
      return { pipe: r.pipe, on: window.__lampCommands.on, strict };
    });
    // Nothing runs when a command in the line is unknown: the lamp stays on.
    assert.deepEqual(result, { pipe: '', on: true, strict: 'Unknown command /lamp-nope. Hearth runs the commands its extensions add: /lamp-ask, /lamp-depth, /lamp-note, /lamp-state.' });
    await waitFor(async () => (await toastTexts()).some((t) => t.includes('Unknown command /lamp-nope')), 'the parse error toast');
  });

  it('runs a command on a phone, its result shown on screen', async () => {
    const phone = await openApp(browser, server.url, { viewport: { width: 390, height: 844 } });
    try {
      await phone.waitForFunction(() => window.__lampCommands?.ready === true);
      await phone.evaluate((id) => window.__HEARTH__.api.chat.select(id), chatId);
      await messageRow(phone, 0).getByText('The lamp is dark.').waitFor();
      await phone.locator('#send_textarea').fill('/lamp-state on');
      await phone.locator('#send_textarea').press('Enter');
      const toast = phone.locator('[role=status], [role=alert]').filter({ hasText: '/lamp-state: true' });
      await toast.waitFor();
      const box = await toast.boundingBox();
      assert.ok(box && box.x >= 0 && box.x + box.width <= 390 && box.y >= 0 && box.y + box.height <= 844, `the notice is on screen: ${JSON.stringify(box)}`);
      await screenshot(phone, 'extensions-st-commands-phone');
      assert.deepEqual(phone.errors, []);
    } finally {
      await phone.context().close();
    }
  });
});
