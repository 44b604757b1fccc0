package httpapi_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"

	"hearth/backend/app/apptest"
	"hearth/backend/apperr"
	"hearth/backend/transport/httpapi"
)

// updateRound is one updateChatState round as the ABI runs it (api-state.ts):
// take a turn, read, compute, write with ifRevision and the lease. Plain
// writers skip the turn and rely on ifRevision alone.
func updateRound(ctx context.Context, c httpapi.Invoker, chatID string, plain bool) (bool, error) {
	call := func(dst any, method string, args ...any) error {
		raw, _ := json.Marshal(args)
		out, err := c.Invoke(ctx, method, raw)
		if err != nil || dst == nil {
			return err
		}
		return json.Unmarshal(out, dst)
	}
	var round struct {
		Value    *struct{ N int } `json:"value"`
		Revision int64            `json:"revision"`
		Lease    string           `json:"lease"`
	}
	if plain {
		var e *struct {
			Value    struct{ N int } `json:"value"`
			Revision int64           `json:"revision"`
		}
		if err := call(&e, "state.getChatState", chatID, "counter"); err != nil {
			return false, err
		}
		if e != nil {
			round.Value, round.Revision = &e.Value, e.Revision
		}
	} else if err := call(&round, "state.beginUpdate", chatID, "counter"); err != nil {
		return false, err
	}
	n := 0
	if round.Value != nil {
		n = round.Value.N
	}
	err := call(nil, "state.setChatState", chatID, "counter", map[string]int{"n": n + 1},
		map[string]any{"ifRevision": round.Revision, "lease": round.Lease})
	var he *apperr.Error
	if errors.As(err, &he) && he.Code == apperr.CodeStateConflict {
		return false, nil
	}
	return err == nil, err
}

// TestUpdateChatStateLosesNothing has ten clients, each with its own
// connection and session, increment one namespace 100 times through HTTP,
// the way updateChatState does. The count ends at exactly 1,000. When all
// take turns, none ever conflicts, so none comes near the ABI's 8 retries;
// when two skip the queue and race with ifRevision alone, updates still
// are never lost.
func TestUpdateChatStateLosesNothing(t *testing.T) {
	t.Parallel()
	for _, plainWriters := range []int{0, 2} {
		t.Run(map[int]string{0: "all queued", 2: "two racing"}[plainWriters], func(t *testing.T) {
			t.Parallel()
			countToThousand(t, plainWriters)
		})
	}
}

// concurrencyToken is the launch token of countToThousand's server.
const concurrencyToken = "concurrency-launch-token"

func countToThousand(t *testing.T, plainWriters int) {
	e := apptest.NewEnv(t, nil)
	e.SetupChat()
	url := func() string {
		srv, err := httpapi.New(httpapi.Config{Router: e.App.Router, Bus: e.App.Bus, Avatars: e.App.Characters, Addr: "127.0.0.1:0", Token: concurrencyToken})
		if err != nil {
			t.Fatalf("new server: %v", err)
		}
		u, err := srv.Start(context.Background())
		if err != nil {
			t.Fatalf("start server: %v", err)
		}
		t.Cleanup(func() { srv.Close() })
		return u
	}()
	const writers, increments = 10, 100
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	worst := make([]int, writers)
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			c := httpapi.NewClient(url, concurrencyToken)
			plain := w < plainWriters
			for i := 0; i < increments; i++ {
				for attempt := 0; ; attempt++ {
					ok, err := updateRound(ctx, c, e.ChatID, plain)
					if err != nil {
						errs <- err
						return
					}
					if ok {
						worst[w] = max(worst[w], attempt)
						break
					}
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	var got struct {
		Value struct{ N int } `json:"value"`
	}
	e.Must(&got, "state.getChatState", e.ChatID, "counter")
	if got.Value.N != writers*increments {
		t.Fatalf("counter = %d, want %d", got.Value.N, writers*increments)
	}
	if plainWriters > 0 {
		return
	}
	for w, n := range worst {
		if n > 0 {
			t.Errorf("queued writer %d met %d conflicts", w, n)
		}
	}
}
