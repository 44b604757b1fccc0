package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"time"
)

// client calls one running server's API the way a script on its machine
// does: POST /api/invoke with {method, args} and the launch token as a
// bearer token.
type client struct {
	base  string
	token string
	http  *http.Client
	// inFlight counts the calls waiting for their answer.
	inFlight atomic.Int64
}

// newClient returns a client for the server at base (scheme, host and
// port) with its launch token.
func newClient(base, token string) *client {
	return &client{
		base:  strings.TrimRight(base, "/"),
		token: token,
		http: &http.Client{
			Timeout:   2 * time.Minute,
			Transport: &http.Transport{MaxIdleConnsPerHost: 16, DisableCompression: true},
		},
	}
}

// apiError is an error the server answered with: the call changed
// nothing.
type apiError struct {
	Code    string         `json:"code"`
	Message string         `json:"message"`
	Details map[string]any `json:"details,omitempty"`
}

func (e *apiError) Error() string { return e.Code + ": " + e.Message }

// errNoAnswer wraps a call that got no whole answer (the server died, or
// was never reached): it may or may not have happened.
var errNoAnswer = errors.New("no answer")

// errBadResult wraps a success whose result did not decode: the call
// happened, the soak misread it.
var errBadResult = errors.New("unreadable result")

// codeOf is err's API error code, "" when err is no API error.
func codeOf(err error) string {
	var ae *apiError
	if errors.As(err, &ae) {
		return ae.Code
	}
	return ""
}

// call invokes method with args and decodes the result into out (when not
// nil). An error is an *apiError (the server refused) or wraps
// errNoAnswer.
func (c *client) call(ctx context.Context, out any, method string, args ...any) error {
	if args == nil {
		args = []any{}
	}
	body, err := json.Marshal(map[string]any{"method": method, "args": args})
	if err != nil {
		return fmt.Errorf("encode %s: %w", method, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+"/api/invoke", bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+c.token)
	c.inFlight.Add(1)
	defer c.inFlight.Add(-1)
	res, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("%s: %w: %v", method, errNoAnswer, err)
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		return fmt.Errorf("%s: %w: read: %v", method, errNoAnswer, err)
	}
	if res.StatusCode != http.StatusOK {
		var env struct {
			Error *apiError `json:"error"`
		}
		if json.Unmarshal(data, &env) == nil && env.Error != nil && env.Error.Code != "" {
			return env.Error
		}
		return &apiError{Code: "soak.http", Message: fmt.Sprintf("%s: HTTP %d: %s", method, res.StatusCode, clip(string(data), 200))}
	}
	var env struct {
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(data, &env); err != nil {
		return fmt.Errorf("%s: %w: decode: %v", method, errNoAnswer, err)
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(env.Result, out); err != nil {
		return fmt.Errorf("%s: %w %s: %v", method, errBadResult, clip(string(env.Result), 200), err)
	}
	return nil
}

// outcome settles ops by err: success acknowledges them, an API error
// fails them, no answer abandons them (pending until the next check).
// It reports whether the call succeeded, counting it in l; a refusal
// whose code is not one of expected counts as refused, with its reason.
func outcome(l *Ledger, err error, ops []*Op, expected ...string) bool {
	switch {
	case err == nil || errors.Is(err, errBadResult):
		l.Called()
		for _, o := range ops {
			o.Ack()
		}
		if err != nil {
			l.Note("%v", err)
			return false
		}
		return true
	case errors.Is(err, errNoAnswer):
		for _, o := range ops {
			o.Abandon()
		}
	default:
		for _, o := range ops {
			o.Fail()
		}
		if code := codeOf(err); code == "" || !slices.Contains(expected, code) {
			l.Refused("%v", err)
		}
	}
	return false
}

// isNoAnswer reports whether err is a call that got no answer: the
// server is gone, and the writer should stop until it is back.
func isNoAnswer(err error) bool { return errors.Is(err, errNoAnswer) }
