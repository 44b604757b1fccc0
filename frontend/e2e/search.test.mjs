// Search through the UI (HOST-ABI §3.6): the chat header's search bar finds
// English, Japanese and Chinese (from one character) in the open chat and
// jumps to a hit far up a virtualized chat, which ends up in view and
// marked; the dialog of every chat (Ctrl+Shift+F, or the chats column's
// button) labels hits by character and chat and opens another character's
// chat at the message. Hidden messages stay out. The same on a phone
// (390×844, touch): the bar fits, hits are 44 px tall. Screenshots at
// 1280×800 and 390×844.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { messageRow, openApp, pageUrl, screenshot, useHearth, waitFor } from './harness.mjs';

const PHONE = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true };

/** The far-up messages the tests look for (index in Sora's chat). */
const LANTERN = 5;
const TOKYO = 12;
const BEIJING = 20;
const HIDDEN = 30;
const FILLER = 160;

/** inView reports whether message index's row is inside the chat's scroll box, and marked as a search hit. */
function rowState(page, index) {
  return page.evaluate((i) => {
    const article = document.querySelector(`article[aria-label^="Message ${i} from "]`);
    const scroller = document.querySelector('section[aria-label="Chat"] [role="log"]');
    if (!article || !scroller) return { present: false };
    const a = article.getBoundingClientRect();
    const s = scroller.getBoundingClientRect();
    return {
      present: true,
      inView: a.top >= s.top - 1 && a.bottom <= s.bottom + 1 && a.height > 0,
      marked: article.closest('.row')?.hasAttribute('data-search-hit') ?? false,
    };
  }, index);
}

/** jumpedTo waits until message index is in view and marked. */
async function jumpedTo(page, index) {
  await waitFor(async () => {
    const s = await rowState(page, index);
    return s.present && s.inView && s.marked;
  }, `message ${index} in view and marked`);
}

const current = (page) => page.evaluate(() => window.__HEARTH__.api.chat.current()?.chatId ?? null);

describe('search', () => {
  const env = useHearth({ before, after });
  let sora;
  let kai;
  let page;

  before(async () => {
    const a = await env.server.invoke('characters.create', { name: 'Sora', first_mes: 'Welcome back.' });
    const b = await env.server.invoke('characters.create', { name: 'Kai', first_mes: 'Hey.' });
    sora = (await env.server.invoke('chat.create', { avatar: a.avatar })).chatId;
    kai = (await env.server.invoke('chat.create', { avatar: b.avatar })).chatId;
    const msgs = [];
    for (let i = 1; i < FILLER; i++) {
      let mes = `Filler line ${i}: the road goes on and the rain keeps falling.`;
      if (i === LANTERN) mes = 'The silver lantern hangs by the door.';
      if (i === TOKYO) mes = '東京タワーの夜景はきれいです。猫も見ている。';
      if (i === BEIJING) mes = '我们在北京喝茶，聊了很久。';
      if (i === HIDDEN) mes = 'A secret kestrel nests under the eaves.';
      const msg = { name: i % 2 ? 'User' : 'Sora', is_user: i % 2 === 1, mes };
      if (i === HIDDEN) msg.extra = { hidden: true };
      msgs.push(msg);
    }
    await env.server.invoke('chat.addMessages', sora, msgs);
    await env.server.invoke('chat.addMessages', kai, [
      { name: 'User', is_user: true, mes: 'Did you see the kestrel over the field?' },
      { name: 'Kai', is_user: false, mes: '見たよ。東京駅の近くでも一羽いた。' },
    ]);

    page = await openApp(env.browser, env.server.url);
    await page.getByRole('option', { name: /Sora/ }).click();
    await waitFor(async () => (await current(page)) === sora, 'Sora’s chat to open');
    await waitFor(() => page.evaluate(() => window.__HEARTH__.getContext().chat.length === 160), 'the whole chat loaded');
  });

  after(() => {
    assert.deepEqual(page?.errors ?? [], [], 'uncaught errors');
  });

  const bar = () => page.getByRole('region', { name: 'Search this chat' });

  it('finds CJK and English in the open chat and jumps to the hit', async () => {
    assert.equal((await rowState(page, TOKYO)).present, false, 'the target starts far out of view (virtualized away)');
    await page.getByRole('region', { name: 'Chat' }).getByRole('button', { name: 'Search this chat' }).click();
    const box = bar().getByRole('searchbox', { name: 'Search this chat' });
    await box.waitFor();
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('aria-label')), 'Search this chat', 'the field has the focus');

    await box.fill('東京');
    await box.press('Enter');
    const hits = bar().getByRole('list', { name: 'Matches' }).getByRole('button');
    await waitFor(async () => (await hits.count()) === 1, 'one hit for 東京');
    assert.match(await hits.first().innerText(), /東京タワー/);
    assert.equal(await bar().locator('mark').first().innerText(), '東京');
    await screenshot(page, 'search-chat-results-desktop');
    await hits.first().click();
    await jumpedTo(page, TOKYO);
    await screenshot(page, 'search-chat-jump-desktop');

    // One character, in two messages: the bar searches as it is typed, and Enter walks through them.
    await box.fill('猫');
    await waitFor(async () => (await bar().getByText('1 match').count()) === 1, 'one message with 猫');
    await box.fill('京');
    await waitFor(async () => (await bar().getByText('2 matches').count()) === 1, 'two messages with 京 (東京, 北京)');
    const [best] = await page.evaluate((id) => window.__HEARTH__.api.chat.search(id, '京'), sora);
    const first = best.index;
    await box.press('Enter');
    await waitFor(async () => (await bar().getByText('1 / 2').count()) === 1, 'the first of two');
    await jumpedTo(page, first);
    await box.press('ArrowDown');
    await jumpedTo(page, first === TOKYO ? BEIJING : TOKYO);

    // English, case-insensitive, in the middle of a word.
    await box.fill('ANTER');
    await box.press('Enter');
    await waitFor(async () => (await hits.count()) === 1, 'one hit for ANTER');
    await hits.first().click();
    await jumpedTo(page, LANTERN);
  });

  it('leaves hidden messages out', async () => {
    const box = bar().getByRole('searchbox', { name: 'Search this chat' });
    await box.fill('kestrel');
    await box.press('Enter');
    await bar().getByText('No matches').waitFor();
    const withHidden = await page.evaluate((id) => window.__HEARTH__.api.chat.search(id, 'kestrel', { includeHidden: true }), sora);
    assert.deepEqual(
      withHidden.map((h) => h.index),
      [HIDDEN],
    );
    await box.press('Escape');
    await bar().waitFor({ state: 'detached' });
  });

  it('searches every chat and opens another character’s chat at the hit', async () => {
    await page.keyboard.press('Control+Shift+F');
    const dialog = page.getByRole('dialog', { name: 'Search all chats' });
    await dialog.waitFor();
    const box = dialog.getByRole('searchbox', { name: 'Search all chats' });
    await box.fill('kestrel');
    await box.press('Enter');
    const group = dialog.getByRole('region', { name: /^Kai: / });
    await group.waitFor();
    assert.equal(await dialog.getByRole('region').count(), 1, 'only Kai’s chat: Sora’s kestrel is hidden');
    await box.fill('東京');
    await box.press('Enter');
    await waitFor(async () => (await dialog.getByRole('region').count()) === 2, 'hits in both chats');
    await screenshot(page, 'search-all-desktop');
    await dialog.getByRole('region', { name: /^Kai: / }).getByRole('button').first().click();
    await dialog.waitFor({ state: 'hidden' });
    await waitFor(async () => (await current(page)) === kai, 'Kai’s chat to open');
    await jumpedTo(page, 2);
    await messageRow(page, 2).getByText('東京駅').waitFor();

    // Back into the long chat, far from its newest message: it opens at the
    // tail, loads the rest, and the hit still ends up in view.
    await page.keyboard.press('Control+Shift+F');
    await box.fill('北京');
    await box.press('Enter');
    await dialog.getByRole('region', { name: /^Sora: / }).getByRole('button').first().click();
    await waitFor(async () => (await current(page)) === sora, 'Sora’s chat to open again');
    await jumpedTo(page, BEIJING);
  });

  it('works on a phone', async () => {
    const context = await env.browser.newContext({ ...PHONE, reducedMotion: 'reduce' });
    try {
      // A phone opens on its own on the last chat (the chat pane), so wait
      // for ready rather than for the character list, then pick the chat.
      const phone = await context.newPage();
      phone.errors = [];
      phone.on('pageerror', (err) => phone.errors.push(err));
      await phone.goto(pageUrl(env.server.url));
      await phone.waitForFunction(() => typeof window.__HEARTH__ === 'object' && window.__HEARTH__ !== null);
      await phone.evaluate(() => window.__HEARTH__.ready);
      await phone.evaluate((id) => window.__HEARTH__.api.chat.select(id), sora);
      const chatPane = phone.getByRole('region', { name: 'Chat' });
      await chatPane.getByRole('button', { name: 'Search this chat' }).tap();
      const phoneBar = phone.getByRole('region', { name: 'Search this chat' });
      const box = phoneBar.getByRole('searchbox', { name: 'Search this chat' });
      await box.fill('北京');
      await box.press('Enter');
      const hit = phoneBar.getByRole('list', { name: 'Matches' }).getByRole('button').first();
      await hit.waitFor();
      const barBox = await phoneBar.boundingBox();
      assert.ok(barBox.x >= 0 && barBox.x + barBox.width <= 390, `the bar fits the screen: ${JSON.stringify(barBox)}`);
      for (const control of [box, hit, phoneBar.getByRole('button', { name: 'Next match' }), phoneBar.getByRole('button', { name: 'Close search' })]) {
        const b = await control.boundingBox();
        assert.ok(b.height >= 43.5 && b.x + b.width <= 390, `a 44 px target inside the screen: ${JSON.stringify(b)}`);
      }
      assert.equal(await phone.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), true, 'nothing sticks out sideways');
      await screenshot(phone, 'search-chat-results-phone');
      await hit.tap();
      await jumpedTo(phone, BEIJING);
      await screenshot(phone, 'search-chat-jump-phone');

      // The chats pane's button opens the dialog of every chat.
      await chatPane.getByRole('button', { name: 'Back to chats' }).tap();
      await phone.getByRole('region', { name: 'Chats' }).getByRole('button', { name: 'Search all chats' }).tap();
      const dialog = phone.getByRole('dialog', { name: 'Search all chats' });
      const all = dialog.getByRole('searchbox', { name: 'Search all chats' });
      await all.fill('kestrel');
      await all.press('Enter');
      const kaiHit = dialog.getByRole('region', { name: /^Kai: / }).getByRole('button').first();
      await kaiHit.waitFor();
      const d = await dialog.boundingBox();
      assert.ok(d.x >= 0 && d.x + d.width <= 390, `the dialog fits: ${JSON.stringify(d)}`);
      assert.ok((await kaiHit.boundingBox()).height >= 43.5, 'hits are 44 px tall');
      await screenshot(phone, 'search-all-phone');
      await kaiHit.tap();
      await waitFor(async () => (await current(phone)) === kai, 'Kai’s chat to open on the phone');
      await jumpedTo(phone, 1);
      assert.deepEqual(phone.errors, [], 'uncaught errors on the phone');
    } finally {
      await context.close();
    }
  });
});
