package chats

import (
	"encoding/json"
	"testing"

	"github.com/wI2L/jsondiff"
)

// TestEncodePatchMatchesMarshal: the journal's encoder writes the bytes
// json.Marshal writes for the same patch (compact raw messages, HTML
// characters and U+2028 escaped), for every kind of op and value.
func TestEncodePatchMatchesMarshal(t *testing.T) {
	var typedNil map[string]any
	msg := json.RawMessage(`{"name":"A<b>","mes":"x & y > z \u2028 ` + "\u2028\u2029" + `","extra":{"n":9007199254740993}}`)
	patches := []jsondiff.Patch{
		{},
		{{Type: jsondiff.OperationAdd, Path: "/messages/3", Value: msg}},
		{{Type: jsondiff.OperationRemove, Path: "/messages/3"}, {Type: jsondiff.OperationRemove, Path: "/messages/2"}},
		{{Type: jsondiff.OperationReplace, Path: "/messages/0/mes", Value: "<i>hi</i> & \"bye\"\n"}},
		{{Type: jsondiff.OperationReplace, Path: "/metadata/x", Value: map[string]any{"b": []any{json.Number("1.50"), true, nil}, "a": "\u2028"}}},
		{{Type: jsondiff.OperationAdd, Path: "/metadata/n", Value: nil}, {Type: jsondiff.OperationAdd, Path: "/metadata/m", Value: typedNil}},
		{{Type: jsondiff.OperationTest, Path: "/messages/0/swipe_id", Value: json.Number("2")}},
		{{Type: jsondiff.OperationMove, From: "/metadata/a~1b", Path: "/metadata/c~0d"}, {Type: jsondiff.OperationCopy, From: "/metadata/e", Path: "/metadata/f"}},
		{{Type: jsondiff.OperationAdd, Path: "/messages/-", Value: json.RawMessage(nil)}},
	}
	for _, p := range patches {
		want, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		got, err := encodePatch(p)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("patch %v\n got %s\nwant %s", p, got, want)
		}
	}
	if _, err := encodePatch(jsondiff.Patch{{Type: jsondiff.OperationAdd, Path: "/x", Value: make(chan int)}}); err == nil {
		t.Error("a value JSON cannot hold was encoded")
	}
}
