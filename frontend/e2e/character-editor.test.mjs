// The character editor through the UI (issue 11): "New character" fills
// every card field on the editor's five tabs (a picture, tags as chips,
// reordered alternate greetings, the character's note, a lorebook from the
// library, talkativeness, extensions JSON) and characters.get shows each;
// "Edit character…" in the chat list's character menu shows them all again
// and saves exactly what was changed (the characters.update call is read at
// the route); an imported card's unknown extension keys survive edits byte
// for byte (its exported JSON keeps 12345678901234567890 and 1.50); the
// form's refusals and the host's show beside their fields; closing with
// unsaved changes asks first; "Delete character…" with "Also delete its
// chat" removes the card and its chats. A phone (390×844) gets the editor
// full-screen with 44 px targets and nothing sideways. Screenshots
// `character-editor-*` at 1280×800 and 390×844 (dark) and one in light.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openApp, pngImage, repoRoot, screenshot, tapCalls, useHearth, waitFor } from './harness.mjs';

const PHONE = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true };
const V2_CARD = readFileSync(join(repoRoot, 'backend/cards/testdata/fixtures/v2.json'));
const BOOK = readFileSync(join(repoRoot, 'backend/worldinfo/testdata/books/st_eldoria.json'), 'utf8');

/** settle waits two animation frames (layout after a change). */
const settle = (page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));

/** getCard reads a card through the page's ABI. */
const getCard = (page, avatar) => page.evaluate((a) => window.__HEARTH__.api.characters.get(a), avatar);

/** tap is the page's calls through the test (tapCalls, set on its context in before). */
let tap;

/** recordUpdates collects the arguments of every characters.update call the page makes, until stop(). */
function recordUpdates() {
  const updates = [];
  const stop = tap.tap({
    before(call) {
      if (call.method === 'characters.update') updates.push(call.args);
    },
  });
  return { updates, stop };
}

/** tab brings an editor tab forward. */
async function tab(dialog, name) {
  await dialog.getByRole('tab', { name: new RegExp(`^${name}`) }).click();
  await dialog.getByRole('tabpanel').waitFor();
}

/** openEditor opens "Edit character…" from the chat list's character menu. */
async function openEditor(page, name) {
  await page.getByRole('button', { name: `Character actions for ${name}` }).click();
  await page.getByRole('menuitem', { name: /^Edit character…/ }).click();
  const dialog = page.getByRole('dialog', { name: `Edit ${name}` });
  await dialog.getByLabel('Name', { exact: true }).waitFor();
  return dialog;
}

/** dialogProblems lists what sticks out of the dialog sideways and the visible controls under 44×44 px. */
function dialogProblems(page) {
  return page.evaluate(() => {
    const dlg = document.querySelector('dialog[open]');
    const box = dlg.getBoundingClientRect();
    const out = [];
    if (box.right > window.innerWidth + 0.5 || box.left < -0.5) out.push(`the dialog spans ${box.left}–${box.right}`);
    for (const el of dlg.querySelectorAll('*')) {
      const r = el.getBoundingClientRect();
      if (r.width > 0 && r.right > box.right + 1) out.push(`<${el.tagName.toLowerCase()} class="${el.className?.baseVal ?? el.className}"> ends at ${Math.round(r.right)}`);
    }
    const sel = 'button, input:not([type=hidden]):not([type=file]), textarea, select, [role=tab]';
    for (const el of dlg.querySelectorAll(sel)) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.height === 0 || r.bottom < 0 || r.top > window.innerHeight) continue;
      if (r.width < 43.5 || r.height < 43.5) out.push(`${el.tagName.toLowerCase()} "${el.getAttribute('aria-label') || el.textContent.trim().slice(0, 30)}" ${Math.round(r.width)}×${Math.round(r.height)}`);
    }
    return out.slice(0, 12);
  });
}

describe('the character editor', () => {
  const env = useHearth({ before, after });
  let page;
  let avatar;

  before(async () => {
    const context = await env.browser.newContext({ viewport: { width: 1280, height: 800 } });
    tap = await tapCalls(context);
    page = await openApp(context, env.server.url);
    await page.evaluate((text) => window.__HEARTH__.api.worldinfo.importBook({ fileName: 'Eldoria.json', text }), BOOK);
  });

  after(() => {
    assert.deepEqual(page?.errors ?? [], [], 'uncaught errors in the page');
  });

  it('creates a character with every field', async () => {
    await page.getByRole('button', { name: 'New character' }).click();
    const dialog = page.getByRole('dialog', { name: 'New character' });
    await dialog.waitFor();
    // Basics
    await dialog.getByLabel('Name', { exact: true }).fill('Wren');
    await dialog.locator('input[type=file]').setInputFiles({ name: 'wren.png', mimeType: 'image/png', buffer: await pngImage(96, 96, [0x3a, 0x7d, 0xd9]) });
    await dialog.getByRole('button', { name: 'Remove picture' }).waitFor();
    const tags = dialog.getByLabel('Tags');
    await tags.fill('fantasy');
    await tags.press('Enter');
    await tags.fill('ranger, scout,');
    await dialog.getByRole('button', { name: 'Remove tag scout' }).click();
    await dialog.getByLabel('Description').fill('A ranger of the northern woods.\nQuiet, watchful, fond of birds.');
    await dialog.getByLabel(/^Greeting/).fill('*Wren lowers her bow.* Who goes there, {{user}}?');
    await screenshot(page, 'character-editor-desktop-basics');
    // Greetings: three, the third moved to the front, the middle one removed.
    await tab(dialog, 'Greetings');
    for (const text of ['Second greeting.', 'Third greeting.', 'First greeting.']) {
      await dialog.getByRole('button', { name: 'Add a greeting' }).click();
      await page.keyboard.type(text);
    }
    await dialog.getByRole('button', { name: 'Move alternate greeting 3 up' }).click();
    await dialog.getByRole('button', { name: 'Move alternate greeting 2 up' }).click();
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('aria-label')), 'Move alternate greeting 1 down', 'focus stays with the moved greeting');
    await dialog.getByRole('button', { name: 'Remove alternate greeting 3' }).click();
    assert.equal(await dialog.getByLabel('Alternate greeting 1', { exact: true }).inputValue(), 'First greeting.');
    assert.equal(await dialog.getByLabel('Alternate greeting 2', { exact: true }).inputValue(), 'Second greeting.');
    await screenshot(page, 'character-editor-desktop-greetings');
    // Prompting
    await tab(dialog, 'Prompting');
    await dialog.getByLabel('Personality').fill('watchful, dry humour');
    await dialog.getByLabel('Scenario').fill('A border post in the snow.');
    await dialog.getByLabel('Example messages').fill('<START>\n{{user}}: Cold?\n{{char}}: Always.');
    await dialog.getByLabel('System prompt').fill('You are {{char}}. {{original}}');
    await dialog.getByLabel('Post-history instructions').fill('Stay terse.');
    await dialog.getByLabel('Note', { exact: true }).fill('Wren distrusts strangers.');
    await dialog.getByLabel('Depth').fill('2');
    await dialog.getByLabel('Role').selectOption('user');
    await dialog.getByLabel('Lorebook').selectOption('Eldoria');
    await screenshot(page, 'character-editor-desktop-prompting');
    // Metadata
    await tab(dialog, 'Metadata');
    await dialog.getByLabel('Creator', { exact: true }).fill('hearth-e2e');
    await dialog.getByLabel('Character version').fill('2.1');
    await dialog.getByLabel('Creator notes').fill('Best with short replies.');
    await dialog.getByLabel('Talkativeness').fill('0.8');
    await screenshot(page, 'character-editor-desktop-metadata');
    // Advanced
    await tab(dialog, 'Advanced');
    await dialog.getByLabel('Extensions (JSON)').fill('{ "e2e_ext": { "on": true, "n": [1, 2] } }');
    await screenshot(page, 'character-editor-desktop-advanced');

    await dialog.getByRole('button', { name: 'Create' }).click();
    await dialog.waitFor({ state: 'hidden' });
    const list = await page.evaluate(() => window.__HEARTH__.api.characters.list());
    avatar = list.find((c) => c.name === 'Wren')?.avatar;
    assert.ok(avatar, 'Wren exists');
    // The editor closed on Wren's greeting chat, the one chat made with it.
    const [made] = await page.evaluate((a) => window.__HEARTH__.api.chat.list({ avatar: a }), avatar);
    assert.ok(made, 'a chat was made with Wren');
    await waitFor(async () => (await page.evaluate(() => window.__HEARTH__.api.chat.current()?.chatId)) === made.chatId, 'Wren’s chat to open');
    const card = await getCard(page, avatar);
    assert.equal(card.hasImage, true);
    assert.deepEqual(
      {
        description: card.description,
        first_mes: card.first_mes,
        personality: card.personality,
        scenario: card.scenario,
        mes_example: card.mes_example,
        system_prompt: card.system_prompt,
        post_history_instructions: card.post_history_instructions,
        creator_notes: card.creator_notes,
        creator: card.creator,
        character_version: card.character_version,
        alternate_greetings: card.alternate_greetings,
        tags: card.tags,
        extensions: card.extensions,
      },
      {
        description: 'A ranger of the northern woods.\nQuiet, watchful, fond of birds.',
        first_mes: '*Wren lowers her bow.* Who goes there, {{user}}?',
        personality: 'watchful, dry humour',
        scenario: 'A border post in the snow.',
        mes_example: '<START>\n{{user}}: Cold?\n{{char}}: Always.',
        system_prompt: 'You are {{char}}. {{original}}',
        post_history_instructions: 'Stay terse.',
        creator_notes: 'Best with short replies.',
        creator: 'hearth-e2e',
        character_version: '2.1',
        alternate_greetings: ['First greeting.', 'Second greeting.'],
        tags: ['fantasy', 'ranger'],
        extensions: { talkativeness: 0.8, depth_prompt: { prompt: 'Wren distrusts strangers.', depth: 2, role: 'user' }, world: 'Eldoria', e2e_ext: { on: true, n: [1, 2] } },
      },
    );
    // The new character is selected, its chat list header shows it.
    await page.getByRole('button', { name: 'Character actions for Wren' }).waitFor();
  });

  it('reopens with every field and saves exactly what changed', async () => {
    const { updates: calls, stop } = recordUpdates();
    const before = await getCard(page, avatar);
    const dialog = await openEditor(page, 'Wren');
    assert.equal(await dialog.getByLabel('Name', { exact: true }).inputValue(), 'Wren');
    assert.equal(await dialog.getByLabel('Description').inputValue(), before.description);
    assert.equal(await dialog.getByLabel(/^Greeting/).inputValue(), before.first_mes);
    assert.deepEqual((await dialog.getByRole('list', { name: 'Tag list' }).getByRole('listitem').allTextContents()).map((t) => t.trim()), ['fantasy', 'ranger']);
    // The picture loads after the dialog opens: wait for it rather than catch it mid-load.
    await waitFor(() => dialog.locator('.pick img').evaluate((img) => img.complete && img.naturalWidth > 0), 'the picture to show');
    await tab(dialog, 'Greetings');
    assert.equal(await dialog.getByLabel('Alternate greeting 2', { exact: true }).inputValue(), 'Second greeting.');
    await tab(dialog, 'Prompting');
    for (const [label, value] of [
      ['Personality', before.personality],
      ['Scenario', before.scenario],
      ['Example messages', before.mes_example],
      ['System prompt', before.system_prompt],
      ['Post-history instructions', before.post_history_instructions],
      ['Depth', '2'],
      ['Role', 'user'],
      ['Lorebook', 'Eldoria'],
    ]) {
      assert.equal(await dialog.getByLabel(label, { exact: true }).inputValue(), value, label);
    }
    assert.equal(await dialog.getByLabel('Note', { exact: true }).inputValue(), 'Wren distrusts strangers.');
    await tab(dialog, 'Metadata');
    assert.equal(await dialog.getByLabel('Creator', { exact: true }).inputValue(), 'hearth-e2e');
    assert.equal(await dialog.getByLabel('Character version').inputValue(), '2.1');
    assert.equal(await dialog.getByLabel('Creator notes').inputValue(), before.creator_notes);
    assert.equal(await dialog.getByLabel('Talkativeness').inputValue(), '0.8');
    await tab(dialog, 'Advanced');
    assert.deepEqual(JSON.parse(await dialog.getByLabel('Extensions (JSON)').inputValue()), { e2e_ext: { on: true, n: [1, 2] } });
    assert.ok(await dialog.getByRole('button', { name: 'Save' }).isDisabled(), 'nothing to save yet');

    // Change a few things on three tabs.
    await tab(dialog, 'Prompting');
    await dialog.getByLabel('Scenario').fill('A border post at the thaw.');
    await dialog.getByLabel('Depth').fill('6');
    await dialog.getByLabel('Lorebook').selectOption('');
    await tab(dialog, 'Basics');
    await dialog.getByRole('button', { name: 'Remove tag fantasy' }).click();
    await tab(dialog, 'Greetings');
    await dialog.getByRole('button', { name: 'Remove alternate greeting 1' }).click();
    assert.ok(await dialog.getByRole('tab', { name: /^Prompting/ }).locator('.dot').count(), 'a changed tab is marked');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await page.getByRole('status').filter({ hasText: 'Saved “Wren”' }).waitFor();

    assert.deepEqual(calls, [
      [avatar, { scenario: 'A border post at the thaw.', alternate_greetings: ['Second greeting.'], tags: ['ranger'], extensions: { depth_prompt: { prompt: 'Wren distrusts strangers.', depth: 6, role: 'user' }, world: '' } }],
    ]);
    const after = await getCard(page, avatar);
    const { updatedAt: _a, ...rest } = after;
    const { updatedAt: _b, ...old } = before;
    assert.deepEqual(rest, {
      ...old,
      scenario: 'A border post at the thaw.',
      alternate_greetings: ['Second greeting.'],
      tags: ['ranger'],
      extensions: { ...old.extensions, depth_prompt: { prompt: 'Wren distrusts strangers.', depth: 6, role: 'user' }, world: '' },
    });
    // The list row follows (its tags).
    await waitFor(async () => (await page.evaluate(() => window.__HEARTH__.api.characters.list())).find((c) => c.avatar === avatar)?.tags.join() === 'ranger', 'the list to show the new tags');
    stop();
  });

  it('keeps an imported card’s unknown extension keys, byte for byte', async () => {
    const imported = await page.evaluate((base64) => window.__HEARTH__.api.characters.importCard({ fileName: 'Seraphina.json', base64 }), V2_CARD.toString('base64'));
    await page.getByRole('option', { name: /Seraphina/ }).click();
    const { updates: calls, stop } = recordUpdates();
    const dialog = await openEditor(page, 'Seraphina');
    await dialog.getByLabel('Description').fill('Seraphina guards the glade.');
    await tab(dialog, 'Advanced');
    const box = dialog.getByLabel('Extensions (JSON)');
    const ext = JSON.parse(await box.inputValue());
    assert.deepEqual(Object.keys(ext).sort(), ['fav', 'my_extension', 'regex_scripts']);
    ext.my_extension.nested.added = 'yes';
    await box.fill(JSON.stringify(ext, null, 2));
    await dialog.getByRole('listitem').filter({ hasText: 'character_book' }).waitFor();
    await screenshot(page, 'character-editor-desktop-imported-advanced');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'hidden' });
    assert.deepEqual(calls, [[imported.avatar, { description: 'Seraphina guards the glade.', extensions: { my_extension: { nested: { added: 'yes' } } } }]]);
    const json = await page.evaluate((a) => window.__HEARTH__.api.characters.exportCard(a, { format: 'json' }), imported.avatar);
    const text = Buffer.from(json.base64, 'base64').toString('utf8');
    assert.match(text, /"big":\s*12345678901234567890/, 'the big number is kept as written');
    assert.match(text, /"ratio":\s*1\.50/, '1.50 is kept as written');
    assert.match(text, /"added":\s*"yes"/);
    const card = await getCard(page, imported.avatar);
    assert.deepEqual(card.extensions.regex_scripts, imported.extensions.regex_scripts);
    assert.deepEqual(card.extensions.depth_prompt, imported.extensions.depth_prompt);
    assert.equal(card.extensions.world, "Seraphina's Glade");
    assert.equal(card.character_book.name, "Seraphina's Glade");
    stop();
  });

  it('shows refusals beside their fields and asks before throwing changes away', async () => {
    const dialog = await openEditor(page, 'Seraphina');
    // The form's own check: a blank name, found from another tab.
    await dialog.getByLabel('Name', { exact: true }).fill('  ');
    await tab(dialog, 'Advanced');
    await dialog.getByLabel('Extensions (JSON)').fill('{ "fav": true');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.getByText('A character needs a name.').waitFor();
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'ce-name', 'the first error is focused on its tab');
    assert.equal(await dialog.getByRole('tab', { name: /^Advanced/ }).evaluate((t) => t.classList.contains('error')), true, 'the other tab with an error is marked');
    await screenshot(page, 'character-editor-desktop-errors');
    await dialog.getByLabel('Name', { exact: true }).fill('Seraphina');
    await tab(dialog, 'Advanced');
    await dialog.getByRole('button', { name: 'Undo changes here' }).click();
    // The host's refusal: bytes that are no image, named beside the picture.
    await tab(dialog, 'Basics');
    await dialog.locator('input[type=file]').setInputFiles({ name: 'fake.png', mimeType: 'image/png', buffer: Buffer.from('not an image at all') });
    await dialog.getByRole('button', { name: 'Keep the old picture' }).waitFor();
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.locator('#ce-image-error').filter({ hasText: /image must be PNG/ }).waitFor();
    // Escape with unsaved changes asks; Cancel keeps the editor, Discard closes it.
    await page.keyboard.press('Escape');
    const ask = page.getByRole('dialog', { name: 'Discard changes?' });
    await ask.waitFor();
    await ask.getByRole('button', { name: 'Cancel' }).click();
    await ask.waitFor({ state: 'hidden' });
    assert.ok(await dialog.isVisible(), 'the editor stays open');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await ask.getByRole('button', { name: 'Discard' }).click();
    await dialog.waitFor({ state: 'hidden' });
    assert.equal((await page.evaluate(() => window.__HEARTH__.api.characters.list())).find((c) => c.name === 'Seraphina')?.name, 'Seraphina');
  });

  it('deletes a character with its chats', async () => {
    const seraphina = (await page.evaluate(() => window.__HEARTH__.api.characters.list())).find((c) => c.name === 'Seraphina');
    await page.evaluate((a) => window.__HEARTH__.api.chat.create({ avatar: a }), seraphina.avatar);
    await page.getByRole('button', { name: 'Character actions for Seraphina' }).getByText('1 chat').waitFor();
    await page.getByRole('button', { name: 'Character actions for Seraphina' }).click();
    await page.getByRole('menuitem', { name: /^Delete character…/ }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete character' });
    await dialog.getByLabel('Also delete its chat').check();
    await screenshot(page, 'character-editor-desktop-delete');
    await dialog.getByRole('button', { name: 'Delete with chats' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await page.getByRole('status').filter({ hasText: 'Deleted “Seraphina” and its chat' }).waitFor();
    const list = await page.evaluate(() => window.__HEARTH__.api.characters.list());
    assert.equal(list.some((c) => c.avatar === seraphina.avatar), false);
    assert.deepEqual(await page.evaluate((a) => window.__HEARTH__.api.chat.list({ avatar: a }), seraphina.avatar), []);
    await page.getByRole('option', { name: 'Seraphina' }).waitFor({ state: 'detached' });
  });

  it('is one light-theme screen at 1280×800', async () => {
    const light = await openApp(env.browser, env.server.url, { theme: 'light' });
    await light.getByRole('option', { name: /Wren/ }).click();
    const dialog = await openEditor(light, 'Wren');
    await settle(light);
    await screenshot(light, 'character-editor-desktop-light');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    assert.deepEqual(light.errors, []);
    await light.context().close();
  });

  it('fills a phone screen (390×844) with 44 px targets', async () => {
    const context = await env.browser.newContext(PHONE);
    const phone = await openApp(context, env.server.url);
    // Wren has the chat it was created with, which the phone may reopen at
    // start: go up to the character list from whichever pane shows.
    const wren = phone.getByRole('option', { name: /Wren/ });
    await waitFor(
      async () => {
        if (await wren.isVisible()) return true;
        for (const back of ['Back to chats', 'Back to characters']) {
          const b = phone.getByRole('button', { name: back });
          if (await b.isVisible()) await b.tap().catch(() => {});
        }
        return false;
      },
      'the character list',
      { interval: 250 },
    );
    await wren.tap();
    await phone.getByRole('button', { name: 'Character actions for Wren' }).tap();
    await phone.getByRole('menuitem', { name: /^Edit character…/ }).tap();
    const dialog = phone.getByRole('dialog', { name: 'Edit Wren' });
    await dialog.getByLabel('Name', { exact: true }).waitFor();
    const vp = phone.viewportSize();
    for (const name of ['Basics', 'Greetings', 'Prompting', 'Metadata', 'Advanced']) {
      await dialog.getByRole('tab', { name: new RegExp(`^${name}`) }).tap();
      await settle(phone);
      const box = await dialog.boundingBox();
      assert.ok(box.width >= vp.width - 1 && box.height >= vp.height - 1, `${name}: the editor fills the screen: ${JSON.stringify(box)}`);
      const save = await dialog.getByRole('button', { name: 'Save' }).boundingBox();
      assert.ok(save.y + save.height <= vp.height, `${name}: Save is on screen`);
      assert.deepEqual(await dialogProblems(phone), [], `${name}: fits, with 44 px targets`);
      await screenshot(phone, `character-editor-phone-${name.toLowerCase()}`);
    }
    // A long description grows its box and the tabs stay in reach.
    await dialog.getByRole('tab', { name: /^Basics/ }).tap();
    await dialog.getByLabel('Description').fill(Array.from({ length: 30 }, (_, i) => `Line ${i + 1} of a long description.`).join('\n'));
    await settle(phone);
    const grown = await dialog.getByLabel('Description').boundingBox();
    assert.ok(grown.height > 200, `the description grew: ${grown.height}`);
    await phone.evaluate(() => {
      const body = document.querySelector('dialog[open] .body');
      body.scrollTop = body.scrollHeight;
    });
    await settle(phone);
    assert.ok(await phone.evaluate(() => document.querySelector('dialog[open] .body').scrollTop > 100), 'the form scrolled');
    const tabs = await dialog.getByRole('tablist').boundingBox();
    assert.ok(tabs.y >= 0 && tabs.y < 20, `the tabs stay at the top while the form scrolls: ${tabs.y}`);
    await screenshot(phone, 'character-editor-phone-scrolled');
    await dialog.getByRole('button', { name: 'Cancel' }).tap();
    await phone.getByRole('dialog', { name: 'Discard changes?' }).getByRole('button', { name: 'Discard' }).tap();
    await dialog.waitFor({ state: 'hidden' });
    assert.deepEqual(phone.errors, []);
    await context.close();
  });
});
