package workspace

import (
	"crypto/sha256"
	"encoding/hex"
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
	again, err := b.Put([]byte("same"))
	if err != nil || again != sha {
		t.Fatalf("Put again = %s, %v", again, err)
	}
	if fi, err := os.Stat(p); err != nil || !fi.ModTime().Equal(old) {
		t.Errorf("existing blob was rewritten (mtime %v)", fi.ModTime())
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

func TestBlobsPutReader(t *testing.T) {
	t.Parallel()
	_, b := newWorkspace(t)
	content := strings.Repeat("stream ", 1000)
	sha, n, err := b.putReader(strings.NewReader(content))
	if err != nil || n != int64(len(content)) {
		t.Fatalf("putReader = %s, %d, %v", sha, n, err)
	}
	if want, _ := b.Put([]byte(content)); want != sha {
		t.Errorf("putReader sha %s != Put sha %s", sha, want)
	}
	if _, _, err := b.putReader(strings.NewReader(content)); err != nil {
		t.Errorf("second putReader: %v", err)
	}
	assertNoTemp(t, b.dir)
}
