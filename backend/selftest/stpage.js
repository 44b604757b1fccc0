// Hearth desktop self-test, the page tier (hearth --self-test; EXTENSIONS.md
// §5). Loaded before page.js, which runs it once __HEARTH__.ready resolved.
// Go installed extensions/st-page before the window opened (pageext.go), a
// SillyTavern-style extension; the window's page loader found it enabled,
// installed the compat runtime and imported its index.js from
// /scripts/extensions/third-party/selftest-st-page/, as for a person's. The
// extension leaves what it saw in window.selftestStPage.
//
// A normal run checks, in the real WebKitGTK window: its module linked
// (relative imports of /script.js and /scripts/extensions.js) and ran; its
// css applies; its settings drawer is in #extensions_settings; the setting
// it saved with saveSettingsDebounced is in its storage; and the unbacked
// name it imported (Generate) throws ext.unsupported when called.
//
// The page bench mode (HEARTH_SELFTEST_PAGE_EXTENSIONS=0|1, desktopbench)
// measures, and then ends:
//
//  - startWithPageExtensionsMs: from the window's navigation start
//    (performance.timeOrigin) until both the UI is up (extension.js's
//    uiUp: __HEARTH__.ready and the character list painted) and, with the
//    page extension enabled, it has run: the end of its jQuery ready
//    handler, where a SillyTavern extension does its setup (its drawer
//    appended, its setting written; the debounced save a second later is
//    not waited for), by the performance.now() it took there. With none
//    enabled (the extension installed but disabled) it is the UI's start
//    alone. With one, pageExtensionAfterUiMs is how much later than the
//    UI the extension had run in the same window (0 if before): the part
//    of the start it adds at its end, without the run-to-run spread of
//    the UI's own start (which the two runs' difference carries), though
//    also without what it slowed the UI by.
//  - startFromBootMs: the same end, from the app bundle's first statement
//    (boot-mark.ts) instead of the navigation start. The page loader and
//    everything of the compat layer run after it (with or without page
//    extensions the document and the bundle are the same), and it leaves
//    out the webview's launch and the document's load, whose spread is no
//    part of an extension's cost: the with/without difference
//    (benchreport's pageStartFromBootDelta1) is the same quantity as
//    pageStartDelta1, with less spread (one start's sd was about 48 ms
//    against 64–72 on the 2-core VM).
//  - compatCostWith0 (with none enabled) and compatSpanMsWith1: how long
//    the window was loading the SillyTavern compat layer: from when the
//    asset handler received the first request for one of its files (the
//    compat runtime's chunks, /assets/runtime-*; the compat modules,
//    /script.js, /lib.js, /scripts/*.js; a page extension's package,
//    /scripts/extensions/third-party/…) until it had served the last,
//    read SETTLE_MS after the start. Go logs these requests as it serves
//    them (assets.go): WebKitGTK keeps no Resource Timing entries for
//    wails:// files. Nothing of the layer runs unless it was fetched, so
//    with none fetched its cost is 0 ms; with files fetched the span
//    includes what the window did between the first request and the last
//    answer, not what it did with the last file after. With one enabled
//    the run fails unless all three kinds were fetched: that proves the
//    log sees these files and Go's compatKind still knows their names.
//    compatResourcesWith<N> and compatKBWith<N> count the files and their
//    bytes.
//  - compatRuntimeStageMsWith1: from the request for the runtime's chunk
//    (which the page loader makes with the list, beside the package's
//    manifest and script, while the UI comes up) until the extension's
//    module ran (the runtime fetched and evaluated, the UI shown, the
//    runtime installed, the compat modules linked), and
//    compatPackageStageMsWith1 from there until its jQuery ready handler
//    had run: where the time with one went. The page loader's User
//    Timing marks (page-loader.ts, MARKS) split the first stage:
//    compatRuntimeLoadMsWith1 from asking for the runtime until it was
//    evaluated (fetched, parsed and run, with whatever the UI did on the
//    same thread meanwhile), compatUiWaitMsWith1 how long it then waited
//    for the UI to be shown (0 if the UI was first), compatInstallMsWith1
//    its install, compatLinkMsWith1 from the extension's import until its
//    module's first statement (its files and the compat modules fetched,
//    linked and evaluated).
//  - listCallsWith0: how many extensions.list() calls the window made by
//    then with none enabled: the page loader shares the extension host's
//    read of the list (extensions/registry.ts), so it adds no call — 1.
(() => {
  'use strict';
  if (window.top !== window) return;

  /** How long after the UI is up the bench waits before it reads the compat files served, so what follows the start has been fetched. */
  const SETTLE_MS = 1500;
  /** The storage key of a page extension's extension_settings (frontend/src/extensions/st/settings.ts). */
  const SETTINGS_KEY = 'st.extension_settings';
  /** The app bundle's first mark (frontend/src/boot-mark.ts, BOOT_MARK). */
  const BOOT_MARK = 'hearth:boot';
  /** The colour the extension's style.css gives its drawer's top border. */
  const CSS_COLOR = 'rgb(17, 34, 51)';

  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  const r2 = (ms) => Math.round(ms * 100) / 100;

  /** describe renders a thrown value with its HostError code and details. */
  const describe = (e) => `${e?.name ?? 'Error'}${e?.code ? ` ${e.code}` : ''}: ${e?.message ?? String(e)}${e?.details ? ` (details ${JSON.stringify(e.details)})` : ''}`;

  /** ran waits for the page extension's ready handler to have run and returns what it saw. */
  const ran = (until, id) => until(15000, `the ${id} extension's jQuery ready handler`, () => (window.selftestStPage?.readyAt != null ? window.selftestStPage : null), 50);

  /** compatFiles sums up the compat files the asset handler served (selftest.info's compatFiles, logged by Go). */
  function compatFiles(files) {
    const kinds = { runtime: 0, module: 0, package: 0 };
    let bytes = 0;
    for (const f of files) {
      kinds[f.kind]++;
      bytes += f.bytes;
    }
    const first = Math.min(...files.map((f) => f.at));
    const last = Math.max(...files.map((f) => f.at + f.ms));
    return {
      count: files.length,
      kinds,
      kb: r2(bytes / 1024),
      spanMs: files.length ? r2(last - first) : 0,
      firstMs: files.length ? Math.round(first - performance.timeOrigin) : null,
      names: files.map((f) => `${f.path} ${f.status} at ${Math.round(f.at - performance.timeOrigin)} ms (served in ${r2(f.ms)} ms)`),
    };
  }

  /** loaderStages splits the runtime stage by the page loader's marks (page-loader.ts, MARKS); a missing mark leaves its figures out. */
  function loaderStages(id, moduleAt) {
    const at = (name) => performance.getEntriesByName(name, 'mark')[0]?.startTime;
    const asked = at('hearth:st-runtime-asked');
    const loaded = at('hearth:st-runtime-loaded');
    const shown = at('hearth:st-ui-shown');
    const installed = at('hearth:st-installed');
    const importing = at(`hearth:st-import:${id}`);
    if ([asked, loaded, shown, installed, importing].some((t) => t === undefined)) return {};
    return {
      compatRuntimeLoadMsWith1: Math.round(loaded - asked),
      compatUiWaitMsWith1: Math.round(Math.max(0, shown - loaded)),
      compatInstallMsWith1: Math.round(installed - Math.max(loaded, shown)),
      compatLinkMsWith1: Math.round(moduleAt - importing),
    };
  }

  /** compatGlobals lists the compat layer's globals and mount points present in the window. */
  function compatGlobals() {
    const present = [];
    if ('__hearthStCompat' in window) present.push('__hearthStCompat');
    if (window.jQuery !== undefined) present.push('jQuery');
    if (window.toastr !== undefined) present.push('toastr');
    if (window.SillyTavern?.libs !== undefined) present.push('SillyTavern.libs');
    if (document.getElementById('extensions_settings')) present.push('#extensions_settings');
    return present;
  }

  /** checks is a normal run's page tier phase: the page extension Go installed, checked in the window. */
  async function checks(h, info, { step, until }) {
    const id = info.extensions.page;
    let seen = null;
    const started = await step(
      "page extension: a SillyTavern-style extension's module links and runs in the window (relative imports of script.js and extensions.js)",
      20000,
      async () => {
        seen = await ran(until, id);
        const entry = (await h.api.extensions.list()).find((e) => e.id === id);
        if (entry?.mode !== 'page' || entry.status !== 'active') throw new Error(`api.extensions.list() says ${entry ? `${entry.mode} ${entry.status} ${entry.error ?? ''}` : 'nothing'} of ${id}`);
        const path = new URL(seen.url).pathname;
        if (path !== `/scripts/extensions/third-party/${id}/index.js`) throw new Error(`its module's import.meta.url is ${seen.url}`);
        if (!seen.appReady) throw new Error('its APP_READY handler (registered after the app was ready) did not run');
        if (!seen.context?.chat || !seen.context.characters || !seen.context.settings) throw new Error(`getContext() from extensions.js: ${JSON.stringify(seen.context)}`);
        const globals = { jQuery: typeof window.jQuery, $: window.$ === window.jQuery, toastr: typeof window.toastr, 'SillyTavern.libs': typeof window.SillyTavern?.libs };
        if (globals.jQuery !== 'function' || !globals.$ || globals.toastr !== 'object' || globals['SillyTavern.libs'] !== 'object') throw new Error(`the compat globals: ${JSON.stringify(globals)}`);
        return (
          `${seen.url}: its module ran ${Math.round(seen.moduleAt)} ms after the window's navigation start, its jQuery ready handler by ${Math.round(seen.readyAt)} ms; ` +
          `its APP_READY handler ran; getContext().chat and .characters are arrays and .extensionSettings is extension_settings; globals ${JSON.stringify(globals)}`
        );
      },
    );
    if (!started) return;
    await step("page extension: its css (the manifest's css) applies in the window", 10000, async () => {
      const link = document.querySelector(`link[rel="stylesheet"][data-extension="${CSS.escape(id)}"]`);
      if (!link) throw new Error(`no <link rel="stylesheet" data-extension="${id}"> in the document`);
      const drawer = document.querySelector('#extensions_settings .selftest-st-page-settings .inline-drawer');
      if (!drawer) throw new Error('its drawer is not in the document');
      const color = await until(5000, `its drawer's border-top-color to be ${CSS_COLOR}`, () => {
        const c = getComputedStyle(drawer).borderTopColor;
        if (c !== CSS_COLOR) throw new Error(`it is ${c}`);
        return c;
      });
      return `${new URL(link.href).pathname} linked; its drawer's border-top-color is ${color}`;
    });
    await step('page extension: its settings drawer is in #extensions_settings and opens by its toggle', 10000, async () => {
      const mount = document.getElementById('extensions_settings');
      if (!mount) throw new Error('no #extensions_settings in the document');
      const drawer = mount.querySelector(':scope > .selftest-st-page-settings > .inline-drawer');
      if (!drawer) throw new Error(`#extensions_settings holds ${mount.children.length} element(s), not its drawer`);
      const toggle = drawer.querySelector(':scope > .inline-drawer-toggle');
      const content = drawer.querySelector(':scope > .inline-drawer-content');
      toggle.click();
      const opened = content.style.display;
      toggle.click();
      const closed = content.style.display;
      if (opened !== 'block' || closed !== 'none') throw new Error(`its toggle set the content's display to ${JSON.stringify(opened)}, then ${JSON.stringify(closed)}`);
      return `#extensions_settings holds "${drawer.textContent.replace(/\s+/g, ' ').trim()}"; its toggle opened it and closed it again`;
    });
    await step('page extension: the setting it saved with saveSettingsDebounced is persisted in its storage', 15000, async () => {
      const want = JSON.stringify({ [id]: seen.saved });
      const got = await until(12000, `${SETTINGS_KEY} of ${id} to hold ${want}`, async () => {
        const v = await h.api.extensions.storage.get(SETTINGS_KEY, { extensionId: id });
        if (JSON.stringify(v) !== want) throw new Error(`it holds ${JSON.stringify(v)}`);
        return v;
      }, 250);
      return `extension_settings["${id}"] = ${JSON.stringify(seen.saved)}; api.extensions.storage.get('${SETTINGS_KEY}', { extensionId: '${id}' }) → ${JSON.stringify(got)}`;
    });
    await step('page extension: calling an unbacked SillyTavern name it imported (Generate from script.js) throws ext.unsupported', 5000, async () => {
      let err = null;
      try {
        await seen.tryUnsupported();
      } catch (e) {
        err = e;
      }
      if (!err) throw new Error('Generate() returned');
      if (err.code !== 'ext.unsupported' || err.details?.name !== 'Generate' || err.details?.module !== '/script.js') throw new Error(describe(err));
      return describe(err);
    });
  }

  /** bench is the page bench mode: the window's start with the page extension enabled or not, and what it fetched of the compat layer. */
  async function bench(h, info, { step, until, metrics, invoke }) {
    const id = info.extensions.page;
    const n = info.extensions.pageEnabled ? 1 : 0;
    metrics.startPageExtensions = n;
    const uiAt = await window.__hearthSelfTestExtensions.uiUp(h, { step, metrics });
    if (!uiAt) return;
    let ranAt = 0;
    await step(`start: the window with ${n} page extension(s) enabled${n ? ', run' : ''}`, 20000, async () => {
      let last = uiAt;
      if (n === 1) {
        const seen = await ran(until, id);
        if (!(seen.readyAt > 0) || seen.readyAt > performance.now()) throw new Error(`its ready mark is out of range: ${seen.readyAt}`);
        metrics.pageExtensionModuleMs = Math.round(seen.moduleAt);
        metrics.pageExtensionRanMs = Math.round(seen.readyAt);
        ranAt = seen.readyAt;
        last = Math.max(last, ranAt);
        metrics.pageExtensionAfterUiMs = Math.round(last - uiAt);
      }
      metrics.startWithPageExtensionsMs = Math.round(last);
      const boot = performance.getEntriesByName(BOOT_MARK, 'mark')[0]?.startTime;
      if (boot !== undefined) {
        metrics.bootMs = Math.round(boot);
        metrics.startFromBootMs = Math.round(last - boot);
      }
      return n === 0
        ? `none enabled (${id} installed, disabled): ${metrics.startWithPageExtensionsMs} ms (the UI's start)`
        : `UI up at ${metrics.uiStartMs} ms; ${id}'s module ran at ${metrics.pageExtensionModuleMs} ms, its ready handler by ${metrics.pageExtensionRanMs} ms: ${metrics.startWithPageExtensionsMs} ms after the navigation start`;
    });
    await step(`perf: what the window fetched of the SillyTavern compat layer with ${n} page extension(s) enabled`, 20000, async () => {
      await sleep(SETTLE_MS);
      const after = await invoke('selftest.info');
      const r = compatFiles(after.compatFiles);
      const globals = compatGlobals();
      metrics[`compatResourcesWith${n}`] = r.count;
      metrics[`compatKBWith${n}`] = r.kb;
      metrics[`compatSpanMsWith${n}`] = r.spanMs;
      const fetched =
        `${r.count} file(s) (${JSON.stringify(r.kinds)}, ${r.kb} KB)` +
        (r.count ? ` from ${r.firstMs} ms after the navigation start, for ${r.spanMs} ms: ${r.names.join(', ')}` : '') +
        `; compat globals ${JSON.stringify(globals)}`;
      if (n === 1) {
        if (!r.kinds.runtime || !r.kinds.module || !r.kinds.package) throw new Error(`the asset handler's log misses a kind of compat file: ${fetched}`);
        if (!ranAt) return fetched;
        // Where the time went: the runtime's request, the module's run, its ready handler's.
        const first = (kind) => Math.min(...after.compatFiles.filter((f) => f.kind === kind).map((f) => f.at)) - performance.timeOrigin;
        const runtimeAt = first('runtime');
        const moduleAt = window.selftestStPage.moduleAt;
        metrics.compatRuntimeStageMsWith1 = Math.round(moduleAt - runtimeAt);
        metrics.compatPackageStageMsWith1 = Math.round(ranAt - moduleAt);
        Object.assign(metrics, loaderStages(id, moduleAt));
        return (
          `${fetched}. The package's first file was asked for at ${Math.round(first('package'))} ms, the runtime's chunk at ${Math.round(runtimeAt)} ms; ` +
          `the extension's module ran ${metrics.compatRuntimeStageMsWith1} ms later (the runtime fetched and evaluated, the UI shown, the runtime installed, the compat modules linked), ` +
          `its ready handler ${metrics.compatPackageStageMsWith1} ms after that`
        );
      }
      metrics.compatCostWith0 = r.spanMs;
      // The page loader reads the list the extension host read: one call.
      metrics.listCallsWith0 = after.bridge.accepted['extensions.list'] || 0;
      return `${fetched}; the window had made ${metrics.listCallsWith0} extensions.list() call(s) (the extension host's, which the page loader shares)`;
    });
  }

  window.__hearthSelfTestPageTier = { checks, bench };
})();
