package wailsbridge_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"hearth/backend/apperr"
	"hearth/backend/characters"
	"hearth/backend/chats"
	"hearth/backend/host"
	"hearth/backend/presets"
	"hearth/backend/wailsbridge"
	"hearth/backend/worldinfo"
)

// fakeChats exports one known chat.
type fakeChats struct{}

func (fakeChats) ExportJsonl(_ context.Context, id string) (*chats.JsonlFile, error) {
	if id != "c1" {
		return nil, apperr.New(apperr.CodeChatNotFound, "no chat %q", id)
	}
	return &chats.JsonlFile{FileName: "Evening.jsonl", Text: "{\"chat_metadata\":{}}\n{\"mes\":\"hi\"}"}, nil
}

// fakeCards exports one known card as PNG or JSON.
type fakeCards struct{}

func (fakeCards) ExportCardBytes(_ context.Context, avatar string, opts characters.ExportOptions) (string, []byte, error) {
	if avatar != "Ash.png" {
		return "", nil, apperr.New("character.not_found", "no character %q", avatar)
	}
	if opts.Format == "json" {
		return "Ash.json", []byte(`{"spec":"chara_card_v3"}`), nil
	}
	return "Ash.png", []byte("\x89PNG card"), nil
}

// fakeBooks exports one known lorebook.
type fakeBooks struct{}

func (fakeBooks) Export(_ context.Context, name string) (worldinfo.Exported, error) {
	if name != "Eldoria" {
		return worldinfo.Exported{}, apperr.New(worldinfo.CodeNotFound, "no lorebook %q", name)
	}
	return worldinfo.Exported{FileName: "Eldoria.json", Text: `{"entries":{}}`}, nil
}

// fakePresets exports one known preset.
type fakePresets struct{}

func (fakePresets) Export(_ context.Context, id string) (*presets.Export, error) {
	if id != "p1" {
		return nil, apperr.New("preset.not_found", "no preset %q", id)
	}
	return &presets.Export{FileName: "Roleplay.json", JSON: []byte(`{"temperature":1,"prompts":[]}`)}, nil
}

func saveRouter(dialog wailsbridge.SaveDialog) *host.Router {
	r := host.NewRouter()
	wailsbridge.RegisterSaveFiles(r, wailsbridge.Exporters{Chats: fakeChats{}, Characters: fakeCards{}, WorldInfo: fakeBooks{}, Presets: fakePresets{}}, dialog)
	return r
}

func TestSaveJsonlWritesWherePicked(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	target := filepath.Join(dir, "picked.jsonl")
	if err := os.WriteFile(target, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	var suggested wailsbridge.SaveRequest
	r := saveRouter(func(_ context.Context, req wailsbridge.SaveRequest) (string, error) {
		suggested = req
		return target, nil
	})
	out, err := r.Invoke(context.Background(), "chat.saveJsonl", []byte(`["c1"]`))
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Saved bool   `json:"saved"`
		Path  string `json:"path"`
	}
	if err := json.Unmarshal(out, &res); err != nil || !res.Saved || res.Path != target {
		t.Fatalf("result %s, %v", out, err)
	}
	if suggested.FileName != "Evening.jsonl" || suggested.FilterGlobs != "*.jsonl" {
		t.Errorf("the dialog suggested %+v", suggested)
	}
	got, err := os.ReadFile(target)
	if err != nil || string(got) != "{\"chat_metadata\":{}}\n{\"mes\":\"hi\"}" {
		t.Fatalf("file holds %q, %v", got, err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("the directory holds %d entries; a temp file was left behind", len(entries))
	}
	// A chat is a person's conversation: the user's alone, whatever the umask.
	if st, err := os.Stat(target); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("the chat file's mode: %v, %v; want 0600", st.Mode().Perm(), err)
	}
}

func TestSaveJsonlCancelled(t *testing.T) {
	t.Parallel()
	r := saveRouter(func(context.Context, wailsbridge.SaveRequest) (string, error) { return "", nil })
	out, err := r.Invoke(context.Background(), "chat.saveJsonl", []byte(`["c1"]`))
	if err != nil || string(out) != `{"saved":false,"path":null}` {
		t.Fatalf("cancelled save = %s, %v", out, err)
	}
}

func TestSaveJsonlErrors(t *testing.T) {
	t.Parallel()
	shown := false
	r := saveRouter(func(context.Context, wailsbridge.SaveRequest) (string, error) { shown = true; return "", nil })
	for _, tc := range []struct{ args, code string }{
		{`["nope"]`, apperr.CodeChatNotFound},
		{`[]`, apperr.CodeInvalidArgument},
		{`[5]`, apperr.CodeInvalidArgument},
	} {
		if _, err := r.Invoke(context.Background(), "chat.saveJsonl", []byte(tc.args)); apperr.CodeOf(err) != tc.code {
			t.Errorf("saveJsonl %s = %v, want %s", tc.args, err, tc.code)
		}
	}
	if shown {
		t.Error("a dialog was shown for a call that could not save")
	}
	bad := saveRouter(func(context.Context, wailsbridge.SaveRequest) (string, error) {
		return filepath.Join(t.TempDir(), "missing", "dir", "x.jsonl"), nil
	})
	if _, err := bad.Invoke(context.Background(), "chat.saveJsonl", []byte(`["c1"]`)); apperr.CodeOf(err) != "desktop.write_failed" {
		t.Errorf("unwritable path = %v, want desktop.write_failed", err)
	}
}

func TestSaveJsonlOneDialogAtATime(t *testing.T) {
	t.Parallel()
	entered, release := make(chan struct{}), make(chan struct{})
	r := saveRouter(func(context.Context, wailsbridge.SaveRequest) (string, error) {
		close(entered)
		<-release
		return "", nil
	})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		_, _ = r.Invoke(context.Background(), "chat.saveJsonl", []byte(`["c1"]`))
	}()
	<-entered
	if _, err := r.Invoke(context.Background(), "chat.saveJsonl", []byte(`["c1"]`)); apperr.CodeOf(err) != "desktop.dialog_open" {
		t.Errorf("second save while the dialog is open = %v", err)
	}
	close(release)
	wg.Wait()
}

// TestSaveCardAndBook: characters.saveCard, worldinfo.saveBook and
// presets.saveFile write the card (PNG, or JSON when asked), the lorebook
// and the preset (indented as SillyTavern writes it) where the person
// picks, suggesting their file names; unknown ones fail before a dialog.
func TestSaveCardAndBook(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var asked []wailsbridge.SaveRequest
	r := saveRouter(func(_ context.Context, req wailsbridge.SaveRequest) (string, error) {
		asked = append(asked, req)
		return filepath.Join(dir, req.FileName), nil
	})
	for _, tc := range []struct{ method, args, file, body, glob string }{
		{"characters.saveCard", `["Ash.png"]`, "Ash.png", "\x89PNG card", "*.png"},
		{"characters.saveCard", `["Ash.png",{"format":"json"}]`, "Ash.json", `{"spec":"chara_card_v3"}`, "*.json"},
		{"worldinfo.saveBook", `["Eldoria"]`, "Eldoria.json", `{"entries":{}}`, "*.json"},
		{"presets.saveFile", `["p1"]`, "Roleplay.json", "{\n    \"temperature\": 1,\n    \"prompts\": []\n}", "*.json"},
	} {
		if _, err := r.Invoke(context.Background(), tc.method, []byte(tc.args)); err != nil {
			t.Fatalf("%s %s: %v", tc.method, tc.args, err)
		}
		got, err := os.ReadFile(filepath.Join(dir, tc.file))
		if err != nil || string(got) != tc.body {
			t.Errorf("%s wrote %q, %v", tc.file, got, err)
		}
		if last := asked[len(asked)-1]; last.FileName != tc.file || last.FilterGlobs != tc.glob {
			t.Errorf("%s %s: the dialog was asked %+v", tc.method, tc.args, last)
		}
	}
	n := len(asked)
	for _, tc := range []struct{ method, args, code string }{
		{"characters.saveCard", `["Nobody.png"]`, "character.not_found"},
		{"characters.saveCard", `["Ash.png",{"format":7}]`, apperr.CodeInvalidArgument},
		{"worldinfo.saveBook", `["Nowhere"]`, worldinfo.CodeNotFound},
		{"worldinfo.saveBook", `[]`, apperr.CodeInvalidArgument},
		{"presets.saveFile", `["nope"]`, "preset.not_found"},
	} {
		if _, err := r.Invoke(context.Background(), tc.method, []byte(tc.args)); apperr.CodeOf(err) != tc.code {
			t.Errorf("%s %s = %v, want %s", tc.method, tc.args, err, tc.code)
		}
	}
	if len(asked) != n {
		t.Error("a dialog was shown for a call that could not save")
	}
}
