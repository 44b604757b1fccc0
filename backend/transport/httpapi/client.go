package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"strings"

	"hearth/backend/apperr"
)

// Client calls a Hearth server's API over HTTP. It satisfies Invoker, so a
// scenario suite written against the in-process router runs unchanged
// "through HTTP", exercising the wire encoding, status mapping and guards
// as a browser would meet them. It sends the server's launch token when
// given one, as a script on the server's machine does; it keeps cookies,
// so after Login it carries the session of a password-protected server.
type Client struct {
	base  string
	token string
	http  *http.Client
}

// NewClient returns a Client for the server at baseURL (for example the URL
// Server.Start returned, or an httptest.Server's URL). token is the
// server's launch token (Server.Token, or its serve-token file); "" sends
// none, so calls need a Login first.
func NewClient(baseURL, token string) *Client {
	jar, _ := cookiejar.New(nil) // cookiejar.New never fails without options
	return &Client{
		base:  strings.TrimRight(baseURL, "/"),
		token: token,
		http:  &http.Client{Jar: jar},
	}
}

// Invoke runs method on the server with rawArgs (a JSON array, or empty for
// none) and returns the JSON result. Like Router.Invoke, every error is an
// *apperr.Error: the server's own error decoded from the body, or an
// "internal" error describing a transport failure.
func (c *Client) Invoke(ctx context.Context, method string, rawArgs []byte) ([]byte, error) {
	req := invokeRequest{Method: method}
	if len(bytes.TrimSpace(rawArgs)) > 0 {
		if !json.Valid(rawArgs) {
			return nil, apperr.Invalid("arguments must be a JSON array: invalid JSON")
		}
		req.Args = rawArgs
	}
	body, err := json.Marshal(req)
	if err != nil {
		return nil, apperr.Local(fmt.Errorf("encode %s request: %w", method, err))
	}
	var resp rawResult
	if err := c.post(ctx, "/api/invoke", body, &resp); err != nil {
		return nil, err
	}
	if resp == nil {
		return []byte("null"), nil
	}
	return resp, nil
}

// rawResult takes the result out of the server's {"result":…} envelope by
// slicing, which the server writes in exactly that form, instead of
// decoding megabytes of JSON twice.
type rawResult json.RawMessage

// resultOf returns the result inside envelope data, as a slice of data
// when the envelope has the server's exact form.
func resultOf(data []byte) (rawResult, error) {
	const prefix = `{"result":`
	if bytes.HasPrefix(data, []byte(prefix)) && bytes.HasSuffix(data, []byte("}")) {
		return rawResult(data[len(prefix) : len(data)-1]), nil
	}
	var env struct {
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(data, &env); err != nil {
		return nil, err
	}
	return rawResult(env.Result), nil
}

// Login opens a session on a password-protected server; the cookie is kept
// for later calls. Errors are *apperr.Error (auth.denied,
// auth.rate_limited, …).
func (c *Client) Login(ctx context.Context, password string) error {
	body, err := json.Marshal(map[string]string{"password": password})
	if err != nil {
		return apperr.Local(err)
	}
	return c.post(ctx, "/api/login", body, nil)
}

// post sends a JSON body and decodes a 200 response into out (nil skips
// it); any other status is decoded as the API's error shape.
func (c *Client) post(ctx context.Context, route string, body []byte, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+route, bytes.NewReader(body))
	if err != nil {
		return apperr.Local(fmt.Errorf("POST %s: %w", route, err))
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	res, err := c.http.Do(req)
	if err != nil {
		return apperr.Local(fmt.Errorf("POST %s: %w", route, err))
	}
	defer res.Body.Close()
	data, err := readBody(res)
	if err != nil {
		return apperr.Local(fmt.Errorf("POST %s: read response: %w", route, err))
	}
	if res.StatusCode != http.StatusOK {
		return decodeError(route, res.StatusCode, data)
	}
	if out == nil {
		return nil
	}
	if rr, ok := out.(*rawResult); ok {
		// Sliced, not scanned (see rawResult), and not copied: data is
		// this call's own buffer.
		res, err := resultOf(data)
		if err != nil {
			return apperr.Local(fmt.Errorf("POST %s: decode response: %w", route, err))
		}
		*rr = res
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return apperr.Local(fmt.Errorf("POST %s: decode response: %w", route, err))
	}
	return nil
}

// decodeError turns an error response into the server's *apperr.Error, or
// an internal error quoting the body when it is not in the API's shape
// (a proxy's error page, say).
func decodeError(route string, status int, data []byte) *apperr.Error {
	var eb errorBody
	if err := json.Unmarshal(data, &eb); err == nil && eb.Error != nil && eb.Error.Code != "" {
		return eb.Error
	}
	const maxQuote = 200
	text := strings.TrimSpace(string(data))
	if len(text) > maxQuote {
		text = text[:maxQuote] + "…"
	}
	return apperr.New(apperr.CodeInternal, "POST %s: HTTP %d: %s", route, status, text)
}

// maxPresize bounds the buffer a declared Content-Length may reserve
// before any byte arrives: a larger answer still reads, growing as it
// comes, so a server cannot make the client reserve memory by a header.
const maxPresize = 256 << 20

// readBody reads res's body whole. With a declared length it reads into
// one buffer of that size: a whole chat is tens of megabytes, and growing
// a buffer to it by doubling allocates (and clears) about twice that.
func readBody(res *http.Response) ([]byte, error) {
	n := res.ContentLength
	if n <= 0 || n > maxPresize {
		return io.ReadAll(res.Body)
	}
	data := make([]byte, n)
	if _, err := io.ReadFull(res.Body, data); err != nil {
		return nil, err
	}
	return data, nil
}
