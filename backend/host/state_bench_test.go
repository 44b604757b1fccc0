package host_test

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"

	"hearth/backend/app"
	"hearth/backend/internal/benchdir"
	"hearth/backend/internal/chatgen"
)

// The state benchmarks of issue 8, on their own generated 10,000-message
// chat carrying 20 floor-state namespaces of 500 commits each (every
// namespace commits on every 20th floor, in floor order, as commits made at
// the tail while the chat grew). Goals (make bench compares):
// deleting a middle message with its floor states settled ≤ 30 ms, an
// uncontended updateChatState round ≤ 1 ms, a branch at message 9,000
// (messages and state copied, floor states replayed) ≤ 200 ms.

const (
	stateBenchNamespaces = 20
	stateBenchCommits    = 500
)

type stateFixture struct {
	app    *app.App
	dir    string
	chatID string
	// middle is the next middle floor to delete: one carrying a commit of
	// every namespace. It moves down by one commit spacing per delete.
	middle int
}

// nextMiddle returns the next middle floor to delete. The lower half of
// the chat holds 125 of them; a run that uses them all up (many iterations
// on a fast machine, or -count) gets a fresh fixture, built untimed, so
// every delete meets the same shape of chat and logs.
func (fx *stateFixture) nextMiddle(b *testing.B) int {
	if fx.middle < benchChatSize/4 {
		b.StopTimer()
		fresh, err := buildStateFixture()
		if err != nil {
			b.Fatal(err)
		}
		fx.close()
		*fx = *fresh
		b.StartTimer()
	}
	floor := fx.middle
	fx.middle -= benchChatSize / stateBenchCommits
	return floor
}

// close closes the fixture's app and removes its data dir.
func (fx *stateFixture) close() {
	_ = fx.app.Close()
	_ = os.RemoveAll(fx.dir)
}

var (
	stateFixtureOnce sync.Once
	stateFx          *stateFixture
	stateFxErr       error
)

func loadStateFixture(b *testing.B) *stateFixture {
	b.Helper()
	stateFixtureOnce.Do(func() { stateFx, stateFxErr = buildStateFixture() })
	if stateFxErr != nil {
		b.Fatal(stateFxErr)
	}
	return stateFx
}

func buildStateFixture() (*stateFixture, error) {
	dir, err := benchdir.Make(benchDirPrefix)
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	a, err := app.Open(ctx, dir)
	if err != nil {
		return nil, err
	}
	var card struct {
		Avatar string `json:"avatar"`
	}
	if err := benchInvokeInto(ctx, a.Router, &card, "characters.create", map[string]any{"name": "Seraphina", "first_mes": "Hello {{user}}"}); err != nil {
		return nil, err
	}
	var sum struct {
		ChatID       string `json:"chatId"`
		MessageCount int    `json:"messageCount"`
	}
	if err := benchInvokeInto(ctx, a.Router, &sum, "chat.create", map[string]any{"avatar": card.Avatar}); err != nil {
		return nil, err
	}
	msgs := chatgen.Messages(chatgen.Options{Seed: 3, Messages: benchChatSize - sum.MessageCount, UserName: "User", CharName: "Seraphina"})
	if err := chatgen.Append(ctx, a.Router, sum.ChatID, msgs, 500); err != nil {
		return nil, err
	}
	fx := &stateFixture{app: a, dir: dir, chatID: sum.ChatID, middle: benchChatSize / 2}
	for j := 0; j < stateBenchCommits; j++ {
		for n := 0; n < stateBenchNamespaces; n++ {
			if err := fx.commit(ctx, n, j*benchChatSize/stateBenchCommits, j); err != nil {
				return nil, err
			}
		}
	}
	if err := settleSearchIndex(ctx, a); err != nil {
		return nil, err
	}
	return fx, nil
}

// commit adds key k<j> to namespace n at floor, as a reducer would.
func (fx *stateFixture) commit(ctx context.Context, n, floor, j int) error {
	var cur struct {
		Value map[string]any `json:"value"`
	}
	ns := fmt.Sprintf("bench%02d", n)
	if err := benchInvokeInto(ctx, fx.app.Router, &cur, "state.floorGet", fx.chatID, ns); err != nil {
		return err
	}
	next := map[string]any{}
	for k, v := range cur.Value {
		next[k] = v
	}
	next[fmt.Sprintf("k%d", j)] = map[string]any{"floor": floor, "summary": "The tavern fell quiet as the stranger spoke."}
	var out struct {
		Written bool `json:"written"`
	}
	return benchInvokeInto(ctx, fx.app.Router, &out, "state.floorUpdate", fx.chatID, ns, next, map[string]any{"floor": floor})
}

func BenchmarkState(b *testing.B) {
	fx := loadStateFixture(b)
	ctx := context.Background()

	b.Run("deleteMiddleSettle10k", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			// A middle floor whose commits were made when it was the tail (in
			// the middle of every log): each of the 20 namespaces loses one
			// and is replayed (about 500 commits each). Floors go in
			// descending order, so the ones below keep their commits.
			floor := fx.nextMiddle(b)
			benchInvoke(b, ctx, fx.app.Router, "chat.deleteMessages", fx.chatID, floor)
		}
		reportMsPerOp(b)
	})
	b.Run("updateChatState", func(b *testing.B) {
		inv := fx.app.Router
		var rev int64
		for i := 0; i < b.N; i++ {
			var round struct {
				Revision int64  `json:"revision"`
				Lease    string `json:"lease"`
			}
			if err := benchInvokeInto(ctx, inv, &round, "state.beginUpdate", fx.chatID, "counter"); err != nil {
				b.Fatal(err)
			}
			var out struct {
				Revision int64 `json:"revision"`
			}
			if err := benchInvokeInto(ctx, inv, &out, "state.setChatState", fx.chatID, "counter", map[string]any{"n": round.Revision + 1},
				map[string]any{"ifRevision": round.Revision, "lease": round.Lease}); err != nil {
				b.Fatal(err)
			}
			rev = out.Revision
		}
		reportMsPerOp(b)
		if rev == 0 {
			b.Fatal("nothing written")
		}
	})
	b.Run("branchAt9000", func(b *testing.B) {
		inv := fx.app.Router
		for i := 0; i < b.N; i++ {
			var br struct {
				ChatID string `json:"chatId"`
			}
			if err := benchInvokeInto(ctx, inv, &br, "chat.createBranch", fx.chatID, 9000); err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			benchInvoke(b, ctx, inv, "chat.delete", br.ChatID)
			b.StartTimer()
		}
		reportMsPerOp(b)
	})
}
