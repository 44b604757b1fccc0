package host_test

import (
	"encoding/json"
	"testing"

	"hearth/backend/app/apptest"
)

// TestBeginUpdateRounds: a round on a namespace nobody holds starts at
// once, with the value; one that finds the lease held waits for it and
// then reads the value its holder wrote; a chat or a namespace that cannot
// be updated fails with its own error whether or not a round waits on it,
// and a failed round leaves no lease behind.
func TestBeginUpdateRounds(t *testing.T) {
	t.Parallel()
	e := apptest.NewEnv(t, nil)
	e.SetupChat(apptest.Three()...)
	e.Must(nil, "state.setChatState", e.ChatID, "counter", map[string]any{"n": 1})
	e.Must(nil, "state.floorUpdate", e.ChatID, "fs", map[string]any{"x": 1}, nil)

	type round struct {
		Value    json.RawMessage `json:"value"`
		Revision int64           `json:"revision"`
		Lease    string          `json:"lease"`
	}
	var first round
	e.Must(&first, "state.beginUpdate", e.ChatID, "counter")
	apptest.Eq(t, "first round's value", string(first.Value), `{"n":1}`)

	// A second round waits for the first, and reads what it wrote.
	second := make(chan round, 1)
	failed := make(chan error, 1)
	go func() {
		var r round
		raw, err := e.Call("state.beginUpdate", e.ChatID, "counter")
		if err == nil {
			err = json.Unmarshal(raw, &r)
		}
		if err != nil {
			failed <- err
			return
		}
		second <- r
	}()
	// Errors do not wait behind the held lease.
	for _, c := range []struct{ chat, ns, code string }{
		{"no-such-chat", "counter", "chat.not_found"},
		{e.ChatID, "fs", "state.floor_owned"},
		{e.ChatID, "fs__floor_log", "state.reserved_namespace"},
	} {
		for range 2 {
			if _, err := e.Call("state.beginUpdate", c.chat, c.ns); apptest.Code(err) != c.code {
				t.Errorf("beginUpdate(%s, %s): %v, want %s", c.chat, c.ns, err, c.code)
			}
		}
	}
	e.Must(nil, "state.setChatState", e.ChatID, "counter", map[string]any{"n": 2},
		map[string]any{"ifRevision": first.Revision, "lease": first.Lease})
	select {
	case err := <-failed:
		t.Fatal(err)
	case r := <-second:
		apptest.Eq(t, "second round's value", string(r.Value), `{"n":2}`)
		if r.Revision <= first.Revision || r.Lease == "" || r.Lease == first.Lease {
			t.Errorf("second round: revision %d lease %q, after revision %d lease %q", r.Revision, r.Lease, first.Revision, first.Lease)
		}
		e.Must(nil, "state.endUpdate", e.ChatID, "counter", r.Lease)
	}
	// Nothing is held now: a new round starts, and ends unwritten.
	var third round
	e.Must(&third, "state.beginUpdate", e.ChatID, "counter")
	e.Must(nil, "state.endUpdate", e.ChatID, "counter", third.Lease)
}
