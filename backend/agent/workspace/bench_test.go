package workspace

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// seedWorkspace fills a workspace with n files of about 1 KiB spread over
// the roots and a few folders, written directly to keep setup fast.
func seedWorkspace(b *testing.B, n int) (*Dir, *Blobs, []string) {
	b.Helper()
	d, blobs := newWorkspace(b)
	paths := make([]string, n)
	for i := range n {
		rel := fmt.Sprintf("%s/d%d/f%04d.md", Roots[i%len(Roots)], i%10, i)
		abs := filepath.Join(d.Root(), filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(abs), 0o700); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(abs, fmt.Appendf(bytes.Repeat([]byte("x"), 1000), "%d", i), 0o600); err != nil {
			b.Fatal(err)
		}
		paths[i] = rel
	}
	return d, blobs, paths
}

// BenchmarkCheckpoint1000Files measures the issue's budget ("checkpoint of
// a 1,000-file workspace after one file changed ≤ 10 ms"): one file is
// rewritten per iteration, outside the timer, then Update checkpoints it.
func BenchmarkCheckpoint1000Files(b *testing.B) {
	d, blobs, paths := seedWorkspace(b, 1000)
	prev, _, err := Scan(d, blobs)
	if err != nil {
		b.Fatal(err)
	}
	i := 0
	for b.Loop() {
		b.StopTimer()
		p := paths[i%len(paths)]
		if err := d.Write(p, fmt.Appendf(bytes.Repeat([]byte("y"), 1000), "%d", i)); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		next, _, err := Update(d, blobs, prev, []string{p})
		if err != nil {
			b.Fatal(err)
		}
		prev = next
		i++
	}
}

// BenchmarkScan1000Files is the slow path Update avoids, for comparison.
func BenchmarkScan1000Files(b *testing.B) {
	d, blobs, _ := seedWorkspace(b, 1000)
	if _, _, err := Scan(d, blobs); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, _, err := Scan(d, blobs); err != nil {
			b.Fatal(err)
		}
	}
}
