// The desktop self-test's bench extension (backend/selftest, the
// extension bench mode): Go installs copies of this package as ext-fan-01,
// ext-fan-02, …, each holding chat.read. Each marks in its own storage
// when its activate hook ran ("activated", for the window's start figure)
// and when it received a MESSAGE_SENT ("fanout", for the event fan-out
// figure), as wall-clock milliseconds the page compares with its own.
(() => {
  'use strict';
  const h = window.__HEARTH__;
  /** Wall-clock milliseconds with a fraction, comparable with the window's. */
  const now = () => performance.timeOrigin + performance.now();

  window.selftestFanActivate = async () => {
    await h.ready;
    h.api.events.on(h.api.events.types.MESSAGE_SENT, (p) => {
      const at = now();
      void h.api.extensions.storage.set('fanout', { at, chatId: p.chatId, index: p.index });
    });
    await h.api.extensions.storage.set('activated', { at: now(), id: h.extension.id });
  };
})();
