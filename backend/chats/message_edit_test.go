package chats

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"hearth/backend/jsonx"
)

// TestMessageFromEditMatchesPatched: where messageFromEdit takes a patched
// message (only its text and swipes changed), it gives what
// messageFromPatched gives; everything else it leaves to
// messageFromPatched.
func TestMessageFromEditMatchesPatched(t *testing.T) {
	now := func() time.Time { return time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC) }
	inputs := []string{
		`{"name":"A","mes":"one","send_date":"2026-11-01T10:00:00.000Z"}`,
		`{"name":"A","mes":"b","swipes":["a","b","c"],"swipe_id":1,"swipe_info":[{},{"extra":{"r":1}},{}],"extra":{"x":[1]},"custom":{"k":"v"},"send_date":"d"}`,
		`{"name":"U","is_user":true,"mes":"<b>\"q\"</b>\n","extra":{"bias":"b"},"send_date":"d"}`,
		`{"name":"A","mes":"no date"}`,
	}
	for _, in := range inputs {
		o, err := jsonx.DecodeObject(json.RawMessage(in), "in")
		if err != nil {
			t.Fatal(err)
		}
		old, err := newMessage(o, "in", func(bool) string { return "N" }, now())
		if err != nil {
			t.Fatal(err)
		}
		old.ID = "m1"
		if in == inputs[3] {
			delete(old.Fields, "send_date")
		}
		was, _ := jsonx.SplitEncoded(old.mustJSON())
		swipes := func(texts ...string) json.RawMessage {
			b, _ := json.Marshal(texts)
			return b
		}
		edited := append([]string(nil), old.Swipes...)
		edited[old.SwipeID] = "edited <i>text</i>"
		other := append([]string(nil), old.Swipes...)
		other[len(other)-1] = "other swipe"
		cases := []struct {
			name    string
			members jsonx.Object
			fast    bool
		}{
			{"text", jsonx.Object{"mes": jsonx.Raw("new text")}, true},
			{"edit", jsonx.Object{"mes": jsonx.Raw(edited[old.SwipeID]), "swipes": swipes(edited...)}, true},
			{"other swipe", jsonx.Object{"swipes": swipes(other...)}, true},
			{"same text", jsonx.Object{"mes": jsonx.Raw(old.Mes())}, true},
			{"text and other swipe", jsonx.Object{"mes": jsonx.Raw("t"), "swipes": swipes(other...)}, true},
			{"nothing", jsonx.Object{}, true},
			{"text not a string", jsonx.Object{"mes": json.RawMessage(`1`)}, false},
			{"one swipe more", jsonx.Object{"swipes": swipes(append(old.Swipes, "more")...)}, false},
			{"name", jsonx.Object{"name": jsonx.Raw("B")}, false},
			{"is_system", jsonx.Object{"is_system": json.RawMessage(`true`)}, false},
			{"unknown key", jsonx.Object{"custom": json.RawMessage(`2`)}, false},
		}
		for _, c := range cases {
			doc := was.Clone()
			for k, v := range c.members {
				doc[k] = v
			}
			got, ok := messageFromEdit(old, was, doc)
			fast := c.fast && in != inputs[3]
			if ok != fast {
				t.Fatalf("%s / %s: taken %v, want %v", in, c.name, ok, fast)
			}
			want, err := messageFromPatched(old, doc, 0, now)
			if !ok {
				continue
			}
			if err != nil {
				t.Fatalf("%s / %s: taken, but messageFromPatched fails: %v", in, c.name, err)
			}
			if g, w := got.mustJSON(), want.mustJSON(); !bytes.Equal(g, w) {
				t.Errorf("%s / %s:\n edit    %s\n patched %s", in, c.name, g, w)
			}
			if old.Mes() != mesOf(was) {
				t.Fatalf("%s / %s: the stored message was changed", in, c.name)
			}
		}
	}
}

func mesOf(o jsonx.Object) string {
	s, _ := jsonx.String(o["mes"], "mes")
	return s
}
