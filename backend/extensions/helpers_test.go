package extensions

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/base64"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"hearth/backend/apperr"
	"hearth/backend/events"
	"hearth/backend/events/eventstest"
	"hearth/backend/store"
)

// env is a service over a real SQLite database and data dir in a temp
// dir, with the events it published.
type env struct {
	t   *testing.T
	svc *Service
	db  *store.Store
	dir string
	rec *eventstest.Recorder
}

func newEnv(t *testing.T, opts ...func(*Options)) *env {
	t.Helper()
	root := t.TempDir()
	db, err := store.Open(context.Background(), filepath.Join(root, "hearth.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	bus := events.NewBus()
	clock := time.UnixMilli(1_700_000_000_000)
	o := Options{Dir: filepath.Join(root, "extensions"), Now: func() time.Time { clock = clock.Add(time.Millisecond); return clock }}
	for _, f := range opts {
		f(&o)
	}
	e := &env{t: t, db: db, dir: o.Dir, svc: New(db, bus, o)}
	e.rec = eventstest.Record(t, bus)
	t.Cleanup(func() {
		bus.Close()
		db.Close()
	})
	return e
}

// types returns the types of the events published since the last call.
func (e *env) types() []string {
	e.t.Helper()
	out := []string{}
	for _, ev := range e.rec.Take(e.t) {
		out = append(out, ev.Type)
	}
	return out
}

// installed lists what is under the extensions folder besides staging
// (which must be empty) and the rows of the registry.
func (e *env) installed() (dirs []string, rows int) {
	e.t.Helper()
	ents, _ := os.ReadDir(e.dir)
	for _, d := range ents {
		if d.Name() == ".staging" {
			left, _ := os.ReadDir(filepath.Join(e.dir, d.Name()))
			if len(left) > 0 {
				e.t.Errorf("staging holds %d folders after the call", len(left))
			}
			continue
		}
		dirs = append(dirs, d.Name())
	}
	if err := e.db.Reader().QueryRow(`SELECT count(*) FROM extensions`).Scan(&rows); err != nil {
		e.t.Fatal(err)
	}
	return dirs, rows
}

// writeTree writes files (path → content) under a new folder named name.
func writeTree(t *testing.T, name string, files map[string]string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	for p, body := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

type zipEntry struct {
	name, body string
	mode       fs.FileMode
	method     uint16
}

func makeZip(t testing.TB, entries ...zipEntry) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for _, e := range entries {
		h := &zip.FileHeader{Name: e.name, Method: e.method}
		if h.Method == 0 {
			h.Method = zip.Deflate
		}
		if e.mode != 0 {
			h.SetMode(e.mode)
		}
		f, err := w.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Write([]byte(e.body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func zipSource(name string, data []byte) Source {
	return Source{FileName: name, Base64: base64.StdEncoding.EncodeToString(data)}
}

// wantCode fails unless err carries code.
func wantCode(t *testing.T, err error, code string) *apperr.Error {
	t.Helper()
	e := apperr.As(err)
	if e == nil || e.Code != code {
		t.Fatalf("got %v, want %s", err, code)
	}
	return e
}

const pageManifest = `{"display_name":"Page One","js":"index.js","version":"1.0.0","author":"me"}`
const sandboxManifest = `{"display_name":"Mood","js":"x.js","hearth":{"id":"mood","mode":"sandboxed","entry":"index.html","permissions":["chat.read","state","ui.panel"]}}`
