// getContext()'s chat lifecycle in a browser, against a real `hearth serve`
// (HOST-ABI §3.1, §9): every method called in the page the way a
// SillyTavern or Luker script calls it, checked through the ABI and in the
// UI — the chat list shows renamed, new and deleted chats, clearChat and
// printMessages hide and show the rows, closeCurrentChat shows the empty
// state, a system message renders. Screenshots at 1280×800 and 390×844.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { messageRow, openApp, pageUrl, screenshot, useHearth, waitFor } from './harness.mjs';

const PHONE = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true };

/** listed reads the chat list as shown: each chat's file name (the title's tooltip), in order. */
const listed = (page) =>
  page.evaluate(() => [...document.querySelectorAll('section[aria-label="Chats"] li.item .title')].map((el) => el.getAttribute('title')));

/** rows counts the message rows in the DOM. */
const rows = (page) => page.locator('article[aria-label^="Message "]').count();

/** ctx runs fn(getContext(), arg) in the page, as a script there would, and returns what it resolves. */
const ctx = (page, fn, arg = null) => page.evaluate(`(${fn.toString()})(window.__HEARTH__.getContext(), ${JSON.stringify(arg)})`);

describe('getContext() chat lifecycle in a browser', () => {
  const env = useHearth({ before, after });
  let page;
  let avatar;
  let firstId;
  const warnings = [];

  before(async () => {
    avatar = (await env.server.invoke('characters.create', { name: 'Ada', first_mes: 'The kettle is on, {{user}}.' })).avatar;
    const chat = await env.server.invoke('chat.create', { avatar });
    firstId = chat.chatId;
    await env.server.invoke('chat.addMessages', firstId, [
      { is_user: true, name: 'User', mes: 'Is it raining?' },
      { is_user: false, name: 'Ada', mes: 'Since noon.' },
    ]);
    page = await openApp(env.browser, env.server.url);
    page.on('console', (m) => {
      if (m.type() === 'warning') warnings.push(m.text());
    });
    await page.evaluate((id) => window.__HEARTH__.api.chat.select(id), firstId);
    await messageRow(page, 2).getByText('Since noon.').waitFor();
  });

  after(() => {
    assert.deepEqual(page?.errors ?? [], [], 'uncaught errors in the page');
  });

  it('renameChat renames the open chat: getCurrentChatId, the list and the header follow', async () => {
    const out = await ctx(page, async (c) => {
      const before = c.getCurrentChatId();
      await c.renameChat(`${before}.jsonl`, 'Rainy afternoon');
      return { before, after: c.getCurrentChatId() };
    });
    assert.match(out.before, /^Ada - \d{4}-\d{2}-\d{2}@/);
    assert.equal(out.after, 'Rainy afternoon');
    await waitFor(async () => (await listed(page)).includes('Rainy afternoon'), 'the list to show the new name');
    await page.locator('section[aria-label="Chat"] > header .file', { hasText: 'Rainy afternoon' }).waitFor();
    const err = await ctx(page, (c) => c.renameChat('No such chat', 'x').catch((e) => e.code));
    assert.equal(err, 'chat.not_found');
  });

  it('getPastCharacterChats lists the character’s chats with SillyTavern’s fields', async () => {
    const out = await ctx(page, async (c) => ({
      mine: await c.getPastCharacterChats(),
      byIndex: await c.getPastCharacterChats(c.characterId),
      byString: await c.getPastCharacterChats(String(c.characterId)),
      none: await c.getPastCharacterChats(99),
    }));
    assert.equal(out.mine.length, 1);
    assert.deepEqual(
      [out.mine[0].file_name, out.mine[0].file_id, out.mine[0].mes, typeof out.mine[0].last_mes, out.mine[0].chatId],
      ['Rainy afternoon.jsonl', 'Rainy afternoon', 'Since noon.', 'number', firstId],
    );
    assert.match(out.mine[0].file_size, /^\d+(\.\d)? (B|KB)$/);
    assert.deepEqual(out.byIndex, out.mine);
    assert.deepEqual(out.byString, out.mine);
    assert.deepEqual(out.none, []);
  });

  it('sendSystemMessage stores a system message that renders', async () => {
    await ctx(page, (c) => c.sendSystemMessage('GENERIC', 'Plugin loaded successfully.'));
    const row = messageRow(page, 3);
    await row.getByText('Plugin loaded successfully.').waitFor();
    assert.match((await row.getAttribute('aria-label')) ?? '', /from Hearth System$/);
    const stored = await page.evaluate((id) => window.__HEARTH__.api.chat.getStMessages(id, { tail: 1 }), firstId);
    assert.deepEqual(
      [stored[0].name, stored[0].is_system, stored[0].extra.type, stored[0].extra.swipeable],
      ['Hearth System', true, 'generic', false],
    );
    await waitFor(() => page.evaluate(() => document.querySelector('section[aria-label="Chats"] li.item .count')?.textContent.trim() === '4'), 'the list to count 4 messages');
    await screenshot(page, 'lifecycle-system-message-desktop');
    await ctx(page, (c) => c.sendSystemMessage('no_such_type', 'x'));
    await waitFor(() => warnings.some((w) => w.includes('sendSystemMessage("no_such_type") sends nothing')), 'the unknown-type warning');
    assert.equal(await ctx(page, (c) => c.chat.length), 4);
  });

  it('shows the same chat on a phone', async () => {
    const context = await env.browser.newContext({ ...PHONE, reducedMotion: 'reduce' });
    try {
      // Not openApp: a phone restores the character's newest chat at start and shows it, not the character list.
      const phone = await context.newPage();
      phone.errors = [];
      phone.on('pageerror', (err) => phone.errors.push(err));
      await phone.goto(pageUrl(env.server.url));
      await phone.waitForFunction(() => typeof window.__HEARTH__ === 'object' && window.__HEARTH__ !== null);
      await phone.evaluate(() => window.__HEARTH__.ready);
      await phone.evaluate((id) => window.__HEARTH__.api.chat.select(id), firstId);
      await messageRow(phone, 3).getByText('Plugin loaded successfully.').waitFor();
      // A phone's header has no room for the message count; the chat holds the four.
      assert.equal(await phone.evaluate(() => window.SillyTavern.getContext().chat.length), 4);
      await screenshot(phone, 'lifecycle-system-message-phone');
      assert.deepEqual(phone.errors, []);
    } finally {
      await context.close();
    }
  });

  it('clearChat hides the rows until printMessages; clearData empties chat until a reload', async () => {
    await ctx(page, (c) => c.clearChat());
    await waitFor(async () => (await rows(page)) === 0, 'the rows to be cleared');
    assert.equal(await ctx(page, (c) => c.chat.length), 4, 'clearChat() keeps the data');
    await ctx(page, (c) => c.printMessages());
    await messageRow(page, 3).waitFor();

    const cleared = await ctx(page, async (c) => {
      await c.clearChat({ clearData: true });
      return { chat: c.chat.length, meta: c.chat_metadata, id: c.getCurrentChatId() };
    });
    assert.deepEqual(cleared, { chat: 0, meta: {}, id: 'Rainy afternoon' });
    await waitFor(async () => (await rows(page)) === 0, 'the rows to be cleared');
    assert.equal((await page.evaluate((id) => window.__HEARTH__.api.chat.getStMessages(id), firstId)).length, 4, 'nothing deleted');

    const reloaded = await ctx(page, async (c) => {
      const seen = [];
      const on = (id) => seen.push([id, c.chat.length]);
      c.eventSource.on(c.eventTypes.CHAT_CHANGED, on);
      const order = [];
      await Promise.all([c.reloadCurrentChat().then(() => order.push('a')), c.reloadCurrentChat().then(() => order.push('b'))]);
      await new Promise((r) => setTimeout(r, 0));
      c.eventSource.off(c.eventTypes.CHAT_CHANGED, on);
      return { order, seen, chat: c.chat.length };
    });
    assert.deepEqual(reloaded.order, ['a', 'b']);
    assert.equal(reloaded.chat, 4);
    assert.deepEqual(
      reloaded.seen.map(([, n]) => n),
      [4, 4],
      'CHAT_CHANGED after each reload, with the whole chat',
    );
    await messageRow(page, 3).getByText('Plugin loaded successfully.').waitFor();
  });

  it('saveChat resolves once fire-and-forget writes are stored', async () => {
    const stored = await ctx(page, async (c) => {
      const id = window.__HEARTH__.api.chat.current().chatId;
      c.addMessages({ is_user: true, name: 'User', mes: 'Tea, then.' });
      c.updateMessages({ index: 1, patch: { mes: 'Is it still raining?' } });
      await c.saveChat();
      return (await window.__HEARTH__.api.chat.getStMessages(id)).map((m) => m.mes);
    });
    assert.deepEqual(stored.slice(-2), ['Plugin loaded successfully.', 'Tea, then.']);
    assert.equal(stored[1], 'Is it still raining?');
    await messageRow(page, 4).getByText('Tea, then.').waitFor();
  });

  it('the deprecated calls map onto the unified ones and warn once each', async () => {
    const out = await ctx(page, async (c) => {
      await c.addOneMessage({ is_user: false, name: 'Ada', mes: 'Milk?' });
      await c.addOneMessage(c.getMessage(5));
      const appended = await c.appendChatMessages([c.chat[0], { is_user: true, name: 'User', mes: 'Yes please.' }]);
      await c.updateMessageBlock(6, { ...c.chat[6], mes: 'Yes, please.' });
      const patched = await c.patchChatMessages([{ op: 'replace', path: '/5/mes', value: 'Milk? Sugar?' }]);
      await c.deleteLastMessage();
      await c.deleteMessage(5);
      return { appended, patched, chat: c.chat.map((m) => m.mes) };
    });
    assert.equal(out.appended, true);
    assert.equal(out.patched, true);
    assert.deepEqual(out.chat.slice(-2), ['Plugin loaded successfully.', 'Tea, then.']);
    await waitFor(async () => (await rows(page)) === 5, 'five rows after the deletions');
    for (const name of ['addOneMessage', 'appendChatMessages', 'updateMessageBlock', 'patchChatMessages', 'deleteLastMessage', 'deleteMessage']) {
      assert.equal(warnings.filter((w) => w.includes(`getContext().${name}() is deprecated`)).length, 1, `${name} warned once`);
    }
  });

  it('doNewChat opens a new chat; openCharacterChat goes back; the list shows both', async () => {
    const out = await ctx(page, async (c) => {
      const before = c.getCurrentChatId();
      await c.doNewChat();
      const fresh = { id: c.getCurrentChatId(), chat: c.chat.map((m) => m.mes) };
      await c.openCharacterChat(before);
      return { before, fresh, back: c.getCurrentChatId(), missing: await c.openCharacterChat('nope').catch((e) => e.code) };
    });
    assert.notEqual(out.fresh.id, out.before);
    assert.deepEqual(out.fresh.chat, ['The kettle is on, User.']);
    assert.equal(out.back, 'Rainy afternoon');
    assert.equal(out.missing, 'chat.not_found');
    await waitFor(async () => (await listed(page)).length === 2, 'two chats in the list');
    await messageRow(page, 4).getByText('Tea, then.').waitFor();
  });

  it('doNewChat({ deleteCurrentChat: true }) removes the old chat from the list', async () => {
    const fresh = await ctx(page, async (c) => {
      await c.doNewChat({ deleteCurrentChat: true });
      return c.getCurrentChatId();
    });
    await waitFor(async () => {
      const names = await listed(page);
      return !names.includes('Rainy afternoon') && names.includes(fresh) && names.length === 2;
    }, 'the old chat to leave the list');
    await messageRow(page, 0).getByText('The kettle is on, User.').waitFor();
    const gone = await page.evaluate((id) => window.__HEARTH__.api.chat.get(id).catch((e) => e.code), firstId);
    assert.equal(gone, 'chat.not_found');
  });

  it('deleteCharacterChat deletes another chat by index and ".jsonl" name, then the open one, which closes', async () => {
    const other = await ctx(page, async (c) => {
      const mine = c.getCurrentChatId();
      const other = (await c.getPastCharacterChats()).find((x) => x.file_id !== mine);
      await c.deleteCharacterChat(c.characterId, other.file_name);
      return other.file_id;
    });
    await waitFor(async () => !(await listed(page)).includes(other), 'the deleted chat to leave the list');
    const closed = await ctx(page, async (c) => {
      await c.deleteCharacterChat(String(c.characterId), c.getCurrentChatId());
      return { id: c.getCurrentChatId(), chat: c.chat.length, current: window.__HEARTH__.api.chat.current() };
    });
    assert.deepEqual(closed, { id: undefined, chat: 0, current: null });
    await page.getByText(/You have no chats with Ada yet\.|Welcome to Hearth/).first().waitFor();
  });

  it('closeCurrentChat shows the empty state and resolves true', async () => {
    // With no character chat open, doNewChat does nothing, as in SillyTavern.
    assert.equal(await ctx(page, async (c) => (await c.doNewChat(), c.getCurrentChatId())), undefined);
    const opened = await page.evaluate(async (a) => {
      const h = window.__HEARTH__;
      const chat = await h.api.chat.create({ avatar: a });
      await h.api.chat.select(chat.chatId);
      return chat.fileName;
    }, avatar);
    await page.locator('section[aria-label="Chat"] > header .name', { hasText: 'Ada' }).waitFor();
    const out = await ctx(page, async (c) => ({ closed: await c.closeCurrentChat(), id: c.getCurrentChatId() }));
    assert.deepEqual(out, { closed: true, id: undefined });
    await page.getByRole('heading', { name: 'Welcome to Hearth' }).waitFor();
    assert.equal(await page.locator('section[aria-label="Chat"] > header .name').count(), 0);
    assert.equal(await rows(page), 0);
    await waitFor(async () => (await listed(page)).includes(opened), 'the closed chat to stay listed');
    await screenshot(page, 'lifecycle-closed-desktop');
  });
});
