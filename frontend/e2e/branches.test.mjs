// Checkpoints and branches through the UI (HOST-ABI §3.7): a message's
// "Create checkpoint" (named in a small dialog) and "Branch from here" (at
// the swipe shown), the bookmark and branch chips that open them, the
// Timeline tree under the chat list, and "Back to parent" in the chat
// header; on a laptop (1280×800) and a phone (390×844, touch). Every result
// is checked through window.__HEARTH__; screenshots are artifacts.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { messageAction, messageRow, openApp, screenshot, useHearth, waitFor } from './harness.mjs';

const PHONE = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true };

/** settle waits two animation frames (layout after a change). */
const settle = (page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));

const current = (page) => page.evaluate(() => window.__HEARTH__.api.chat.current()?.chatId ?? null);

/** extraAt reads extra of the message at index in a chat, through the ABI. */
const extraAt = (page, chatId, index) =>
  page.evaluate(([id, i]) => window.__HEARTH__.api.chat.getStMessages(id).then((m) => m[i]?.extra ?? null), [chatId, index]);

/** treeRows reads the Timeline as a person sees it: each row's name, whether it is the open one, and its indentation. */
function treeRows(page) {
  return page.evaluate(() =>
    [...document.querySelectorAll('section[aria-label="Timeline"] li')].map((li) => {
      const b = li.querySelector('button');
      return {
        label: b?.getAttribute('aria-label') ?? li.textContent.trim(),
        current: b?.getAttribute('aria-current') === 'true',
        indent: Number(getComputedStyle(li).getPropertyValue('--indent') || 0),
        meta: li.querySelector('.meta')?.textContent ?? '',
      };
    }),
  );
}

/** overflow lists what sticks out sideways of the visible panes. */
function overflow(page) {
  return page.evaluate(() => {
    const vw = window.innerWidth;
    const out = [];
    if (document.documentElement.scrollWidth > vw) out.push(`document scrollWidth ${document.documentElement.scrollWidth} > ${vw}`);
    for (const pane of document.querySelectorAll('section[aria-label="Chats"], section[aria-label="Chat"]')) {
      if (pane.closest('[inert]') || getComputedStyle(pane).visibility !== 'visible') continue;
      if (pane.scrollWidth > pane.clientWidth + 1) out.push(`${pane.getAttribute('aria-label')} scrollWidth ${pane.scrollWidth} > ${pane.clientWidth}`);
      const box = pane.getBoundingClientRect();
      for (const node of pane.querySelectorAll('*')) {
        const r = node.getBoundingClientRect();
        if (r.width === 0 || r.right <= box.right + 1) continue;
        let clipped = false;
        for (let up = node.parentElement; up && up !== pane; up = up.parentElement) {
          if (getComputedStyle(up).overflowX !== 'visible' && up.getBoundingClientRect().right <= box.right + 1) {
            clipped = true;
            break;
          }
        }
        if (!clipped) out.push(`<${node.tagName.toLowerCase()} class="${node.className?.baseVal ?? node.className}"> ends at ${Math.round(r.right)} > ${Math.round(box.right)}`);
      }
    }
    return out.slice(0, 10);
  });
}

/** unnamed lists on-screen controls without an accessible name. */
async function unnamed(page) {
  const cdp = await page.context().newCDPSession(page);
  try {
    const { nodes } = await cdp.send('Accessibility.getFullAXTree');
    const roles = new Set(['button', 'textbox', 'link', 'menuitem', 'option', 'checkbox']);
    return nodes.filter((n) => !n.ignored && roles.has(n.role?.value) && !String(n.name?.value ?? '').trim()).map((n) => `${n.role.value} #${n.backendDOMNodeId}`);
  } finally {
    await cdp.detach();
  }
}

/** smallTargets lists visible controls under 44×44 px (links in message text excepted). */
function smallTargets(page) {
  return page.evaluate(() => {
    const out = [];
    for (const el of document.querySelectorAll('button, input:not([type=hidden]), a[href], [role=button]')) {
      if (el.closest('[inert]') || el.closest('.md')) continue;
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.height === 0 || getComputedStyle(el).visibility !== 'visible') continue;
      if (r.bottom < 0 || r.top > window.innerHeight || r.right < 0 || r.left > window.innerWidth) continue;
      if (r.width < 43.5 || r.height < 43.5) out.push(`${el.tagName.toLowerCase()} "${el.getAttribute('aria-label') || el.textContent?.trim().slice(0, 30)}" ${Math.round(r.width)}×${Math.round(r.height)}`);
    }
    return out;
  });
}

async function audit(page, what, { touch }) {
  assert.deepEqual(await overflow(page), [], `${what}: nothing sticks out sideways`);
  assert.deepEqual(await unnamed(page), [], `${what}: every control has an accessible name`);
  if (touch) assert.deepEqual(await smallTargets(page), [], `${what}: touch targets are at least 44×44 px`);
}

describe('checkpoints and branches in the UI', () => {
  const env = useHearth({ before, after });
  let page;
  let avatar;
  let rootId;
  let rootName;
  let checkpointName;
  let branch;

  before(async () => {
    const card = await env.server.invoke('characters.create', { name: 'Mira', first_mes: 'The lighthouse is dark tonight, {{user}}.' });
    avatar = card.avatar;
    const chat = await env.server.invoke('chat.create', { avatar });
    rootId = chat.chatId;
    rootName = chat.fileName;
    await env.server.invoke('chat.addMessages', rootId, [
      { is_user: true, name: 'User', mes: 'Shall we light it?' },
      { is_user: false, name: 'Mira', mes: 'Only if the storm holds off.' },
      { is_user: true, name: 'User', mes: 'Then we wait.' },
      { is_user: false, name: 'Mira', mes: 'We climb the stairs.' },
      { is_user: true, name: 'User', mes: 'And then?' },
    ]);
    // Message 4 has three swipes; the first is shown.
    await env.server.invoke('chat.addSwipe', rootId, 4, 'We run to the boats.', { select: false });
    await env.server.invoke('chat.addSwipe', rootId, 4, 'We wait for dawn.', { select: false });
    page = await openApp(env.browser, env.server.url, { theme: 'dark' });
  });

  after(() => {
    assert.deepEqual(page?.errors ?? [], [], 'uncaught errors in the page');
  });

  it('opens the chat: no family yet, so no Timeline and no way back', async () => {
    await page.getByRole('option', { name: /Mira/ }).click();
    await waitFor(async () => (await current(page)) === rootId, 'the chat to open');
    await messageRow(page, 5).getByText('And then?').waitFor();
    assert.equal(await page.locator('section[aria-label="Timeline"]').count(), 0);
    assert.equal(await page.getByRole('button', { name: /^Back to parent chat/ }).count(), 0);
  });

  it('saves a named checkpoint from a message and stays on the chat', async () => {
    const row = messageRow(page, 2);
    await row.hover();
    await row.getByRole('button', { name: 'Create checkpoint' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create checkpoint' });
    await dialog.waitFor();
    await dialog.getByLabel('Name').fill('Before the storm');
    await dialog.getByRole('button', { name: 'Save checkpoint' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await page.getByText('Checkpoint saved: Before the storm').waitFor();
    checkpointName = 'Before the storm';

    assert.equal(await current(page), rootId, 'a checkpoint keeps the chat open');
    assert.equal((await extraAt(page, rootId, 2)).bookmark_link, checkpointName);
    const list = await page.evaluate((a) => window.__HEARTH__.api.chat.list({ avatar: a }), avatar);
    const cp = list.find((c) => c.fileName === checkpointName);
    assert.ok(cp, 'the checkpoint is a chat of Mira');
    assert.equal(cp.kind, 'checkpoint');
    assert.equal(cp.parentChatId, rootId);
    assert.equal(cp.branchPoint, 2);
    assert.equal(cp.messageCount, 3);

    // The message links to it, and the Timeline appears.
    await row.getByRole('button', { name: `Open checkpoint ${checkpointName}` }).waitFor();
    await waitFor(async () => (await treeRows(page)).length === 2, 'two chats in the Timeline');
    const rows = await treeRows(page);
    assert.deepEqual(
      rows.map((r) => [r.label, r.current, r.indent]),
      [
        [`Main chat ${rootName} (open)`, true, 0],
        [`Checkpoint ${checkpointName}`, false, 1],
      ],
    );
    assert.match(rows[1].meta, /^Checkpoint · at #2 · from /);
  });

  it('saves a checkpoint under the default name when the name is left empty', async () => {
    const row = messageRow(page, 1);
    await row.hover();
    await row.getByRole('button', { name: 'Create checkpoint' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create checkpoint' });
    await dialog.getByLabel('Name').waitFor();
    assert.equal(await dialog.getByLabel('Name').inputValue(), '', 'the name starts empty');
    await dialog.getByLabel('Name').press('Enter');
    await dialog.waitFor({ state: 'hidden' });
    const want = `${rootName} - Checkpoint #1`;
    await page.getByText(/^Checkpoint saved: Checkpoint #1 · \w{3} \d{1,2}, \d{4}/).waitFor();
    assert.equal((await extraAt(page, rootId, 1)).bookmark_link, want);
    await row.getByRole('button', { name: `Open checkpoint ${want}` }).waitFor();
    await waitFor(async () => (await treeRows(page)).length === 3, 'three chats in the Timeline');
  });

  it('branches from a message at its shown swipe and opens the branch', async () => {
    const row = messageRow(page, 4);
    await row.hover();
    await row.getByRole('button', { name: 'Branch from here' }).click();
    branch = await waitFor(async () => {
      const id = await current(page);
      if (!id || id === rootId) return null;
      const list = await page.evaluate((a) => window.__HEARTH__.api.chat.list({ avatar: a }), avatar);
      return list.find((c) => c.chatId === id) ?? null;
    }, 'the branch to open');
    assert.equal(branch.kind, 'branch');
    assert.equal(branch.fileName, `${rootName} - Branch #1`);
    assert.equal(branch.parentChatId, rootId);
    assert.equal(branch.branchPoint, 4);
    await page.getByText(/^Branch created: Branch #1 · \w{3} \d{1,2}, \d{4}/).waitFor();
    await waitFor(async () => (await page.evaluate(() => window.__HEARTH__.getContext().chat.length)) === 5, 'the branch loaded: messages 0..4');
    const last = await page.evaluate(() => window.__HEARTH__.getContext().chat[4]);
    assert.equal(last.mes, 'We climb the stairs.');
    assert.equal(last.swipe_id, 0);
    assert.deepEqual((await extraAt(page, rootId, 4)).branches, [branch.fileName]);

    // The Timeline: root → two checkpoints and the branch, the branch highlighted.
    await waitFor(async () => (await treeRows(page)).some((r) => r.current && r.label.startsWith('Branch ')), 'the branch highlighted in the Timeline');
    const rows = await treeRows(page);
    assert.deepEqual(
      rows.map((r) => [r.label, r.current, r.indent]),
      [
        [`Main chat ${rootName}`, false, 0],
        [`Checkpoint ${checkpointName}`, false, 1],
        [`Checkpoint ${rootName} - Checkpoint #1`, false, 1],
        [`Branch ${branch.fileName} (open)`, true, 1],
      ],
    );
    assert.equal(rows[3].meta, 'Branch · at #4');
    await page.getByRole('button', { name: `Back to parent chat ${rootName}` }).waitFor();
    await settle(page);
    await screenshot(page, 'branches-desktop-branch');
  });

  it('goes back to the parent from the header, and the message links to its branch', async () => {
    await page.getByRole('button', { name: `Back to parent chat ${rootName}` }).click();
    await waitFor(async () => (await current(page)) === rootId, 'the parent to open');
    await messageRow(page, 4).getByRole('button', { name: `Open branch ${branch.fileName}` }).waitFor();
    assert.equal(await page.getByRole('button', { name: /^Back to parent chat/ }).count(), 0, 'the main chat has no parent');
  });

  it('opens chats from the Timeline and from the bookmark chip', async () => {
    const timeline = page.locator('section[aria-label="Timeline"]');
    await timeline.getByRole('button', { name: `Checkpoint ${checkpointName}` }).click();
    const cp = await waitFor(async () => {
      const id = await current(page);
      return id !== rootId && id !== branch.chatId ? id : null;
    }, 'the checkpoint to open');
    assert.equal((await page.evaluate((id) => window.__HEARTH__.api.chat.get(id), cp)).fileName, checkpointName);
    await timeline.getByRole('button', { name: `Checkpoint ${checkpointName} (open)` }).waitFor();
    await page.getByRole('button', { name: `Back to parent chat ${rootName}` }).waitFor();

    await timeline.getByRole('button', { name: `Main chat ${rootName}` }).click();
    await waitFor(async () => (await current(page)) === rootId, 'the main chat to open from the Timeline');

    await messageRow(page, 2).getByRole('button', { name: `Open checkpoint ${checkpointName}` }).click();
    await waitFor(async () => (await current(page)) === cp, 'the checkpoint to open from its bookmark');
    await timeline.getByRole('button', { name: `Main chat ${rootName}` }).click();
    await waitFor(async () => (await current(page)) === rootId, 'back on the main chat');
  });

  it('branches at the second swipe; the message lists both branches', async () => {
    const row = messageRow(page, 4);
    await row.hover();
    await row.getByRole('group', { name: 'Swipes' }).getByRole('button', { name: 'Next swipe' }).click();
    await waitFor(async () => (await page.evaluate(() => window.__HEARTH__.getContext().chat[4].swipe_id)) === 1, 'swipe 2 shown');
    await row.getByText('We run to the boats.').waitFor();
    await row.getByRole('button', { name: 'Branch from here' }).click();
    const second = await waitFor(async () => {
      const id = await current(page);
      return id && id !== rootId && id !== branch.chatId ? id : null;
    }, 'the second branch to open');
    await waitFor(async () => (await page.evaluate(() => window.__HEARTH__.getContext().chat.length)) === 5, 'the second branch loaded');
    const last = await page.evaluate(() => window.__HEARTH__.getContext().chat[4]);
    assert.equal(last.mes, 'We run to the boats.', 'the branch keeps the swipe that was shown');
    assert.equal(last.swipe_id, 1);
    const summary = await page.evaluate((id) => window.__HEARTH__.api.chat.get(id), second);
    assert.equal(summary.fileName, `${rootName} - Branch #2`);
    assert.deepEqual((await extraAt(page, rootId, 4)).branches, [branch.fileName, summary.fileName]);

    await page.getByRole('button', { name: `Back to parent chat ${rootName}` }).click();
    await waitFor(async () => (await current(page)) === rootId, 'the parent to open');
    const chip = messageRow(page, 4).getByRole('button', { name: '2 branches from message 4' });
    await chip.click();
    assert.equal(await chip.getAttribute('aria-expanded'), 'true');
    await messageRow(page, 4).getByRole('button', { name: `Open branch ${summary.fileName}` }).click();
    await waitFor(async () => (await current(page)) === second, 'the second branch to open from the list');
    await settle(page);
    await screenshot(page, 'branches-desktop-second-branch');
  });

  it('shows "parent deleted" once the main chat is gone', async () => {
    await page.evaluate((id) => window.__HEARTH__.api.chat.delete(id), rootId);
    await waitFor(async () => (await treeRows(page)).some((r) => r.current && r.meta.includes('parent deleted')), '"parent deleted" in the Timeline');
    assert.equal(await page.getByRole('button', { name: /^Back to parent chat/ }).count(), 0, 'no way back to a deleted parent');
    await audit(page, 'the laptop with a deleted parent', { touch: false });
  });
});

describe('checkpoints and branches on a phone (390×844, touch)', () => {
  const env = useHearth({ before, after });
  let page;
  let rootId;
  let rootName;

  before(async () => {
    // The page opens first: on a phone it starts on the character list.
    const context = await env.browser.newContext({ ...PHONE, reducedMotion: 'reduce' });
    page = await openApp(context, env.server.url, { theme: 'dark' });
    // Made through this window's ABI, so its lists show them at once.
    ({ rootId, rootName } = await page.evaluate(async () => {
      const api = window.__HEARTH__.api;
      const card = await api.characters.create({ name: 'Wilhelmina Fairweather-Longbottom', first_mes: 'Ahoy, {{user}}! The lamp is lit.' });
      const chat = await api.chat.create({ avatar: card.avatar });
      await api.chat.addMessages(chat.chatId, [
        { is_user: true, name: 'User', mes: 'Is the storm coming?' },
        { is_user: false, name: 'Wilhelmina Fairweather-Longbottom', mes: 'It is. Batten the hatches.' },
      ]);
      await api.chat.createCheckpoint(chat.chatId, 1);
      return { rootId: chat.chatId, rootName: chat.fileName };
    }));
  });

  after(() => {
    assert.deepEqual(page?.errors ?? [], [], 'uncaught errors in the page');
  });

  it('branches by touch, shows the Timeline in the chats pane, and goes back to the parent', async () => {
    // The window opens a chat of the new character by itself, on the chat pane; go to the list.
    await waitFor(async () => (await current(page)) !== null, 'a chat of the new character to open');
    await page.getByRole('button', { name: 'Back to chats' }).tap();
    // Open the main chat from the list (newest first: the checkpoint is newer).
    await page.locator('section[aria-label="Chats"] button.open', { hasNotText: 'Checkpoint' }).first().tap();
    await waitFor(async () => (await current(page)) === rootId, 'the main chat to open');
    const row = messageRow(page, 2);
    await row.getByText('Batten the hatches.').waitFor();
    await settle(page);
    await audit(page, 'the phone chat pane', { touch: true });

    await messageAction(page, 2, 'Branch from here');
    const branchId = await waitFor(async () => {
      const id = await current(page);
      return id && id !== rootId ? id : null;
    }, 'the branch to open');
    await page.getByRole('button', { name: `Back to parent chat ${rootName}` }).waitFor();
    await waitFor(async () => (await page.evaluate(() => window.__HEARTH__.getContext().chat.length)) === 3, 'the branch loaded');
    await settle(page);
    await audit(page, 'the phone branch', { touch: true });
    await screenshot(page, 'branches-phone-branch');

    // The chats pane: the Timeline with the branch highlighted.
    await page.getByRole('button', { name: 'Back to chats' }).tap();
    const timeline = page.locator('section[aria-label="Timeline"]');
    await timeline.getByRole('button', { name: /^Branch .* \(open\)$/ }).waitFor();
    const rows = await treeRows(page);
    assert.deepEqual(
      rows.map((r) => [r.label.replace(/ - .*/, ''), r.current, r.indent]),
      [
        [`Main chat ${rootName.replace(/ - .*/, '')}`, false, 0],
        [`Checkpoint ${rootName.replace(/ - .*/, '')}`, false, 1],
        [`Branch ${rootName.replace(/ - .*/, '')}`, true, 1],
      ],
    );
    await timeline.scrollIntoViewIfNeeded();
    await settle(page);
    await audit(page, 'the phone chats pane with its Timeline', { touch: true });
    await screenshot(page, 'branches-phone-timeline');

    // A tap on the main chat in the Timeline opens it in the chat pane.
    await timeline.getByRole('button', { name: `Main chat ${rootName}` }).tap();
    await waitFor(async () => (await current(page)) === rootId, 'the main chat to open from the Timeline');
    await messageRow(page, 2).getByRole('button', { name: /^Open branch / }).waitFor();

    // And back into the branch from its chip, then up again from the header.
    await messageRow(page, 2).getByRole('button', { name: /^Open branch / }).tap();
    await waitFor(async () => (await current(page)) === branchId, 'the branch to open from its chip');
    await page.getByRole('button', { name: `Back to parent chat ${rootName}` }).tap();
    await waitFor(async () => (await current(page)) === rootId, 'back to the parent');
  });

  it('names a checkpoint in a dialog that fits the phone', async () => {
    const row = messageRow(page, 0);
    await messageAction(page, 0, 'Create checkpoint');
    const dialog = page.getByRole('dialog', { name: 'Create checkpoint' });
    await dialog.waitFor();
    await dialog.getByLabel('Name').fill('Greeting only');
    await settle(page);
    const box = await dialog.boundingBox();
    assert.ok(box.x >= 0 && box.x + box.width <= 390, `the dialog fits the screen: ${JSON.stringify(box)}`);
    await screenshot(page, 'branches-phone-checkpoint-dialog');
    await dialog.getByRole('button', { name: 'Save checkpoint' }).tap();
    await dialog.waitFor({ state: 'hidden' });
    assert.equal((await extraAt(page, rootId, 0)).bookmark_link, 'Greeting only');
    await row.getByRole('button', { name: 'Open checkpoint Greeting only' }).waitFor();
    await settle(page);
    await audit(page, 'the phone chat with a bookmark chip', { touch: true });
  });
});
