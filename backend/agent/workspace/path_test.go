package workspace

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"hearth/backend/apperr"
)

func TestClean(t *testing.T) {
	t.Parallel()
	all := Roots
	max512 := "output/" + strings.Repeat("x", 252) + "/" + strings.Repeat("y", 252)
	tests := []struct {
		name    string
		in      string
		visible []string
		want    string
		reason  string
	}{
		{name: "plain", in: "output/main.md", want: "output/main.md"},
		{name: "root itself", in: "output", want: "output"},
		{name: "dot segment inside", in: "output/./a.md", want: "output/a.md"},
		{name: "leading dot segment", in: "./output/a.md", want: "output/a.md"},
		{name: "empty segment", in: "output//a//b.md", want: "output/a/b.md"},
		{name: "trailing slash", in: "persist/state/", want: "persist/state"},
		{name: "hidden file", in: "scratch/.notes", want: "scratch/.notes"},
		{name: "spaces inside", in: "plan/my plan.md", want: "plan/my plan.md"},
		{name: "unicode two-dot leader is a name", in: "output/\u2025/x", want: "output/\u2025/x"},
		{name: "unicode name", in: "summaries/第一章.md", want: "summaries/第一章.md"},
		{name: "16 segments", in: "output" + strings.Repeat("/a", 15), want: "output" + strings.Repeat("/a", 15)},
		{name: "512 bytes", in: max512, want: max512},
		{name: "255-byte segment", in: "output/" + strings.Repeat("x", 255), want: "output/" + strings.Repeat("x", 255)},
		{name: "visible subset", in: "scratch/x", visible: []string{"scratch"}, want: "scratch/x"},

		{name: "empty", in: "", reason: ReasonEmpty},
		{name: "only dot", in: ".", reason: ReasonEmpty},
		{name: "only dot slash", in: "./", reason: ReasonEmpty},
		{name: "absolute", in: "/etc/passwd", reason: ReasonAbsolute},
		{name: "slash", in: "/", reason: ReasonAbsolute},
		{name: "absolute into root", in: "/output/x", reason: ReasonAbsolute},
		{name: "unc", in: "//server/share/x", reason: ReasonUNC},
		{name: "unc backslash", in: `\\server\share`, reason: ReasonUNC},
		{name: "backslash", in: `output\..\x`, reason: ReasonBackslash},
		{name: "backslash name", in: `output\a`, reason: ReasonBackslash},
		{name: "drive", in: "C:/x", reason: ReasonDrive},
		{name: "drive relative", in: "c:output/x", reason: ReasonDrive},
		{name: "colon", in: "output/a:stream", reason: ReasonColon},
		{name: "dotdot", in: "../x", reason: ReasonDotDot},
		{name: "dotdot escaping", in: "output/../../x", reason: ReasonDotDot},
		{name: "dotdot resolving inside", in: "output/a/../b", reason: ReasonDotDot},
		{name: "dotdot at end", in: "output/..", reason: ReasonDotDot},
		{name: "nul", in: "output/\x00", reason: ReasonNUL},
		{name: "nul in name", in: "output/a\x00.md", reason: ReasonNUL},
		{name: "control", in: "output/a\x01", reason: ReasonControl},
		{name: "newline", in: "output/a\nb", reason: ReasonControl},
		{name: "delete", in: "output/a\x7f", reason: ReasonControl},
		{name: "c1 control", in: "output/a\u0085", reason: ReasonControl},
		{name: "invalid utf8", in: "output/\xff", reason: ReasonInvalidUTF8},
		{name: "too long", in: max512 + "z", reason: ReasonTooLong},
		{name: "too deep", in: "output" + strings.Repeat("/a", 16), reason: ReasonTooDeep},
		{name: "segment too long", in: "output/" + strings.Repeat("x", 256), reason: ReasonSegmentTooLong},
		{name: "trailing dot", in: "output/a.", reason: ReasonTrailingDot},
		{name: "three dots", in: "output/.../x", reason: ReasonTrailingDot},
		{name: "trailing space", in: "output/a ", reason: ReasonTrailingDot},
		{name: "device", in: "output/CON", reason: ReasonReservedName},
		{name: "device lower with extension", in: "output/nul.txt", reason: ReasonReservedName},
		{name: "com port", in: "output/com1", reason: ReasonReservedName},
		{name: "lpt superscript", in: "output/LPT\u00b9", reason: ReasonReservedName},
		{name: "temp file name", in: "output/" + TmpPrefix + "x", reason: ReasonReservedName},
		{name: "unknown root", in: "secret/x", reason: ReasonNotVisible},
		{name: "root case differs", in: "OUTPUT/x", reason: ReasonNotVisible},
		{name: "hidden root", in: "scratch/x", visible: []string{"output"}, reason: ReasonNotVisible},
		{name: "visible but not a root", in: "secret/x", visible: []string{"secret"}, reason: ReasonNotVisible},
		{name: "no visible roots", in: "output/x", visible: []string{}, reason: ReasonNotVisible},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			visible := tc.visible
			if visible == nil {
				visible = all
			}
			got, err := Clean(tc.in, visible)
			if tc.reason == "" {
				if err != nil || got != tc.want {
					t.Fatalf("Clean(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
				}
				return
			}
			wantDenied(t, err, tc.reason)
		})
	}
}

func TestCleanDir(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, want, reason string
	}{
		{in: "", want: ""},
		{in: ".", want: ""},
		{in: "./", want: ""},
		{in: "output", want: "output"},
		{in: "output/sub/", want: "output/sub"},
		{in: "/", reason: ReasonAbsolute},
		{in: "..", reason: ReasonDotDot},
		{in: "secret", reason: ReasonNotVisible},
	}
	for _, tc := range tests {
		got, err := CleanDir(tc.in, Roots)
		if tc.reason == "" {
			if err != nil || got != tc.want {
				t.Errorf("CleanDir(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
			}
			continue
		}
		wantDenied(t, err, tc.reason)
	}
}

func TestDeniedErrorShape(t *testing.T) {
	t.Parallel()
	_, err := Clean("output/../x", Roots)
	e := apperr.As(err)
	if e == nil || e.Code != CodePathDenied {
		t.Fatalf("err = %v", err)
	}
	if !strings.Contains(e.Message, `"output/../x"`) || !strings.Contains(e.Message, "..") {
		t.Errorf("message %q names neither path nor reason", e.Message)
	}
	if e.Details["path"] != "output/../x" || e.Details["reason"] != ReasonDotDot {
		t.Errorf("details = %v", e.Details)
	}
	_, err = Clean(strings.Repeat("x", 1<<20), Roots)
	if e := apperr.As(err); e == nil || len(e.Message) > 2*MaxPathBytes {
		t.Errorf("a huge path is echoed in full: %d bytes", len(e.Message))
	}
}

func TestResolveSymlinks(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("symlinks need privileges on Windows")
	}
	base := t.TempDir()
	outside := filepath.Join(base, "outside")
	mkdir(t, outside)
	d, err := Open(filepath.Join(base, "ws"))
	if err != nil {
		t.Fatal(err)
	}
	mustWrite(t, d, "scratch/real.md", "real")
	links := map[string]string{
		"output/out":       outside,                                       // directory outside
		"output/in":        filepath.Join(d.Root(), "scratch"),            // directory inside
		"output/rel":       "../scratch",                                  // relative, inside
		"output/file-link": filepath.Join(d.Root(), "scratch", "real.md"), // a file inside
		"output/dangling":  filepath.Join(outside, "new.md"),              // to a file not yet there
	}
	for name, to := range links {
		if err := os.Symlink(to, filepath.Join(d.Root(), filepath.FromSlash(name))); err != nil {
			t.Fatal(err)
		}
	}
	// A whole root replaced by a link.
	if err := os.RemoveAll(filepath.Join(d.Root(), "plan")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(d.Root(), "plan")); err != nil {
		t.Fatal(err)
	}
	for _, rel := range []string{
		"output/out", "output/out/x.md", "output/out/a/b.md", "output/in/real.md", "output/rel/real.md",
		"output/file-link", "output/dangling", "plan/x.md",
	} {
		if _, err := d.Resolve(rel); apperr.CodeOf(err) != CodePathDenied {
			t.Errorf("Resolve(%q) err = %v, want path_denied", rel, err)
		}
		if err := d.Write(rel, []byte("x")); apperr.CodeOf(err) != CodePathDenied {
			t.Errorf("Write(%q) err = %v, want path_denied", rel, err)
		}
		if err := d.Append(rel, []byte("x")); apperr.CodeOf(err) != CodePathDenied {
			t.Errorf("Append(%q) err = %v, want path_denied", rel, err)
		}
		if _, err := d.Read(rel); apperr.CodeOf(err) != CodePathDenied {
			t.Errorf("Read(%q) err = %v, want path_denied", rel, err)
		}
		if err := d.Remove(rel); apperr.CodeOf(err) != CodePathDenied {
			t.Errorf("Remove(%q) err = %v, want path_denied", rel, err)
		}
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("files appeared outside the workspace: %v", entries)
	}
	files, _, err := d.List("output", 4)
	if err != nil || len(files) != 0 {
		t.Errorf("List follows links: %v, %v", files, err)
	}
	abs, err := d.Resolve("scratch/real.md")
	if err != nil || abs != filepath.Join(d.Root(), "scratch", "real.md") {
		t.Errorf("Resolve(scratch/real.md) = %q, %v", abs, err)
	}
}

func wantDenied(t *testing.T, err error, reason string) {
	t.Helper()
	e := apperr.As(err)
	if e == nil || e.Code != CodePathDenied {
		t.Fatalf("err = %v, want %s", err, CodePathDenied)
	}
	if e.Details["reason"] != reason {
		t.Fatalf("reason = %v, want %s (%s)", e.Details["reason"], reason, e.Message)
	}
}
