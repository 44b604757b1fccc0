package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"hearth/backend/apperr"
)

// invokeRequest is the body of POST /api/invoke. Args stay raw: the host
// router validates them, once, for every transport.
type invokeRequest struct {
	Method string          `json:"method"`
	Args   json.RawMessage `json:"args"`
}

// handleInvoke serves POST /api/invoke once the session is checked.
func (s *Server) handleInvoke(w http.ResponseWriter, r *http.Request) {
	ServeInvoke(w, r, s.router, s.maxBody)
}

// ServeInvoke decodes a {method, args} body of at most maxBody bytes, runs
// it on router and writes {result} or {error} — no logic of its own. Both
// transports answer POST /api/invoke with it: this server after its session
// check, the desktop asset handler after its token check (the window's
// bulk reads, which stream faster there than through Wails IPC).
//
// A declared Content-Length over maxBody is refused before the body is
// read. Whenever the body was not read to its end (too large, too slow,
// broken), the answer closes the connection. The buffer grows with the
// bytes that arrive, never with what the client declared.
func ServeInvoke(w http.ResponseWriter, r *http.Request, router Invoker, maxBody int64) {
	if r.ContentLength > maxBody {
		closeAfterReply(w, r, defaultRefuseGrace)
		writeError(w, statusFor(CodeTooLarge), tooLarge(maxBody))
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		closeAfterReply(w, r, 0)
		var tooBig *http.MaxBytesError
		var netErr net.Error
		switch {
		case errors.As(err, &tooBig):
			writeError(w, statusFor(CodeTooLarge), tooLarge(tooBig.Limit))
		case errors.Is(err, os.ErrDeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
			writeError(w, statusFor(CodeBodyTimeout), apperr.New(CodeBodyTimeout,
				"request body arrived too slowly: it must come within a fixed allowance plus time for its size at a minimum rate"))
		default:
			writeError(w, http.StatusBadRequest, apperr.Invalid("read request body: %v", err))
		}
		return
	}
	req, ok := splitRequest(body)
	if !ok {
		if err := json.Unmarshal(body, &req); err != nil {
			writeError(w, http.StatusBadRequest, apperr.Invalid(`request body must be {"method": string, "args": array}: %v`, err))
			return
		}
	}
	if req.Method == "" {
		writeError(w, http.StatusBadRequest, apperr.Invalid("method is required"))
		return
	}
	var out []byte
	var stream func(io.Writer) error
	if s, ok := router.(StreamInvoker); ok {
		out, stream, err = s.InvokeStream(r.Context(), req.Method, req.Args)
	} else {
		out, err = router.Invoke(r.Context(), req.Method, req.Args)
	}
	if err != nil {
		e := apperr.Shape(err)
		writeError(w, statusFor(e.Code), e)
		return
	}
	if stream != nil {
		writeStream(w, stream)
		return
	}
	// The router's output is JSON it encoded itself; re-validating a
	// whole chat here would cost more than producing it.
	if len(bytes.TrimSpace(out)) == 0 {
		out = []byte("null")
	}
	writeJSONBytes(w, http.StatusOK, []byte(`{"result":`), out, []byte("}"))
}

// tooLarge is the error for a body over limit bytes.
func tooLarge(limit int64) *apperr.Error {
	return apperr.New(CodeTooLarge, "request body exceeds %d bytes", limit).
		WithDetails(map[string]any{"limit": limit})
}

// StreamInvoker is an Invoker whose methods may answer with a stream
// (host.Router.InvokeStream): the result's JSON, written while it is made.
type StreamInvoker interface {
	InvokeStream(ctx context.Context, method string, rawArgs []byte) ([]byte, func(io.Writer) error, error)
}

// writeStream sends a streamed result as {"result": …} without a length.
// Nothing goes out until the stream's first write, so an error before it
// (an unknown chat) is an ordinary error answer; an error after it ends
// the response short, and the caller's JSON parse fails on it. Each piece
// must reach the client within streamPieceTimeout: a stream reads inside a
// database snapshot, which a client that stops reading would otherwise
// hold open for as long as its connection lives.
func writeStream(w http.ResponseWriter, stream func(io.Writer) error) {
	sw := &streamWriter{w: w, rc: http.NewResponseController(w)}
	defer func() { _ = sw.rc.SetWriteDeadline(time.Time{}) }()
	err := stream(sw)
	if err != nil && !sw.started {
		e := apperr.Shape(err)
		writeError(w, statusFor(e.Code), e)
		return
	}
	if err != nil {
		return
	}
	if !sw.started {
		_, _ = sw.Write([]byte("null"))
	}
	_, _ = w.Write([]byte("}"))
}

// streamPieceTimeout bounds the time one piece of a streamed result (256
// KiB of a whole-chat read) may take to go out.
var streamPieceTimeout = 15 * time.Second

// streamWriter writes the answer's headers and opening before the first
// piece of a streamed result, and gives each piece its write deadline
// (where the writer has deadlines: the desktop's asset handler has none).
type streamWriter struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	started bool
}

func (s *streamWriter) Write(p []byte) (int, error) {
	_ = s.rc.SetWriteDeadline(time.Now().Add(streamPieceTimeout))
	if !s.started {
		s.started = true
		setJSONHeaders(s.w.Header())
		s.w.WriteHeader(http.StatusOK)
		if _, err := s.w.Write([]byte(`{"result":`)); err != nil {
			return 0, err
		}
	}
	return s.w.Write(p)
}

// splitRequest reads {"method": string, "args": …} in one pass, keeping
// args as the raw bytes of body (which the handler owns): encoding/json
// would validate a chat file's megabytes and then copy them. ok is false
// for anything it does not take cleanly (encoding/json then decodes the
// body and says what is wrong): another member, a repeated or wrongly
// typed one, a name in another case.
func splitRequest(body []byte) (req invokeRequest, ok bool) {
	dec := jsontext.NewDecoder(bytes.NewBuffer(body))
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return req, false
	}
	for dec.PeekKind() == '"' {
		name, err := dec.ReadToken()
		if err != nil {
			return req, false
		}
		switch key := name.String(); {
		case key == "method" && dec.PeekKind() == '"' && req.Method == "":
			tok, err := dec.ReadToken()
			if err != nil {
				return req, false
			}
			req.Method = tok.String()
		case key == "args" && req.Args == nil:
			v, err := dec.ReadValue()
			if err != nil {
				return req, false
			}
			req.Args = json.RawMessage(v)
		default:
			return req, false
		}
	}
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '}' {
		return req, false
	}
	if _, err := dec.ReadToken(); err != io.EOF {
		return req, false
	}
	return req, true
}
