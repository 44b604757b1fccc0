package workspace

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"hearth/backend/apperr"
)

func TestBlobsPutGet(t *testing.T) {
	t.Parallel()
	_, b := newWorkspace(t)
	for _, content := range []string{"", "hello", strings.Repeat("x", 1<<20), "\x00binary\xff"} {
		sha, err := b.Put([]byte(content))
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256([]byte(content))
		if sha != hex.EncodeToString(sum[:]) {
			t.Errorf("sha = %s", sha)
		}
		if _, err := os.Stat(filepath.Join(b.dir, sha[:2], sha)); err != nil {
			t.Errorf("not fanned out: %v", err)
		}
		got, err := b.Get(sha)
		if err != nil || string(got) != content {
			t.Errorf("Get = %d bytes, %v", len(got), err)
		}
		if !b.Has(sha) {
			t.Error("Has = false")
		}
		if got, err := b.Get(strings.ToUpper(sha)); err != nil || string(got) != content {
			t.Errorf("Get(upper) = %v", err)
		}
	}
	assertNoTemp(t, b.dir)
}

func TestBlobsPutIsIdempotent(t *testing.T) {
	t.Parallel()
	_, b := newWorkspace(t)
	sha, err := b.Put([]byte("same"))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(b.dir, sha[:2], sha)
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	if err := os.Chtimes(p, old, old); err != nil {
		t.Fatal(err)
	}
	before, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	again, err := b.Put([]byte("same"))
	if err != nil || again != sha {
		t.Fatalf("Put again = %s, %v", again, err)
	}
	// The same file, not a rewrite, marked as used now (a sweep spares it).
	after, err := os.Stat(p)
	if err != nil || !os.SameFile(before, after) {
		t.Errorf("existing blob was rewritten (%v)", err)
	}
	if !after.ModTime().After(old) {
		t.Errorf("storing the content again left the blob's mtime at %v", after.ModTime())
	}
	entries, err := os.ReadDir(filepath.Join(b.dir, sha[:2]))
	if err != nil || len(entries) != 1 {
		t.Errorf("fan-out dir holds %d entries, %v", len(entries), err)
	}
}

func TestBlobsRefuseBadSHA(t *testing.T) {
	t.Parallel()
	_, b := newWorkspace(t)
	valid := strings.Repeat("ab", 32)
	tests := []struct {
		name, sha, code string
	}{
		{name: "empty", sha: "", code: apperr.CodeInvalidArgument},
		{name: "short", sha: "abc", code: apperr.CodeInvalidArgument},
		{name: "long", sha: valid + "00", code: apperr.CodeInvalidArgument},
		{name: "not hex", sha: strings.Repeat("g", 64), code: apperr.CodeInvalidArgument},
		{name: "traversal", sha: "../../../../etc/passwd" + strings.Repeat("0", 42), code: apperr.CodeInvalidArgument},
		{name: "separator", sha: "ab/" + strings.Repeat("0", 61), code: apperr.CodeInvalidArgument},
		{name: "missing", sha: valid, code: CodeBlobMissing},
	}
	for _, tc := range tests {
		if _, err := b.Get(tc.sha); apperr.CodeOf(err) != tc.code {
			t.Errorf("%s: Get err = %v, want %s", tc.name, err, tc.code)
		}
		if b.Has(tc.sha) {
			t.Errorf("%s: Has = true", tc.name)
		}
	}
}

func TestBlobsDetectCorruption(t *testing.T) {
	t.Parallel()
	_, b := newWorkspace(t)
	sha, err := b.Put([]byte("original"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(b.dir, sha[:2], sha), []byte("tampered"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Get(sha); apperr.CodeOf(err) != CodeBlobCorrupt {
		t.Errorf("Get err = %v, want %s", err, CodeBlobCorrupt)
	}
}

func TestBlobsSweep(t *testing.T) {
	t.Parallel()
	_, b := newWorkspace(t)
	keep, err := b.Put([]byte("named by a checkpoint"))
	if err != nil {
		t.Fatal(err)
	}
	drop, err := b.Put([]byte("named by nothing"))
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := b.Put([]byte("stored a moment ago"))
	if err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	for _, sha := range []string{keep, drop} {
		if err := os.Chtimes(filepath.Join(b.dir, sha[:2], sha), old, old); err != nil {
			t.Fatal(err)
		}
	}
	stale := filepath.Join(b.dir, ".hearth-tmp-stale")
	foreign := filepath.Join(b.dir, sha256Hex("x")[:2], "notes.txt")
	for _, p := range []string{stale, foreign} {
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	st, err := b.Sweep(context.Background(), func(sha string) bool { return sha == keep }, time.Now().Add(-10*time.Minute))
	if err != nil || st.Blobs != 1 || st.Temps != 1 || st.Bytes != int64(len("named by nothing")+1) {
		t.Fatalf("sweep %+v, %v", st, err)
	}
	for sha, want := range map[string]bool{keep: true, drop: false, fresh: true} {
		if b.Has(sha) != want {
			t.Errorf("blob %s present = %v, want %v", sha[:8], !want, want)
		}
	}
	if _, err := os.Stat(foreign); err != nil {
		t.Errorf("the sweep removed a file that is no blob: %v", err)
	}
	if _, err := os.Stat(stale); err == nil {
		t.Error("a stale temp file survived")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := b.Sweep(ctx, func(string) bool { return false }, time.Now()); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled sweep: %v", err)
	}
	if !b.Has(keep) {
		t.Error("a cancelled sweep removed a blob")
	}
}

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}
