// Hearth on a phone (390×844, touch), a tablet (820×1180, touch) and a
// laptop (1280×800): one pane at a time on the phone with back buttons and
// the browser's back, an avatar rail on the tablet, the three columns on the
// laptop. A person's flows (create a character, which opens its greeting
// chat, send, edit, swipe, go back) are driven by taps, checked through window.__HEARTH__,
// and each pane is audited: no horizontal scroll, accessible names on every
// control, 44×44 px touch targets. Screenshots are artifacts, not goldens.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { messageAction, messageRow, openApp, pageUrl, screenshot, useHearth, waitFor } from './harness.mjs';

const PHONE = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true };
const TABLET = { viewport: { width: 820, height: 1180 }, hasTouch: true };
const PANES = { characters: 'aside[aria-label="Characters"]', chats: 'section[aria-label="Chats"]', chat: 'section[aria-label="Chat"]' };

/** newPage opens Hearth in a fresh context of the given device (no animations). */
async function newPage(env, device) {
  const context = await env.browser.newContext({ ...device, reducedMotion: 'reduce' });
  return openApp(context, env.server.url, { theme: 'dark' });
}

/** visiblePanes names the panes a person can see (in the viewport and not hidden). */
function visiblePanes(page) {
  return page.evaluate((panes) => {
    const shown = [];
    for (const [name, sel] of Object.entries(panes)) {
      const el = document.querySelector(sel);
      if (!el) continue;
      const r = el.getBoundingClientRect();
      const onScreen = r.width > 0 && r.height > 0 && r.right > 1 && r.left < window.innerWidth - 1;
      if (onScreen && getComputedStyle(el).visibility === 'visible' && !el.closest('[inert]')) shown.push(name);
    }
    return shown;
  }, PANES);
}

/** onlyPane waits until name is the one pane on screen. */
async function onlyPane(page, name) {
  await waitFor(async () => JSON.stringify(await visiblePanes(page)) === JSON.stringify([name]), `only the ${name} pane on screen`);
}

/**
 * overflow lists what sticks out sideways: the document, the panes, and any
 * visible element reaching past the viewport that no scroll box of its own
 * clips (a code block scrolling inside itself is fine).
 */
function overflow(page) {
  return page.evaluate((panes) => {
    const vw = window.innerWidth;
    const out = [];
    const doc = document.documentElement;
    if (doc.scrollWidth > vw) out.push(`document scrollWidth ${doc.scrollWidth} > ${vw}`);
    if (document.body.scrollWidth > vw) out.push(`body scrollWidth ${document.body.scrollWidth} > ${vw}`);
    for (const [name, sel] of Object.entries(panes)) {
      const el = document.querySelector(sel);
      if (el && el.scrollWidth > el.clientWidth + 1) out.push(`${name} pane scrollWidth ${el.scrollWidth} > ${el.clientWidth}`);
      const pane = el?.closest('[inert]') ? null : el;
      if (!pane || getComputedStyle(pane).visibility !== 'visible') continue;
      const box = pane.getBoundingClientRect();
      for (const node of pane.querySelectorAll('*')) {
        const r = node.getBoundingClientRect();
        if (r.width === 0 || r.right <= box.right + 1) continue;
        let clipped = false;
        for (let up = node.parentElement; up && up !== pane; up = up.parentElement) {
          const ox = getComputedStyle(up).overflowX;
          if (ox !== 'visible' && up.getBoundingClientRect().right <= box.right + 1) {
            clipped = true;
            break;
          }
        }
        if (!clipped) out.push(`${name}: <${node.tagName.toLowerCase()} class="${node.className?.baseVal ?? node.className}"> ends at ${Math.round(r.right)} > ${Math.round(box.right)}`);
      }
    }
    return out.slice(0, 10);
  }, PANES);
}

/** unnamed lists the controls in the accessibility tree (what is on screen) that have no name. */
async function unnamed(page) {
  const cdp = await page.context().newCDPSession(page);
  try {
    const { nodes } = await cdp.send('Accessibility.getFullAXTree');
    const roles = new Set(['button', 'textbox', 'searchbox', 'combobox', 'option', 'checkbox', 'switch', 'link', 'menuitem', 'tab', 'slider', 'spinbutton']);
    return nodes
      .filter((n) => !n.ignored && roles.has(n.role?.value) && !String(n.name?.value ?? '').trim())
      .map((n) => `${n.role.value} #${n.backendDOMNodeId}`);
  } finally {
    await cdp.detach();
  }
}

/** smallTargets lists visible controls smaller than 44×44 px (links inside message text excepted). */
function smallTargets(page) {
  return page.evaluate(() => {
    const sel = 'button, input:not([type=hidden]), textarea, select, [role=option], [role=button], a[href], [tabindex]:not([tabindex="-1"])';
    const out = [];
    for (const el of document.querySelectorAll(sel)) {
      if (el.closest('[inert]') || el.closest('.md')) continue;
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.height === 0 || getComputedStyle(el).visibility !== 'visible') continue;
      if (r.bottom < 0 || r.top > window.innerHeight || r.right < 0 || r.left > window.innerWidth) continue;
      if (r.width < 43.5 || r.height < 43.5) {
        const name = el.getAttribute('aria-label') || el.textContent?.trim().slice(0, 30) || el.tagName;
        out.push(`${el.tagName.toLowerCase()} "${name}" ${Math.round(r.width)}×${Math.round(r.height)}`);
      }
    }
    return out;
  });
}

/** audit checks a screen the way the issue asks, naming what failed. */
async function audit(page, what, { touch = true } = {}) {
  assert.deepEqual(await overflow(page), [], `${what}: nothing sticks out sideways`);
  assert.deepEqual(await unnamed(page), [], `${what}: every control has an accessible name`);
  if (touch) assert.deepEqual(await smallTargets(page), [], `${what}: touch targets are at least 44×44 px`);
}

/** settle waits two animation frames (layout after a change). */
const settle = (page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));

/** chatOf reads getContext().chat in the page (plain copies). */
const chatOf = (page) => page.evaluate(() => window.__HEARTH__.getContext().chat.map((m) => ({ mes: m.mes, is_user: m.is_user, swipe_id: m.swipe_id })));

const currentChat = (page) => page.evaluate(() => window.__HEARTH__.api.chat.current()?.chatId ?? null);

/**
 * createThroughDialog creates a character in the New character dialog, as a
 * person would (alternates on its Greetings tab); the dialog closes on the
 * character's greeting chat.
 */
async function createThroughDialog(page, { name, description, greeting, alternates = [] }, shot) {
  await page.getByRole('button', { name: 'New character' }).tap();
  const dialog = page.getByRole('dialog', { name: 'New character' });
  await dialog.waitFor();
  await dialog.getByLabel('Name', { exact: true }).fill(name);
  await dialog.getByLabel('Description').fill(description);
  await dialog.getByLabel(/^Greeting/).fill(greeting);
  // The dialog fits the screen; its buttons are in view.
  const box = await dialog.boundingBox();
  const vp = page.viewportSize();
  assert.ok(box.x >= 0 && box.y >= 0 && box.x + box.width <= vp.width && box.y + box.height <= vp.height, `the dialog fits the screen: ${JSON.stringify(box)}`);
  const create = dialog.getByRole('button', { name: 'Create' });
  const cb = await create.boundingBox();
  assert.ok(cb.y + cb.height <= vp.height, 'the Create button is on screen');
  if (shot) {
    await settle(page);
    await screenshot(page, shot);
  }
  if (alternates.length > 0) {
    await dialog.getByRole('tab', { name: /^Greetings/ }).tap();
    for (const [i, text] of alternates.entries()) {
      await dialog.getByRole('button', { name: 'Add a greeting' }).tap();
      await dialog.locator(`#ce-greeting-${i + 1}`).fill(text);
    }
  }
  await create.tap();
  await dialog.waitFor({ state: 'hidden' });
  const list = await page.evaluate(() => window.__HEARTH__.api.characters.list());
  const card = list.find((c) => c.name === name);
  assert.ok(card, `${name} exists`);
  return card.avatar;
}

describe('on a phone (390×844): one pane at a time', () => {
  const env = useHearth({ before, after });
  let page;
  let avatar;
  let firstChat;

  before(async () => {
    page = await newPage(env, PHONE);
  });

  after(() => {
    assert.deepEqual(page?.errors ?? [], [], 'uncaught errors in the page');
  });

  it('starts on the character list', async () => {
    await onlyPane(page, 'characters');
    await settle(page);
    await audit(page, 'the empty character list');
    await screenshot(page, 'layout-phone-welcome');
  });

  it('creates a character through the New character dialog, then lands in its greeting chat', async () => {
    avatar = await createThroughDialog(
      page,
      {
        name: 'Wilhelmina Fairweather-Longbottom',
        description: 'A lighthouse keeper with a long name.',
        greeting: 'Ahoy, {{user}}! The lamp is lit.',
        alternates: ['Storm tonight, {{user}}.', 'Tea is on.'],
      },
      'layout-phone-new-character',
    );
    await onlyPane(page, 'chat');
    assert.equal(await page.evaluate(() => window.__HEARTH__.api.characters.list().then((l) => l.length)), 1);
    await messageRow(page, 0).getByText('Ahoy, User! The lamp is lit.').waitFor();
    firstChat = await currentChat(page);
    assert.ok(firstChat, 'a chat is open');
    assert.deepEqual(
      (await env.server.invoke('chat.list', { avatar })).map((c) => c.chatId),
      [firstChat],
      'the one chat made with the character',
    );
    await page.getByRole('button', { name: 'Back to chats' }).waitFor();
    await audit(page, 'the greeting chat');
  });

  it('goes back to the character list with the back buttons', async () => {
    await page.getByRole('button', { name: 'Back to chats' }).tap();
    await onlyPane(page, 'chats');
    await page.locator(PANES.chats).locator('[aria-current="true"]').waitFor();
    await page.getByRole('button', { name: 'Back to characters' }).tap();
    await onlyPane(page, 'characters');
    await page.getByRole('option', { name: /Wilhelmina/ }).waitFor();
    await audit(page, 'the character list');
    await screenshot(page, 'layout-phone-characters');
  });

  it('opens the character and its chat: the chat pane, full-width composer', async () => {
    await page.getByRole('option', { name: /Wilhelmina/ }).tap();
    await onlyPane(page, 'chats');
    await page.locator(PANES.chats).locator('[aria-current="true"]').tap();
    await onlyPane(page, 'chat');
    const greeting = messageRow(page, 0);
    await greeting.getByText('Ahoy, User! The lamp is lit.').waitFor();
    assert.equal(await currentChat(page), firstChat);
    const composer = await page.getByRole('textbox', { name: 'Message' }).locator('xpath=ancestor::div[contains(@class,"composer")]').boundingBox();
    assert.ok(composer.width >= 390 - 20, `the composer spans the screen (${composer.width} px)`);
    assert.ok(composer.y + composer.height <= 844, 'the composer is on screen');
    await page.getByRole('button', { name: 'Back to chats' }).waitFor();
    await audit(page, 'the chat');
  });

  it('swipes between greetings with the ‹ › buttons', async () => {
    const swipes = messageRow(page, 0).getByRole('group', { name: 'Swipes' });
    await swipes.getByText('1/3').waitFor();
    await swipes.getByRole('button', { name: 'Next swipe' }).tap();
    await swipes.getByText('2/3').waitFor();
    await messageRow(page, 0).getByText('Storm tonight, User.').waitFor();
    await waitFor(async () => (await chatOf(page))[0]?.swipe_id === 1, 'swipe_id 1 in getContext().chat');
    await swipes.getByRole('button', { name: 'Next swipe' }).tap();
    await swipes.getByText('3/3').waitFor();
    await waitFor(async () => (await chatOf(page))[0]?.mes === 'Tea is on.', 'the third greeting in getContext().chat');
    await swipes.getByRole('button', { name: 'Previous swipe' }).tap();
    await swipes.getByText('2/3').waitFor();
    await waitFor(async () => (await chatOf(page))[0]?.swipe_id === 1, 'swipe_id back to 1');
  });

  it('sends a message with the send button', async () => {
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.tap();
    await box.fill('Is the storm coming?');
    await page.getByRole('button', { name: 'Send message' }).tap();
    await messageRow(page, 1).getByText('Is the storm coming?').waitFor();
    await waitFor(async () => (await chatOf(page)).length === 2, 'two messages in getContext().chat');
    const [, m] = await chatOf(page);
    assert.deepEqual(m, { mes: 'Is the storm coming?', is_user: true, swipe_id: 0 });
    assert.equal(await box.inputValue(), '');
  });

  it('edits a message: its ⋯ opens the actions without hover, Save saves', async () => {
    const row = messageRow(page, 1);
    await messageAction(page, 1, 'Edit message');
    const editor = row.getByRole('textbox', { name: 'Edit message' });
    await editor.fill('Is the storm coming tonight?');
    await settle(page);
    await audit(page, 'editing a message');
    await screenshot(page, 'layout-phone-editing');
    await row.getByRole('button', { name: 'Save' }).tap();
    await editor.waitFor({ state: 'detached' });
    await row.getByText('Is the storm coming tonight?').waitFor();
    await waitFor(async () => (await chatOf(page))[1]?.mes === 'Is the storm coming tonight?', 'the edit in getContext().chat');
  });

  it('keeps long words, code and tables inside the screen', async () => {
    await page.evaluate(() =>
      window.__HEARTH__.getContext().addMessages({
        mes: [
          'Supercalifragilisticexpialidocious'.repeat(4),
          'https://example.com/a/really/long/path/that/never/breaks/anywhere/at/all/and/keeps/going',
          '```\nconst lighthouse = { lamp: "lit", keeper: "Wilhelmina Fairweather-Longbottom", watch: ["dusk", "midnight", "dawn"] };\n```',
          '| Hour | Weather | Wind | Visibility | Ships seen | Notes |\n|---|---|---|---|---|---|\n| 21:00 | squalls | NW 7 | 2 nm | 3 | the ferry turned back early |',
        ].join('\n\n'),
      }),
    );
    await messageRow(page, 2).locator('pre').waitFor();
    await settle(page);
    await audit(page, 'a message with long content');
    await screenshot(page, 'layout-phone-chat');
  });

  it('asks to confirm a delete in a dialog that fits the screen (Cancel keeps)', async () => {
    await messageAction(page, 2, 'Delete message');
    const dialog = page.getByRole('dialog', { name: 'Delete message?' });
    await dialog.waitFor();
    const box = await dialog.boundingBox();
    assert.ok(box.x >= 0 && box.x + box.width <= 390 && box.y >= 0 && box.y + box.height <= 844, `the dialog fits: ${JSON.stringify(box)}`);
    await settle(page);
    await screenshot(page, 'layout-phone-confirm');
    await dialog.getByRole('button', { name: 'Cancel' }).tap();
    await dialog.waitFor({ state: 'hidden' });
    assert.equal((await chatOf(page)).length, 3);
  });

  it('goes up with the back buttons, and focus follows', async () => {
    const focusIn = (sel) => page.evaluate((s) => document.activeElement?.contains(document.querySelector(s)) || !!document.activeElement?.closest(s), sel);
    const focused = () => page.evaluate(() => document.activeElement?.getAttribute('role'));
    await page.getByRole('button', { name: 'Back to chats' }).tap();
    await onlyPane(page, 'chats');
    await waitFor(() => focusIn(PANES.chats), 'focus in the chat list pane');
    // The chat stays open behind the list, marked as current.
    assert.equal(await currentChat(page), firstChat);
    await page.locator('[aria-current="true"]').waitFor();
    await settle(page);
    await audit(page, 'the chat list');
    await screenshot(page, 'layout-phone-chats');
    // By keyboard, focus lands on the character just left.
    await page.getByRole('button', { name: 'Back to characters' }).focus();
    await page.keyboard.press('Enter');
    await onlyPane(page, 'characters');
    await waitFor(async () => (await focused()) === 'option', 'focus on the character just left');
  });

  it('renames a chat from the sheet its ⋯ button opens', async () => {
    await page.getByRole('option', { name: /Wilhelmina/ }).tap();
    await onlyPane(page, 'chats');
    await page.getByRole('button', { name: /^Actions for chat / }).tap();
    const sheet = page.getByRole('dialog');
    await sheet.waitFor();
    await settle(page);
    await audit(page, 'the chat actions sheet');
    await screenshot(page, 'layout-phone-chat-actions');
    await sheet.getByRole('button', { name: 'Rename' }).tap();
    await sheet.waitFor({ state: 'hidden' });
    const input = page.getByRole('textbox', { name: 'Chat name' });
    await waitFor(() => input.evaluate((el) => el === document.activeElement), 'the name box to have focus');
    await input.fill('Lighthouse log');
    await input.press('Enter');
    await page.getByRole('button', { name: /^Lighthouse log/ }).waitFor();
    const chats = await env.server.invoke('chat.list', { avatar });
    assert.deepEqual(
      chats.map((c) => c.fileName),
      ['Lighthouse log'],
    );
    await page.getByRole('button', { name: 'Back to characters' }).tap();
    await onlyPane(page, 'characters');
  });

  it("goes back and forward with the browser's buttons", async () => {
    await page.getByRole('option', { name: /Wilhelmina/ }).tap();
    await onlyPane(page, 'chats');
    await page.getByRole('button', { name: /Supercalifragilistic/ }).tap();
    await onlyPane(page, 'chat');
    await page.goBack();
    await onlyPane(page, 'chats');
    await page.goBack();
    await onlyPane(page, 'characters');
    await page.goForward();
    await onlyPane(page, 'chats');
    await page.goForward();
    await onlyPane(page, 'chat');
    assert.equal(await currentChat(page), firstChat);
    await page.goBack();
    await onlyPane(page, 'chats');
  });

  it('shows a chat a script opens with api.chat.select', async () => {
    const other = await env.server.invoke('chat.create', { avatar }, { fileName: 'Opened by a script' });
    await page.getByRole('button', { name: 'Back to characters' }).tap();
    await onlyPane(page, 'characters');
    await page.evaluate((id) => window.__HEARTH__.api.chat.select(id), other.chatId);
    await onlyPane(page, 'chat');
    assert.equal(await currentChat(page), other.chatId);
    await page.locator(PANES.chat).getByText('Opened by a script').waitFor();
    // The browser's back goes up to that character's chats.
    await page.goBack();
    await onlyPane(page, 'chats');
    await page.getByRole('button', { name: /^Opened by a script/ }).waitFor();
  });

  it('keeps its pane across a reload and opens on the chat when one is restored', async () => {
    await page.getByRole('button', { name: /^Opened by a script/ }).tap();
    await onlyPane(page, 'chat');
    await page.reload();
    await page.waitForFunction(() => typeof window.__HEARTH__ === 'object' && window.__HEARTH__ !== null);
    await page.evaluate(() => window.__HEARTH__.ready);
    await onlyPane(page, 'chat');
    await messageRow(page, 0).waitFor();
    await page.getByRole('button', { name: 'Back to chats' }).tap();
    await onlyPane(page, 'chats');

    // A new tab (no history of its own) opens on the remembered chat, back goes to the chats.
    const fresh = await openAppNoWait(page.context(), env.server.url);
    await onlyPane(fresh, 'chat');
    await messageRow(fresh, 0).waitFor();
    await fresh.getByRole('button', { name: 'Back to chats' }).tap();
    await onlyPane(fresh, 'chats');
    await fresh.goBack();
    await onlyPane(fresh, 'characters');
    assert.deepEqual(fresh.errors, []);
    await fresh.close();
  });

  it('has no horizontal scroll at 320 px either', async () => {
    await page.setViewportSize({ width: 320, height: 640 });
    for (const [pane, go] of [
      ['chats', null],
      ['chat', () => page.getByRole('button', { name: /^Opened by a script/ }).tap()],
      ['chats', () => page.getByRole('button', { name: 'Back to chats' }).tap()],
      ['characters', () => page.getByRole('button', { name: 'Back to characters' }).tap()],
    ]) {
      if (go) await go();
      await onlyPane(page, pane);
      await settle(page);
      await audit(page, `the ${pane} pane at 320 px`);
      if (!go) await screenshot(page, 'layout-phone-320-chats');
    }
    await page.getByRole('option', { name: /Wilhelmina/ }).tap();
    await page.getByRole('button', { name: /^Opened by a script/ }).tap();
    await onlyPane(page, 'chat');
    await page.getByRole('button', { name: 'Back to chats' }).tap();
    await page.getByRole('button', { name: /Supercalifragilistic/ }).tap();
    await messageRow(page, 2).locator('pre').waitFor();
    await settle(page);
    await audit(page, 'the long message at 320 px');
    await screenshot(page, 'layout-phone-320');
    await page.setViewportSize(PHONE.viewport);
  });
});

/** openAppNoWait opens Hearth in a new page of context and waits for ready only (the pane shown may be any). */
async function openAppNoWait(context, url) {
  const page = await context.newPage();
  page.errors = [];
  page.on('pageerror', (err) => page.errors.push(err));
  await page.goto(pageUrl(url));
  await page.waitForFunction(() => typeof window.__HEARTH__ === 'object' && window.__HEARTH__ !== null);
  await page.evaluate(() => window.__HEARTH__.ready);
  return page;
}

describe('on a tablet (820×1180): an avatar rail and two columns', () => {
  const env = useHearth({ before, after });
  let page;

  before(async () => {
    await env.server.invoke('characters.create', { name: 'Oskar', first_mes: 'Hej.' });
    page = await newPage(env, TABLET);
  });

  after(() => {
    assert.deepEqual(page?.errors ?? [], [], 'uncaught errors in the page');
  });

  it('shows the characters as avatars only', async () => {
    const rail = page.locator(PANES.characters);
    const box = await rail.boundingBox();
    assert.ok(box.width <= 80, `the character column is a rail (${box.width} px)`);
    const option = page.getByRole('option', { name: /Oskar/ });
    await option.waitFor();
    assert.equal(await option.getAttribute('title'), 'Oskar');
    const label = await option.evaluate((el) => el.querySelector('.name').getBoundingClientRect().width);
    assert.ok(label <= 1, 'no name text shows in the rail');
    assert.deepEqual((await visiblePanes(page)).sort(), ['characters', 'chat', 'chats']);
    await audit(page, 'the rail');
  });

  it('creates a character with the rail’s New character button', async () => {
    const avatar = await createThroughDialog(page, {
      name: 'Marguerite',
      description: 'A botanist.',
      greeting: 'Mind the ferns, {{user}}.',
    });
    await page.evaluate((a) => window.__HEARTH__.api.characters.update(a, { alternate_greetings: ['The orchids bloomed.'] }), avatar);
    await page.getByRole('option', { name: /Marguerite/ }).waitFor();
  });

  it('searches from the rail, which opens over the chat list', async () => {
    await page.getByRole('button', { name: 'Search characters' }).tap();
    const search = page.getByRole('searchbox', { name: 'Search characters by name or tag' });
    await search.waitFor();
    await search.fill('oska');
    await waitFor(async () => (await page.getByRole('option').count()) === 1, 'one character to match');
    await settle(page);
    await screenshot(page, 'layout-tablet-search');
    await search.press('Escape');
    await search.waitFor({ state: 'hidden' });
    assert.equal(await page.getByRole('option').count(), 2, 'closing the search clears it');
  });

  it('starts a chat, swipes, sends and edits', async () => {
    await page.getByRole('option', { name: /Marguerite/ }).tap();
    await page.getByRole('button', { name: 'New chat' }).tap();
    const greeting = messageRow(page, 0);
    await greeting.getByText('Mind the ferns, User.').waitFor();
    await greeting.getByRole('button', { name: 'Next swipe' }).tap();
    await greeting.getByText('The orchids bloomed.').waitFor();
    await waitFor(async () => (await chatOf(page))[0]?.swipe_id === 1, 'swipe_id 1');

    const box = page.getByRole('textbox', { name: 'Message' });
    await box.tap();
    await box.fill('Which one is the oldest?');
    await box.press('Enter');
    await messageRow(page, 1).getByText('Which one is the oldest?').waitFor();
    await waitFor(async () => (await chatOf(page)).length === 2, 'two messages');

    const row = messageRow(page, 1);
    await messageAction(page, 1, 'Edit message');
    await row.getByRole('textbox', { name: 'Edit message' }).fill('Which one is the oldest fern?');
    await row.getByRole('button', { name: 'Save' }).tap();
    await waitFor(async () => (await chatOf(page))[1]?.mes === 'Which one is the oldest fern?', 'the edit in getContext().chat');

    const chat = await page.locator(PANES.chat).boundingBox();
    assert.ok(chat.width >= 440, `the chat column has room (${chat.width} px)`);
    await settle(page);
    await audit(page, 'the tablet chat');
    await screenshot(page, 'layout-tablet-chat');
  });
});

describe('on a laptop (1280×800): three columns as before', () => {
  const env = useHearth({ before, after });
  let page;

  before(async () => {
    const card = await env.server.invoke('characters.create', { name: 'Theodora', first_mes: 'Good evening, {{user}}.', alternate_greetings: ['Late again?'] });
    await env.server.invoke('chat.create', { avatar: card.avatar });
    page = await newPage(env, { viewport: { width: 1280, height: 800 } });
  });

  after(() => {
    assert.deepEqual(page?.errors ?? [], [], 'uncaught errors in the page');
  });

  it('shows full columns and no back buttons', async () => {
    await page.getByRole('option', { name: /Theodora/ }).click();
    await messageRow(page, 0).getByText('Good evening, User.').waitFor();
    const widths = await page.evaluate((panes) => Object.values(panes).map((s) => Math.round(document.querySelector(s).getBoundingClientRect().width)), PANES);
    assert.deepEqual(widths.slice(0, 2), [264, 300]);
    assert.equal(await page.getByRole('button', { name: /^Back to/ }).count(), 0);
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.fill('Hello from a laptop');
    await box.press('Enter');
    await messageRow(page, 1).getByText('Hello from a laptop').waitFor();
    await page.mouse.move(0, 0);
    await settle(page);
    await audit(page, 'the laptop', { touch: false });
    await screenshot(page, 'layout-wide-chat');
  });
});
