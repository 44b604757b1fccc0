package host_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"runtime"
	"sync"
	"testing"
	"time"

	"hearth/backend/app"
	"hearth/backend/internal/benchdir"
	"hearth/backend/internal/chatgen"
)

// Issue 38: opening a 10k group chat must be as fast as opening a 10k
// character's chat. BenchmarkChatOpen10k opens both as a window does
// (frontend/src/abi/chat-load.ts): chat.get, the newest 100 messages
// (firstPage: what the window paints first), then the rest in pages of
// 1,000 going back, then chat.get again (whole). The group chat is the
// same generated chat with each reply by one of three members (name,
// original_avatar, force_avatar as a group turn writes them). The window
// reads no group to open a group chat: getContext().groups holds every
// group from its start, kept live by GROUP_* events (groups-cache.ts).
// Goal: the group's time at most 1.1 times the character chat's.

// openFixture is an app holding both 10k chats, built once per process.
type openFixture struct {
	app     *app.App
	oneChat string
	grpChat string
}

var (
	openOnce sync.Once
	openFx   *openFixture
	openErr  error
)

func loadOpenFixture(b *testing.B) *openFixture {
	b.Helper()
	openOnce.Do(func() { openFx, openErr = buildOpenFixture() })
	if openErr != nil {
		b.Fatal(openErr)
	}
	return openFx
}

func buildOpenFixture() (*openFixture, error) {
	ctx := context.Background()
	dir, err := benchdir.Make(benchDirPrefix)
	if err != nil {
		return nil, err
	}
	a, err := app.Open(ctx, dir)
	if err != nil {
		return nil, err
	}
	fx := &openFixture{app: a}
	var avatars []string
	for _, name := range []string{"Seraphina", "Orrin", "Lysa"} {
		var card struct {
			Avatar string `json:"avatar"`
		}
		if err := benchInvokeInto(ctx, a.Router, &card, "characters.create", map[string]any{"name": name, "first_mes": "Hello {{user}}, I am {{char}}."}); err != nil {
			return nil, err
		}
		avatars = append(avatars, card.Avatar)
	}
	var group struct {
		ID string `json:"id"`
	}
	if err := benchInvokeInto(ctx, a.Router, &group, "groups.create", map[string]any{"members": avatars}); err != nil {
		return nil, err
	}
	var one, grp struct {
		ChatID       string `json:"chatId"`
		MessageCount int    `json:"messageCount"`
	}
	if err := benchInvokeInto(ctx, a.Router, &one, "chat.create", map[string]any{"avatar": avatars[0]}); err != nil {
		return nil, err
	}
	if err := benchInvokeInto(ctx, a.Router, &grp, "chat.create", map[string]any{"groupId": group.ID}); err != nil {
		return nil, err
	}
	fx.oneChat, fx.grpChat = one.ChatID, grp.ChatID
	msgs := chatgen.Messages(chatgen.Options{Seed: 1, Messages: benchChatSize - one.MessageCount, UserName: "User", CharName: "Seraphina"})
	if err := chatgen.Append(ctx, a.Router, fx.oneChat, msgs, 500); err != nil {
		return nil, err
	}
	// The same messages in the group chat, each reply by a member in turn.
	names := []string{"Seraphina", "Orrin", "Lysa"}
	msgs = chatgen.Messages(chatgen.Options{Seed: 1, Messages: benchChatSize - grp.MessageCount, UserName: "User", CharName: "Seraphina"})
	for i, m := range msgs {
		if m["is_user"] == true {
			continue
		}
		k := i % len(avatars)
		m["name"], m["original_avatar"] = names[k], avatars[k]
		m["force_avatar"] = "/thumbnail?type=avatar&file=" + url.QueryEscape(avatars[k])
	}
	if err := chatgen.Append(ctx, a.Router, fx.grpChat, msgs, 500); err != nil {
		return nil, err
	}
	for _, id := range []string{fx.oneChat, fx.grpChat} {
		var count int
		if err := benchInvokeInto(ctx, a.Router, &count, "chat.count", id); err != nil {
			return nil, err
		}
		if count != benchChatSize {
			return nil, fmt.Errorf("benchmark chat has %d messages, want %d", count, benchChatSize)
		}
	}
	if err := settleSearchIndex(ctx, a); err != nil {
		return nil, err
	}
	// At rest: the WAL folded back in, so neither open pays for it.
	if err := a.Store.Checkpoint(ctx); err != nil {
		return nil, err
	}
	return fx, nil
}

// openChat opens chatID as the window does; whole false stops after the
// first page.
func openChat(b *testing.B, inv chatgen.Invoker, chatID string, whole bool) {
	ctx := context.Background()
	var d struct {
		MessageCount int `json:"messageCount"`
	}
	if err := json.Unmarshal(benchInvoke(b, ctx, inv, "chat.get", chatID), &d); err != nil {
		b.Fatal(err)
	}
	start := max(0, d.MessageCount-100)
	benchInvoke(b, ctx, inv, "chat.getStMessages", chatID, map[string]int{"start": start, "end": d.MessageCount})
	if !whole {
		return
	}
	for start > 0 {
		limit := min(1000, start)
		benchInvoke(b, ctx, inv, "chat.getStMessages", chatID, map[string]int{"before": start, "limit": limit})
		start -= limit
	}
	benchInvoke(b, ctx, inv, "chat.get", chatID)
}

// BenchmarkChatOpen10k times opening the 10k character chat and the 10k
// group chat, in process (see the file comment): each iteration opens
// both, in turn first, so the machine's drift weighs on both alike; it
// reports each one's mean (oneToOne-ms, group-ms) and the group's over the
// character chat's (xOneToOne).
func BenchmarkChatOpen10k(b *testing.B) {
	fx := loadOpenFixture(b)
	inv := fx.app.Router
	for _, c := range []struct {
		name  string
		whole bool
	}{{"firstPage", false}, {"whole", true}} {
		b.Run(c.name, func(b *testing.B) {
			// One open of each first, untimed: the chats' pages in the OS
			// cache and SQLite's, as for chats opened before.
			openChat(b, inv, fx.oneChat, c.whole)
			openChat(b, inv, fx.grpChat, c.whole)
			runtime.GC()
			b.ReportAllocs()
			b.ResetTimer()
			var one, grp time.Duration
			for i := 0; i < b.N; i++ {
				for k := range 2 {
					t0 := time.Now()
					if (i+k)%2 == 0 {
						openChat(b, inv, fx.oneChat, c.whole)
						one += time.Since(t0)
					} else {
						openChat(b, inv, fx.grpChat, c.whole)
						grp += time.Since(t0)
					}
				}
			}
			ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / float64(b.N) }
			b.ReportMetric(ms(one), "oneToOne-ms")
			b.ReportMetric(ms(grp), "group-ms")
			b.ReportMetric(float64(grp)/float64(one), "xOneToOne")
		})
	}
}
