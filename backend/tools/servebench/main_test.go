package main

import (
	"os"
	"strings"
	"testing"
)

// The line hearth serve prints (backend/cli/serve.go) gives the address
// and the launch token.
func TestServingLine(t *testing.T) {
	m := servingLine.FindStringSubmatch("Hearth is serving at http://127.0.0.1:41234/?token=AbC-d_0123456789012345678901234567890123456")
	if m == nil || m[1] != "http://127.0.0.1:41234/" || !strings.HasPrefix(m[2], "AbC-d_") {
		t.Fatalf("servingLine = %q", m)
	}
}

// rss reads this process's own VmRSS: some megabytes, not zero.
func TestRSS(t *testing.T) {
	mb, err := rss(os.Getpid())
	if err != nil {
		t.Skipf("no /proc here: %v", err)
	}
	if mb < 1 || mb > 1e5 {
		t.Fatalf("rss = %v MB", mb)
	}
}
