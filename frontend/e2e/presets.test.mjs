// The Presets dialog against a real `hearth serve`: import a SillyTavern
// chat-completion preset from the file chooser (its notes shown), toggle
// and reorder prompt-order items (by mouse and keyboard), change a
// sampler, save, use it, reload → all of it persisted; export downloads
// the SillyTavern file; delete hands back to the built-in default; the
// editor fits a phone.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fromMoreSettings, openApp, repoRoot, screenshot, useHearth, waitFor } from './harness.mjs';

const FIXTURE = join(repoRoot, 'backend/presets/testdata/st-roleplay.json');

describe('presets in the UI', () => {
  const env = useHearth({ before, after });
  let page;

  before(async () => {
    page = await openApp(env.browser, env.server.url, { theme: 'dark' });
  });

  after(async () => {
    assert.deepEqual(page?.errors ?? [], [], 'uncaught errors in the page');
  });

  const dialog = (p = page) => p.getByRole('dialog', { name: /^(Presets|Edit preset|New preset)$/ });
  const order = (p = page) => dialog(p).getByRole('list', { name: 'Prompt order' });
  /** names lists the prompt-order items' names as shown. */
  const names = (p = page) => order(p).locator(':scope > li .name').evaluateAll((els) => els.map((e) => e.firstChild?.textContent?.trim()));

  it('imports a SillyTavern preset and shows what did not carry over', async () => {
    await fromMoreSettings(page, /^Presets…/);
    const builtin = dialog().getByRole('listitem').filter({ hasText: 'Default' });
    await builtin.getByText('In use').waitFor();
    await screenshot(page, 'presets-list');

    const [chooser] = await Promise.all([page.waitForEvent('filechooser'), dialog().getByRole('button', { name: 'Import' }).click()]);
    await chooser.setFiles(FIXTURE);
    await dialog().getByRole('heading', { name: 'Edit preset' }).waitFor();
    const notes = dialog().getByRole('status').filter({ hasText: 'Imported, with 3 notes' });
    await notes.waitFor();
    assert.match(await notes.textContent(), /summary_ext_prompt/);
    assert.equal(await dialog().getByLabel('Preset name').inputValue(), 'st-roleplay');
    assert.equal(await dialog().getByLabel(/^Temperature/).inputValue(), '0.85');
    assert.equal(await dialog().getByLabel(/^Context size/).inputValue(), '32768');
    assert.deepEqual(await names(), [
      'Main Prompt', 'Persona Description', 'Char Description', 'Scenario', 'OOC note', 'Chat Examples',
      'Chat History', 'Style guide', 'Post-History Instructions', 'Unused idea',
    ]);
    await screenshot(page, 'presets-import');
  });

  it('toggles, reorders and edits items, and saves', async () => {
    await order().getByRole('checkbox', { name: 'Send Scenario' }).check();
    await order().getByRole('button', { name: 'Move OOC note up' }).click();
    // The keyboard: the focused button keeps focus as its item moves.
    const down = order().getByRole('button', { name: 'Move Style guide down' });
    await down.focus();
    await page.keyboard.press('Enter');
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('aria-label')), 'Move Style guide down');
    await order().getByRole('button', { name: 'Edit Unused idea' }).click();
    await order().getByLabel('Content').fill('Now in use.');
    await order().getByRole('checkbox', { name: 'Send Unused idea' }).check();
    await dialog().getByLabel(/^Temperature/).fill('0.7');
    await dialog().getByLabel(/^Top K/).fill('');
    await screenshot(page, 'presets-editor');
    await dialog().getByRole('button', { name: 'Save' }).click();
    await dialog().getByRole('heading', { name: 'Presets' }).waitFor();

    const saved = await page.evaluate(async () => {
      const api = window.__HEARTH__.api.presets;
      const row = (await api.list()).find((p) => p.name === 'st-roleplay');
      return api.get(row.id);
    });
    assert.deepEqual(
      saved.prompts.map((p) => `${p.identifier}:${p.enabled}`),
      ['main:true', 'personaDescription:true', 'charDescription:true', '9f0b-ooc-note:true', 'scenario:true', 'dialogueExamples:true',
        'chatHistory:true', 'jailbreak:true', '5c1d2a7e-style-guide:true', 'b7aa-unused:true'],
    );
    assert.equal(saved.prompts.at(-1).content, 'Now in use.');
    assert.equal(saved.sampling.temperature, 0.7);
    assert.equal(saved.sampling.topK, null);

    await dialog().getByRole('radio', { name: 'Use st-roleplay' }).check();
    await dialog().getByRole('listitem').filter({ hasText: 'st-roleplay' }).getByText('In use').waitFor();
    assert.equal((await page.evaluate(() => window.__HEARTH__.api.presets.active())).name, 'st-roleplay');
    await screenshot(page, 'presets-list-in-use');
  });

  it('keeps all of it across a reload', async () => {
    await page.reload();
    await page.evaluate(() => window.__HEARTH__.ready);
    await fromMoreSettings(page, /^Presets…/);
    const item = dialog().getByRole('listitem').filter({ hasText: 'st-roleplay' });
    await item.getByText('In use').waitFor();
    await item.getByRole('button', { name: 'Edit st-roleplay' }).click();
    await dialog().getByRole('heading', { name: 'Edit preset' }).waitFor();
    assert.deepEqual(await names(), [
      'Main Prompt', 'Persona Description', 'Char Description', 'OOC note', 'Scenario', 'Chat Examples',
      'Chat History', 'Post-History Instructions', 'Style guide', 'Unused idea',
    ]);
    assert.equal(await order().getByRole('checkbox', { name: 'Send Scenario' }).isChecked(), true);
    assert.equal(await dialog().getByLabel(/^Temperature/).inputValue(), '0.7');
    assert.equal(await dialog().getByLabel(/^Top K/).inputValue(), '');
    await dialog().getByRole('button', { name: 'Cancel' }).click();
  });

  it('exports the SillyTavern file, and deleting the preset in use hands back to the default', async () => {
    const item = dialog().getByRole('listitem').filter({ hasText: 'st-roleplay' });
    const [download] = await Promise.all([page.waitForEvent('download'), item.getByRole('button', { name: 'Export st-roleplay' }).click()]);
    assert.equal(download.suggestedFilename(), 'st-roleplay.json');
    const st = JSON.parse(readFileSync(await download.path(), 'utf8'));
    assert.equal(st.temperature, 0.7);
    assert.equal(st.openai_max_context, 32768);
    assert.equal(st.prompt_order[0].character_id, 100001);
    assert.equal(st.prompt_order[0].order[3].identifier, '9f0b-ooc-note');

    await item.getByRole('button', { name: 'Delete st-roleplay' }).click();
    await page.getByRole('dialog', { name: 'Delete preset' }).getByRole('button', { name: 'Delete' }).click();
    await item.waitFor({ state: 'detached' });
    await dialog().getByRole('listitem').filter({ hasText: 'Default' }).getByText('In use').waitFor();
    await waitFor(async () => (await page.evaluate(() => window.__HEARTH__.api.presets.active())).id === 'default', 'the default in use');
    await dialog().getByRole('button', { name: 'Done' }).click();
  });

  it('fits a phone screen', async () => {
    const phone = await openApp(env.browser, env.server.url, { theme: 'light', viewport: { width: 390, height: 844 } });
    try {
      await fromMoreSettings(phone, /^Presets…/);
      await dialog(phone).getByRole('listitem').filter({ hasText: 'Default' }).waitFor();
      await screenshot(phone, 'presets-phone-list');
      await dialog(phone).getByRole('button', { name: 'New preset' }).click();
      await dialog(phone).getByRole('heading', { name: 'New preset' }).waitFor();
      assert.equal(await dialog(phone).getByLabel('Preset name').inputValue(), 'Default copy');
      await order(phone).getByRole('button', { name: 'Edit Main Prompt' }).click();
      const box = await dialog(phone).boundingBox();
      assert.ok(box && box.x >= 0 && box.x + box.width <= 390, `the dialog fits the screen: ${JSON.stringify(box)}`);
      const overflow = await phone.evaluate(() => {
        const body = document.querySelector('dialog[open] .body');
        return body ? body.scrollWidth - body.clientWidth : -1;
      });
      assert.equal(overflow, 0, 'nothing in the editor scrolls sideways');
      await screenshot(phone, 'presets-phone-editor');
      // The group texts, under More settings in the same editor.
      await dialog(phone).getByText('More settings').click();
      const nudge = dialog(phone).getByLabel(/^Group nudge/);
      await nudge.waitFor();
      await nudge.scrollIntoViewIfNeeded();
      const nudgeBox = await nudge.boundingBox();
      assert.ok(nudgeBox && nudgeBox.x >= 0 && nudgeBox.x + nudgeBox.width <= 390, `the group nudge fits: ${JSON.stringify(nudgeBox)}`);
      await screenshot(phone, 'presets-phone-group-texts');
      await dialog(phone).getByRole('button', { name: 'Save' }).click();
      await dialog(phone).getByRole('listitem').filter({ hasText: 'Default copy' }).waitFor();
      assert.deepEqual(phone.errors, []);
    } finally {
      await phone.context().close();
    }
  });
});
