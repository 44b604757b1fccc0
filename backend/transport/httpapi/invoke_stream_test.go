package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

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

// endlessStream answers every call with a stream of 256 KiB pieces that
// goes on until a write fails, and reports that failure.
type endlessStream struct{ ended chan error }

func (e endlessStream) Invoke(context.Context, string, []byte) ([]byte, error) { return nil, nil }

func (e endlessStream) InvokeStream(context.Context, string, []byte) ([]byte, func(io.Writer) error, error) {
	return nil, func(w io.Writer) error {
		piece := []byte(`"` + strings.Repeat("x", spillSize) + `",`)
		if _, err := w.Write([]byte("[")); err != nil {
			e.ended <- err
			return err
		}
		for {
			if _, err := w.Write(piece); err != nil {
				e.ended <- err
				return err
			}
		}
	}, nil
}

// TestStreamToAStalledClient: a client that stops reading a streamed
// answer does not hold the stream (and the database snapshot it reads in)
// open: a piece that cannot go out within streamPieceTimeout ends it.
func TestStreamToAStalledClient(t *testing.T) {
	prev := streamPieceTimeout
	streamPieceTimeout = 200 * time.Millisecond
	t.Cleanup(func() { streamPieceTimeout = prev })
	router := endlessStream{ended: make(chan error, 1)}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ServeInvoke(w, r, router, 1<<20)
	}))
	defer ts.Close()
	conn, err := net.Dial("tcp", ts.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	body := `{"method":"chat.getStMessages","args":["c"]}`
	fmt.Fprintf(conn, "POST /api/invoke HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
	select {
	case err := <-router.ended:
		if err == nil {
			t.Fatal("the stream ended without an error")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the stream to a client that reads nothing is still going after 30 s")
	}
}
