package stcompat

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
)

// pkg makes a package from path → text.
func pkg(files map[string]string) fstest.MapFS {
	m := fstest.MapFS{}
	for p, s := range files {
		m[p] = &fstest.MapFile{Data: []byte(s)}
	}
	return m
}

func scan(t *testing.T, files map[string]string) *Usage {
	t.Helper()
	u, err := Scan(pkg(files), ScanOptions{ID: "my-ext", Entry: "index.js"})
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func module(u *Usage, path string) *ModuleUse {
	for i := range u.Modules {
		if u.Modules[i].Path == path {
			return &u.Modules[i]
		}
	}
	return nil
}

// names lists a module's names as "name" or "name~" (not linked).
func names(m *ModuleUse) []string {
	if m == nil {
		return nil
	}
	var out []string
	for _, n := range m.Names {
		if n.Linked {
			out = append(out, n.Name)
		} else {
			out = append(out, n.Name+"~")
		}
	}
	return out
}

// TestScanImports: every import form, resolved from the file's served
// address, with what is linked (loaded statically by the entry) marked.
func TestScanImports(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		files  map[string]string
		module string
		want   []string // names, "~" when not linked; nil: the module is not imported
		linked bool
	}{
		{"named and aliased from the root", map[string]string{
			"index.js": `import { chat, saveSettingsDebounced as save, } from '../../../../script.js';`,
		}, "/script.js", []string{"chat", "saveSettingsDebounced"}, true},
		{"extensions.js three levels up", map[string]string{
			"index.js": `import {getContext,extension_settings}from"../../../extensions.js"`,
		}, "/scripts/extensions.js", []string{"extension_settings", "getContext"}, true},
		{"from a nested file, linked through the entry", map[string]string{
			"index.js":        `import './src/ui/panel.js';`,
			"src/ui/panel.js": `import { power_user } from '../../../../../power-user.js';`,
		}, "/scripts/power-user.js", []string{"power_user"}, true},
		{"too many .. stop at the root", map[string]string{
			"index.js": `import { t } from '../../../../../../../../scripts/i18n.js?v=2';`,
		}, "/scripts/i18n.js", []string{"t"}, true},
		{"absolute path", map[string]string{
			"index.js": `import { delay } from '/scripts/utils.js';`,
		}, "/scripts/utils.js", []string{"delay"}, true},
		{"default and namespace", map[string]string{
			"index.js": `import lib, * as all from '../../../../lib.js'; all.DOMPurify.sanitize(x); all['Fuse']; foo.all.lodash;`,
		}, "/lib.js", []string{"DOMPurify~", "Fuse~", "default"}, true},
		{"namespace reads are not linked", map[string]string{
			"index.js": `import * as st from '../../../../script.js'; st.chat.length; st.nothing_here();`,
		}, "/script.js", []string{"chat~", "nothing_here~"}, true},
		{"export from", map[string]string{
			"index.js": `export { callPopup as popup, chat } from '../../../../script.js'; export * from '../../../utils.js';`,
		}, "/script.js", []string{"callPopup", "chat"}, true},
		{"dynamic with destructuring", map[string]string{
			"index.js": "const { callGenericPopup, Popup } = await import(`../../../popup.js`);",
		}, "/scripts/popup.js", []string{"Popup~", "callGenericPopup~"}, false},
		{"a file the entry does not load", map[string]string{
			"index.js":  `console.log(1)`,
			"unused.js": `import { chat } from '../../../../script.js';`,
		}, "/script.js", []string{"chat~"}, false},
		{"a dynamically loaded file's imports are not linked", map[string]string{
			"index.js": `import('./lazy.js').then(m => m.run());`,
			"lazy.js":  `import { chat } from '../../../../script.js';`,
		}, "/script.js", []string{"chat~"}, false},
		{"comments hide imports", map[string]string{
			"index.js": "// import { chat } from '../../../../script.js';\n/* import { x } from '/scripts/openai.js' */\nlet a = 1; /* import {",
		}, "/script.js", nil, false},
		{"a string holding an import is not one", map[string]string{
			"index.js": `const help = "import { chat } from '../../../../script.js'"; const t = ` + "`import { x } from '/script.js'`;",
		}, "/script.js", nil, false},
		{"a regex with quotes does not open a string", map[string]string{
			"index.js": `const re = /['"\/]/g; const d = a / b / c; import { chat } from '../../../../script.js';`,
		}, "/script.js", []string{"chat"}, true},
		{"import.meta and a property named import", map[string]string{
			"index.js": `const u = import.meta.url; x.import('/scripts/tags.js');`,
		}, "/scripts/tags.js", nil, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			u := scan(t, c.files)
			m := module(u, c.module)
			if c.want == nil {
				if m != nil || len(u.Others) > 0 {
					t.Fatalf("imports %+v, others %+v; want none", u.Modules, u.Others)
				}
				return
			}
			if m == nil {
				t.Fatalf("%s not found in %+v (others %+v)", c.module, u.Modules, u.Others)
			}
			if got := names(m); !slices.Equal(got, c.want) {
				t.Errorf("names %v, want %v", got, c.want)
			}
			if m.Linked != c.linked {
				t.Errorf("linked %v, want %v", m.Linked, c.linked)
			}
		})
	}
}

// TestScanOthers: imports of what is neither SillyTavern nor the
// package's own files, and own files the package lacks.
func TestScanOthers(t *testing.T) {
	t.Parallel()
	u := scan(t, map[string]string{
		"index.js": `import _ from 'lodash';
			import './lib/helper.js';
			import './missing.js';
			import { x } from '../other-ext/api.js';
			import('https://cdn.example/x.js');
			import '//cdn.example/y.js';`,
		"lib/helper.js":                 `import '../node_modules/dep/index.js';`,
		"node_modules/dep/index.js":     `import { nope } from '/scripts/openai.js';`,
		"unused.js":                     `import '/scripts/extensions/third-party/my-ext/lib/helper.js'; import './gone.js';`,
		"node_modules/dep/package.json": `{}`,
	})
	want := []OtherUse{
		{"../other-ext/api.js", OtherExtension, true},
		{"./gone.js", OtherMissing, false},
		{"./missing.js", OtherMissing, true},
		{"//cdn.example/y.js", OtherURL, true},
		{"https://cdn.example/x.js", OtherURL, false},
		{"lodash", OtherBare, true},
	}
	if !slices.Equal(u.Others, want) {
		t.Errorf("others\n got %+v\nwant %+v", u.Others, want)
	}
	if len(u.Modules) != 0 {
		t.Errorf("node_modules was read: %+v", u.Modules)
	}
	if !slices.Contains(u.Skipped, SkippedFile{"node_modules/", "vendored or hidden folder", true}) {
		t.Errorf("skipped %+v", u.Skipped)
	}
}

// TestScanContext: each way getContext() members are read.
func TestScanContext(t *testing.T) {
	t.Parallel()
	u := scan(t, map[string]string{"index.js": `
		const n = SillyTavern.getContext().chat.length;
		const m = window.SillyTavern.getContext()?.characterId;
		getContext()['name2'];
		const { characters, groups: gs, onlineStatus = 'x', ...rest } = SillyTavern.getContext();
		let context = await SillyTavern.getContext();
		context.extensionSettings.foo = 1;
		function f(){ const { swipe } = context; }
		const c = getContext(); c.oneLetterNames;
		canvas.getContext('2d').fillRect(0, 0, 1, 1);
		const holder = {}; holder.ctx = getContext(); holder.ctx.notFollowed;
		function getContext() { return {}; }
		class A { getContext() { return 1 } }
		const txt = "getContext().inAString";
		// getContext().inAComment
		const later = getContext().chatMetadata`})
	want := []string{"characterId", "characters", "chat", "chatMetadata", "extensionSettings", "groups", "name2", "onlineStatus", "swipe"}
	if !slices.Equal(u.Context, want) {
		t.Errorf("context %v\nwant    %v", u.Context, want)
	}
}

// TestScanEvents: event_types members, the other names of that table,
// and strings given to eventSource's listeners, less the package's own.
func TestScanEvents(t *testing.T) {
	t.Parallel()
	u := scan(t, map[string]string{"index.js": `
		eventSource.on(event_types.MESSAGE_RECEIVED, f);
		eventSource.makeFirst(event_types['CHAT_CHANGED'], f);
		ctx.eventSource.once(getContext().eventTypes.IMPERSONATE_READY, f);
		eventOn(tavern_events.GENERATION_ENDED, f);
		eventSource.on('chat_completion_prompt_ready', f);
		eventSource.on('my_own_event', f); eventSource.emit('my_own_event');
		eventSource.on("settings_loaded", f);
		event_types.hasOwnProperty('X'); other.on('not_an_event', f);`})
	if want := []string{"CHAT_CHANGED", "GENERATION_ENDED", "IMPERSONATE_READY", "MESSAGE_RECEIVED"}; !slices.Equal(u.Events, want) {
		t.Errorf("events %v, want %v", u.Events, want)
	}
	if want := []string{"chat_completion_prompt_ready", "settings_loaded"}; !slices.Equal(u.Listens, want) {
		t.Errorf("listens %v, want %v", u.Listens, want)
	}
}

// TestScanDOM: ids reached by selectors, less those the package creates
// in its HTML, its strings or its code.
func TestScanDOM(t *testing.T) {
	t.Parallel()
	u := scan(t, map[string]string{
		"index.js": "" +
			`$('#extensions_settings2').append(html);` +
			`$("#send_but, #my_panel .row").hide();` +
			"jQuery(`#option_regenerate`).on('click', f);" +
			`document.getElementById('send_textarea').value;` +
			`document.querySelector('#chat > .mes[mesid="1"]');` +
			`$('<div id="made_here">').appendTo('#extensionsMenu');` +
			"$(`#mes_${id}`).remove(); $(`#${key}_x`);" +
			`el.find('#from_template'); el.id = 'set_in_code'; $('#set_in_code');` +
			`$('<div>', { id: 'from_object' }); $('#from_object'); $('#made_here');` +
			`x.attr('id', 'from_attr'); $('#from_attr'); $(document); $(this).closest('.x');` +
			`// $('#in_comment')`,
		"settings.html": `<div id="my_panel"><input id='from_template'></div>`,
	})
	want := []string{"chat", "extensionsMenu", "extensions_settings2", "option_regenerate", "send_but", "send_textarea"}
	if !slices.Equal(u.DOMIDs, want) {
		t.Errorf("ids %v\nwant %v", u.DOMIDs, want)
	}
}

// TestScanAPIPaths: strings and templates starting /api/.
func TestScanAPIPaths(t *testing.T) {
	t.Parallel()
	u := scan(t, map[string]string{"index.js": "" +
		`fetch('/api/characters/all', { method: 'POST', headers: getRequestHeaders() });` +
		"fetch(`/api/plugins/${name}/run?x=1`);" +
		"fetch(`${location.origin}/api/files/upload`);" +
		`const notServer = 'https://example.com/api/v1'; const label = "see /api/ docs";` +
		`// fetch('/api/in-comment')`})
	want := []string{"/api/characters/all", "/api/files/upload", "/api/plugins/${…}/run"}
	if !slices.Equal(u.APIPaths, want) {
		t.Errorf("paths %v, want %v", u.APIPaths, want)
	}
}

// TestScanBounds: files past a bound are skipped and said; the entry is
// read first whatever its name; nothing else is read past the count.
func TestScanBounds(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"zz-entry.js": `import { chat } from '../../../../script.js';`,
		"big.js":      "import '/scripts/openai.js';" + strings.Repeat(" ", MaxScanFileBytes),
		".git/x.js":   `import '/scripts/tags.js';`,
		"notes.txt":   `import '/scripts/tags.js';`,
	}
	for i := range MaxScanFiles {
		files["many/"+strconv.Itoa(i)+".js"] = "1"
	}
	u, err := Scan(pkg(files), ScanOptions{ID: "x", Entry: "zz-entry.js"})
	if err != nil {
		t.Fatal(err)
	}
	if !u.EntryRead || u.Files != MaxScanFiles || module(u, "/script.js") == nil {
		t.Errorf("entry read %v, files %d, modules %+v", u.EntryRead, u.Files, u.Modules)
	}
	if module(u, "/scripts/openai.js") != nil || module(u, "/scripts/tags.js") != nil {
		t.Errorf("read what it should not: %+v", u.Modules)
	}
	var big, past bool
	for _, s := range u.Skipped {
		big = big || s.Path == "big.js" && strings.Contains(s.Reason, "larger than")
		past = past || strings.Contains(s.Reason, "files a scan reads")
	}
	if !big || !past {
		t.Errorf("skipped %v", u.Skipped[:min(len(u.Skipped), 5)])
	}
	if _, err := Scan(pkg(files), ScanOptions{ID: "a/b"}); err == nil {
		t.Error("an id with a slash was taken")
	}
}

// TestLexTemplates: ${…} parts are code (their tokens follow the
// template's), templates nest, and a template's text marks each hole.
func TestLexTemplates(t *testing.T) {
	t.Parallel()
	toks, whole := lex("a = `x${ {b: `y${c}z`}[0] }w`; // end")
	if !whole {
		t.Fatal("not whole")
	}
	var got []string
	for _, tk := range toks {
		got = append(got, tk.text)
	}
	want := []string{"a", "=", "x\x00w", "{", "b", ":", "y\x00z", "c", "}", "[", "0", "]", ";"}
	if !slices.Equal(got, want) {
		t.Errorf("tokens %q\nwant   %q", got, want)
	}
	deep := strings.Repeat("`${", maxTemplateDepth+5) + "x"
	if _, whole := lex(deep); whole {
		t.Error("templates past the depth bound read as whole")
	}
	if toks, _ := lex(`'a\'b\x41\u0042\u{1F600}\
c'`); len(toks) != 1 || toks[0].text != "a'bAB😀c" {
		t.Errorf("escapes: %q", toks)
	}
}

// TestScanRenamedImports: getContext, event_types and eventSource
// imported under other names (as bundlers write them) are followed.
func TestScanRenamedImports(t *testing.T) {
	t.Parallel()
	u := scan(t, map[string]string{"index.js": `
		import { getContext as gc, event_types as et, eventSource as es } from '../../../../script.js';
		import { getContext as x } from '../../../extensions.js';
		gc().chat; x().characters; es.on(et.MESSAGE_SENT, f); es.on('chat_id_changed', f);
		other.on(et2.NOT_THIS, f);`})
	if want := []string{"characters", "chat"}; !slices.Equal(u.Context, want) {
		t.Errorf("context %v, want %v", u.Context, want)
	}
	if !slices.Equal(u.Events, []string{"MESSAGE_SENT"}) || !slices.Equal(u.Listens, []string{"chat_id_changed"}) {
		t.Errorf("events %v, listens %v", u.Events, u.Listens)
	}
}

// TestScanTooling: a build tool's configuration is not read, a build
// script's package imports are not reported, and neither leaves the
// verdict open; a package import from a file the entry loads is.
func TestScanTooling(t *testing.T) {
	t.Parallel()
	u := scan(t, map[string]string{
		"index.js":          `import('./lazy.js');`,
		"lazy.js":           `import dayjs from 'dayjs';`,
		"vite.config.js":    `import { defineConfig } from 'vite'; import '/scripts/openai.js';`,
		".eslintrc.js":      `module.exports = {}`,
		"scripts/build.mjs": `import fs from 'node:fs'; import esbuild from 'esbuild';`,
	})
	if want := []OtherUse{{"dayjs", OtherBare, false}}; !slices.Equal(u.Others, want) {
		t.Errorf("others %+v, want %+v", u.Others, want)
	}
	if len(u.Modules) != 0 || len(u.Skipped) != 2 || !u.Skipped[0].Tooling || !u.Skipped[1].Tooling {
		t.Errorf("modules %+v, skipped %+v", u.Modules, u.Skipped)
	}
	if r := Judge(u, ManifestFacts{}, Env{}); r.Verdict != VerdictPartial || r.Unsupported != 1 || len(r.Notes) != 0 {
		t.Errorf("%s %d %q", r.Verdict, r.Unsupported, r.Notes)
	}
}
