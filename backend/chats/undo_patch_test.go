package chats

import (
	"bytes"
	"encoding/json"
	"testing"

	"hearth/backend/apperr"
	"hearth/backend/jsonx"
)

// TestApplyMembersMatchesWholeObject: applying ops to only the members they
// name gives the object (or the error) applying them to the whole object
// gives, for every kind of op, across members and within one.
func TestApplyMembersMatchesWholeObject(t *testing.T) {
	obj := jsonx.Object{
		"mes":        json.RawMessage(`"hello <b>&</b>"`),
		"swipes":     json.RawMessage(`["a","b","c"]`),
		"swipe_id":   json.RawMessage(`1`),
		"extra":      json.RawMessage(`{"n":9007199254740993,"list":[1,2],"deep":{"x":{"y":null}}}`),
		"swipe_info": json.RawMessage(`[{},{},{}]`),
		"":           json.RawMessage(`"empty key"`),
	}
	cases := [][]string{
		{`{"op":"replace","path":"/messages/0/mes","value":"bye"}`, `{"op":"replace","path":"/messages/0/swipes/1","value":"bye"}`},
		{`{"op":"add","path":"/messages/0/extra/list/-","value":3}`, `{"op":"remove","path":"/messages/0/extra/n"}`},
		{`{"op":"add","path":"/messages/0/new","value":{"k":[true]}}`},
		{`{"op":"remove","path":"/messages/0/swipe_info"}`},
		{`{"op":"move","from":"/messages/0/extra/deep","path":"/messages/0/moved"}`},
		{`{"op":"copy","from":"/messages/0/swipes","path":"/messages/0/extra/copy"}`},
		{`{"op":"test","path":"/messages/0/extra/n","value":9007199254740993}`, `{"op":"replace","path":"/messages/0/","value":1}`},
		{`{"op":"test","path":"/messages/0/mes","value":"other"}`},
		{`{"op":"remove","path":"/messages/0/absent"}`},
		{`{"op":"replace","path":"/messages/0/swipes/7","value":"x"}`},
		{`{"op":"replace","path":"/messages/0/mes","value":"a"}`, `{"op":"move","from":"/messages/0/absent","path":"/messages/0/mes"}`},
		{`{"op":"replace","path":"/messages/0/mes","value":"\u003cb\u003e \"q\" \\ \n"}`, `{"op":"replace","path":"/messages/0/swipes/2","value": "x" }`},
		{`{"op":"add","path":"/messages/0/new","value": { "k" : [ true , 1.50 ] } }`, `{"op":"replace","path":"/messages/0/swipes/0","value":[ {"a" : null} ]}`},
		{`{"op":"add","path":"/messages/0/mes","value":"added over"}`, `{"op":"remove","path":"/messages/0/swipe_id"}`},
		{`{"op":"test","path":"/messages/0/swipe_id","value":1}`, `{"op":"test","path":"/messages/0/mes","value":"hello <b>&</b>"}`},
		{`{"op":"test","path":"/messages/0/swipe_id","value":1.0}`},
		{`{"op":"test","path":"/messages/0/absent","value":null}`},
		{`{"op":"replace","path":"/messages/0/absent","value":1}`},
		{`{"op":"replace","path":"/messages/0/swipes/01","value":"x"}`},
		{`{"op":"replace","path":"/messages/0/swipes/+1","value":"x"}`},
		{`{"op":"replace","path":"/messages/0/swipes/3","value":"x"}`},
		{`{"op":"replace","path":"/messages/0/swipes/-","value":"x"}`},
		{`{"op":"replace","path":"/messages/0/extra/n","value":"x"}`},
		{`{"op":"replace","path":"/messages/0/mes/0","value":"x"}`},
		{`{"op":"add","path":"/messages/0/swipes/1","value":"x"}`},
	}
	plain := 0
	for _, c := range cases {
		raws := make([]json.RawMessage, len(c))
		for i, s := range c {
			raws[i] = json.RawMessage(s)
		}
		ops, err := decodeOps(raws)
		if err != nil {
			t.Fatalf("%v: %v", c, err)
		}
		whole, _ := obj.MarshalJSON()
		want, wantErr := applyStripped(whole, ops, 2, 4)
		got, gotErr := applyMembers(obj, ops, 2, 4)
		if (wantErr == nil) != (gotErr == nil) {
			t.Fatalf("%v: whole object: %v; members: %v", c, wantErr, gotErr)
		}
		if wantErr != nil {
			we, ge := apperr.As(wantErr), apperr.As(gotErr)
			if we == nil || ge == nil || we.Code != ge.Code || we.Details["op"] != ge.Details["op"] {
				t.Fatalf("%v: whole object failed with %v, members with %v", c, wantErr, gotErr)
			}
			continue
		}
		wantObj, err := jsonx.DecodeObject(want, "want")
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := applyPlainOps(obj, ops, 2); ok {
			// Without the library, the bytes are still the library's.
			plain++
			if len(got) != len(wantObj) {
				t.Fatalf("%v: %d members without the library, %d with", c, len(got), len(wantObj))
			}
			for k, v := range wantObj {
				if !bytes.Equal(got[k], v) {
					t.Errorf("%v: member %q is %s without the library, %s with", c, k, got[k], v)
				}
			}
		}
		if !sameMembers(got, wantObj, false) {
			gotJSON, _ := got.MarshalJSON()
			t.Errorf("%v:\n members %s\n   whole %s", c, gotJSON, want)
		}
		if len(obj) != 6 || string(obj["mes"]) != `"hello <b>&</b>"` {
			t.Fatalf("%v: the object given was changed: %v", c, obj)
		}
	}
	if plain != 8 {
		t.Errorf("%d cases were applied without the library, want 8", plain)
	}
}
