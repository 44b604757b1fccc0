package chats

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"hearth/backend/apperr"
)

// TestPatchRefusesNegativeIndexes: RFC 6901 has no negative array index,
// so "-1" is refused on both of chat.patch's paths (ops inside messages or
// the metadata, and ops that restructure the message array), and nothing
// changes; "-" still appends.
func TestPatchRefusesNegativeIndexes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _ := newService(t)
	id := newChat(t, s)
	setup := []json.RawMessage{
		json.RawMessage(`{"op":"add","path":"/messages/-","value":{"name":"User","is_user":true,"mes":"Hello"}}`),
		json.RawMessage(`{"op":"add","path":"/metadata/list","value":[1,2,3]}`),
	}
	if _, err := s.Patch(ctx, id, setup, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	before := document(t, s, id)
	for _, op := range []string{
		`{"op":"remove","path":"/metadata/list/-1"}`,
		`{"op":"replace","path":"/metadata/list/-1","value":9}`,
		`{"op":"add","path":"/metadata/list/-1","value":9}`,
		`{"op":"replace","path":"/messages/0/swipes/-1","value":"x"}`,
		`{"op":"remove","path":"/messages/-1"}`,
		`{"op":"add","path":"/messages/-1","value":{"mes":"x"}}`,
		`{"op":"copy","from":"/messages/0","path":"/messages/-1"}`,
		`{"op":"move","from":"/messages/-1","path":"/messages/0"}`,
	} {
		_, err := s.Patch(ctx, id, []json.RawMessage{json.RawMessage(op)}, WriteOptions{})
		if code := apperr.CodeOf(err); code != apperr.CodePatchInvalid {
			t.Errorf("%s: error %v (code %q), want %s", op, err, code, apperr.CodePatchInvalid)
		}
		if after := document(t, s, id); string(after) != string(before) {
			t.Fatalf("%s was refused but changed the chat:\n%s\nwas\n%s", op, after, before)
		}
	}
	if _, err := s.Patch(ctx, id, []json.RawMessage{json.RawMessage(`{"op":"add","path":"/metadata/list/-","value":4}`)}, WriteOptions{}); err != nil {
		t.Fatalf(`"-" appends: %v`, err)
	}
}

// TestPatchBoundsCopies: each copy of a value into itself doubles it, so
// a few dozen ops could grow the chat past memory; a patch whose copies
// add more than jsonx.MaxCopyBytes is refused on both of chat.patch's
// paths, and nothing changes.
func TestPatchBoundsCopies(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _ := newService(t)
	id := newChat(t, s)
	before := document(t, s, id)
	seed := json.RawMessage(`{"op":"add","path":"/metadata/d","value":{"s":"` + strings.Repeat("x", 1000) + `"}}`)
	bomb := func(first ...json.RawMessage) []json.RawMessage {
		ops := append(first, seed)
		for i := range 40 {
			ops = append(ops, json.RawMessage(fmt.Sprintf(`{"op":"copy","from":"/metadata/d","path":"/metadata/d/c%d"}`, i)))
		}
		return ops
	}
	for name, ops := range map[string][]json.RawMessage{
		"inside the metadata":  bomb(),
		"with a message added": bomb(json.RawMessage(`{"op":"add","path":"/messages/-","value":{"mes":"x"}}`)),
	} {
		_, err := s.Patch(ctx, id, ops, WriteOptions{})
		if code := apperr.CodeOf(err); code != apperr.CodePatchInvalid {
			t.Fatalf("%s, 40 doubling copies: error %v (code %q), want %s", name, err, code, apperr.CodePatchInvalid)
		}
		if after := document(t, s, id); string(after) != string(before) {
			t.Fatalf("%s: the refused patch changed the chat", name)
		}
	}
	// Copies of ordinary size still work.
	if _, err := s.Patch(ctx, id, bomb()[:3], WriteOptions{}); err != nil {
		t.Fatalf("two copies: %v", err)
	}
}
