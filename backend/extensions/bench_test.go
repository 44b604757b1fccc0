package extensions

import (
	"context"
	"encoding/base64"
	"fmt"
	"math/rand"
	"path/filepath"
	"strings"
	"testing"

	"hearth/backend/events"
	"hearth/backend/store"
)

// benchPackage is a realistic 5 MB extension as a zip: 40 files, a few
// scripts and styles (text that compresses) and binary assets (images,
// fonts, wasm: random bytes, which do not).
func benchPackage(b *testing.B) []byte {
	b.Helper()
	r := rand.New(rand.NewSource(42))
	entries := []zipEntry{{name: "mood/manifest.json", body: `{"display_name":"Mood","hearth":{"id":"mood","mode":"sandboxed",` +
		`"entry":"index.html","permissions":["chat.read","state","ui.panel"]}}`}, {name: "mood/index.html", body: "<!doctype html><script src=js/app0.js></script>"}}
	line := "export function render(state) { return `<div class=\"mood\">${state.mood}</div>`; }\n"
	for i := range 6 {
		entries = append(entries, zipEntry{name: fmt.Sprintf("mood/js/app%d.js", i), body: strings.Repeat(line, 1500)})
	}
	for i := range 4 {
		entries = append(entries, zipEntry{name: fmt.Sprintf("mood/css/style%d.css", i), body: strings.Repeat(".mood { color: #abc; margin: 0 4px; }\n", 800)})
	}
	kinds := []string{"png", "webp", "woff2", "wasm"}
	for i := range 28 {
		blob := make([]byte, 181<<10)
		r.Read(blob)
		entries = append(entries, zipEntry{name: fmt.Sprintf("mood/assets/a%02d.%s", i, kinds[i%len(kinds)]), body: string(blob)})
	}
	data := makeZip(b, entries...)
	if n := len(data); n < 5<<20-256<<10 || n > 5<<20+256<<10 {
		b.Fatalf("the package zips to %d bytes, not about 5 MiB", n)
	}
	return data
}

// BenchmarkInstallZip5MB installs an uploaded 5 MB zip (the base64 an
// upload sends, decoded, unpacked, checked, moved into place and
// registered) into a data dir with real SQLite. Goal: 300 ms (the
// removal between rounds is not timed).
func BenchmarkInstallZip5MB(b *testing.B) {
	ctx := context.Background()
	root := b.TempDir()
	db, err := store.Open(ctx, filepath.Join(root, "hearth.db"), store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	bus := events.NewBus()
	defer bus.Close()
	svc := New(db, bus, Options{Dir: filepath.Join(root, "extensions")})
	data := benchPackage(b)
	src := Source{FileName: "mood.zip", Base64: base64.StdEncoding.EncodeToString(data)}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := svc.Install(ctx, src, InstallOptions{Enable: true}); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if err := svc.Remove(ctx, "mood", RemoveOptions{Clean: true}); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
}
