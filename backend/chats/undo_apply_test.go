package chats

import (
	"encoding/json"
	"reflect"
	"testing"

	"hearth/backend/apperr"
)

// TestDecodeJournalOpsMatchesDecodeOps: a stored operation list decodes to
// what the host's patch decoder makes of the same operations, and is
// refused where that decoder refuses, with the same message.
func TestDecodeJournalOpsMatchesDecodeOps(t *testing.T) {
	lists := []string{
		`[]`,
		` [ {"value":"a \u003cb\u003e \"q\"","op":"replace","path":"/messages/3/mes"} ] `,
		`[{"value":{"name":"A","extra":{"n":9007199254740993}},"op":"add","path":"/messages/-"},{"op":"remove","path":"/messages/0"}]`,
		`[{"value":null,"op":"add","path":"/metadata/x"},{"op":"test","path":"","value":{}}]`,
		`[{"op":"move","from":"/metadata/a~1b","path":"/metadata/c~0d"},{"op":"copy","from":"/metadata/e","path":"/metadata/f"}]`,
		`[{"op":"remove","path":"/messages/1","from":null},{"op":"remove","path":"/metadata/\u00e9"}]`,
		`[{"op":"add","path":"/metadata/x"}]`,
		`[{"op":"move","path":"/metadata/x"}]`,
		`[{"op":7,"path":"/metadata/x"}]`,
		`[{"op":"remove","path":null}]`,
		`[{"op":"remove","path":"/other/x"}]`,
		`[{"op":"remove","path":"metadata"}]`,
		`[{"op":"remove","path":""}]`,
		`[{"op":"frobnicate","path":"/metadata/x"}]`,
		`[{"op":"remove","path":"/metadata/a"},"remove"]`,
		`[{"op":"remove","path":"/metadata/a"},[]]`,
		`[{"op":"remove","path":"/metadata/a","op":"add","value":1}]`,
	}
	for _, list := range lists {
		var raws []json.RawMessage
		if err := json.Unmarshal([]byte(list), &raws); err != nil {
			t.Fatal(err)
		}
		want, wantErr := decodeOps(raws)
		got, err := decodeJournalOps(list)
		if (err == nil) != (wantErr == nil) {
			t.Errorf("%s: error %v, want %v", list, err, wantErr)
			continue
		}
		if err != nil {
			if a, b := apperr.As(err), apperr.As(wantErr); a == nil || b == nil || a.Code != b.Code || a.Message != b.Message {
				t.Errorf("%s: error %v, want %v", list, err, wantErr)
			}
			continue
		}
		if len(got) != len(want) {
			t.Fatalf("%s: %d ops, want %d", list, len(got), len(want))
		}
		for i := range got {
			if string(got[i].raw) != string(want[i].raw) || got[i].op != want[i].op || string(got[i].val) != string(want[i].val) ||
				!reflect.DeepEqual(got[i].path, want[i].path) || !reflect.DeepEqual(got[i].from, want[i].from) {
				t.Errorf("%s: op %d = %+v, want %+v", list, i, got[i], want[i])
			}
		}
	}
	for _, bad := range []string{``, `{}`, `[{"op":"remove","path":"/metadata/a"}`, `"ops"`, `[1,]`} {
		if _, err := decodeJournalOps(bad); apperr.As(err) == nil || apperr.As(err).Code != apperr.CodePatchInvalid {
			t.Errorf("%q: error %v, want %s", bad, err, apperr.CodePatchInvalid)
		}
	}
}
