package workspace

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"hearth/backend/apperr"
)

func TestDiff(t *testing.T) {
	t.Parallel()
	d, b := newWorkspace(t)
	mustWrite(t, d, "output/main.md", "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\n")
	mustWrite(t, d, "output/same.md", "unchanged\n")
	mustWrite(t, d, "persist/state.json", `{"mood":"calm","hp":10,"tags":["a"]}`)
	mustWrite(t, d, "persist/format.json", `{"a":1}`)
	mustWrite(t, d, "scratch/gone.txt", "bye\n")
	mustWrite(t, d, "scratch/blob.bin", "\x00\x01\x02")
	from, _, err := Scan(d, b)
	if err != nil {
		t.Fatal(err)
	}
	mustWrite(t, d, "output/main.md", "one\ntwo\nthree\nfour\nFIVE\nsix\nseven\neight\n")
	mustWrite(t, d, "persist/state.json", `{"mood":"angry","hp":10,"tags":["a","b"]}`)
	mustWrite(t, d, "persist/format.json", "{\n  \"a\": 1\n}\n")
	mustWrite(t, d, "persist/new.json", `{"x":1}`)
	mustWrite(t, d, "scratch/blob.bin", "\x00\x01\x03")
	if err := d.Remove("scratch/gone.txt"); err != nil {
		t.Fatal(err)
	}
	to, _, err := Scan(d, b)
	if err != nil {
		t.Fatal(err)
	}

	diffs, err := Diff(b, from, to, "")
	if err != nil {
		t.Fatal(err)
	}
	byPath := map[string]FileDiff{}
	var order []string
	for _, fd := range diffs {
		byPath[fd.Path] = fd
		order = append(order, fd.Path+":"+fd.Status)
	}
	want := "output/main.md:modified persist/format.json:modified persist/new.json:added persist/state.json:modified scratch/blob.bin:modified scratch/gone.txt:deleted"
	if got := strings.Join(order, " "); got != want {
		t.Fatalf("diffs = %s\nwant    %s", got, want)
	}

	main := byPath["output/main.md"].Unified
	for _, line := range []string{"--- a/output/main.md\n", "+++ b/output/main.md\n", "@@ -2,7 +2,7 @@\n", "-five\n", "+FIVE\n", " two\n", " eight\n"} {
		if !strings.Contains(main, line) {
			t.Errorf("unified diff lacks %q:\n%s", line, main)
		}
	}
	if strings.Contains(main, " one\n") {
		t.Errorf("more than 3 lines of context:\n%s", main)
	}
	if u := byPath["scratch/gone.txt"].Unified; !strings.Contains(u, "-bye\n") {
		t.Errorf("deleted file diff:\n%s", u)
	}
	if u := byPath["scratch/blob.bin"].Unified; u != binaryDiffers {
		t.Errorf("binary diff = %q", u)
	}

	var patch []map[string]any
	if err := json.Unmarshal(byPath["persist/state.json"].JSONPatch, &patch); err != nil {
		t.Fatalf("patch %s: %v", byPath["persist/state.json"].JSONPatch, err)
	}
	ops := fmt.Sprint(patch)
	for _, want := range []string{"op:replace path:/mood value:angry", "op:add path:/tags/- value:b"} {
		if !strings.Contains(ops, want) {
			t.Errorf("patch %s lacks %s", ops, want)
		}
	}
	if p := string(byPath["persist/format.json"].JSONPatch); p != "[]" {
		t.Errorf("formatting-only patch = %s", p)
	}
	if p := byPath["persist/new.json"].JSONPatch; p != nil {
		t.Errorf("added file has a patch: %s", p)
	}
	if p := byPath["output/main.md"].JSONPatch; p != nil {
		t.Errorf("text file has a patch: %s", p)
	}

	only, err := Diff(b, from, to, "scratch/gone.txt")
	if err != nil || len(only) != 1 || only[0].Path != "scratch/gone.txt" {
		t.Errorf("only = %v, %v", only, err)
	}
	if none, err := Diff(b, from, to, "output/same.md"); err != nil || len(none) != 0 {
		t.Errorf("unchanged only = %v, %v", none, err)
	}
	if same, err := Diff(b, to, to, ""); err != nil || len(same) != 0 {
		t.Errorf("self diff = %v, %v", same, err)
	}
}

func TestDiffBounds(t *testing.T) {
	t.Parallel()
	d, b := newWorkspace(t)
	var old, cur strings.Builder
	for i := range 40000 {
		fmt.Fprintf(&old, "old line %d\n", i)
		fmt.Fprintf(&cur, "new line %d\n", i)
	}
	mustWrite(t, d, "output/long.md", old.String())
	from, _, err := Scan(d, b)
	if err != nil {
		t.Fatal(err)
	}
	mustWrite(t, d, "output/long.md", cur.String())
	to, _, err := Scan(d, b)
	if err != nil {
		t.Fatal(err)
	}
	diffs, err := Diff(b, from, to, "")
	if err != nil || len(diffs) != 1 {
		t.Fatalf("Diff = %v, %v", len(diffs), err)
	}
	u := diffs[0].Unified
	if len(u) > MaxUnifiedBytes+200 || !strings.Contains(u, "... diff truncated") {
		t.Errorf("unified is %d bytes, ends %q", len(u), u[max(len(u)-80, 0):])
	}

	missing := Manifest{"output/long.md": {SHA256: strings.Repeat("1", 64), Bytes: 3}}
	if _, err := Diff(b, from, missing, ""); apperr.CodeOf(err) != CodeBlobMissing {
		t.Errorf("missing blob err = %v", err)
	}
	huge := Manifest{"output/long.md": {SHA256: strings.Repeat("1", 64), Bytes: MaxFileBytes + 1}}
	if diffs, err := Diff(b, from, huge, ""); err != nil || diffs[0].Unified != tooLargeDiffers {
		t.Errorf("huge = %v, %v", diffs, err)
	}
}
