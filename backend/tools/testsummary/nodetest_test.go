package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadNodeTAP(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	got, err := readNodeTAP(&out, "testdata/nodetest.tap")
	if err != nil {
		t.Fatal(err)
	}
	// Two passed, one failed, one skipped (not counted).
	if got.passed != 2 || got.failed != 1 {
		t.Fatalf("counts = %+v, want 2 passed, 1 failed", got)
	}
	for _, want := range []string{"--- FAIL:   2 - fails", "--- FAIL: 1 - suite"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

func TestReadNodeTAPWithoutTotals(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "crashed.tap")
	if err := os.WriteFile(path, []byte("TAP version 13\n# Subtest: x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readNodeTAP(&bytes.Buffer{}, path); err == nil {
		t.Fatal("a report without totals was accepted")
	}
}

func TestReadChecks(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	got, err := readChecks(&out, "testdata/checks.json")
	if err != nil {
		t.Fatal(err)
	}
	if got.passed != 2 || got.failed != 1 {
		t.Fatalf("counts = %+v, want 2 passed, 1 failed", got)
	}
	if !strings.Contains(out.String(), "--- FAIL: iframe: forged call rejected\n    a PWNED character exists") {
		t.Errorf("output lacks the failing check:\n%s", out.String())
	}
}

func TestReadChecksNotOKWithoutFailingCheck(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "r.json")
	if err := os.WriteFile(path, []byte(`{"ok":false,"checks":[{"name":"a","ok":true}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := readChecks(&bytes.Buffer{}, path)
	if err != nil {
		t.Fatal(err)
	}
	if got.passed != 1 || got.failed != 1 {
		t.Fatalf("counts = %+v, want 1 passed, 1 failed", got)
	}
}
