package apptest

import (
	"encoding/json"
	"reflect"
	"testing"

	"hearth/backend/events"
)

// Scenario is one contract case: set up, call, check.
type Scenario struct {
	Name string
	// Messages seed the chat (after its greeting is removed).
	Messages []map[string]any
	// Prepare runs after seeding, before the call (its events are dropped).
	Prepare func(e *Env)
	Method  string
	// Args builds the positional arguments; RawArgs, when set, is sent
	// verbatim instead (for malformed JSON values such as fractions).
	Args    func(e *Env) []any
	RawArgs func(e *Env) string
	// WantErr is the expected error code; "" expects success.
	WantErr string
	// WantEvents are the event types expected, in order (nil means none).
	WantEvents []string
	// NoOp asserts that the successful call left the revision unchanged.
	NoOp bool
	// OtherChat marks calls whose events concern another chat (create), so
	// the payload's chatId and revision are not the scenario chat's.
	OtherChat bool
	// Check inspects the result and the chat after a successful call.
	Check func(t *testing.T, e *Env, result json.RawMessage)
	// CheckEvents inspects the published events' payloads.
	CheckEvents func(t *testing.T, e *Env, evs []map[string]any)
}

// Run executes scenarios, each in a fresh Env, in parallel.
func Run(t *testing.T, scenarios []Scenario, invoker func(e *Env) Invoker) {
	for _, sc := range scenarios {
		t.Run(sc.Name, func(t *testing.T) {
			t.Parallel()
			e := NewEnv(t, nil)
			if invoker != nil {
				e.Invoker = invoker(e)
			}
			e.SetupChat(sc.Messages...)
			if sc.Prepare != nil {
				sc.Prepare(e)
				e.Events()
			}
			before := e.Snapshot()
			revBefore := e.Revision()
			var out json.RawMessage
			var err error
			if sc.RawArgs != nil {
				out, err = e.CallRaw(sc.Method, sc.RawArgs(e))
			} else {
				var args []any
				if sc.Args != nil {
					args = sc.Args(e)
				}
				out, err = e.Call(sc.Method, args...)
			}
			evs := e.Events()
			if got := Code(err); got != sc.WantErr {
				t.Fatalf("%s: error code = %q (%v), want %q", sc.Method, got, err, sc.WantErr)
			}
			if err != nil {
				if len(evs) != 0 {
					t.Errorf("failed call emitted %d events: %v", len(evs), types(evs))
				}
				if after := e.Snapshot(); after != before {
					t.Errorf("failed call changed the chat:\nbefore %s\nafter  %s", before, after)
				}
				return
			}
			gotTypes := types(evs)
			if !reflect.DeepEqual(gotTypes, sc.WantEvents) && !(len(gotTypes) == 0 && len(sc.WantEvents) == 0) {
				t.Errorf("events = %v, want %v", gotTypes, sc.WantEvents)
			}
			payloads := make([]map[string]any, len(evs))
			for i, ev := range evs {
				b, _ := json.Marshal(ev.Payload)
				_ = json.Unmarshal(b, &payloads[i])
				if sc.OtherChat {
					continue
				}
				if payloads[i]["chatId"] != e.ChatID {
					t.Errorf("event %s: chatId = %v, want %s", ev.Type, payloads[i]["chatId"], e.ChatID)
				}
				if ev.Type == events.ChatStateChanged {
					continue // its revision is the namespace's
				}
				if rev, _ := payloads[i]["revision"].(float64); int64(rev) != e.Revision() {
					t.Errorf("event %s: revision = %v, want %d", ev.Type, payloads[i]["revision"], e.Revision())
				}
			}
			if sc.NoOp && e.Revision() != revBefore {
				t.Errorf("a call without events changed the revision %d → %d", revBefore, e.Revision())
			}
			chatEvents := 0
			for _, typ := range sc.WantEvents {
				if typ != events.ChatStateChanged {
					chatEvents++
				}
			}
			if !sc.NoOp && !sc.OtherChat && chatEvents > 0 && e.Revision() != revBefore+1 {
				t.Errorf("revision %d → %d, want +1", revBefore, e.Revision())
			}
			if len(sc.WantEvents) > 0 && chatEvents == 0 && !sc.OtherChat && e.Revision() != revBefore {
				t.Errorf("a state call changed the chat revision %d → %d", revBefore, e.Revision())
			}
			if out, err := e.Call("chat.getStMessages", e.ChatID); err == nil {
				CheckInvariants(t, Decode[[]map[string]any](t, out))
			}
			if sc.Check != nil {
				sc.Check(t, e, out)
			}
			if sc.CheckEvents != nil {
				sc.CheckEvents(t, e, payloads)
			}
		})
	}
}

func types(evs []events.Event) []string {
	out := make([]string, len(evs))
	for i, ev := range evs {
		out[i] = ev.Type
	}
	return out
}

// CheckInvariants asserts the swipe invariants on every message.
func CheckInvariants(t testing.TB, msgs []map[string]any) {
	t.Helper()
	for i, m := range msgs {
		swipes, _ := m["swipes"].([]any)
		info, _ := m["swipe_info"].([]any)
		id, _ := m["swipe_id"].(float64)
		if len(swipes) < 1 || int(id) < 0 || int(id) >= len(swipes) {
			t.Fatalf("message %d: swipe_id %v of %d swipes", i, m["swipe_id"], len(swipes))
		}
		if m["mes"] != swipes[int(id)] {
			t.Fatalf("message %d: mes %q != swipes[%d] %q", i, m["mes"], int(id), swipes[int(id)])
		}
		if len(info) != len(swipes) {
			t.Fatalf("message %d: %d swipe_info for %d swipes", i, len(info), len(swipes))
		}
		if _, ok := m["id"].(string); !ok {
			t.Fatalf("message %d has no id", i)
		}
	}
}
