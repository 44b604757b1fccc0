// Hearth desktop self-test, the memory phase (hearth --self-test with
// HEARTH_SELFTEST_MEMORY=1, which desktopbench sets). Loaded before
// page.js, which runs it last. It opens the two seeded large chats ten
// times in turn with api.chat.select, each time until the whole chat is in
// getContext().chat, as someone going back and forth between two long
// chats would; then asks Go for the resident memory of the app process and
// of its web processes (selftest.memory); then leaves the window alone for
// 30 s and asks again. The app gives memory back on its own once large
// calls stop (backend/app/memory.go): the second figure says whether it
// did.
(() => {
  'use strict';
  if (window.top !== window) return;

  /** OPENS is how many times the large chats are opened; IDLE_MS how long the window then rests. */
  const OPENS = 10;
  const IDLE_MS = 30000;

  window.__hearthSelfTestMemory = async (h, info, { step, metrics, invoke }) => {
    let after = null;
    await step(`memory: the large chats opened ${OPENS} times, each whole`, 180000, async () => {
      const ids = [info.chatId, info.selectChatId];
      const started = performance.now();
      for (let i = 0; i < OPENS; i++) {
        // Start with the chat not shown, so every select reads a chat.
        const id = ids[(i + (h.api.chat.current()?.chatId === ids[0] ? 1 : 0)) % 2];
        await h.api.chat.select(id);
        const n = h.getContext().chat.length;
        if (n < info.messages) throw new Error(`open ${i + 1}: getContext().chat has ${n} messages, want at least ${info.messages}`);
      }
      after = await invoke('selftest.memory');
      metrics.rssAfterTenOpensMB = round(after.appMB);
      metrics.webRssAfterTenOpensMB = round(after.webMB);
      return `${OPENS} opens in ${Math.round(performance.now() - started)} ms; then app ${round(after.appMB)} MB (Go ${round(after.goMB)}), ` +
        `${after.webProcesses} web process(es) ${round(after.webMB)} MB`;
    });
    if (!after) return;
    await step(`memory: ${IDLE_MS / 1000} s idle after the opens`, IDLE_MS + 30000, async () => {
      await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
      const idle = await invoke('selftest.memory');
      metrics.rssIdle30sMB = round(idle.appMB);
      metrics.webRssIdle30sMB = round(idle.webMB);
      return `app ${round(idle.appMB)} MB (Go ${round(idle.goMB)}; was ${round(after.appMB)}), web process(es) ${round(idle.webMB)} MB (was ${round(after.webMB)})`;
    });
  };

  function round(mb) {
    return Math.round(mb * 10) / 10;
  }
})();
