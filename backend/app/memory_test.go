package app

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestIdleReleaser: a release comes once after the last of a burst of
// large calls, none without one, and none after close.
func TestIdleReleaser(t *testing.T) {
	t.Parallel()
	released := make(chan struct{}, 4)
	r := newIdleReleaser(20*time.Millisecond, func() { released <- struct{}{} })
	select {
	case <-released:
		t.Fatal("released with no large call")
	case <-time.After(60 * time.Millisecond):
	}
	for range 5 {
		r.large()
	}
	<-released
	select {
	case <-released:
		t.Fatal("one burst released twice")
	case <-time.After(60 * time.Millisecond):
	}
	r.large()
	r.close()
	select {
	case <-released:
		t.Fatal("released after close")
	case <-time.After(60 * time.Millisecond):
	}
}

// TestReleaseMemoryKeepsData: after the app releases its caches, with a
// large chat just read, reads and writes go on as before.
func TestReleaseMemoryKeepsData(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, err := Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	call := func(method, args string) string {
		t.Helper()
		out, err := a.Router.Invoke(ctx, method, []byte(args))
		if err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		return string(out)
	}
	card := call("characters.create", `[{"name":"Ada"}]`)
	avatar := card[strings.Index(card, `"avatar":"`)+10:]
	avatar = avatar[:strings.IndexByte(avatar, '"')]
	chat := call("chat.create", `[{"avatar":"`+avatar+`"}]`)
	id := chat[strings.Index(chat, `"chatId":"`)+10:]
	id = id[:strings.IndexByte(id, '"')]
	body := strings.Repeat("x", 2<<20)
	call("chat.addMessages", `["`+id+`",[{"mes":"`+body+`"}]]`)
	before := call("chat.count", `["`+id+`"]`)
	a.ReleaseMemory(ctx)
	if got := call("chat.getStMessages", `["`+id+`"]`); !strings.Contains(got, body) {
		t.Fatal("the message is gone after ReleaseMemory")
	}
	call("chat.addMessages", `["`+id+`",[{"mes":"after"}]]`)
	n0, _ := strconv.Atoi(before)
	if got, _ := strconv.Atoi(call("chat.count", `["`+id+`"]`)); got != n0+1 {
		t.Fatalf("count after a write past the release = %d, was %d", got, n0)
	}
}
