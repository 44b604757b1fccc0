package apptest

import (
	"encoding/json"
	"testing"
)

// Three is a small chat: user, assistant with two swipes and per-swipe
// reasoning, user.
func Three() []map[string]any {
	return []map[string]any{
		{"name": "User", "is_user": true, "mes": "Hello there."},
		{"name": "Seraphina", "is_user": false, "mes": "First answer.", "swipes": []string{"First answer.", "Second answer."}, "swipe_id": 0,
			"swipe_info": []map[string]any{
				{"send_date": "2026-11-01T10:00:00.000Z", "extra": map[string]any{"reasoning": "r0", "model": "m0"}},
				{"send_date": "2026-11-01T10:05:00.000Z", "extra": map[string]any{"reasoning": "r1", "model": "m1"}},
			},
			"extra": map[string]any{"reasoning": "r0", "model": "m0"}, "custom_key": map[string]any{"kept": true}},
		{"name": "User", "is_user": true, "mes": "Tell me more."},
	}
}

// Decode unmarshals raw into a value of type T, failing the test on error.
func Decode[T any](t testing.TB, raw json.RawMessage) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("decode %s: %v", raw, err)
	}
	return v
}

// Eq fails the test when got != want (compared as JSON).
func Eq(t testing.TB, what string, got, want any) {
	t.Helper()
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	if string(g) != string(w) {
		t.Errorf("%s = %s, want %s", what, g, w)
	}
}

// Extra returns message i's extra object.
func Extra(msgs []map[string]any, i int) map[string]any {
	e, _ := msgs[i]["extra"].(map[string]any)
	return e
}
