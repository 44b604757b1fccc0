package skills

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"hearth/backend/apperr"
)

func skillMD(name, desc, body string) string {
	return "---\nname: " + name + "\ndescription: " + desc + "\nlicense: MIT\n---\n" + body
}

// write creates dir/rel with content, making parents.
func write(t *testing.T, dir, rel, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("symlinks unavailable: %v", err)
	}
}

// betaMD has a BOM, CRLF lines and a folded description.
const betaMD = "\uFEFF---\r\nname: beta\r\ndescription: >\r\n  Folded\r\n  text.\r\n---\r\n\r\nBeta body: Äpfel und Birnen."

// library builds a library with two good skills and one of every problem.
func library(t *testing.T) *Library {
	t.Helper()
	dir := t.TempDir()
	write(t, dir, "alpha/SKILL.md", skillMD("alpha", "Writes openings.", "# Alpha\nStart with weather.\n"))
	write(t, dir, "alpha/notes/extra.md", "ignored by the library")
	write(t, dir, "beta/SKILL.md", betaMD)
	write(t, dir, "broken-yaml/SKILL.md", "---\nname: [oops\n---\nbody")
	if err := os.Mkdir(filepath.Join(dir, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, dir, "mismatch/SKILL.md", skillMD("other", "x", "body"))
	write(t, dir, "Bad Name/SKILL.md", skillMD("bad", "x", "body"))
	write(t, dir, "no-name/SKILL.md", "---\ndescription: nameless\n---\nbody")
	write(t, dir, "nofront/SKILL.md", "# Just markdown\n")
	write(t, dir, "unclosed/SKILL.md", "---\nname: unclosed\n")
	write(t, dir, "list-name/SKILL.md", "---\nname:\n  - a\n---\n")
	write(t, dir, "alias-name/SKILL.md", "---\nx: &n alias-name\nname: *n\n---\n")
	write(t, dir, "huge/SKILL.md", skillMD("huge", "x", strings.Repeat("a", MaxFileBytes)))
	write(t, dir, "bigfront/SKILL.md", "---\nname: bigfront\nlong: "+strings.Repeat("x", MaxFrontMatterBytes)+"\n---\n")
	write(t, dir, ".install-123/SKILL.md", skillMD(".install-123", "x", "temp"))
	write(t, dir, "README.md", "loose file")
	outside := filepath.Join(t.TempDir(), "linked")
	write(t, outside, "SKILL.md", skillMD("linked", "x", "outside"))
	symlink(t, outside, filepath.Join(dir, "linked"))
	write(t, dir, "linkfile/real.md", skillMD("linkfile", "x", "body"))
	symlink(t, "real.md", filepath.Join(dir, "linkfile", "SKILL.md"))
	return Open(dir)
}

func TestListReportsProblems(t *testing.T) {
	t.Parallel()
	lib := library(t)
	skills, problems, err := lib.List(All())
	if err != nil {
		t.Fatal(err)
	}
	alphaSize := int64(len(skillMD("alpha", "Writes openings.", "# Alpha\nStart with weather.\n")))
	want := []Skill{
		{Name: "alpha", Description: "Writes openings.", Path: "alpha/SKILL.md", Bytes: alphaSize},
		{Name: "beta", Description: "Folded text.", Path: "beta/SKILL.md", Bytes: int64(len(betaMD))},
	}
	if !reflect.DeepEqual(skills, want) {
		t.Errorf("skills = %+v", skills)
	}
	wantProblems := map[string]string{
		"Bad Name":    "folder name is not a skill name",
		"alias-name":  "name in the front matter of SKILL.md must be a string",
		"bigfront":    "not closed by a line --- within 16 KiB",
		"broken-yaml": "not valid YAML",
		"empty":       "has no SKILL.md",
		"huge":        "larger than 1 MiB",
		"linked":      "is a symlink",
		"linkfile":    "must be a regular file",
		"list-name":   "must be a string",
		"mismatch":    `names the skill "other" but its folder is "mismatch"`,
		"no-name":     "has no name",
		"nofront":     "must start with a line ---",
		"unclosed":    "is not closed",
	}
	got := map[string]string{}
	for _, p := range problems {
		got[p.Dir] = p.Message
	}
	if len(got) != len(wantProblems) {
		t.Errorf("problems = %+v", problems)
	}
	for dir, msg := range wantProblems {
		if !strings.Contains(got[dir], msg) {
			t.Errorf("problem of %s = %q, want it to mention %q", dir, got[dir], msg)
		}
	}
	for _, p := range problems {
		if strings.Contains(p.Message, lib.Dir()) {
			t.Errorf("problem leaks the library path: %q", p.Message)
		}
	}

	none, problems, err := Open(filepath.Join(t.TempDir(), "missing")).List(All())
	if err != nil || len(none) != 0 || len(problems) != 0 || none == nil || problems == nil {
		t.Errorf("missing library = %v %v %v", none, problems, err)
	}
}

func TestFilters(t *testing.T) {
	t.Parallel()
	lib := library(t)
	for _, c := range []struct {
		name     string
		filter   Filter
		skills   string
		problems int
	}{
		{"all", All(), "alpha,beta", 13},
		{"empty visible is none", Filter{}, "", 0},
		{"deny only", Filter{Deny: []string{"alpha"}}, "", 0},
		{"prefix", Filter{Visible: []string{"a*"}}, "alpha", 1}, // alias-name
		{"exact", Filter{Visible: []string{"beta", "alpha"}}, "alpha,beta", 0},
		{"deny glob", Filter{Visible: []string{"*"}, Deny: []string{"b*", "*-*"}}, "alpha", 8},
		{"deny all", Filter{Visible: []string{"*"}, Deny: []string{"*"}}, "", 0},
		{"bad pattern matches nothing", Filter{Visible: []string{"["}}, "", 0},
		{"question mark", Filter{Visible: []string{"bet?"}}, "beta", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			skills, problems, err := lib.List(c.filter)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, s := range skills {
				names = append(names, s.Name)
			}
			if strings.Join(names, ",") != c.skills || len(problems) != c.problems {
				t.Errorf("skills %v, %d problems %+v", names, len(problems), problems)
			}
		})
	}
}

func TestSearch(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write(t, dir, "dialogue/SKILL.md", skillMD("dialogue", "Tighter dialogue.", "Cut tags. "+strings.Repeat("filler ", 40)+"Use ÄPFEL sparingly.\nEnd."))
	write(t, dir, "apfel/SKILL.md", skillMD("apfel", "About fruit.", "Nothing here."))
	write(t, dir, "fruit/SKILL.md", skillMD("fruit", "Mentions äpfel in the description.", "Body."))
	write(t, dir, "hidden/SKILL.md", skillMD("hidden", "x", "äpfel too"))
	for i := range 60 {
		name := "many-" + string(rune('a'+i/26)) + string(rune('a'+i%26))
		write(t, dir, name+"/SKILL.md", skillMD(name, "x", "needle"))
	}
	lib := Open(dir)
	f := Filter{Visible: []string{"*"}, Deny: []string{"hidden"}}

	hits, err := lib.Search("  äpfel ", f, 0)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, h := range hits {
		names = append(names, h.Name)
	}
	// name, then description, then body matches.
	if strings.Join(names, ",") != "fruit,dialogue" {
		t.Fatalf("hits = %+v", hits)
	}
	body := hits[1].Snippet
	if !strings.Contains(body, "Use ÄPFEL sparingly. End.") || !strings.HasPrefix(body, "…") || strings.Contains(body, "\n") {
		t.Errorf("snippet = %q", body)
	}
	if hits[0].Snippet != "Body." || hits[0].Description != "Mentions äpfel in the description." {
		t.Errorf("description hit = %+v", hits[0])
	}
	if hits, _ := lib.Search("APFEL", f, 0); len(hits) != 1 || hits[0].Name != "apfel" || hits[0].Snippet != "Nothing here." {
		t.Errorf("name hit = %+v", hits)
	}
	for _, c := range []struct{ limit, want int }{{0, 10}, {-3, 10}, {5, 5}, {50, 50}, {500, 50}} {
		if hits, err := lib.Search("needle", f, c.limit); err != nil || len(hits) != c.want {
			t.Errorf("limit %d: %d hits, %v", c.limit, len(hits), err)
		}
	}
	if hits, err := lib.Search("nothing matches this", f, 0); err != nil || hits == nil || len(hits) != 0 {
		t.Errorf("no hits = %v, %v", hits, err)
	}
	for _, q := range []string{"", "   ", strings.Repeat("q", MaxQuery+1)} {
		if _, err := lib.Search(q, f, 0); apperr.CodeOf(err) != apperr.CodeInvalidArgument {
			t.Errorf("query %q: %v", q, err)
		}
	}
}

func TestReadWindows(t *testing.T) {
	t.Parallel()
	lib := library(t)
	body := "Beta body: Äpfel und Birnen." // 28 runes, more bytes
	for _, c := range []struct {
		name       string
		start, max int
		text       string
		start2     int
		truncated  bool
	}{
		{"head", 0, 10, "Beta body:", 0, true},
		{"multibyte window", 11, 5, "Äpfel", 11, true},
		{"tail", 21, 100, "Birnen.", 21, false},
		{"all by default", 0, 0, body, 0, false},
		{"negative start", -5, 4, "Beta", 0, true},
		{"past the end", 99, 10, "", 28, false},
		{"exact end", 0, 28, body, 0, false},
	} {
		got, err := lib.Read("beta", All(), c.start, c.max)
		if err != nil {
			t.Fatal(err)
		}
		want := Text{Name: "beta", Text: c.text, StartChar: c.start2, TotalChars: 28, Truncated: c.truncated}
		if got != want {
			t.Errorf("%s: %+v, want %+v", c.name, got, want)
		}
	}
	for _, c := range []struct {
		name, skill string
		filter      Filter
		code        string
	}{
		{"hidden", "alpha", Filter{Visible: []string{"beta"}}, CodePolicyDenied},
		{"denied", "alpha", Filter{Visible: []string{"*"}, Deny: []string{"al*"}}, CodePolicyDenied},
		{"hidden and unknown", "ghost", Filter{}, CodePolicyDenied},
		{"unknown", "ghost", All(), CodeNotFound},
		{"not a name", "../alpha", All(), CodeNotFound},
		{"broken", "mismatch", All(), CodeInvalid},
		{"symlinked", "linked", All(), CodeInvalid},
		{"empty folder", "empty", All(), CodeInvalid},
	} {
		if _, err := lib.Read(c.skill, c.filter, 0, 10); apperr.CodeOf(err) != c.code {
			t.Errorf("%s: %v, want %s", c.name, err, c.code)
		}
	}
}

func TestBudget(t *testing.T) {
	t.Parallel()
	b := NewBudget(10, 25)
	for i, c := range []struct{ ask, want int }{{100, 10}, {5, 5}, {0, 10}, {3, 0}} {
		if got := b.Take(c.ask); got != c.want {
			t.Errorf("take %d: Take(%d) = %d, want %d", i, c.ask, got, c.want)
		}
	}
	b.Refund(7)
	if b.Remaining() != 7 {
		t.Errorf("remaining %d after refund", b.Remaining())
	}
	if d := NewBudget(0, -1); d.Take(0) != DefaultReadChars || d.Remaining() != DefaultRunChars-DefaultReadChars {
		t.Error("defaults")
	}

	lib := library(t)
	b = NewBudget(12, 30)
	// Only what is returned is charged: beta's body is 28 characters.
	got, err := lib.ReadWithin(b, "beta", All(), 21, 100)
	if err != nil || got.Text != "Birnen." || b.Remaining() != 23 {
		t.Fatalf("read = %+v, %v, remaining %d", got, err, b.Remaining())
	}
	got, _ = lib.ReadWithin(b, "beta", All(), 0, 100)
	if got.Text != "Beta body: Ä" || !got.Truncated || b.Remaining() != 11 {
		t.Errorf("clamped read = %+v, remaining %d", got, b.Remaining())
	}
	_, _ = lib.ReadWithin(b, "alpha", All(), 0, 0)
	_, err = lib.ReadWithin(b, "alpha", All(), 0, 0)
	if apperr.CodeOf(err) != CodeBudgetExhausted || b.Remaining() != 0 {
		t.Errorf("exhausted read: %v, remaining %d", err, b.Remaining())
	}
	// Policy comes first; failed reads cost nothing.
	if _, err := lib.ReadWithin(b, "alpha", Filter{}, 0, 0); apperr.CodeOf(err) != CodePolicyDenied {
		t.Errorf("hidden read once exhausted: %v", err)
	}
	b = NewBudget(10, 10)
	if _, err := lib.ReadWithin(b, "ghost", All(), 0, 0); apperr.CodeOf(err) != CodeNotFound || b.Remaining() != 10 {
		t.Errorf("failed read charged: %v, remaining %d", err, b.Remaining())
	}
}
