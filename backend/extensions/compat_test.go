package extensions

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"hearth/backend/extensions/stcompat"
	"hearth/backend/store"
)

// TestCompatReport: a page extension's install stores its scan and
// list() shows the verdict in short; compatReport gives the whole
// report; an update scans the new files; a row with no scan (installed
// before reports) is scanned when its report is asked for, and stored;
// a dependency counts as it is now; a sandboxed extension and an
// unknown id are refused. None of it sends an event.
func TestCompatReport(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	dir := writeTree(t, "st-ext", map[string]string{
		"manifest.json": `{"display_name":"ST","js":"index.js","generate_interceptor":"stIntercept","minimum_client_version":"1.12.0","dependencies":["helper"]}`,
		"index.js": `import { chat, Generate } from '../../../../script.js';
			import { getContext } from '../../../extensions.js';
			const { characters, openCharacterEditor } = getContext();`,
	})
	got, err := e.svc.Install(ctx, Source{Path: dir}, InstallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Generate and openCharacterEditor are not backed, helper is not installed.
	if want := (&stcompat.Summary{Verdict: stcompat.VerdictWontLoad, Unsupported: 3}); !reflect.DeepEqual(got.Compat, want) {
		t.Errorf("install: compat %+v, want %+v", got.Compat, want)
	}
	r, err := e.svc.CompatReport(ctx, "ST-EXT")
	if err != nil {
		t.Fatal(err)
	}
	if r.Verdict != stcompat.VerdictWontLoad || len(r.Modules) != 2 || r.Manifest.GenerateInterceptor == nil ||
		!r.Manifest.MinimumClientVersion.Satisfied || r.Manifest.Dependencies[0] != (stcompat.DependencyReport{ID: "helper", Installed: false}) {
		t.Errorf("report %+v", r)
	}

	// The dependency installed: judged as things are now.
	helper := writeTree(t, "helper", map[string]string{"manifest.json": `{"js":"h.js"}`, "h.js": ""})
	if _, err := e.svc.Install(ctx, Source{Path: helper}, InstallOptions{}); err != nil {
		t.Fatal(err)
	}
	if got, _ = e.svc.Get(ctx, "st-ext"); !reflect.DeepEqual(got.Compat, &stcompat.Summary{Verdict: stcompat.VerdictPartial, Unsupported: 2}) {
		t.Errorf("with the dependency: %+v", got.Compat)
	}

	// An update scans the new files.
	os.WriteFile(filepath.Join(dir, "index.js"), []byte(`import { chat } from '../../../../script.js'; import '../../../openai.js';`), 0o644)
	if got, err = e.svc.Update(ctx, "st-ext"); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Compat, &stcompat.Summary{Verdict: stcompat.VerdictWontLoad, Unsupported: 1}) {
		t.Errorf("after update: %+v", got.Compat)
	}
	e.types()

	// A row with no scan: none in the list, one made and stored by the report.
	e.exec(`UPDATE extensions SET compat = NULL WHERE id = 'st-ext'`)
	if got, _ = e.svc.Get(ctx, "st-ext"); got.Compat != nil {
		t.Errorf("unscanned row shows %+v", got.Compat)
	}
	if r, err = e.svc.CompatReport(ctx, "st-ext"); err != nil || r.Verdict != stcompat.VerdictWontLoad || !r.Modules[1].Linked || r.Modules[1].Served {
		t.Fatalf("lazy report %+v %v", r, err)
	}
	if got, _ = e.svc.Get(ctx, "st-ext"); got.Compat == nil || got.Compat.Verdict != stcompat.VerdictWontLoad {
		t.Errorf("the lazy scan was not stored: %+v", got.Compat)
	}
	// One scanned by older rules is scanned again.
	e.exec(`UPDATE extensions SET compat = '{"version":0,"modules":[]}' WHERE id = 'st-ext'`)
	if r, err = e.svc.CompatReport(ctx, "st-ext"); err != nil || len(r.Modules) != 2 || len(r.Notes) != 0 {
		t.Errorf("stale scan: %+v %v", r, err)
	}

	// Sandboxed: no report, and no compat on its entry.
	sb := writeTree(t, "sb", map[string]string{"manifest.json": sandboxManifest, "index.html": "<p>", "x.js": "import '/scripts/openai.js'"})
	if got, err = e.svc.Install(ctx, Source{Path: sb}, InstallOptions{}); err != nil || got.Compat != nil {
		t.Fatalf("sandboxed install: %+v %v", got, err)
	}
	_, err = e.svc.CompatReport(ctx, "mood")
	if ae := wantCode(t, err, CodeNotPage); ae.Details["id"] != "mood" {
		t.Errorf("details %v", ae.Details)
	}
	_, err = e.svc.CompatReport(ctx, "nobody")
	wantCode(t, err, CodeNotFound)
	e.types() // the installs'
	if _, err := e.svc.CompatReport(ctx, "st-ext"); err != nil {
		t.Fatal(err)
	}
	if ty := e.types(); len(ty) != 0 {
		t.Errorf("a report sent %v", ty)
	}
}

// exec runs one statement on the database, as an older Hearth left it.
func (e *env) exec(query string) {
	e.t.Helper()
	if err := e.db.InTx(context.Background(), func(tx *store.Tx) error {
		_, err := tx.Exec(query)
		return err
	}); err != nil {
		e.t.Fatal(err)
	}
}
