package chats_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	jsonpatch "github.com/evanphx/json-patch/v5"
)

// readCounter reads the crash child's counter namespace (0 when unset).
func readCounter(invoke func(string, ...any) (json.RawMessage, error), chatID string) (int, error) {
	out, err := invoke("state.getChatState", chatID, "counter")
	if err != nil {
		return 0, fmt.Errorf("read counter: %w", err)
	}
	var e *struct {
		Value struct{ N int } `json:"value"`
	}
	if err := json.Unmarshal(out, &e); err != nil {
		return 0, err
	}
	if e == nil {
		return 0, nil
	}
	return e.Value.N, nil
}

// crashStateOp is one of the crash child's state writes: k 10–11 bumps the
// counter namespace, 12 commits to the floor state "fs" at the tail, 13
// branches the chat at a random message.
func crashStateOp(invoke func(string, ...any) (json.RawMessage, error), chatID string, k, op, length int, counter *int, rng *rand.Rand) error {
	switch {
	case k < 12:
		next := *counter + 1
		fmt.Printf("TRY STATE %d\n", next)
		if _, err := invoke("state.setChatState", chatID, "counter", map[string]int{"n": next}); err != nil {
			return fmt.Errorf("op %d: setChatState: %w", op, err)
		}
		*counter = next
		fmt.Printf("ACK STATE %d\n", next)
	case k == 12:
		out, err := invoke("state.floorGet", chatID, "fs")
		if err != nil {
			return fmt.Errorf("op %d: floorGet: %w", op, err)
		}
		var cur struct {
			Value map[string]any `json:"value"`
		}
		if err := json.Unmarshal(out, &cur); err != nil {
			return err
		}
		if cur.Value == nil {
			cur.Value = map[string]any{}
		}
		cur.Value[fmt.Sprintf("op%d", op)] = length
		fmt.Printf("TRY FLOOR\n")
		if _, err := invoke("state.floorUpdate", chatID, "fs", cur.Value); err != nil {
			return fmt.Errorf("op %d: floorUpdate: %w", op, err)
		}
		fmt.Printf("ACK FLOOR\n")
	default:
		index := rng.IntN(length)
		fmt.Printf("TRY BRANCH\n")
		out, err := invoke("chat.createBranch", chatID, index)
		if err != nil {
			return fmt.Errorf("op %d: createBranch: %w", op, err)
		}
		var sum struct {
			ChatID       string `json:"chatId"`
			MessageCount int    `json:"messageCount"`
		}
		if err := json.Unmarshal(out, &sum); err != nil || sum.MessageCount != index+1 {
			return fmt.Errorf("op %d: createBranch(%d) returned %s", op, index, out)
		}
		fmt.Printf("ACK BRANCH %s %d\n", sum.ChatID, sum.MessageCount)
	}
	return nil
}

// checkCrashState verifies the state writes that survived the kills: the
// counter holds its last acknowledged value (or the one in flight), every
// acknowledged branch is whole, and the floor state of the chat and of
// every branch is exactly the replay of its log.
func checkCrashState(t *testing.T, r *rig, chatID string, ledger *crashLedger) {
	t.Helper()
	var counter *struct {
		Value struct{ N int } `json:"value"`
	}
	r.decode(r.call("state.getChatState", chatID, "counter"), &counter)
	got := 0
	if counter != nil {
		got = counter.Value.N
	}
	if got != ledger.counter && got != ledger.counter+1 {
		t.Errorf("counter = %d, acknowledged %d", got, ledger.counter)
	}
	if sum := r.chat(chatID); sum.Revision < int64(ledger.acks) {
		t.Errorf("chat revision %d is below the %d acknowledged chat writes", sum.Revision, ledger.acks)
	}
	checkFloorReplay(t, r, chatID)
	for id, n := range ledger.branches {
		if c := r.count(id); c != n {
			t.Errorf("branch %s has %d messages, acknowledged with %d", id, c, n)
		}
		checkFloorReplay(t, r, id)
	}
	t.Logf("counter %d, %d acknowledged branches, %d state writes", got, len(ledger.branches), ledger.stateAcks)
}

// checkFloorReplay replays the floor log of "fs" with the chat's active
// swipes and compares the result with the stored state.
func checkFloorReplay(t *testing.T, r *rig, chatID string) {
	t.Helper()
	var log *struct {
		Value struct {
			Commits []struct {
				Floor   int             `json:"floor"`
				SwipeID int             `json:"swipeId"`
				Ops     json.RawMessage `json:"ops"`
			} `json:"commits"`
		} `json:"value"`
	}
	r.decode(r.call("state.getChatState", chatID, "fs__floor_log"), &log)
	var stored struct {
		Value any `json:"value"`
	}
	r.decode(r.call("state.floorGet", chatID, "fs"), &stored)
	if log == nil || len(log.Value.Commits) == 0 {
		if stored.Value != nil {
			t.Errorf("chat %s: floor state %v without a log", chatID, stored.Value)
		}
		return
	}
	msgs := r.stMessages(chatID)
	doc := []byte(`{}`)
	for _, c := range log.Value.Commits {
		if c.Floor >= len(msgs) {
			t.Fatalf("chat %s: commit on floor %d of %d", chatID, c.Floor, len(msgs))
		}
		if msgs[c.Floor].SwipeID != c.SwipeID {
			continue
		}
		p, err := jsonpatch.DecodePatch(c.Ops)
		if err == nil {
			doc, err = p.Apply(doc)
		}
		if err != nil {
			t.Fatalf("chat %s: the stored log does not replay: %v", chatID, err)
		}
	}
	var want any
	_ = json.Unmarshal(doc, &want)
	wantJSON, _ := json.Marshal(want)
	gotJSON, _ := json.Marshal(stored.Value)
	if string(wantJSON) != string(gotJSON) {
		t.Errorf("chat %s: floor state %s, replay gives %s", chatID, gotJSON, wantJSON)
	}
}
