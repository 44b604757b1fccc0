package chats

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"hearth/backend/jsonx"
)

// TestDriftedValuesMatchesBack: for replace-only steps, comparing the
// values check sets with the chat finds drift exactly where applying check
// to the result and comparing it with the chat does, for values equal as
// text, equal only as JSON, and different; at nested, escaped and array
// paths; in messages and the metadata; one path at a time and in pairs.
func TestDriftedValuesMatchesBack(t *testing.T) {
	msg := jsonx.Object{
		"mes":    json.RawMessage(`"hello"`),
		"swipes": json.RawMessage(`["hello","b"]`),
		"extra":  json.RawMessage(`{"deep":{"x":{"y":null}},"a/b":2,"n":1.0,"list":[{"k":true}]}`),
	}
	meta := jsonx.Object{"k": json.RawMessage(`{"a":[1,{"z":1}]}`)}
	paths := []string{"/messages/0/mes", "/messages/0/swipes/1", "/messages/0/extra/deep/x/y", "/messages/0/extra/a~1b",
		"/messages/0/extra/n", "/messages/0/extra/list/0/k", "/metadata/k/a/1", "/metadata/k"}
	values := []string{`"hello"`, `"b"`, `null`, `2`, `1`, `2.0`, `true`, `{"z":1}`, `{"a":[1,{"z":1}]}`, `"other"`}
	replace := func(path, value string) json.RawMessage {
		return json.RawMessage(fmt.Sprintf(`{"op":"replace","path":%q,"value":%s}`, path, value))
	}
	decode := func(raws ...json.RawMessage) []patchOp {
		ops, err := decodeOps(raws)
		if err != nil {
			t.Fatal(err)
		}
		return ops
	}
	compare := func(name string, ops, check []patchOp) {
		t.Helper()
		if !replacesInPlace(ops, check) {
			t.Fatalf("%s: not in place", name)
		}
		d := newSparseDoc(context.Background(), nil, &chatRow{messageCount: 1, metadata: meta})
		d.loaded[0], d.loadedDoc[0] = storedMessage{msg: &StMessage{}}, msg
		if err := d.apply(ops); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got, err := d.driftedValues(check)
		if err != nil {
			t.Fatal(err)
		}
		want, err := d.driftedBack(check)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: drifted %v, applying check back says %v", name, got, want)
		}
	}
	for _, p := range paths {
		for _, v := range values {
			compare(p+" "+v, decode(replace(p, `"step"`)), decode(replace(p, v)))
		}
	}
	for i, p := range paths {
		for _, q := range paths[i+1:] {
			if p == "/metadata/k" && q == "/metadata/k/a/1" || q == "/metadata/k" && p == "/metadata/k/a/1" {
				continue
			}
			for _, v := range values[:4] {
				ops := decode(replace(p, `"step"`), replace(q, `"step"`))
				compare(p+" "+q+" "+v, ops, decode(replace(q, v), replace(p, `"hello"`)))
			}
		}
	}
}

// TestReplacesInPlace: only replaces of the same paths, none inside
// another, inside messages (not their ids) or the metadata qualify.
func TestReplacesInPlace(t *testing.T) {
	ops := func(raws ...string) []patchOp {
		rs := make([]json.RawMessage, len(raws))
		for i, r := range raws {
			rs[i] = json.RawMessage(r)
		}
		out, err := decodeOps(rs)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	mes := `{"op":"replace","path":"/messages/1/mes","value":"a"}`
	swipe := `{"op":"replace","path":"/messages/1/swipes/0","value":"a"}`
	cases := []struct {
		ops, check []patchOp
		want       bool
	}{
		{ops(mes, swipe), ops(swipe, mes), true},
		{ops(`{"op":"replace","path":"/metadata/k","value":1}`), ops(`{"op":"replace","path":"/metadata/k","value":2}`), true},
		{ops(mes), ops(swipe), false},
		{ops(mes, swipe), ops(mes), false},
		{ops(mes, mes), ops(mes, mes), false},
		{ops(`{"op":"replace","path":"/messages/1/swipes","value":[]}`, swipe), ops(`{"op":"replace","path":"/messages/1/swipes","value":[]}`, swipe), false},
		{ops(`{"op":"add","path":"/messages/1/mes","value":"a"}`), ops(mes), false},
		{ops(`{"op":"replace","path":"/messages/1/id","value":"a"}`), ops(`{"op":"replace","path":"/messages/1/id","value":"b"}`), false},
		{ops(`{"op":"replace","path":"/messages/1","value":{}}`), ops(`{"op":"replace","path":"/messages/1","value":{}}`), false},
		{ops(`{"op":"replace","path":"/metadata","value":{}}`), ops(`{"op":"replace","path":"/metadata","value":{}}`), false},
	}
	for i, c := range cases {
		if got := replacesInPlace(c.ops, c.check); got != c.want {
			t.Errorf("case %d: %v, want %v", i, got, c.want)
		}
	}
}
