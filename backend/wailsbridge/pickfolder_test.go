package wailsbridge_test

import (
	"context"
	"strings"
	"testing"

	"hearth/backend/apperr"
	"hearth/backend/host"
	"hearth/backend/wailsbridge"
)

// TestPickFolder: library.pickFolder answers the folder picked, or
// picked false when the person cancelled; a bad title is refused before
// any dialog shows.
func TestPickFolder(t *testing.T) {
	t.Parallel()
	var titles []string
	answer := "/home/u/SillyTavern/data/default-user"
	r := host.NewRouter()
	wailsbridge.RegisterPickFolder(r, func(_ context.Context, title string) (string, error) {
		titles = append(titles, title)
		return answer, nil
	})
	out, err := r.Invoke(context.Background(), "library.pickFolder", []byte(`[{"title":"Import a SillyTavern library"}]`))
	if err != nil || string(out) != `{"picked":true,"path":"/home/u/SillyTavern/data/default-user"}` {
		t.Fatalf("pick = %s, %v", out, err)
	}
	answer = ""
	out, err = r.Invoke(context.Background(), "library.pickFolder", nil)
	if err != nil || string(out) != `{"picked":false,"path":null}` {
		t.Fatalf("cancelled pick = %s, %v", out, err)
	}
	if len(titles) != 2 || titles[0] != "Import a SillyTavern library" || titles[1] != "Choose a folder" {
		t.Errorf("dialog titles %q", titles)
	}
	for _, args := range []string{`[{"title":5}]`, `[{"title":"` + strings.Repeat("x", 201) + `"}]`} {
		if _, err := r.Invoke(context.Background(), "library.pickFolder", []byte(args)); apperr.CodeOf(err) != apperr.CodeInvalidArgument {
			t.Errorf("pick %s = %v", args, err)
		}
	}
	if len(titles) != 2 {
		t.Error("a dialog was shown for a refused call")
	}
}
