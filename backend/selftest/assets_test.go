package selftest

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestCompatKind(t *testing.T) {
	t.Parallel()
	for p, want := range map[string]string{
		"/assets/runtime-BvmLdN14.js":  "runtime",
		"/assets/runtime-KGYxZJju.css": "runtime",
		"/script.js":                   "module",
		"/lib.js":                      "module",
		"/scripts/extensions.js":       "module",
		"/scripts/slash-commands.js":   "module",
		"/scripts/extensions/third-party/selftest-st-page/index.js": "package",
		"/scripts/extensions/third-party/x/style.css":               "package",
		"/scripts/../scripts/utils.js":                              "module",
		"/assets/index-BQQFZ1OJ.js":                                 "",
		"/assets/runtime-x.map":                                     "",
		"/":                                                         "",
		"/index.html":                                               "",
		"/api/invoke":                                               "",
		"/ext-runtime/frame.js":                                     "",
		"/ext/selftest-probe/probe.js":                              "",
		"/__hearth__/selftest.js":                                   "",
		"/scripts.js":                                               "",
	} {
		if got := compatKind(p); got != want {
			t.Errorf("compatKind(%q) = %q, want %q", p, got, want)
		}
	}
}

// ObserveAssets logs the compat files it serves, with their status and
// body bytes, and passes every request on unchanged.
func TestObserveAssets(t *testing.T) {
	t.Parallel()
	s := New(Options{Log: io.Discard})
	h := s.ObserveAssets(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "missing.js") {
			http.NotFound(w, r)
			return
		}
		io.WriteString(w, "body of "+r.URL.Path)
	}))
	before := float64(time.Now().UnixMicro()) / 1000
	for _, p := range []string{"/", "/assets/index-x.js", "/script.js", "/scripts/extensions/third-party/a/missing.js"} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "wails://wails"+p, nil))
		if !strings.HasSuffix(p, "missing.js") && rec.Body.String() != "body of "+p {
			t.Fatalf("%s answered %q", p, rec.Body.String())
		}
	}
	files := s.info()["compatFiles"].([]assetRequest)
	if len(files) != 2 {
		t.Fatalf("logged %+v", files)
	}
	if f := files[0]; f.Path != "/script.js" || f.Kind != "module" || f.Status != 200 || f.Bytes != int64(len("body of /script.js")) || f.At < before || f.Ms < 0 {
		t.Errorf("first = %+v", f)
	}
	if f := files[1]; f.Kind != "package" || f.Status != 404 {
		t.Errorf("second = %+v", f)
	}
}
