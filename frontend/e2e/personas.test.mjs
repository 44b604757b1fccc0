// Personas through the UI against a real `hearth serve`: create one with
// an avatar and an at-depth description in the Personas dialog (the first
// becomes the one in use), start a chat whose greeting and new messages
// carry its name (getContext().name1), lock another persona to the chat,
// see the chat follow it, then delete it and see the chat unlocked. Also
// the dialog on a phone.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { messageRow, openApp, pngImage, screenshot, useHearth, waitFor } from './harness.mjs';

describe('personas in the UI', () => {
  const env = useHearth({ before, after });
  let page;
  let avatar;

  before(async () => {
    const card = await env.server.invoke('characters.create', { name: 'Ada', first_mes: 'Welcome, {{user}}.' });
    avatar = card.avatar;
    page = await openApp(env.browser, env.server.url, { theme: 'dark' });
  });

  after(() => {
    assert.deepEqual(page?.errors ?? [], [], 'uncaught errors in the page');
  });

  const dialog = () => page.getByRole('dialog', { name: /^(Personas|Add persona|Edit persona)$/ });
  const personas = () => page.evaluate(() => window.__HEARTH__.api.personas.list());
  const name1 = () => page.evaluate(() => window.__HEARTH__.getContext().name1);

  async function addPersona(name, description, { image = null, depth = null } = {}) {
    await dialog().getByRole('button', { name: 'Add persona' }).click();
    await dialog().getByLabel('Name', { exact: true }).fill(name);
    await dialog().getByLabel('Description', { exact: true }).fill(description);
    if (image) {
      await dialog().locator('input[type=file]').setInputFiles({ name: 'me.png', mimeType: 'image/png', buffer: image });
      await dialog().getByRole('button', { name: 'Remove picture' }).waitFor();
    }
    if (depth !== null) {
      await dialog().getByLabel('Description goes').selectOption({ label: 'In the chat, at a depth' });
      await dialog().getByLabel('Depth', { exact: true }).fill(String(depth));
      await dialog().getByLabel('Role', { exact: true }).selectOption({ label: 'System' });
    }
    await dialog().getByRole('button', { name: 'Save' }).click();
    await dialog().getByRole('listitem').filter({ hasText: name }).waitFor();
  }

  it('creates personas in the dialog; the first is the one in use', async () => {
    assert.equal(await name1(), 'User');
    await page.getByRole('button', { name: 'Personas' }).click();
    await dialog().getByText('No personas yet.', { exact: false }).waitFor();
    await dialog().getByRole('button', { name: 'Add persona' }).click();
    await dialog().getByLabel('Name', { exact: true }).fill('Wren');
    await dialog().getByLabel('Description goes').selectOption({ label: 'In the chat, at a depth' });
    await screenshot(page, 'personas-form');
    await dialog().getByRole('button', { name: 'Cancel' }).click();

    await addPersona('Wren', '{{user}} keeps the lanterns of the old harbour.', { image: await pngImage(64, 64, [0x3a, 0x77, 0xd9]), depth: 1 });
    const wren = dialog().getByRole('listitem').filter({ hasText: 'Wren' });
    await wren.getByText('In use').waitFor();
    await waitFor(async () => (await name1()) === 'Wren', 'name1 to be Wren');
    const img = wren.locator('img');
    await waitFor(() => img.evaluate((el) => el.complete && el.naturalWidth === 64), 'the persona avatar to load');

    await addPersona('Ash', 'A traveller with ash on their boots.');
    const list = await personas();
    assert.deepEqual(
      list.map((p) => [p.name, p.isActive, p.position, p.depth, p.role, p.avatarUrl !== null]),
      [
        ['Ash', false, 0, 2, 0, false],
        ['Wren', true, 4, 1, 0, true],
      ],
    );
    await screenshot(page, 'personas-list');
    await dialog().getByRole('button', { name: 'Done' }).click();
    await dialog().waitFor({ state: 'hidden' });
    assert.equal(await page.getByRole('button', { name: 'Personas' }).getAttribute('title'), 'Personas: you are Wren');
  });

  it('names the greeting and new messages after the persona in use', async () => {
    await page.getByRole('option', { name: /Ada/ }).click();
    await page.getByRole('button', { name: 'New chat' }).click();
    await messageRow(page, 0).getByText('Welcome, Wren.').waitFor();
    const box = page.getByRole('textbox', { name: 'Message' });
    assert.equal(await box.getAttribute('placeholder'), 'Message Ada as Wren');
    await box.fill('Hello, Ada.');
    await box.press('Enter');
    const row = page.locator('article[aria-label="Message 1 from Wren"]');
    await row.getByText('Hello, Ada.').waitFor();
    await waitFor(() => row.locator('img').evaluate((el) => el.complete && el.naturalWidth === 64), 'the message to show Wren’s picture');
    const [, sent] = await page.evaluate(() => window.__HEARTH__.getContext().chat);
    assert.equal(sent.name, 'Wren');
    assert.equal(sent.is_user, true);
  });

  it('locks another persona to the chat: name1, the placeholder and new messages follow', async () => {
    await page.getByRole('button', { name: 'Personas' }).click();
    await dialog().getByText('In this chat you are Wren', { exact: false }).waitFor();
    const lock = dialog().getByRole('button', { name: 'Lock Ash to this chat' });
    await lock.click();
    await waitFor(async () => (await lock.getAttribute('aria-pressed')) === 'true', 'the lock to show');
    await dialog().getByText('In this chat you are Ash, locked to it', { exact: false }).waitFor();
    assert.equal(await name1(), 'Ash', 'name1 follows the lock as soon as lockToChat resolves');
    const state = await page.evaluate(async () => {
      const h = window.__HEARTH__;
      const { chatId } = h.api.chat.current();
      return { meta: h.getContext().chatMetadata.persona, effective: (await h.api.personas.effective(chatId))?.name, elsewhere: (await h.api.personas.effective())?.name };
    });
    const ash = (await personas()).find((p) => p.name === 'Ash');
    assert.deepEqual(state, { meta: ash.id, effective: 'Ash', elsewhere: 'Wren' });
    await screenshot(page, 'personas-locked');
    await dialog().getByRole('button', { name: 'Done' }).click();

    const box = page.getByRole('textbox', { name: 'Message' });
    await waitFor(async () => (await box.getAttribute('placeholder')) === 'Message Ada as Ash', 'the placeholder to name Ash');
    await box.fill('Ash here.');
    await box.press('Enter');
    await page.locator('article[aria-label="Message 2 from Ash"]').getByText('Ash here.').waitFor();

    // A new chat is not locked: it starts as the persona in use.
    const other = await page.evaluate(async (a) => {
      const h = window.__HEARTH__;
      const c = await h.api.chat.create({ avatar: a });
      return { greeting: (await h.api.chat.getStMessages(c.chatId))[0].mes, persona: (await h.api.personas.effective(c.chatId)).name };
    }, avatar);
    assert.deepEqual(other, { greeting: 'Welcome, Wren.', persona: 'Wren' });
  });

  it('deleting the locked persona unlocks the chat', async () => {
    await page.getByRole('button', { name: 'Personas' }).click();
    const ash = dialog().getByRole('listitem').filter({ hasText: 'Ash' });
    await ash.getByRole('button', { name: 'Delete Ash' }).click();
    await page.getByRole('dialog', { name: 'Delete persona' }).getByRole('button', { name: 'Delete' }).click();
    await ash.waitFor({ state: 'detached' });
    await waitFor(async () => (await name1()) === 'Wren', 'name1 back to Wren');
    const meta = await page.evaluate(() => window.__HEARTH__.getContext().chatMetadata);
    assert.equal('persona' in meta, false, 'the lock is gone from the chat metadata');
    await dialog().getByText('In this chat you are Wren.', { exact: false }).waitFor();
    await dialog().getByRole('button', { name: 'Done' }).click();
  });

  it('fits a phone screen', async () => {
    const phone = await openApp(env.browser, env.server.url, { theme: 'light', viewport: { width: 390, height: 844 } });
    try {
      // The phone opens on the last chat; the composer says who you are.
      const composer = phone.getByRole('textbox', { name: 'Message' });
      await waitFor(async () => (await composer.getAttribute('placeholder')) === 'Message Ada as Wren', 'the placeholder to name Wren');
      await screenshot(phone, 'personas-phone-chat');
      await phone.getByRole('button', { name: 'Back to chats' }).click();
      await phone.getByRole('button', { name: 'Back to characters' }).click();
      await phone.getByRole('button', { name: 'Personas' }).click();
      const d = phone.getByRole('dialog', { name: 'Personas' });
      const item = d.getByRole('listitem').filter({ hasText: 'Wren' });
      await item.waitFor();
      const box = await d.boundingBox();
      assert.ok(box && box.x >= 0 && box.x + box.width <= 390, `the dialog fits the screen: ${JSON.stringify(box)}`);
      // Measured once the dialog's opening animation (a slight scale) is over.
      for (const name of ['Edit Wren', 'Delete Wren', 'Default persona: Wren', 'Use Wren']) {
        const target = name === 'Use Wren' ? item.locator('label') : item.getByRole('button', { name });
        await waitFor(async () => {
          const b = await target.boundingBox();
          return b && b.width >= 44 && b.height >= 44;
        }, `${name} to be a 44 px target`);
      }
      await screenshot(phone, 'personas-phone');
      await item.getByRole('button', { name: 'Edit Wren' }).click();
      await phone.getByRole('dialog', { name: 'Edit persona' }).getByLabel('Depth', { exact: true }).waitFor();
      await screenshot(phone, 'personas-phone-form');
      assert.deepEqual(phone.errors, []);
    } finally {
      await phone.context().close();
    }
  });
});
