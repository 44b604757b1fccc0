package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"hearth/backend/apperr"
	"hearth/backend/internal/extframe"
)

// failingFiles answers every lookup with err.
type failingFiles struct{ err error }

func (f failingFiles) FrameFiles(context.Context, string) (extframe.Files, error) {
	return extframe.Files{}, f.err
}
func (f failingFiles) PageDir(context.Context, string) (string, error) { return "", f.err }

// TestExtensionLookupErrors: both extension file handlers answer a lookup
// that failed the same way: a store failure is a 500 with its log
// reference, any other error the 404 that says no such file is served.
func TestExtensionLookupErrors(t *testing.T) {
	t.Parallel()
	serveFrame := func(w http.ResponseWriter, r *http.Request, files ExtensionFiles) {
		ServeExtensionFile(w, r, files, "http://127.0.0.1")
	}
	for _, h := range []struct {
		name  string
		path  string
		serve func(http.ResponseWriter, *http.Request, ExtensionFiles)
		tier  string
	}{
		{"frame", extframe.PathPrefix + "mood/app.js", serveFrame, "sandboxed"},
		{"page", extframe.PagePathPrefix + "notes/index.js", ServePageExtensionFile, "page"},
	} {
		for _, tc := range []struct {
			name   string
			err    error
			status int
			code   string
		}{
			{"not found", apperr.New(codeExtensionNotFound, "no extension mood"), http.StatusNotFound, codeExtensionNotFound},
			{"off", apperr.New("extension.disabled", "mood is turned off"), http.StatusNotFound, codeExtensionNotFound},
			{"store failure", errors.New("database is locked"), http.StatusInternalServerError, apperr.CodeInternal},
		} {
			t.Run(h.name+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				rec := httptest.NewRecorder()
				h.serve(rec, httptest.NewRequest(http.MethodGet, h.path, nil), failingFiles{tc.err})
				var body struct {
					Error apperr.Error `json:"error"`
				}
				if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
					t.Fatalf("body %q: %v", rec.Body, err)
				}
				if rec.Code != tc.status || body.Error.Code != tc.code {
					t.Fatalf("%d %s, want %d %s", rec.Code, body.Error.Code, tc.status, tc.code)
				}
				if tc.status == http.StatusNotFound && body.Error.Message != "no file "+h.path+" of an active "+h.tier+" extension" {
					t.Errorf("message %q", body.Error.Message)
				}
				if tc.status == http.StatusInternalServerError && body.Error.Details["ref"] == nil {
					t.Errorf("a store failure without its log reference: %+v", body.Error)
				}
				if rec.Header().Get("Content-Security-Policy") == "" {
					t.Error("an answer without a policy")
				}
			})
		}
	}
}
