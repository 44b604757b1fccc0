package providers

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/tidwall/gjson"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// maxErrorBody bounds how much of an error answer is read: its message
// is cut to maxProviderMessage anyway, and an error page has no reason to
// be larger (the SDKs would read it whole, up to maxResponseBytes).
const maxErrorBody = 64 << 10

// errorBodyPaths are where servers put an error's text in a JSON body, in
// the order tried: OpenAI and most compatible servers ({"error":
// {"message"}}), proxies and Ollama ({"error": "…"}), others ({"message"}),
// FastAPI servers such as vLLM ({"detail": "…"} or [{"msg"}]), OAuth.
var errorBodyPaths = []string{"error.message", "error", "message", "detail", "detail.0.msg", "error_description"}

// errorText is the human part of an error answer's body: the message of a
// JSON error, the title (or else the text) of an HTML error page — a proxy
// in front of a local model answers 502 with nginx's — or the body as it
// is. Without it a user sees raw markup, or nothing at all.
func errorText(body string) string {
	trimmed := strings.TrimSpace(body)
	switch {
	case strings.HasPrefix(trimmed, "{") && gjson.Valid(trimmed):
		for _, path := range errorBodyPaths {
			if v := gjson.Get(trimmed, path); v.Type == gjson.String && strings.TrimSpace(v.Str) != "" {
				return v.Str
			}
		}
	case strings.HasPrefix(trimmed, "<"):
		if text := htmlText(trimmed); text != "" {
			return text
		}
	}
	return body
}

// htmlText returns an HTML page's title, or else its visible text.
func htmlText(page string) string {
	z := html.NewTokenizer(strings.NewReader(page))
	var title, text strings.Builder
	inTitle, skip := false, 0
	for {
		switch z.Next() {
		case html.ErrorToken:
			if t := strings.TrimSpace(title.String()); t != "" {
				return t
			}
			return strings.TrimSpace(text.String())
		case html.StartTagToken:
			switch name, _ := z.TagName(); atom.Lookup(name) {
			case atom.Title:
				inTitle = true
			case atom.Script, atom.Style:
				skip++
			}
		case html.EndTagToken:
			switch name, _ := z.TagName(); atom.Lookup(name) {
			case atom.Title:
				inTitle = false
			case atom.Script, atom.Style:
				skip = max(skip-1, 0)
			}
		case html.TextToken:
			switch {
			case inTitle:
				title.Write(z.Text())
			case skip == 0:
				text.Write(z.Text())
				text.WriteByte(' ')
			}
		}
	}
}

// readErrorAnswer turns an HTTP error answer into its HostError, reading
// at most maxErrorBody of it. The OpenAI SDK is given answers of 400 and
// up this way (errorAnswers): it keeps only {"error": {…}} bodies, and
// fails on {"error": "…"} with a JSON error that loses the status.
func readErrorAnswer(res *http.Response) error {
	defer res.Body.Close()
	var body bytes.Buffer
	if _, err := io.Copy(&body, io.LimitReader(res.Body, maxErrorBody)); err != nil && body.Len() == 0 {
		return transportError(err)
	}
	return statusError(res.StatusCode, res.Header, body.String(), time.Now())
}
