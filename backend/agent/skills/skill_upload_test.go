package skills

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"hearth/backend/apperr"
)

// TestInstallFiles installs a skill from uploaded files (a browser's
// folder pick, top folder included) and refuses paths that leave it,
// writing nothing.
func TestInstallFiles(t *testing.T) {
	t.Parallel()
	lib := Open(t.TempDir())
	skill := "---\nname: lantern-lore\ndescription: How the lanterns of the glade work.\n---\nThey burn blue near water.\n"
	got, err := lib.InstallFiles([]UploadFile{
		{Path: "lantern-lore/SKILL.md", Data: []byte(skill)},
		{Path: "lantern-lore/notes/colours.md", Data: []byte("blue, gold")},
	}, InstallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != "lantern-lore" {
		t.Fatalf("installed %+v", got)
	}
	if b, err := os.ReadFile(filepath.Join(lib.Dir(), "lantern-lore", "notes", "colours.md")); err != nil || string(b) != "blue, gold" {
		t.Fatalf("notes/colours.md: %q, %v", b, err)
	}
	if _, err := lib.InstallFiles([]UploadFile{{Path: "SKILL.md", Data: []byte(skill)}}, InstallOptions{}); apperr.CodeOf(err) != CodeExists {
		t.Fatalf("a second install: %v", err)
	}
	for _, p := range []string{"../SKILL.md", "/etc/SKILL.md", "a/../../x.md", "C:/x.md", "a/b/c/d/e/f/g/h/i.md"} {
		_, err := lib.InstallFiles([]UploadFile{{Path: "SKILL.md", Data: []byte(strings.Replace(skill, "lantern-lore", "other", 1))}, {Path: p, Data: []byte("x")}}, InstallOptions{})
		if apperr.CodeOf(err) != CodeInvalid {
			t.Errorf("path %q: %v", p, err)
		}
	}
	list, _, err := lib.List(All())
	if err != nil || len(list) != 1 {
		t.Fatalf("the library holds %+v, %v", list, err)
	}
}
