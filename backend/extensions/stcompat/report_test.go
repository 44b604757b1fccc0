package stcompat

import (
	"encoding/json"
	"strings"
	"testing"
)

// eventTypes is a slice of Hearth's event registry, as the service
// passes events.TypeNames.
var eventTypes = map[string]string{"MESSAGE_RECEIVED": "message_received", "CHAT_CHANGED": "chat_id_changed", "APP_READY": "app_ready"}

func judge(t *testing.T, files map[string]string, m ManifestFacts, installed ...string) *Report {
	t.Helper()
	u := scan(t, files)
	return Judge(u, m, Env{EventTypes: eventTypes, Installed: func(id string) bool {
		for _, i := range installed {
			if i == id {
				return true
			}
		}
		return false
	}})
}

const works = `import { chat, eventSource, event_types, saveSettingsDebounced } from '../../../../script.js';
import { extension_settings, getContext } from '../../../extensions.js';
eventSource.on(event_types.MESSAGE_RECEIVED, () => {});
eventSource.on('chat_id_changed', () => {});
const { characters, name2 } = SillyTavern.getContext();
$('#extensions_settings2').append('<div id="mine"></div>'); $('#mine');
`

// TestVerdicts: each rule of the verdict, and the count of what is not
// provided.
func TestVerdicts(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name        string
		js          string
		m           ManifestFacts
		installed   []string
		verdict     string
		unsupported int
	}{
		{"everything backed", works, ManifestFacts{}, nil, VerdictWorks, 0},
		{"an exported name Hearth does not back", works + `import { Generate } from '../../../../script.js';`, ManifestFacts{}, nil, VerdictPartial, 1},
		{"a name SillyTavern does not export", works + `import { nope } from '../../../../script.js';`, ManifestFacts{}, nil, VerdictWontLoad, 1},
		{"a module Hearth does not serve", works + `import { oai_settings } from '../../../openai.js';`, ManifestFacts{}, nil, VerdictWontLoad, 1},
		{"a missing name read through a namespace", works + `import * as st from '../../../../script.js'; st.nope();`, ManifestFacts{}, nil, VerdictPartial, 1},
		{"an unserved module imported dynamically", works + `const m = await import('/scripts/tags.js');`, ManifestFacts{}, nil, VerdictPartial, 1},
		{"a bare name", works + `import _ from 'lodash';`, ManifestFacts{}, nil, VerdictWontLoad, 1},
		{"another extension's file", works + `import '../other/x.js';`, ManifestFacts{}, nil, VerdictPartial, 1},
		{"an unbacked getContext member", works + `getContext().openCharacterEditor();`, ManifestFacts{}, nil, VerdictPartial, 1},
		{"an event Hearth does not fire", works + `eventSource.on(event_types.IMPERSONATE_READY, f); eventSource.on('settings_loaded', f);`, ManifestFacts{}, nil, VerdictPartial, 2},
		{"an element Hearth lacks", works + `$('#send_but').click();`, ManifestFacts{}, nil, VerdictPartial, 1},
		{"a server path", works + `fetch('/api/characters/all');`, ManifestFacts{}, nil, VerdictPartial, 1},
		{"a newer SillyTavern", works, ManifestFacts{MinimumClientVersion: "99.0.0"}, nil, VerdictWontLoad, 1},
		{"an older SillyTavern", works, ManifestFacts{MinimumClientVersion: "1.12.6"}, nil, VerdictWorks, 0},
		{"a dependency not installed", works, ManifestFacts{Dependencies: []string{"base-ext"}}, nil, VerdictWontLoad, 1},
		{"a dependency installed", works, ManifestFacts{Dependencies: []string{"base-ext"}}, []string{"base-ext"}, VerdictWorks, 0},
		{"an interceptor", works, ManifestFacts{GenerateInterceptor: "myInterceptor"}, nil, VerdictWorks, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := judge(t, map[string]string{"index.js": c.js}, c.m, c.installed...)
			if r.Verdict != c.verdict || r.Unsupported != c.unsupported {
				j, _ := json.MarshalIndent(r, "", " ")
				t.Errorf("verdict %s with %d unsupported, want %s with %d\n%s", r.Verdict, r.Unsupported, c.verdict, c.unsupported, j)
			}
		})
	}
}

// TestReportShape: the report names each item with its judgment.
func TestReportShape(t *testing.T) {
	t.Parallel()
	r := judge(t, map[string]string{"index.js": works + `import { Generate } from '../../../../script.js'; import '../../../openai.js';
		$('#send_but'); fetch('/api/x'); getContext().nothing; eventSource.on(event_types.NOPE, f);`},
		ManifestFacts{GenerateInterceptor: "icpt", MinimumClientVersion: "1.0", Dependencies: []string{"a"}})
	j, _ := json.Marshal(r)
	for _, want := range []string{
		`"verdict":"wont_load"`, `"stVersion":"` + Level() + `"`,
		`{"path":"/script.js","served":true,"linked":true,"dynamic":false,"names":[{"name":"Generate","exported":true,"backed":false,"linked":true},{"name":"chat","exported":true,"backed":true,"linked":true}`,
		`{"path":"/scripts/openai.js","served":false,"linked":true,"dynamic":false,"names":[]}`,
		`{"name":"nothing","backed":false}`, `{"name":"name2","backed":true}`,
		`{"name":"CHAT_CHANGED","supported":true}`, `{"name":"NOPE","supported":false}`,
		`{"id":"send_but","supported":false}`, `{"id":"extensions_settings2","supported":true}`,
		`"apiPaths":[{"path":"/api/x"}]`,
		`"manifest":{"generateInterceptor":{"name":"icpt","backed":true},"minimumClientVersion":{"version":"1.0","satisfied":true},"dependencies":[{"id":"a","installed":false}]}`,
		`"scanned":{"files":1,`,
	} {
		if !strings.Contains(string(j), want) {
			t.Errorf("report lacks %s\n%s", want, j)
		}
	}
	if r.Unsupported != 7 { // Generate, openai.js, send_but, /api/x, nothing, NOPE, a
		t.Errorf("unsupported %d, want 7", r.Unsupported)
	}
}

// TestPartlyRead: an entry too large to read leaves the verdict at
// partial, with a note; a vendored folder left out does not.
func TestPartlyRead(t *testing.T) {
	t.Parallel()
	r := judge(t, map[string]string{"index.js": strings.Repeat(" ", MaxScanFileBytes+1)}, ManifestFacts{})
	if r.Verdict != VerdictPartial || len(r.Notes) != 2 || !strings.Contains(r.Notes[0], "entry module was not read") {
		t.Errorf("%s %q", r.Verdict, r.Notes)
	}
	r = judge(t, map[string]string{"index.js": works, "node_modules/x/y.js": "import '/scripts/openai.js'"}, ManifestFacts{})
	if r.Verdict != VerdictWorks || len(r.Notes) != 0 {
		t.Errorf("%s %q", r.Verdict, r.Notes)
	}
	stale := &Usage{Version: ScanVersion - 1, EntryRead: true}
	if r := Judge(stale, ManifestFacts{}, Env{}); len(r.Notes) != 1 || r.Verdict != VerdictWorks {
		t.Errorf("a stale scan: %s %q", r.Verdict, r.Notes)
	}
}

func TestCompareVersions(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"1.18.0", "1.18.0", 0}, {"1.18.0", "1.18", 0}, {"1.18.0", "1.9.9", 1}, {"1.12.6", "1.13.0", -1},
		{"v1.2.3", "1.2.3", 0}, {"1.2.3-beta", "1.2.3", 0}, {"", "0.0.1", -1}, {"2", "1.99.99", 1},
	} {
		if got := CompareVersions(c.a, c.b); got != c.want {
			t.Errorf("CompareVersions(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}
