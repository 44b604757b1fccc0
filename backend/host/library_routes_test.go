package host_test

import (
	"os"
	"path/filepath"
	"testing"

	"hearth/backend/app/apptest"
	"hearth/backend/events"
)

// TestLibraryRoutes: library.importST takes {path} (or the bare path),
// answers the summary and reports LIBRARY_PROGRESS while it runs;
// library.exportST writes the folder; bad arguments and folders are
// refused with their codes.
func TestLibraryRoutes(t *testing.T) {
	t.Parallel()
	e := apptest.NewEnv(t, nil)
	fixture, err := filepath.Abs(filepath.Join("..", "library", "testdata", "default-user"))
	if err != nil {
		t.Fatal(err)
	}
	var sum struct {
		Imported struct {
			Characters int `json:"characters"`
			Chats      int `json:"chats"`
			Lorebooks  int `json:"lorebooks"`
		} `json:"imported"`
		Skipped []struct{ Kind, Path, Reason string } `json:"skipped"`
		Failed  []any                                 `json:"failed"`
	}
	e.Must(&sum, "library.importST", map[string]any{"path": fixture})
	if sum.Imported.Characters != 10 || sum.Imported.Chats != 4 || sum.Imported.Lorebooks != 5 || len(sum.Failed) != 0 || len(sum.Skipped) == 0 {
		t.Fatalf("importST = %+v", sum)
	}
	progress := 0
	for _, ev := range e.Events() {
		if p, ok := ev.Payload.(*events.LibraryProgressPayload); ok {
			progress++
			if p.Op != "import" || p.Phase == "" {
				t.Errorf("progress event %+v", p)
			}
		}
	}
	if progress == 0 {
		t.Error("no LIBRARY_PROGRESS events")
	}
	e.Must(&sum, "library.importST", fixture)
	if sum.Imported.Characters != 0 {
		t.Errorf("second import stored %+v", sum.Imported)
	}

	out := filepath.Join(t.TempDir(), "st")
	var exp struct {
		Folder   string `json:"folder"`
		Exported struct {
			Characters int `json:"characters"`
		} `json:"exported"`
	}
	e.Must(&exp, "library.exportST", map[string]any{"path": out})
	if exp.Exported.Characters != 10 || exp.Folder != out {
		t.Errorf("exportST = %+v", exp)
	}
	if _, err := os.Stat(filepath.Join(out, "settings.json")); err != nil {
		t.Error(err)
	}
	for _, tc := range []struct {
		method string
		args   []any
		code   string
	}{
		{"library.importST", nil, "validation.invalid_argument"},
		{"library.importST", []any{map[string]any{"path": ""}}, "validation.invalid_argument"},
		{"library.importST", []any{map[string]any{"path": t.TempDir()}}, "library.not_sillytavern"},
		{"library.exportST", []any{map[string]any{"path": out}}, "library.target_not_empty"},
		{"library.exportST", []any{42}, "validation.invalid_argument"},
	} {
		if _, err := e.Call(tc.method, tc.args...); apptest.Code(err) != tc.code {
			t.Errorf("%s %v: %v, want %s", tc.method, tc.args, err, tc.code)
		}
	}
}
