package httpapi

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"hearth/backend/apperr"
	"hearth/backend/host"
)

// The router answers bulk reads with a stream, which the server writes out
// as it is made.
var _ StreamInvoker = (*host.Router)(nil)

// TestInvokeStreamsWholeChat: a whole-chat read comes back streamed (no
// Content-Length: written in pieces, never held whole) and equal to what
// the router builds in memory; an unknown chat is still an ordinary error
// answer, since nothing was written before the stream failed.
func TestInvokeStreamsWholeChat(t *testing.T) {
	t.Parallel()
	a, _, ts := serveApp(t, nil)
	ctx := t.Context()
	call := func(method string, args ...any) json.RawMessage {
		t.Helper()
		raw, _ := json.Marshal(args)
		out, err := a.Router.Invoke(ctx, method, raw)
		if err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		return out
	}
	var card struct{ Avatar string }
	json.Unmarshal(call("characters.create", map[string]any{"name": "Seraphina"}), &card)
	var chat struct{ ChatID string }
	json.Unmarshal(call("chat.create", map[string]any{"avatar": card.Avatar}), &chat)
	var msgs []map[string]any
	for i := range 300 {
		msgs = append(msgs, map[string]any{"mes": strings.Repeat("lantern light ", 150) + string(rune('a'+i%26)), "is_user": i%2 == 0})
	}
	call("chat.addMessages", chat.ChatID, msgs)
	want := call("chat.getStMessages", chat.ChatID)
	if len(want) < 2*spillSize {
		t.Fatalf("the chat is %d bytes: too small to come in pieces", len(want))
	}

	res, body := do(t, nil, "POST", ts.URL+"/api/invoke", invokeBody(t, "chat.getStMessages", chat.ChatID), jsonHeader)
	if res.StatusCode != http.StatusOK || res.Header.Get("Content-Length") != "" || res.ContentLength != -1 {
		t.Fatalf("status %d, Content-Length %q: want 200, streamed", res.StatusCode, res.Header.Get("Content-Length"))
	}
	var got struct{ Result json.RawMessage }
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatalf("decode the streamed answer: %v", err)
	}
	if string(got.Result) != string(want) {
		t.Fatalf("streamed result (%d bytes) differs from the router's (%d bytes)", len(got.Result), len(want))
	}

	res, body = do(t, nil, "POST", ts.URL+"/api/invoke", invokeBody(t, "chat.getStMessages", "no-such-chat"), jsonHeader)
	wantError(t, res, body, statusFor(apperr.CodeChatNotFound), apperr.CodeChatNotFound)
}

// spillSize is the size of a streamed read's pieces (chats.spillAt).
const spillSize = 256 << 10

// FuzzSplitRequest: whenever the one-pass split takes a body,
// encoding/json takes it too and reads the same method and arguments.
func FuzzSplitRequest(f *testing.F) {
	for _, s := range []string{`{"method":"chat.get","args":["x"]}`, `{"args":[1],"method":"m"}`, `{"method":"m"}`,
		`{"method":"m","method":"n"}`, `{"Method":"m"}`, `{"method":null,"args":[]}`, `{"method":"m","args":[1]} x`, `{"method":"m","extra":1}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := splitRequest([]byte(s))
		if !ok {
			return
		}
		var want invokeRequest
		if err := json.Unmarshal([]byte(s), &want); err != nil {
			t.Fatalf("splitRequest took %q; encoding/json: %v", s, err)
		}
		if got.Method != want.Method || string(got.Args) != string(want.Args) {
			t.Fatalf("splitRequest(%q) = %q %s; encoding/json %q %s", s, got.Method, got.Args, want.Method, want.Args)
		}
	})
}
