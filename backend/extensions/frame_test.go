package extensions

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"

	"hearth/backend/internal/extframe"
)

// TestFrameFiles: only an active sandboxed extension, named as installed,
// has frame files; its network origins count while network is granted.
func TestFrameFiles(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	install := func(name string, files map[string]string, enable bool) {
		t.Helper()
		if _, err := e.svc.Install(ctx, Source{Path: writeTree(t, name, files)}, InstallOptions{Enable: enable}); err != nil {
			t.Fatal(err)
		}
	}
	install("net", map[string]string{
		"manifest.json":  `{"hearth":{"id":"net","mode":"sandboxed","entry":"./app/index.html","permissions":["network","chat.read"],"network":["https://api.example.com"]}}`,
		"app/index.html": "<p>",
	}, true)
	install("page", map[string]string{"manifest.json": `{"js":"a.js","hearth":{"entry":"a.html"}}`, "a.js": "1", "a.html": "<p>"}, true)
	install("off", map[string]string{"manifest.json": `{"hearth":{"mode":"sandboxed","entry":"i.html"}}`, "i.html": "<p>"}, false)
	install("needy", map[string]string{"manifest.json": `{"dependencies":["absent"],"hearth":{"mode":"sandboxed","entry":"i.html"}}`, "i.html": "<p>"}, true)
	install("broken", map[string]string{"manifest.json": `{"hearth":{"mode":"sandboxed","entry":"i.html"}}`, "i.html": "<p>"}, true)
	if err := e.svc.MarkFailed(ctx, "broken", "threw"); err != nil {
		t.Fatal(err)
	}

	got, err := e.svc.FrameFiles(ctx, "net")
	want := extframe.Files{Dir: filepath.Join(e.dir, "net"), Entry: "app/index.html", Connect: []string{"https://api.example.com"}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("FrameFiles(net) = %+v, %v; want %+v", got, err, want)
	}
	if _, err := e.svc.Revoke(ctx, "net", []string{"network"}); err != nil {
		t.Fatal(err)
	}
	if got, _ = e.svc.FrameFiles(ctx, "net"); got.Connect != nil {
		t.Errorf("without the network grant: connect %v", got.Connect)
	}
	for _, id := range []string{"NET", "page", "off", "needy", "broken", "absent", ""} {
		if _, err := e.svc.FrameFiles(ctx, id); err == nil {
			t.Errorf("FrameFiles(%q) has files", id)
		} else {
			wantCode(t, err, CodeNotFound)
		}
	}
}
