package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/coder/websocket"

	"hearth/backend/app/apptest"
	"hearth/backend/apperr"
	"hearth/backend/transport/httpapi"
)

// socketClient calls a server over its event socket, as the browser page
// does: one socket, many calls in flight, answers matched by id. It
// satisfies httpapi.Invoker.
type socketClient struct {
	conn   *websocket.Conn
	next   atomic.Int64
	mu     sync.Mutex
	wait   map[string]chan callAnswer
	closed chan struct{}
	err    error
}

type callAnswer struct {
	Result json.RawMessage `json:"result"`
	Error  *apperr.Error   `json:"error"`
}

// dialCalls opens the event socket of the server at base with token.
func dialCalls(t testing.TB, base, token string) *socketClient {
	t.Helper()
	conn, _, err := websocket.Dial(t.Context(), "ws"+strings.TrimPrefix(base, "http")+"/api/events",
		&websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"Bearer " + token}}})
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	conn.SetReadLimit(64 << 20)
	c := &socketClient{conn: conn, wait: map[string]chan callAnswer{}, closed: make(chan struct{})}
	go c.read()
	t.Cleanup(func() { conn.CloseNow() })
	return c
}

func (c *socketClient) read() {
	defer close(c.closed)
	for {
		_, data, err := c.conn.Read(context.Background())
		if err != nil {
			c.mu.Lock()
			c.err = err
			c.mu.Unlock()
			return
		}
		var msg struct {
			ID json.RawMessage `json:"id"`
			callAnswer
		}
		if json.Unmarshal(data, &msg) != nil || msg.ID == nil {
			continue // an event
		}
		c.mu.Lock()
		ch := c.wait[string(msg.ID)]
		delete(c.wait, string(msg.ID))
		c.mu.Unlock()
		if ch != nil {
			ch <- msg.callAnswer
		}
	}
}

// send sends one raw frame and returns the channel its answer (by id) comes on.
func (c *socketClient) send(ctx context.Context, id, frame string) (chan callAnswer, error) {
	ch := make(chan callAnswer, 1)
	c.mu.Lock()
	c.wait[id] = ch
	c.mu.Unlock()
	return ch, c.conn.Write(ctx, websocket.MessageText, []byte(frame))
}

func (c *socketClient) Invoke(ctx context.Context, method string, rawArgs []byte) ([]byte, error) {
	id := fmt.Sprint(c.next.Add(1))
	if len(rawArgs) == 0 {
		rawArgs = []byte("[]")
	}
	if !json.Valid(rawArgs) {
		return nil, apperr.Invalid("arguments must be a JSON array: invalid JSON")
	}
	ch, err := c.send(ctx, id, fmt.Sprintf(`{"id":%s,"method":%q,"args":%s}`, id, method, rawArgs))
	if err != nil {
		return nil, apperr.Local(err)
	}
	select {
	case a := <-ch:
		if a.Error != nil {
			return nil, a.Error
		}
		return a.Result, nil
	case <-c.closed:
		return nil, apperr.Local(fmt.Errorf("socket closed: %v", c.err))
	case <-ctx.Done():
		return nil, apperr.Local(ctx.Err())
	}
}

// TestContractOverEventSocket runs host contract scenarios through calls on
// the event socket: same results, same error codes, same events.
func TestContractOverEventSocket(t *testing.T) {
	t.Parallel()
	for name, scenarios := range map[string][]apptest.Scenario{
		"luker":      apptest.LukerScenarios(),
		"spindle":    apptest.SpindleScenarios(),
		"state":      apptest.StateScenarios(),
		"lifecycle":  apptest.LifecycleScenarios(),
		"characters": apptest.CharacterScenarios(),
		"depth":      apptest.DepthScenarios(),
		"patch":      apptest.PatchScenarios(),
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			apptest.Run(t, scenarios, func(e *apptest.Env) apptest.Invoker {
				srv, err := httpapi.New(httpapi.Config{Router: e.App.Router, Bus: e.App.Bus, Addr: "127.0.0.1:0"})
				if err != nil {
					e.T.Fatalf("new server: %v", err)
				}
				url, err := srv.Start(context.Background())
				if err != nil {
					e.T.Fatalf("start server: %v", err)
				}
				e.T.Cleanup(func() { srv.Close() })
				return dialCalls(e.T, url, srv.Token())
			})
		})
	}
}

// TestStateRoundsOnOneSocket: forty updateChatState writers on one socket —
// a browser tab, whose six connections would stall them over HTTP — take
// turns through the lease and end at exactly 4,000, none conflicting.
func TestStateRoundsOnOneSocket(t *testing.T) {
	t.Parallel()
	e := apptest.NewEnv(t, nil)
	e.SetupChat()
	srv, err := httpapi.New(httpapi.Config{Router: e.App.Router, Bus: e.App.Bus, Addr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	url, err := srv.Start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	c := dialCalls(t, url, srv.Token())
	const writers, increments = 40, 100
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	conflicts := atomic.Int64{}
	for range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range increments {
				for {
					ok, err := updateRound(t.Context(), c, e.ChatID, false)
					if err != nil {
						errs <- err
						return
					}
					if ok {
						break
					}
					conflicts.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	var got struct {
		Value struct{ N int } `json:"value"`
	}
	e.Must(&got, "state.getChatState", e.ChatID, "counter")
	if got.Value.N != writers*increments || conflicts.Load() != 0 {
		t.Fatalf("counter = %d (want %d), %d conflicts", got.Value.N, writers*increments, conflicts.Load())
	}
}
