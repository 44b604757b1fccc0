package selftest

import (
	"context"
	"encoding/json"
	"fmt"
)

// The page tier in the self-test (EXTENSIONS.md §5): extensions/st-page is
// a SillyTavern-style extension (a manifest with js and css and no hearth
// block; an index.js that imports SillyTavern's modules by relative path,
// saves extension_settings and appends a settings drawer to
// #extensions_settings). A normal run installs it enabled beside the probe
// and the page checks it in the window (stpage.js); Go reads the setting
// it saved back from its storage (checkPageSettings). The page bench mode
// (PageExtensionsEnv) installs it alone, enabled or not, and times the
// window's start.

// PageExtensionID is the page extension's id: the name of the folder it is
// installed from, as for any package without a hearth block.
const PageExtensionID = "selftest-st-page"

// pagePackage is the page extension's folder under extensions/.
const pagePackage = "st-page"

// PageSettingsKey is the storage key the page tier keeps an extension's
// share of extension_settings under (frontend/src/extensions/st/
// settings.ts, ST_SETTINGS_KEY).
const PageSettingsKey = "st.extension_settings"

// MaxPageBenchExtensions bounds Options.PageExtensions: the page bench
// mode runs with the page extension disabled (0) or enabled (1).
const MaxPageBenchExtensions = 1

// PageExtensionsEnv is the environment variable that turns the page bench
// mode on for `hearth --self-test`: 0 (the page extension installed but
// disabled: no page extension enabled) or 1 (it enabled).
const PageExtensionsEnv = "HEARTH_SELFTEST_PAGE_EXTENSIONS"

// PageBenchFromEnv reads PageExtensionsEnv through getenv: unset or empty
// is the normal run; 0 or 1 is the page bench mode with that many page
// extensions enabled; anything else is an error, so a typo does not run
// the wrong test.
func PageBenchFromEnv(getenv func(string) string) (on bool, count int, err error) {
	return benchCountFromEnv(getenv, PageExtensionsEnv, MaxPageBenchExtensions)
}

// mode names the run for the page script (selftest.info's
// extensions.mode): "probe" (a normal run), "bench" (the extension bench
// mode) or "page-bench" (the page bench mode).
func (s *Session) mode() string {
	switch {
	case s.opts.PageBench:
		return "page-bench"
	case s.opts.ExtensionBench:
		return "bench"
	default:
		return "probe"
	}
}

// checkPageSettings reads the page extension's share of extension_settings
// from its storage, through the host router, in a normal run: the
// extension counts its starts there with saveSettingsDebounced, and in a
// fresh data dir the window is its first start. The page script waited
// for the write (stpage.js); this verdict does not rest on it.
func (s *Session) checkPageSettings(ctx context.Context, inv Invoker) (Check, bool) {
	s.mu.Lock()
	id, on := s.ext.page, s.ext.pageOn
	s.mu.Unlock()
	if id == "" || !on || s.opts.PageBench {
		return Check{}, false
	}
	c := Check{Name: "go: the page extension's extension_settings were saved to its storage"}
	var raw json.RawMessage
	if err := call(context.WithoutCancel(ctx), inv, &raw, "extensions.storage.get", PageSettingsKey, map[string]any{"extensionId": id}); err != nil {
		c.Detail = err.Error()
		return c, true
	}
	var share map[string]struct {
		Runs *int `json:"runs"`
	}
	if err := json.Unmarshal(raw, &share); err != nil || share == nil {
		c.Detail = fmt.Sprintf("%s of %s holds %s", PageSettingsKey, id, raw)
		return c, true
	}
	mine, ok := share[id]
	if !ok || mine.Runs == nil || *mine.Runs != 1 || len(share) != 1 {
		c.Detail = fmt.Sprintf("%s of %s holds %s; want only {%q: {runs: 1}}", PageSettingsKey, id, raw, id)
		return c, true
	}
	c.OK = true
	c.Detail = fmt.Sprintf("%s of %s: %s", PageSettingsKey, id, raw)
	return c, true
}
