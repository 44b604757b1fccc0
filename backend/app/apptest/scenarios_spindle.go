package apptest

import (
	"encoding/json"
	"testing"
)

func msgArgs(index int, rest ...any) func(e *Env) []any {
	return func(e *Env) []any { return append([]any{e.ChatID, e.IDs[index]}, rest...) }
}

func spindleMsg(t *testing.T, e *Env, index int) map[string]any {
	t.Helper()
	var got []map[string]any
	e.Must(&got, "chat.getMessages", e.ChatID)
	return got[index]
}

// perSwipeStays checks that each swipe of message 1 listed in want still
// carries its own reasoning and model ("" for a swipe with none): first
// in swipe_info for the swipes not active, then by navigating to each.
func perSwipeStays(t *testing.T, e *Env, want []string) {
	t.Helper()
	st := e.StMessages()[1]
	active := int(st["swipe_id"].(float64))
	infos := st["swipe_info"].([]any)
	for k, w := range want {
		x := Extra(e.StMessages(), 1)
		if k != active {
			x, _ = infos[k].(map[string]any)["extra"].(map[string]any)
		}
		checkSwipeData(t, "swipe_info", k, x, w)
	}
	for _, k := range []int{1, 0, len(want) - 1, active} {
		if k >= len(want) {
			continue
		}
		e.Must(nil, "chat.updateMessage", e.ChatID, e.IDs[1], map[string]any{"swipe_id": k})
		checkSwipeData(t, "after navigating", k, Extra(e.StMessages(), 1), want[k])
	}
}

func checkSwipeData(t *testing.T, when string, k int, x map[string]any, want string) {
	t.Helper()
	if want == "" {
		if x["reasoning"] != nil || x["model"] != nil {
			t.Errorf("%s: swipe %d has data %v, want none", when, k, x)
		}
		return
	}
	if x["reasoning"] != "r"+want || x["model"] != "m"+want {
		t.Errorf("%s: swipe %d has %v, want r%s/m%s", when, k, x, want, want)
	}
}

// SpindleScenarios cover the id-based writes (HOST-ABI 3.4), one
// precedence rule per case.
func SpindleScenarios() []Scenario {
	edited := []string{"message_edited"}
	swipeEdited := []string{"message_edited", "swipe_edited"}
	return []Scenario{
		{Name: "appendMessage user uses persona name", Method: "chat.appendMessage",
			Args:       chatArgs(map[string]any{"role": "user", "content": "hi", "metadata": map[string]any{"source": "ext"}}),
			WantEvents: []string{"message_sent"},
			Check: func(t *testing.T, e *Env, out json.RawMessage) {
				r := Decode[map[string]any](t, out)
				Eq(t, "index", r["index"], 0)
				m := spindleMsg(t, e, 0)
				Eq(t, "id", m["id"], r["id"])
				Eq(t, "role", m["role"], "user")
				Eq(t, "metadata", m["metadata"], map[string]any{"source": "ext"})
				st := e.StMessages()[0]
				Eq(t, "name", st["name"], "User")
				Eq(t, "stored in extra", Extra(e.StMessages(), 0)["spindle_metadata"], map[string]any{"source": "ext"})
			}},
		{Name: "appendMessage assistant uses character name", Method: "chat.appendMessage",
			Args: chatArgs(map[string]any{"role": "assistant", "content": "hello"}), WantEvents: []string{"message_received"},
			Check: func(t *testing.T, e *Env, _ json.RawMessage) { Eq(t, "name", e.StMessages()[0]["name"], "Seraphina") }},
		{Name: "appendMessage system is a narrator named System", Method: "chat.appendMessage",
			Args: chatArgs(map[string]any{"role": "system", "content": "[note]"}), WantEvents: []string{"message_received"},
			Check: func(t *testing.T, e *Env, _ json.RawMessage) {
				st := e.StMessages()[0]
				Eq(t, "name", st["name"], "System")
				Eq(t, "type", Extra(e.StMessages(), 0)["type"], "narrator")
				Eq(t, "role", spindleMsg(t, e, 0)["role"], "system")
			}},
		{Name: "appendMessage silent null", Method: "chat.appendMessage",
			Args: chatArgs(map[string]any{"role": "user", "content": "hi"}, map[string]any{"silent": nil}), WantErr: "validation.invalid_argument"},
		{Name: "appendMessage assistant typed narrator", Method: "chat.appendMessage",
			Args: chatArgs(map[string]any{"role": "assistant", "content": "x", "extra": map[string]any{"type": "narrator"}}), WantErr: "validation.invalid_argument"},
		{Name: "appendMessage user typed narrator", Method: "chat.appendMessage",
			Args: chatArgs(map[string]any{"role": "user", "content": "x", "extra": map[string]any{"type": "narrator"}}), WantErr: "validation.invalid_argument"},
		{Name: "appendMessage system typed otherwise", Method: "chat.appendMessage",
			Args: chatArgs(map[string]any{"role": "system", "content": "x", "extra": map[string]any{"type": "comment"}}), WantErr: "validation.invalid_argument"},
		{Name: "appendMessage system typed narrator", Method: "chat.appendMessage",
			Args: chatArgs(map[string]any{"role": "system", "content": "x", "extra": map[string]any{"type": "narrator"}}), WantEvents: []string{"message_received"},
			Check: func(t *testing.T, e *Env, _ json.RawMessage) { Eq(t, "role", spindleMsg(t, e, 0)["role"], "system") }},
		{Name: "appendMessage bad role", Method: "chat.appendMessage", Args: chatArgs(map[string]any{"role": "bot", "content": "x"}), WantErr: "validation.invalid_argument"},
		{Name: "appendMessage missing content", Method: "chat.appendMessage", Args: chatArgs(map[string]any{"role": "user"}), WantErr: "validation.invalid_argument"},
		{Name: "updateMessage content overwrites active slot", Messages: Three(), Method: "chat.updateMessage",
			Args: msgArgs(1, map[string]any{"content": "New."}), WantEvents: edited,
			Check: func(t *testing.T, e *Env, _ json.RawMessage) {
				m := spindleMsg(t, e, 1)
				Eq(t, "content", m["content"], "New.")
				Eq(t, "swipes", m["swipes"], []string{"New.", "Second answer."})
			}},
		{Name: "updateMessage content wins over swipes, after swipe_id", Messages: Three(), Method: "chat.updateMessage",
			Args: msgArgs(1, map[string]any{"content": "C", "swipes": []string{"a", "b", "c"}, "swipe_id": 2}), WantEvents: swipeEdited,
			Check: func(t *testing.T, e *Env, _ json.RawMessage) {
				m := spindleMsg(t, e, 1)
				Eq(t, "swipes", m["swipes"], []string{"a", "b", "C"})
				Eq(t, "content", m["content"], "C")
				Eq(t, "swipe_id", m["swipe_id"], 2)
			}},
		{Name: "updateMessage swipes without content derive content", Messages: Three(), Method: "chat.updateMessage",
			Args: msgArgs(1, map[string]any{"swipes": []string{"x", "y"}}), WantEvents: swipeEdited,
			Check: func(t *testing.T, e *Env, _ json.RawMessage) {
				m := spindleMsg(t, e, 1)
				Eq(t, "content", m["content"], "x")
			}},
		{Name: "updateMessage swipe_id alone navigates", Messages: Three(), Method: "chat.updateMessage",
			Args: msgArgs(1, map[string]any{"swipe_id": 1}), WantEvents: swipeEdited,
			Check: func(t *testing.T, e *Env, _ json.RawMessage) {
				m := spindleMsg(t, e, 1)
				Eq(t, "content", m["content"], "Second answer.")
				Eq(t, "swipes untouched", m["swipes"], []string{"First answer.", "Second answer."})
			},
			CheckEvents: func(t *testing.T, e *Env, evs []map[string]any) {
				Eq(t, "previousSwipeId", evs[1]["previousSwipeId"], 0)
			}},
		{Name: "updateMessage swipes grow: dates padded", Messages: Three(), Method: "chat.updateMessage",
			Args: msgArgs(1, map[string]any{"swipes": []string{"a", "b", "c"}}), WantEvents: swipeEdited,
			Check: func(t *testing.T, e *Env, _ json.RawMessage) {
				m := spindleMsg(t, e, 1)
				dates := m["swipe_dates"].([]any)
				Eq(t, "len", len(dates), 3)
				Eq(t, "kept", dates[0], 1793527200)
				if d, _ := dates[2].(float64); d < 1700000000 {
					t.Errorf("padded date %v is not now", dates[2])
				}
			}},
		{Name: "updateMessage swipes shrink: dates truncated", Messages: Three(), Method: "chat.updateMessage",
			Args: msgArgs(1, map[string]any{"swipes": []string{"only"}}), WantEvents: swipeEdited,
			Check: func(t *testing.T, e *Env, _ json.RawMessage) {
				Eq(t, "dates", spindleMsg(t, e, 1)["swipe_dates"], []int{1793527200})
			}},
		{Name: "updateMessage swipes and swipe_dates together", Messages: Three(), Method: "chat.updateMessage",
			Args: msgArgs(1, map[string]any{"swipes": []string{"a", "b"}, "swipe_dates": []int{1000, 2000}}), WantEvents: swipeEdited,
			Check: func(t *testing.T, e *Env, _ json.RawMessage) {
				Eq(t, "dates", spindleMsg(t, e, 1)["swipe_dates"], []int{1000, 2000})
			}},
		{Name: "updateMessage swipe_dates: the active swipe's date reads back", Messages: Three(), Method: "chat.updateMessage",
			Args: msgArgs(1, map[string]any{"swipe_dates": []int{1000, 2000}, "reasoning": map[string]any{"text": "x"}}), WantEvents: swipeEdited,
			Check: func(t *testing.T, e *Env, _ json.RawMessage) {
				Eq(t, "dates", spindleMsg(t, e, 1)["swipe_dates"], []int{1000, 2000})
				Eq(t, "send_date", e.StMessages()[1]["send_date"], "1970-01-01T00:16:40.000Z")
			}},
		{Name: "updateMessage swipe_dates with swipe_id: both dates kept", Messages: Three(), Method: "chat.updateMessage",
			Args: msgArgs(1, map[string]any{"swipe_id": 1, "swipe_dates": []int{1000, 2000}}), WantEvents: swipeEdited,
			Check: func(t *testing.T, e *Env, _ json.RawMessage) {
				Eq(t, "dates", spindleMsg(t, e, 1)["swipe_dates"], []int{1000, 2000})
				e.Must(nil, "chat.updateMessage", e.ChatID, e.IDs[1], map[string]any{"swipe_id": 0})
				Eq(t, "dates after navigating back", spindleMsg(t, e, 1)["swipe_dates"], []int{1000, 2000})
			}},
		{Name: "swipe keeps the date swipe_dates gave the active swipe", Messages: Three(), Method: "chat.swipe",
			Prepare: func(e *Env) {
				e.Must(nil, "chat.updateMessage", e.ChatID, e.IDs[1], map[string]any{"swipe_dates": []int{1000, 2000}})
			},
			Args: chatArgs(1, map[string]any{"to": 1}), WantEvents: []string{"message_swiped"},
			Check: func(t *testing.T, e *Env, _ json.RawMessage) {
				info := e.StMessages()[1]["swipe_info"].([]any)
				Eq(t, "swipe 0 date", info[0].(map[string]any)["send_date"], "1970-01-01T00:16:40.000Z")
				Eq(t, "dates", spindleMsg(t, e, 1)["swipe_dates"], []int{1000, 2000})
			}},
		{Name: "updateMessage swipe_dates quoted numbers", Messages: Three(), Method: "chat.updateMessage",
			RawArgs: func(e *Env) string { return `["` + e.ChatID + `","` + e.IDs[1] + `",{"swipe_dates":["1000","2000"]}]` }, WantErr: "validation.invalid_argument"},
		{Name: "updateMessage swipe_dates null", Messages: Three(), Method: "chat.updateMessage",
			RawArgs: func(e *Env) string { return `["` + e.ChatID + `","` + e.IDs[1] + `",{"swipe_dates":[1000,null]}]` }, WantErr: "validation.invalid_argument"},
		{Name: "updateMessage swipe_dates past JS Date's range", Messages: Three(), Method: "chat.updateMessage",
			RawArgs: func(e *Env) string { return `["` + e.ChatID + `","` + e.IDs[1] + `",{"swipe_dates":[1e300,2000]}]` }, WantErr: "validation.invalid_argument"},
		{Name: "updateMessage swipe_dates negative", Messages: Three(), Method: "chat.updateMessage",
			RawArgs: func(e *Env) string { return `["` + e.ChatID + `","` + e.IDs[1] + `",{"swipe_dates":[1000,-5]}]` }, WantErr: "validation.invalid_argument"},
		{Name: "updateMessage swipe_dates at the range's ends", Messages: Three(), Method: "chat.updateMessage",
			RawArgs: func(e *Env) string { return `["` + e.ChatID + `","` + e.IDs[1] + `",{"swipe_dates":[0,253402300799]}]` }, WantEvents: swipeEdited,
			Check: func(t *testing.T, e *Env, _ json.RawMessage) {
				Eq(t, "dates", spindleMsg(t, e, 1)["swipe_dates"], []int64{0, 253402300799})
				if _, err := e.Call("chat.updateMessage", e.ChatID, e.IDs[1], map[string]any{"swipe_dates": []int64{0, 253402300800}}); err == nil {
					t.Error("a date past 9999-12-31T23:59:59Z was accepted")
				}
			}},
		{Name: "updateMessage swipes/swipe_dates mismatch", Messages: Three(), Method: "chat.updateMessage",
			Args: msgArgs(1, map[string]any{"swipes": []string{"a", "b"}, "swipe_dates": []int{1}}), WantErr: "validation.invalid_argument"},
		{Name: "updateMessage swipe_dates alone mismatch", Messages: Three(), Method: "chat.updateMessage",
			Args: msgArgs(1, map[string]any{"swipe_dates": []int{1, 2, 3}}), WantErr: "validation.invalid_argument"},
		{Name: "updateMessage null swipe", Messages: Three(), Method: "chat.updateMessage",
			RawArgs: func(e *Env) string { return `["` + e.ChatID + `","` + e.IDs[1] + `",{"swipes":["a",null]}]` }, WantErr: "validation.invalid_argument"},
		{Name: "updateMessage empty swipes", Messages: Three(), Method: "chat.updateMessage",
			Args: msgArgs(1, map[string]any{"swipes": []string{}}), WantErr: "validation.invalid_argument"},
		{Name: "updateMessage swipe_id out of range", Messages: Three(), Method: "chat.updateMessage",
			Args: msgArgs(1, map[string]any{"swipe_id": 2}), WantErr: "swipe.out_of_range"},
		{Name: "updateMessage negative swipe_id", Messages: Three(), Method: "chat.updateMessage",
			Args: msgArgs(1, map[string]any{"swipe_id": -1}), WantErr: "swipe.out_of_range"},
		{Name: "updateMessage NaN swipe_id", Messages: Three(), Method: "chat.updateMessage",
			RawArgs: func(e *Env) string { return `["` + e.ChatID + `","` + e.IDs[1] + `",{"swipe_id":null}]` }, WantErr: "validation.invalid_argument"},
		{Name: "updateMessage fractional swipe_id", Messages: Three(), Method: "chat.updateMessage",
			RawArgs: func(e *Env) string { return `["` + e.ChatID + `","` + e.IDs[1] + `",{"swipe_id":0.5}]` }, WantErr: "validation.invalid_argument"},
		{Name: "updateMessage swipes shrink below active swipe_id", Messages: Three(), Method: "chat.updateMessage",
			Prepare: func(e *Env) { e.Must(nil, "chat.updateMessage", e.ChatID, e.IDs[1], map[string]any{"swipe_id": 1}) },
			Args:    msgArgs(1, map[string]any{"swipes": []string{"one"}}), WantErr: "swipe.out_of_range"},
		{Name: "updateMessage reasoning text only keeps duration", Messages: Three(), Method: "chat.updateMessage",
			Prepare: func(e *Env) {
				e.Must(nil, "chat.updateMessage", e.ChatID, e.IDs[1], map[string]any{"reasoning": map[string]any{"text": "t", "duration": 1842}})
			},
			Args: msgArgs(1, map[string]any{"reasoning": map[string]any{"text": "t2"}}), WantEvents: edited,
			Check: func(t *testing.T, e *Env, _ json.RawMessage) {
				x := Extra(e.StMessages(), 1)
				Eq(t, "reasoning", x["reasoning"], "t2")
				Eq(t, "duration", x["reasoning_duration"], 1842)
			}},
		{Name: "updateMessage reasoning duration null clears only duration", Messages: Three(), Method: "chat.updateMessage",
			Prepare: func(e *Env) {
				e.Must(nil, "chat.updateMessage", e.ChatID, e.IDs[1], map[string]any{"reasoning": map[string]any{"text": "t", "duration": 5}})
			},
			Args: msgArgs(1, map[string]any{"reasoning": map[string]any{"duration": nil}}), WantEvents: edited,
			Check: func(t *testing.T, e *Env, _ json.RawMessage) {
				x := Extra(e.StMessages(), 1)
				Eq(t, "reasoning", x["reasoning"], "t")
				if _, ok := x["reasoning_duration"]; ok {
					t.Error("duration not cleared")
				}
			}},
		{Name: "updateMessage reasoning both null clears both", Messages: Three(), Method: "chat.updateMessage",
			Args: msgArgs(1, map[string]any{"reasoning": map[string]any{"text": nil, "duration": nil}}), WantEvents: edited,
			Check: func(t *testing.T, e *Env, _ json.RawMessage) {
				if _, ok := Extra(e.StMessages(), 1)["reasoning"]; ok {
					t.Error("reasoning not cleared")
				}
			}},
		{Name: "updateMessage per-swipe data follows its swipe: swipes and swipe_id", Messages: Three(), Method: "chat.updateMessage",
			Args: msgArgs(1, map[string]any{"swipes": []string{"First answer.", "Second answer."}, "swipe_id": 1}), WantEvents: swipeEdited,
			Check: func(t *testing.T, e *Env, _ json.RawMessage) { perSwipeStays(t, e, []string{"0", "1"}) }},
		{Name: "updateMessage per-swipe data follows its swipe: swipes, swipe_id and content", Messages: Three(), Method: "chat.updateMessage",
			Args: msgArgs(1, map[string]any{"swipes": []string{"A", "B"}, "swipe_id": 1, "content": "C"}), WantEvents: swipeEdited,
			Check: func(t *testing.T, e *Env, _ json.RawMessage) { perSwipeStays(t, e, []string{"0", "1"}) }},
		{Name: "updateMessage per-swipe data follows its swipe: swipes grow, swipe_id and swipe_dates", Messages: Three(), Method: "chat.updateMessage",
			Args: msgArgs(1, map[string]any{"swipes": []string{"A", "B", "C"}, "swipe_id": 2, "swipe_dates": []int{1000, 2000, 3000}}), WantEvents: swipeEdited,
			Check: func(t *testing.T, e *Env, _ json.RawMessage) { perSwipeStays(t, e, []string{"0", "1", ""}) }},
		{Name: "updateMessage per-swipe data follows its swipe: swipe_id and content", Messages: Three(), Method: "chat.updateMessage",
			Args: msgArgs(1, map[string]any{"swipe_id": 1, "content": "C"}), WantEvents: swipeEdited,
			Check: func(t *testing.T, e *Env, _ json.RawMessage) { perSwipeStays(t, e, []string{"0", "1"}) }},
		{Name: "updateMessage per-swipe data follows its swipe: swipe_id and swipe_dates", Messages: Three(), Method: "chat.updateMessage",
			Args: msgArgs(1, map[string]any{"swipe_id": 1, "swipe_dates": []int{1000, 2000}}), WantEvents: swipeEdited,
			Check: func(t *testing.T, e *Env, _ json.RawMessage) { perSwipeStays(t, e, []string{"0", "1"}) }},
		{Name: "updateMessage per-swipe data follows its swipe: swipes alone", Messages: Three(), Method: "chat.updateMessage",
			Args: msgArgs(1, map[string]any{"swipes": []string{"A", "B"}}), WantEvents: swipeEdited,
			Check: func(t *testing.T, e *Env, _ json.RawMessage) { perSwipeStays(t, e, []string{"0", "1"}) }},
		{Name: "updateMessage per-swipe data follows its swipe: swipes and swipe_id from swipe 1", Messages: Three(), Method: "chat.updateMessage",
			Prepare: func(e *Env) { e.Must(nil, "chat.updateMessage", e.ChatID, e.IDs[1], map[string]any{"swipe_id": 1}) },
			Args:    msgArgs(1, map[string]any{"swipes": []string{"A", "B"}, "swipe_id": 0}), WantEvents: swipeEdited,
			Check: func(t *testing.T, e *Env, _ json.RawMessage) { perSwipeStays(t, e, []string{"0", "1"}) }},
		{Name: "updateMessage per-swipe data follows its swipe: swipes shrink below the active swipe", Messages: Three(), Method: "chat.updateMessage",
			Prepare: func(e *Env) { e.Must(nil, "chat.updateMessage", e.ChatID, e.IDs[1], map[string]any{"swipe_id": 1}) },
			Args:    msgArgs(1, map[string]any{"swipes": []string{"A"}, "swipe_id": 0}), WantEvents: swipeEdited,
			Check: func(t *testing.T, e *Env, _ json.RawMessage) { perSwipeStays(t, e, []string{"0"}) }},
		{Name: "updateMessage unknown reasoning field", Messages: Three(), Method: "chat.updateMessage",
			Args: msgArgs(1, map[string]any{"reasoning": map[string]any{"txt": "typo"}}), WantErr: "validation.invalid_argument"},
		{Name: "updateMessage negative reasoning duration", Messages: Three(), Method: "chat.updateMessage",
			Args: msgArgs(1, map[string]any{"reasoning": map[string]any{"duration": -5}}), WantErr: "validation.invalid_argument"},
		{Name: "updateMessage reasoning duration 0", Messages: Three(), Method: "chat.updateMessage",
			Args: msgArgs(1, map[string]any{"reasoning": map[string]any{"duration": 0}}), WantEvents: edited,
			Check: func(t *testing.T, e *Env, _ json.RawMessage) {
				Eq(t, "duration", Extra(e.StMessages(), 1)["reasoning_duration"], 0)
			}},
		{Name: "updateMessage reasoning as it is writes nothing", Messages: Three(), Method: "chat.updateMessage",
			Args: msgArgs(1, map[string]any{"reasoning": map[string]any{"text": "r0"}}), NoOp: true},
		{Name: "updateMessage reasoning stays with its swipe", Messages: Three(), Method: "chat.updateMessage",
			Prepare: func(e *Env) {
				e.Must(nil, "chat.updateMessage", e.ChatID, e.IDs[1], map[string]any{"reasoning": map[string]any{"text": "mine0"}})
				e.Must(nil, "chat.updateMessage", e.ChatID, e.IDs[1], map[string]any{"swipe_id": 1})
			},
			Args: msgArgs(1, map[string]any{"swipe_id": 0}), WantEvents: swipeEdited,
			Check: func(t *testing.T, e *Env, _ json.RawMessage) {
				Eq(t, "swipe 0 reasoning", Extra(e.StMessages(), 1)["reasoning"], "mine0")
				info := e.StMessages()[1]["swipe_info"].([]any)
				Eq(t, "swipe 1 reasoning", info[1].(map[string]any)["extra"].(map[string]any)["reasoning"], "r1")
			}},
		{Name: "updateMessage metadata replaces whole", Messages: Three(), Method: "chat.updateMessage",
			Prepare: func(e *Env) {
				e.Must(nil, "chat.updateMessage", e.ChatID, e.IDs[1], map[string]any{"metadata": map[string]any{"a": 1, "b": 2}})
			},
			Args: msgArgs(1, map[string]any{"metadata": map[string]any{"c": 3}}), WantEvents: edited,
			Check: func(t *testing.T, e *Env, _ json.RawMessage) {
				Eq(t, "metadata", spindleMsg(t, e, 1)["metadata"], map[string]any{"c": 3})
			}},
		{Name: "updateMessage no-op patch emits nothing", Messages: Three(), Method: "chat.updateMessage",
			Args: msgArgs(1, map[string]any{"content": "First answer."}), NoOp: true},
		{Name: "updateMessage unknown id", Messages: Three(), Method: "chat.updateMessage",
			Args: chatArgs("no-such-id", map[string]any{"content": "x"}), WantErr: "message.not_found"},
		{Name: "updateMessage unknown field", Messages: Three(), Method: "chat.updateMessage",
			Args: msgArgs(1, map[string]any{"contnet": "x"}), WantErr: "validation.invalid_argument"},
		{Name: "updateMessage skipChunkRebuild accepted", Messages: Three(), Method: "chat.updateMessage",
			Args: msgArgs(1, map[string]any{"content": "<tracker/>", "skipChunkRebuild": true}), WantEvents: edited},
		{Name: "deleteMessage by id", Messages: Three(), Method: "chat.deleteMessage", Args: msgArgs(0), WantEvents: []string{"message_deleted"},
			Check: func(t *testing.T, e *Env, _ json.RawMessage) { Eq(t, "first id", e.StMessages()[0]["id"], e.IDs[1]) }},
		{Name: "deleteMessage unknown id", Messages: Three(), Method: "chat.deleteMessage", Args: chatArgs("nope"), WantErr: "message.not_found"},
		{Name: "setMessageHidden", Messages: Three(), Method: "chat.setMessageHidden", Args: msgArgs(1, true), WantEvents: edited,
			Check: func(t *testing.T, e *Env, _ json.RawMessage) {
				var h bool
				e.Must(&h, "chat.isMessageHidden", e.ChatID, e.IDs[1])
				Eq(t, "hidden", h, true)
				Eq(t, "not excluded from prompt", e.StMessages()[1]["is_system"], false)
			}},
		{Name: "hidden survives swipe navigation", Messages: Three(), Method: "chat.updateMessage",
			Prepare: func(e *Env) { e.Must(nil, "chat.setMessageHidden", e.ChatID, e.IDs[1], true) },
			Args:    msgArgs(1, map[string]any{"swipe_id": 1}), WantEvents: swipeEdited,
			Check: func(t *testing.T, e *Env, _ json.RawMessage) {
				Eq(t, "hidden", Extra(e.StMessages(), 1)["hidden"], true)
			}},
		{Name: "setMessageHidden already hidden is a no-op", Messages: Three(), Method: "chat.setMessageHidden",
			Prepare: func(e *Env) { e.Must(nil, "chat.setMessageHidden", e.ChatID, e.IDs[1], true) },
			Args:    msgArgs(1, true), NoOp: true},
		{Name: "setMessagesHidden batch", Messages: Three(), Method: "chat.setMessagesHidden",
			Args: func(e *Env) []any { return []any{e.ChatID, []string{e.IDs[0], e.IDs[2]}, true} }, WantEvents: []string{"message_edited", "message_edited"}},
		{Name: "setMessagesHidden 501 ids", Messages: Three(), Method: "chat.setMessagesHidden",
			Args: func(e *Env) []any {
				ids := make([]string, 501)
				for i := range ids {
					ids[i] = e.IDs[i%3]
				}
				return []any{e.ChatID, ids, true}
			}, WantErr: "validation.too_many"},
		{Name: "setMessagesHidden unknown id changes nothing", Messages: Three(), Method: "chat.setMessagesHidden",
			Args: func(e *Env) []any { return []any{e.ChatID, []string{e.IDs[0], "ghost"}, true} }, WantErr: "message.not_found"},
		{Name: "setMessagesHidden null id", Messages: Three(), Method: "chat.setMessagesHidden",
			RawArgs: func(e *Env) string { return `["` + e.ChatID + `",["` + e.IDs[0] + `",null],true]` }, WantErr: "validation.invalid_argument"},
		{Name: "setMessageHidden non-boolean", Messages: Three(), Method: "chat.setMessageHidden", Args: msgArgs(1, "yes"), WantErr: "validation.invalid_argument"},
		{Name: "isMessageHidden unknown id", Messages: Three(), Method: "chat.isMessageHidden", Args: chatArgs("ghost"), WantErr: "message.not_found"},
	}
}
