// The Connections dialog against a real `hearth serve` and a scripted
// OpenAI-compatible server on loopback (GET /v1/models only; nothing
// generates yet): add a connection with a key, test it, pick a model from
// the server's list (a listbox under the model field), see a refused key
// reported, switch and delete. The key is checked to never come back to
// the page. A send with no connection in use gets a toast whose button
// opens the dialog.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { openApp, screenshot, useHearth, waitFor } from './harness.mjs';

/** modelServer answers GET /v1/models: the models for the right key, 401 otherwise. */
function modelServer(key, models) {
  const seen = [];
  const server = createServer((req, res) => {
    seen.push({ method: req.method, url: req.url, auth: req.headers.authorization ?? null });
    if (req.method !== 'GET' || req.url !== '/v1/models') {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not found"}}');
      return;
    }
    if (req.headers.authorization !== `Bearer ${key}`) {
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":{"message":"Incorrect API key provided"}}');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ object: 'list', data: models.map((id) => ({ id, object: 'model', created: 1, owned_by: 'e2e' })) }));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, seen, url: `http://127.0.0.1:${server.address().port}/v1` })));
}

describe('connections in the UI', () => {
  const env = useHearth({ before, after });
  let page;
  let llm;
  const KEY = 'sk-e2e-secret-4242';

  before(async () => {
    llm = await modelServer(KEY, ['llama-3.1-8b-instruct', 'qwen2.5-14b-instruct']);
    page = await openApp(env.browser, env.server.url, { theme: 'dark' });
  });

  after(async () => {
    await new Promise((r) => llm?.server.close(r));
    assert.deepEqual(page?.errors ?? [], [], 'uncaught errors in the page');
  });

  const dialog = () => page.getByRole('dialog', { name: /^(Connections|Add connection|Edit connection)$/ });

  it('adds a connection with a key, makes it the one in use, and tests it', async () => {
    await page.getByRole('button', { name: 'Connections' }).click();
    await dialog().getByText('No connections yet.', { exact: false }).waitFor();
    await screenshot(page, 'connections-empty');
    await dialog().getByRole('button', { name: 'Add connection' }).click();
    await dialog().getByLabel('Name', { exact: true }).fill('Local llama');
    await dialog().getByLabel('Server address', { exact: true }).fill(llm.url);
    await dialog().getByLabel('API key', { exact: true }).fill(KEY);
    await dialog().getByLabel('Model', { exact: true }).fill('llama-3.1-8b-instruct');
    await screenshot(page, 'connections-form');
    await dialog().getByRole('button', { name: 'Save' }).click();

    const item = dialog().getByRole('listitem').filter({ hasText: 'Local llama' });
    await item.getByText('In use').waitFor();
    await item.getByRole('status').filter({ hasText: 'Connected · 2 models' }).waitFor();
    assert.ok(llm.seen.some((r) => r.auth === `Bearer ${KEY}`), 'the server got the key');

    const read = await page.evaluate(async () => {
      const c = window.__HEARTH__.api.connections;
      return JSON.stringify({ list: await c.list(), active: await c.active() });
    });
    assert.ok(!read.includes(KEY), 'the key came back to the page');
    const { list, active } = JSON.parse(read);
    assert.equal(list.length, 1);
    assert.equal(list[0].apiKeySet, true);
    assert.equal(active.id, list[0].id);
    await screenshot(page, 'connections-list');
  });

  it('lists the server models in the edit form', async () => {
    const item = dialog().getByRole('listitem').filter({ hasText: 'Local llama' });
    await item.getByRole('button', { name: 'Edit Local llama' }).click();
    await dialog().getByLabel('API key', { exact: true }).waitFor();
    assert.equal(await dialog().getByLabel('API key', { exact: true }).inputValue(), '', 'the key field starts empty');
    assert.match(await dialog().getByLabel('API key', { exact: true }).getAttribute('placeholder'), /Stored/);
    // The edit form asks the server for its models at once (with the stored key); Load models asks again.
    await dialog().getByText('2 models on the server', { exact: false }).waitFor();
    await dialog().getByRole('button', { name: 'Load models' }).click();
    await dialog().getByText('2 models on the server', { exact: false }).waitFor();
    await dialog().getByRole('button', { name: 'Show the server’s models' }).click();
    const models = dialog().getByRole('listbox', { name: 'Models on the server' });
    assert.deepEqual(await models.getByRole('option').allInnerTexts(), ['llama-3.1-8b-instruct', 'qwen2.5-14b-instruct']);
    await models.getByRole('option', { name: 'qwen2.5-14b-instruct' }).click();
    assert.equal(await dialog().getByLabel('Model', { exact: true }).inputValue(), 'qwen2.5-14b-instruct');
    await dialog().getByRole('button', { name: 'Save' }).click();
    await dialog().getByRole('listitem').filter({ hasText: 'qwen2.5-14b-instruct' }).waitFor();
    const [c] = await page.evaluate(() => window.__HEARTH__.api.connections.list());
    assert.equal(c.model, 'qwen2.5-14b-instruct');
    assert.equal(c.apiKeySet, true, 'saving without typing a key keeps it');
  });

  it('reports a refused key beside the connection, and switches and deletes', async () => {
    await dialog().getByRole('button', { name: 'Add connection' }).click();
    await dialog().getByLabel('Name', { exact: true }).fill('Wrong key');
    await dialog().getByLabel('Server address', { exact: true }).fill(llm.url);
    await dialog().getByLabel('API key', { exact: true }).fill('sk-wrong');
    // Listing the models with that key is refused, said beside the key.
    await dialog().getByRole('button', { name: 'Load models' }).click();
    await dialog().locator('#conn-probe-error').filter({ hasText: 'Incorrect API key provided' }).waitFor();
    await dialog().getByLabel('Model', { exact: true }).fill('llama-3.1-8b-instruct');
    await dialog().getByRole('button', { name: 'Save' }).click();
    const wrong = dialog().getByRole('listitem').filter({ hasText: 'Wrong key' });
    await wrong.getByRole('status').filter({ hasText: 'Incorrect API key provided' }).waitFor();
    await screenshot(page, 'connections-refused');

    await wrong.getByRole('radio', { name: 'Use Wrong key' }).check();
    await wrong.getByText('In use').waitFor();
    assert.equal((await page.evaluate(() => window.__HEARTH__.api.connections.active())).name, 'Wrong key');

    await wrong.getByRole('button', { name: 'Delete Wrong key' }).click();
    await page.getByRole('dialog', { name: 'Delete connection' }).getByRole('button', { name: 'Delete' }).click();
    await wrong.waitFor({ state: 'detached' });
    await waitFor(async () => (await page.evaluate(() => window.__HEARTH__.api.connections.active())) === null, 'no connection in use');
    assert.equal((await page.evaluate(() => window.__HEARTH__.api.connections.list())).length, 1);
  });

  it('fits a phone screen', async () => {
    const phone = await openApp(env.browser, env.server.url, { theme: 'light', viewport: { width: 390, height: 844 } });
    try {
      await phone.getByRole('button', { name: 'Connections' }).click();
      const item = phone.getByRole('dialog').getByRole('listitem').filter({ hasText: 'Local llama' });
      await item.waitFor();
      const box = await phone.getByRole('dialog').boundingBox();
      assert.ok(box && box.x >= 0 && box.x + box.width <= 390, `the dialog fits the screen: ${JSON.stringify(box)}`);
      await screenshot(phone, 'connections-phone');
      assert.deepEqual(phone.errors, []);
    } finally {
      await phone.context().close();
    }
  });

  it('a send with no connection in use: the toast opens Connections, on a phone too', async () => {
    assert.equal(await page.evaluate(() => window.__HEARTH__.api.connections.active()), null);
    await page.keyboard.press('Escape');
    await dialog().waitFor({ state: 'hidden' });
    const chatId = await page.evaluate(async () => {
      const api = window.__HEARTH__.api;
      const card = await api.characters.create({ name: 'Ottoline', first_mes: 'The kettle is on.' });
      return (await api.chat.create({ avatar: card.avatar })).chatId;
    });
    for (const [name, viewport] of [
      ['desktop', null],
      ['phone', { width: 390, height: 844 }],
    ]) {
      const p = viewport ? await openApp(env.browser, env.server.url, { theme: 'light', viewport }) : page;
      try {
        await p.evaluate((id) => window.__HEARTH__.api.chat.select(id), chatId);
        await p.getByRole('textbox', { name: 'Message' }).fill(`Hello from the ${name}`);
        await p.getByRole('button', { name: 'Send message' }).click();
        const toast = p.getByRole('alert').filter({ hasText: 'No connection selected' });
        await toast.waitFor();
        await screenshot(p, `connections-toast-${name}`);
        await toast.getByRole('button', { name: 'Open Connections' }).click();
        await toast.waitFor({ state: 'detached' });
        // On the phone the character pane (where the plug button is) is
        // not on screen; the dialog opens all the same.
        const opened = p.getByRole('dialog', { name: 'Connections' });
        await opened.getByRole('listitem').filter({ hasText: 'Local llama' }).waitFor();
        const box = await opened.boundingBox();
        const vp = p.viewportSize();
        assert.ok(box && box.x >= 0 && box.x + box.width <= vp.width, `the dialog is on screen: ${JSON.stringify(box)}`);
        await screenshot(p, `connections-from-toast-${name}`);
        await p.keyboard.press('Escape');
        await opened.waitFor({ state: 'hidden' });
        // The message is kept.
        const kept = await p.evaluate((id) => window.__HEARTH__.api.chat.getStMessages(id), chatId);
        assert.ok(kept.some((m) => m.is_user && m.mes === `Hello from the ${name}`), 'the message was kept');
        assert.deepEqual(p.errors, []);
      } finally {
        if (viewport) await p.context().close();
      }
    }
  });
});
