package wailsbridge_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"hearth/backend/apperr"
	"hearth/backend/chats"
	"hearth/backend/host"
	"hearth/backend/wailsbridge"
)

// fakeChats exports one known chat.
type fakeChats struct{}

func (fakeChats) ExportJsonl(_ context.Context, id string) (*chats.JsonlFile, error) {
	if id != "c1" {
		return nil, apperr.New(apperr.CodeChatNotFound, "no chat %q", id)
	}
	return &chats.JsonlFile{FileName: "Evening.jsonl", Text: "{\"chat_metadata\":{}}\n{\"mes\":\"hi\"}"}, nil
}

func saveRouter(dialog wailsbridge.SaveDialog) *host.Router {
	r := host.NewRouter()
	wailsbridge.RegisterSaveJsonl(r, fakeChats{}, dialog)
	return r
}

func TestSaveJsonlWritesWherePicked(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	target := filepath.Join(dir, "picked.jsonl")
	if err := os.WriteFile(target, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	var suggested string
	r := saveRouter(func(_ context.Context, name string) (string, error) { suggested = name; return target, nil })
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
	if suggested != "Evening.jsonl" {
		t.Errorf("the dialog suggested %q", suggested)
	}
	got, err := os.ReadFile(target)
	if err != nil || string(got) != "{\"chat_metadata\":{}}\n{\"mes\":\"hi\"}" {
		t.Fatalf("file holds %q, %v", got, err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("the directory holds %d entries; a temp file was left behind", len(entries))
	}
}

func TestSaveJsonlCancelled(t *testing.T) {
	t.Parallel()
	r := saveRouter(func(context.Context, string) (string, error) { return "", nil })
	out, err := r.Invoke(context.Background(), "chat.saveJsonl", []byte(`["c1"]`))
	if err != nil || string(out) != `{"saved":false,"path":null}` {
		t.Fatalf("cancelled save = %s, %v", out, err)
	}
}

func TestSaveJsonlErrors(t *testing.T) {
	t.Parallel()
	shown := false
	r := saveRouter(func(context.Context, string) (string, error) { shown = true; return "", nil })
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
	bad := saveRouter(func(context.Context, string) (string, error) {
		return filepath.Join(t.TempDir(), "missing", "dir", "x.jsonl"), nil
	})
	if _, err := bad.Invoke(context.Background(), "chat.saveJsonl", []byte(`["c1"]`)); apperr.CodeOf(err) != "desktop.write_failed" {
		t.Errorf("unwritable path = %v, want desktop.write_failed", err)
	}
}

func TestSaveJsonlOneDialogAtATime(t *testing.T) {
	t.Parallel()
	entered, release := make(chan struct{}), make(chan struct{})
	r := saveRouter(func(context.Context, string) (string, error) {
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
