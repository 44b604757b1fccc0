package apptest

import (
	"encoding/json"
	"strings"
	"testing"
)

// genRaw is generate's options argument for the scenario chat with one
// extension prompt whose members after key and value are fields.
func genRaw(fields string) func(e *Env) string {
	return func(e *Env) string {
		b, _ := json.Marshal(e.ChatID)
		return `[{"chatId":` + string(b) + `,"extensionPrompts":[{"key":"ext","value":"EXTENSION NOTE"` + fields + `}]}]`
	}
}

// GenerateScenarios cover what generate.* refuse before anything runs
// (HOST-ABI §0, §6): a refused call starts nothing and emits no event.
func GenerateScenarios() []Scenario {
	promptReady := []string{"chat_completion_prompt_ready"}
	// placed reports where the extension prompt landed: its index among
	// the payload's messages and how many follow it.
	placed := func(t *testing.T, out json.RawMessage) (int, int) {
		t.Helper()
		snap := Decode[map[string]any](t, out)
		payload, _ := snap["chatCompletionPayload"].(map[string]any)
		msgs, _ := payload["messages"].([]any)
		for i, m := range msgs {
			if c, _ := m.(map[string]any)["content"].(string); strings.Contains(c, "EXTENSION NOTE") {
				return i, len(msgs) - 1 - i
			}
		}
		t.Fatalf("the extension prompt is not in the payload: %s", out)
		return 0, 0
	}
	var scenarios []Scenario
	for _, method := range []string{"generate.dryRun", "generate.start", "generate.run"} {
		for _, field := range []string{"position", "depth", "role"} {
			scenarios = append(scenarios, Scenario{
				Name: method + " extension prompt " + field + " null (NaN)", Messages: Three(), Method: method,
				RawArgs: genRaw(`,"position":1,"depth":1,"role":1,"` + field + `":null`), WantErr: "validation.invalid_argument"})
		}
	}
	return append(scenarios,
		Scenario{Name: "generate.dryRun extension prompt depth 1.5", Messages: Three(), Method: "generate.dryRun",
			RawArgs: genRaw(`,"position":1,"depth":1.5`), WantErr: "validation.invalid_argument"},
		Scenario{Name: "generate.dryRun extension prompt in chat at depth 1", Messages: Three(), Method: "generate.dryRun",
			RawArgs: genRaw(`,"position":1,"depth":1,"role":1`), WantEvents: promptReady, OtherChat: true,
			Check: func(t *testing.T, e *Env, out json.RawMessage) {
				if _, after := placed(t, out); after != 1 {
					t.Errorf("%d messages follow the prompt placed at depth 1, want 1", after)
				}
			}},
		Scenario{Name: "generate.dryRun extension prompt left at its defaults", Messages: Three(), Method: "generate.dryRun",
			RawArgs: genRaw(``), WantEvents: promptReady, OtherChat: true,
			Check: func(t *testing.T, e *Env, out json.RawMessage) {
				if _, after := placed(t, out); after < 3 {
					t.Errorf("the prompt left at position 0 (in the prompt) has %d messages after it, want the history's 3", after)
				}
			}},
	)
}
