package host_test

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"reflect"
	"testing"

	jsonpatch "github.com/evanphx/json-patch/v5"

	"hearth/backend/app/apptest"
)

// TestFloorSettleMatchesReplay drives chats through random commits,
// deletes, swipes and branches, and after every step checks each floor
// state against a replay done here, from its log as the host reports it:
// the active commits, in log order, applied to {}. Namespace "r" only ever
// touches one key per operation (settled key by key); "e" also moves and
// copies across keys and touches the whole value (settled by whole
// replays). Either way the stored value must be the replay's, and every
// active commit left in the log must apply.
func TestFloorSettleMatchesReplay(t *testing.T) {
	t.Parallel()
	for seed := int64(1); seed <= 12; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			t.Parallel()
			r := &randomFloors{Env: apptest.NewEnv(t, nil), t: t, rnd: rand.New(rand.NewSource(seed))}
			r.SetupChat(apptest.Three()...)
			chats := []string{r.ChatID}
			for i := 0; i < 9; i++ {
				r.Must(nil, "chat.addMessages", r.ChatID, []map[string]any{{"mes": fmt.Sprint("m", i), "is_user": i%2 == 0, "name": "N"}})
			}
			for step := 0; step < 80; step++ {
				chat := chats[r.rnd.Intn(len(chats))]
				what := r.step(chat)
				if what == "branch" {
					chats = append(chats, r.lastBranch)
				}
				for _, c := range chats {
					for _, ns := range []string{"r", "e"} {
						r.check(c, ns, fmt.Sprintf("step %d (%s)", step, what))
					}
				}
			}
		})
	}
}

type randomFloors struct {
	*apptest.Env
	t          *testing.T
	rnd        *rand.Rand
	lastBranch string
}

func (r *randomFloors) length(chat string) int {
	var sum struct {
		MessageCount int `json:"messageCount"`
	}
	r.Must(&sum, "chat.get", chat)
	return sum.MessageCount
}

func (r *randomFloors) messages(chat string) []map[string]any {
	var out []map[string]any
	r.Must(&out, "chat.getStMessages", chat)
	return out
}

// step makes one random change to chat and names it.
func (r *randomFloors) step(chat string) string {
	n := r.length(chat)
	switch k := r.rnd.Intn(20); {
	case k < 8:
		ns := []string{"r", "e"}[r.rnd.Intn(2)]
		opts := map[string]any{}
		if n > 0 {
			opts["floor"] = r.rnd.Intn(n)
			if r.rnd.Intn(4) == 0 {
				opts["swipeId"] = r.rnd.Intn(3)
			}
		}
		r.Call("state.floorPatch", chat, ns, r.ops(chat, ns), opts) // ops that do not apply are refused: fine
		return "patch " + ns
	case k < 11:
		if n > 0 {
			r.Call("chat.deleteMessages", chat, r.rnd.Intn(n))
		}
		return "delete"
	case k < 14:
		if n > 0 {
			r.Call("chat.swipe", chat, r.rnd.Intn(n), map[string]any{"to": r.rnd.Intn(3)})
		}
		return "swipe"
	case k < 16:
		if n > 0 {
			r.Call("chat.addSwipe", chat, r.rnd.Intn(n), fmt.Sprint("alt", r.rnd.Intn(100)))
		}
		return "add swipe"
	case k < 17:
		if n > 0 {
			r.Call("chat.deleteSwipe", chat, r.rnd.Intn(n), r.rnd.Intn(3))
		}
		return "delete swipe"
	case k < 18:
		r.Must(nil, "chat.addMessages", chat, []map[string]any{{"mes": "more", "name": "N"}})
		return "add"
	default:
		if n == 0 {
			return "none"
		}
		var br struct {
			ChatID string `json:"chatId"`
		}
		r.Must(&br, "chat.createBranch", chat, r.rnd.Intn(n))
		r.lastBranch = br.ChatID
		return "branch"
	}
}

var randomKeys = []string{"a", "b", "c", "d/e", "~t", ""}

// ops makes 1–3 operations on random keys, nested values included; "e"
// also gets moves and copies across keys and whole-value operations.
func (r *randomFloors) ops(chat, ns string) []map[string]any {
	key := func() string {
		k := randomKeys[r.rnd.Intn(len(randomKeys))]
		return "/" + escapeSeg(k)
	}
	var ops []map[string]any
	for i := 0; i <= r.rnd.Intn(3); i++ {
		k := key()
		switch c := r.rnd.Intn(10); {
		case c < 3:
			ops = append(ops, map[string]any{"op": "add", "path": k, "value": map[string]any{"n": r.rnd.Intn(5), "l": []any{1, 2}}})
		case c < 5:
			ops = append(ops, map[string]any{"op": "add", "path": k + "/n", "value": r.rnd.Intn(9)})
		case c < 6:
			ops = append(ops, map[string]any{"op": "add", "path": k + "/l/-", "value": r.rnd.Intn(9)})
		case c < 7:
			ops = append(ops, map[string]any{"op": "remove", "path": k})
		case c < 8:
			ops = append(ops, map[string]any{"op": "replace", "path": k, "value": r.rnd.Intn(9)})
		default:
			if ns == "e" {
				if r.rnd.Intn(3) == 0 {
					ops = append(ops, map[string]any{"op": "test", "path": "", "value": map[string]any{}})
				} else {
					ops = append(ops, map[string]any{"op": []string{"move", "copy"}[r.rnd.Intn(2)], "from": key(), "path": k})
				}
			} else {
				ops = append(ops, map[string]any{"op": "copy", "from": k + "/l", "path": k + "/m"})
			}
		}
	}
	return ops
}

func escapeSeg(s string) string {
	out := ""
	for _, c := range s {
		switch c {
		case '~':
			out += "~0"
		case '/':
			out += "~1"
		default:
			out += string(c)
		}
	}
	return out
}

// check compares floor state ns of chat with a replay of its log.
func (r *randomFloors) check(chat, ns, when string) {
	r.t.Helper()
	var log *struct {
		Value struct {
			Commits []struct {
				Floor   int             `json:"floor"`
				SwipeID int             `json:"swipeId"`
				Ops     json.RawMessage `json:"ops"`
			} `json:"commits"`
		} `json:"value"`
	}
	r.Must(&log, "state.getChatState", chat, ns+"__floor_log")
	var got *struct {
		Value any `json:"value"`
	}
	r.Must(&got, "state.getChatState", chat, ns)
	if log == nil || len(log.Value.Commits) == 0 {
		if got != nil {
			r.t.Fatalf("%s: chat %s %q has no commits but holds %v", when, chat, ns, got.Value)
		}
		return
	}
	msgs := r.messages(chat)
	doc := []byte(`{}`)
	for i, c := range log.Value.Commits {
		active := 0
		if sw, ok := msgs[c.Floor]["swipe_id"].(float64); ok {
			active = int(sw)
		}
		if c.SwipeID != active {
			continue
		}
		p, err := jsonpatch.DecodePatch(c.Ops)
		if err == nil {
			doc, err = p.Apply(doc)
		}
		if err != nil {
			r.t.Fatalf("%s: chat %s %q: active commit %d (%s) does not apply: %v", when, chat, ns, i, c.Ops, err)
		}
	}
	var want any
	if err := json.Unmarshal(doc, &want); err != nil {
		r.t.Fatal(err)
	}
	if got == nil || !reflect.DeepEqual(got.Value, want) {
		r.t.Fatalf("%s: chat %s %q is %v, its log replays to %v", when, chat, ns, got, want)
	}
}
