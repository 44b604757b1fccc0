// Two browser windows on one chat stay in step through pushed events: what
// one does (or a third, non-browser client does) shows up in the other
// without a reload.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { messageRow, openApp, screenshot, useHearth, waitFor } from './harness.mjs';

describe('two windows on one chat', () => {
  const env = useHearth({ before, after });
  let a;
  let b;
  let chatId;

  before(async () => {
    const card = await env.server.invoke('characters.create', {
      name: 'Bea',
      first_mes: 'Welcome, {{user}}.',
      alternate_greetings: ['Oh! A visitor.'],
    });
    chatId = (await env.server.invoke('chat.create', { avatar: card.avatar })).chatId;
    a = await openApp(env.browser, env.server.url);
    b = await openApp(env.browser, env.server.url);
    for (const page of [a, b]) {
      await page.getByRole('option', { name: /Bea/ }).click();
      await messageRow(page, 0).getByText('Welcome, User.').waitFor();
      await waitFor(() => page.evaluate((id) => window.__HEARTH__.api.chat.current()?.chatId === id, chatId), 'the chat to be current');
    }
  });

  after(() => {
    assert.deepEqual(a?.errors ?? [], [], 'uncaught errors in window A');
    assert.deepEqual(b?.errors ?? [], [], 'uncaught errors in window B');
  });

  const chatOf = (page) => page.evaluate(() => window.__HEARTH__.getContext().chat.map((m) => ({ mes: m.mes, is_system: m.is_system, swipe_id: m.swipe_id })));

  it('a message sent in A appears in B', async () => {
    const box = a.getByRole('textbox', { name: 'Message' });
    await box.fill('Sent from A');
    await box.press('Enter');
    await messageRow(b, 1).getByText('Sent from A').waitFor();
    await waitFor(async () => (await chatOf(b)).length === 2, "B's getContext().chat to grow");
  });

  it('an edit in A changes B', async () => {
    const row = messageRow(a, 1);
    await row.hover();
    await row.getByRole('button', { name: 'Edit message' }).click();
    const editor = row.getByRole('textbox', { name: 'Edit message' });
    await editor.fill('Edited in A');
    await editor.press('Enter');
    await messageRow(b, 1).getByText('Edited in A').waitFor();
    await waitFor(async () => (await chatOf(b))[1].mes === 'Edited in A', "B's getContext().chat to change");
  });

  it('a swipe in A and a toggle in B show in the other window', async () => {
    await messageRow(a, 0).getByRole('button', { name: 'Next swipe' }).click();
    await messageRow(b, 0).getByText('Oh! A visitor.').waitFor();
    await messageRow(b, 0).getByText('2/2').waitFor();

    const rowB = messageRow(b, 1);
    await rowB.hover();
    await rowB.getByRole('button', { name: 'Exclude from prompt' }).click();
    await messageRow(a, 1).getByRole('button', { name: 'Include in prompt', pressed: true }).waitFor();
    await waitFor(async () => (await chatOf(a))[1].is_system === true, "A's getContext().chat to show the exclusion");
  });

  it('a message added by another client appears in both windows', async () => {
    await env.server.invoke('chat.addMessages', chatId, [{ mes: 'From a script' }, { is_user: true, mes: 'Also from a script' }]);
    for (const page of [a, b]) {
      await messageRow(page, 3).getByText('Also from a script').waitFor();
      await waitFor(async () => (await chatOf(page)).length === 4, 'four messages');
    }
    await screenshot(b, 'sync-window-b');
  });

  it('a delete in A removes the message from B', async () => {
    const row = messageRow(a, 2);
    await row.hover();
    await row.getByRole('button', { name: 'Delete message' }).click();
    const dialog = a.getByRole('dialog', { name: 'Delete message?' });
    await dialog.getByRole('button', { name: 'Delete', exact: true }).click();
    await b.getByText('From a script', { exact: true }).waitFor({ state: 'detached' });
    for (const [page, label] of [[a, 'A'], [b, 'B']]) {
      await waitFor(async () => (await chatOf(page)).length === 3, `${label}'s getContext().chat to shrink`);
    }
    const [fromA, fromB] = [await chatOf(a), await chatOf(b)];
    assert.deepEqual(fromB, fromA);
    assert.deepEqual(
      fromB.map((m) => m.mes),
      ['Oh! A visitor.', 'Edited in A', 'Also from a script'],
    );
    await messageRow(b, 2).getByText('Also from a script').waitFor();
  });
});
