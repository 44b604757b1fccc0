// Word count: a complete sandboxed Hearth extension. It reads the current
// chat (permission chat.read), shows how many words it holds in a panel
// (ui.panel), and remembers the largest count it has seen in its own
// storage, which every extension has without asking.
(() => {
  'use strict';
  const h = window.__HEARTH__;
  const now = document.getElementById('now');
  const record = document.getElementById('record');

  const words = (text) => (text.match(/\S+/g) || []).length;

  async function refresh() {
    const current = await h.api.chat.current();
    if (!current) {
      now.textContent = 'No chat open.';
      return;
    }
    const messages = await h.api.chat.getMessages(current.chatId);
    const total = messages.reduce((n, m) => n + words(m.content || ''), 0);
    now.textContent = `${messages.length} messages, ${total} words.`;
    const best = (await h.api.extensions.storage.get('record')) || 0;
    if (total > best) await h.api.extensions.storage.set('record', total);
    record.textContent = `Largest chat seen: ${Math.max(best, total)} words.`;
  }

  // Hearth calls the function hooks.activate names once the page has
  // loaded; a throw, or no answer within 5 s, marks the extension failed.
  window.wordCountActivate = async () => {
    await h.ready;
    const types = h.api.events.types;
    for (const t of [types.CHAT_CHANGED, types.MESSAGE_SENT, types.MESSAGE_RECEIVED, types.MESSAGE_DELETED, types.MESSAGE_EDITED]) {
      h.api.events.on(t, () => refresh().catch((err) => console.warn('word count:', err)));
    }
    await refresh();
  };
})();
