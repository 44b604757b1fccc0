package host_test

import (
	"encoding/json"
	"strings"
	"testing"

	"hearth/backend/app/apptest"
	"hearth/backend/apperr"
	"hearth/backend/jsonx"
)

// fuzzValue builds a JSON value nested exactly depth levels, each level an
// object or an array as shape's bits say, so the depth check meets every
// mix of brackets, keys and strings that look like brackets.
func fuzzValue(depth int, shape []byte) string {
	var open, closing strings.Builder
	for i := 0; i < depth; i++ {
		bit := len(shape) > 0 && shape[i%len(shape)]>>(i%8)&1 == 1
		if bit {
			open.WriteString(`["]}\"[{",`)
			closing.WriteString("]")
		} else {
			open.WriteString(`{"k{[":`)
			closing.WriteString("}")
		}
	}
	var b strings.Builder
	b.WriteString(open.String())
	b.WriteString(`"leaf"`)
	s := closing.String()
	for i := len(s) - 1; i >= 0; i-- {
		b.WriteByte(s[i])
	}
	return b.String()
}

// FuzzWriteDepth drives the write paths with values of every depth around
// the limit: a write whose value would nest past jsonx.MaxDepth (as sent,
// or once stored) fails with validation.invalid_argument and changes
// nothing; anything within the limit is stored.
func FuzzWriteDepth(f *testing.F) {
	e := apptest.NewEnv(f, nil)
	e.SetupChat(map[string]any{"mes": "hello"})
	for _, seed := range []struct {
		depth  uint16
		method uint8
	}{{1, 0}, {63, 0}, {64, 1}, {65, 2}, {62, 3}, {63, 3}, {200, 1}, {9000, 0}} {
		f.Add(seed.depth, seed.method, []byte{0x5a, 0xff})
	}
	chat := func() string { b, _ := json.Marshal(e.ChatID); return string(b) }
	f.Fuzz(func(t *testing.T, depth uint16, method uint8, shape []byte) {
		e.T = t
		d := int(depth % 10000)
		v := fuzzValue(d, shape)
		var name, args string
		var want int // the deepest the write would make anything, as jsonx counts it
		switch method % 4 {
		case 0:
			name, args, want = "characters.create", `[{"name":"Deep","custom":`+v+`}]`, 1+d
		case 1:
			name, args, want = "chat.addMessages", `[`+chat()+`,{"mes":"deep","custom":`+v+`}]`, 1+d
		case 2:
			name, args, want = "chat.saveMetadata", `[`+chat()+`,{"custom":`+v+`}]`, 1+d
		case 3:
			// The op array and its object hold the value two levels down.
			name, args, want = "chat.patch", `[`+chat()+`,[{"op":"add","path":"/metadata/custom","value":`+v+`}]]`, 2+d
		}
		before := e.Snapshot()
		_, err := e.CallRaw(name, args)
		evs := e.Events()
		if want > jsonx.MaxDepth {
			if apperr.CodeOf(err) != apperr.CodeInvalidArgument {
				t.Fatalf("%s with a value %d deep: err = %v, want validation.invalid_argument", name, d, err)
			}
			if len(evs) != 0 {
				t.Fatalf("%s failed but sent %d events", name, len(evs))
			}
			if after := e.Snapshot(); after != before {
				t.Fatalf("%s failed but changed what is stored", name)
			}
			return
		}
		if err != nil {
			t.Fatalf("%s with a value %d deep (within the limit): %v", name, d, err)
		}
	})
}
