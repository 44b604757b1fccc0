package providers

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"

	"hearth/backend/apperr"
)

// Default base URLs: where a connection of the kind goes when it sets none.
// They are passed to the SDKs explicitly, so the origin a key is bound to
// (Origin) is the one the key is sent to, and no SDK falls back to an
// address from the environment (the Gemini SDK reads
// GOOGLE_GEMINI_BASE_URL when none is given).
const (
	DefaultAnthropicBaseURL = "https://api.anthropic.com/"
	DefaultGoogleBaseURL    = "https://generativelanguage.googleapis.com/"
)

// DefaultBaseURL is the base URL a connection of kind uses when its own is
// empty; "" for an OpenAI-compatible connection, which must name its
// server.
func DefaultBaseURL(kind string) string {
	switch kind {
	case KindAnthropic:
		return DefaultAnthropicBaseURL
	case KindGoogle:
		return DefaultGoogleBaseURL
	}
	return ""
}

// Origin is the server a connection of kind at baseURL sends its key to:
// "scheme://host" or "scheme://host:port", where
//
//   - the base URL is the kind's default (DefaultBaseURL) when empty;
//   - scheme and host are lower-cased (both are case-insensitive);
//   - the port is left out when it is the scheme's default (80 for http,
//     443 for https), so "https://API.example.com:443/v1" and
//     "https://api.example.com" are the same origin, while
//     "http://127.0.0.1:8080" and "http://127.0.0.1:8081" are not;
//   - an IPv6 host keeps its brackets ("http://[::1]:8080");
//   - the path, query, fragment and any trailing slash do not count: a key
//     stays with its server when only the path under it changes.
//
// It is the web's notion of an origin (scheme, host, port), which is what
// a key is bound to: connections drop a stored key when a save changes
// the origin (or the provider), and the provider clients refuse a redirect
// that leaves it.
func Origin(kind, baseURL string) (string, error) {
	raw := strings.TrimSpace(baseURL)
	if raw == "" {
		raw = DefaultBaseURL(kind)
	}
	if raw == "" {
		return "", apperr.Invalid("the connection has no base URL")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", apperr.Invalid("the base URL %q is not a URL", shorten(raw))
	}
	o := originOf(u)
	if o == "" {
		return "", apperr.Invalid("the base URL %q is not an http:// or https:// URL with a host", shorten(raw))
	}
	return o, nil
}

// originOf is u's origin as Origin defines it; "" when u is not an http or
// https URL with a host.
func originOf(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	host := strings.ToLower(u.Hostname())
	if (scheme != "http" && scheme != "https") || host == "" {
		return ""
	}
	port := u.Port()
	if port == "" || (scheme == "http" && port == "80") || (scheme == "https" && port == "443") {
		if strings.Contains(host, ":") {
			host = "[" + host + "]"
		}
		return scheme + "://" + host
	}
	return scheme + "://" + net.JoinHostPort(host, port)
}

// maxRedirects bounds a chain of redirects within one origin (as the
// standard client's default does).
const maxRedirects = 10

// redirectError is a redirect the provider clients refused: to another
// origin, which would take the connection's key (and its custom headers)
// to a server it was not entered for.
type redirectError struct{ from, to string }

func (e *redirectError) Error() string {
	return fmt.Sprintf("the server at %s redirected to %s, another server: Hearth does not follow it, so the connection's key stays with %s (if the service has moved, set the connection's address to the new one)",
		e.from, e.to, e.from)
}

// sameOriginRedirects is the provider clients' CheckRedirect: it follows
// a redirect only within the origin of the first request, and refuses any
// other (another host or port, or https to http) with a redirectError.
//
// Refusing, rather than following without the secret headers, because the
// standard client strips only Authorization, Cookie and
// WWW-Authenticate on a cross-domain redirect and re-sends every other
// header: x-api-key (Anthropic), x-goog-api-key (Google) and any custom
// header would reach the new host, and over plain http after a downgrade.
// Stripping would need a complete list of secret headers; refusing needs
// none, and a model API that redirects elsewhere is unusual enough that
// the clear error (naming the host it wanted) is the better outcome.
func sameOriginRedirects(req *http.Request, via []*http.Request) error {
	if len(via) == 0 {
		return nil
	}
	from, to := originOf(via[0].URL), originOf(req.URL)
	if to == "" || to != from {
		if to == "" {
			to = req.URL.Scheme + "://" + req.URL.Host
		}
		return &redirectError{from: from, to: to}
	}
	if len(via) >= maxRedirects {
		return fmt.Errorf("stopped after %d redirects", maxRedirects)
	}
	return nil
}

// newHTTPClient is the HTTP client of every provider SDK: rt as its
// transport, redirects only within one origin (sameOriginRedirects).
func newHTTPClient(rt http.RoundTripper) *http.Client {
	return &http.Client{Transport: rt, CheckRedirect: sameOriginRedirects}
}
