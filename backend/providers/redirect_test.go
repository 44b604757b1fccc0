package providers_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"

	"hearth/backend/providers"
	"hearth/backend/providers/providertest"
)

// kinds are the three providers, each with its scripted server and the
// path its base URL ends in.
var kinds = []struct {
	kind   string
	server func() *providertest.Server
	suffix string
}{
	{providers.KindOpenAICompatible, providertest.NewOpenAI, "/v1"},
	{providers.KindAnthropic, providertest.NewAnthropic, ""},
	{providers.KindGoogle, providertest.NewGemini, ""},
}

// serverBase is srv's URL without the path its constructor added.
func serverBase(t *testing.T, srv *providertest.Server) string {
	t.Helper()
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	return u.Scheme + "://" + u.Host
}

// A server that redirects to another origin gets no answer from Hearth's
// clients, and the other server never sees the key or the custom headers:
// Go's client re-sends x-api-key, x-goog-api-key and custom headers on a
// cross-host redirect.
func TestRedirectToAnotherOriginIsRefused(t *testing.T) {
	t.Parallel()
	const key = "sk-redirect-secret-0123456789"
	for _, k := range kinds {
		t.Run(k.kind, func(t *testing.T) {
			t.Parallel()
			target := k.server()
			t.Cleanup(target.Close)
			target.Models = []string{"m"}
			targetBase := serverBase(t, target)
			redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, targetBase+r.URL.RequestURI(), http.StatusTemporaryRedirect)
			}))
			t.Cleanup(redirector.Close)
			p, err := providers.New(providers.Config{Kind: k.kind, BaseURL: redirector.URL + k.suffix, Model: "m", APIKey: key,
				Headers: map[string]string{"X-Custom-Header": "custom-value"}})
			if err != nil {
				t.Fatal(err)
			}
			_, modelsErr := p.Models(context.Background())
			target.Push(providertest.Script{})
			_, _, streamErr := collect(context.Background(), p, hello())
			for _, r := range target.Requests() {
				t.Errorf("the other server got %s %s, x-api-key %q, x-goog-api-key %q, authorization %q, X-Custom-Header %q", r.Method, r.Path,
					r.Header.Get("X-Api-Key"), r.Header.Get("X-Goog-Api-Key"), r.Header.Get("Authorization"), r.Header.Get("X-Custom-Header"))
			}
			ae := wantCode(t, modelsErr, providers.CodeRequestFailed)
			if !strings.Contains(ae.Message, strings.TrimPrefix(targetBase, "http://")) || ae.Details["redirectTo"] != targetBase {
				t.Errorf("models: the error does not name the host it was sent to: %v %v", ae.Message, ae.Details)
			}
			wantCode(t, streamErr, providers.CodeRequestFailed)
		})
	}
}

// A redirect within the origin (a moved path) is followed, key and all.
func TestRedirectWithinTheOriginIsFollowed(t *testing.T) {
	t.Parallel()
	for _, k := range kinds {
		t.Run(k.kind, func(t *testing.T) {
			t.Parallel()
			backend := k.server()
			t.Cleanup(backend.Close)
			backend.Models = []string{"m1", "m2"}
			u, _ := url.Parse(serverBase(t, backend))
			proxy := httputil.NewSingleHostReverseProxy(u)
			front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if rest, ok := strings.CutPrefix(r.URL.Path, "/moved"); ok {
					http.Redirect(w, r, rest, http.StatusTemporaryRedirect)
					return
				}
				proxy.ServeHTTP(w, r)
			}))
			t.Cleanup(front.Close)
			p, err := providers.New(providers.Config{Kind: k.kind, BaseURL: front.URL + "/moved" + k.suffix, Model: "m1", APIKey: "sk-same-origin"})
			if err != nil {
				t.Fatal(err)
			}
			models, err := p.Models(context.Background())
			if err != nil || len(models) != 2 {
				t.Fatalf("models %v, %v", models, err)
			}
			if len(backend.Requests()) != 1 {
				t.Fatalf("requests %+v", backend.Requests())
			}
		})
	}
}

// Origin is what a key is bound to: scheme, host and port, normalized.
func TestOrigin(t *testing.T) {
	t.Parallel()
	cases := []struct {
		kind, base, want string
	}{
		{providers.KindOpenAICompatible, "http://127.0.0.1:8080/v1", "http://127.0.0.1:8080"},
		{providers.KindOpenAICompatible, "  http://127.0.0.1:8080/v1/  ", "http://127.0.0.1:8080"},
		{providers.KindOpenAICompatible, "HTTPS://API.OpenAI.com/v1", "https://api.openai.com"},
		{providers.KindOpenAICompatible, "https://api.openai.com:443/v1", "https://api.openai.com"},
		{providers.KindOpenAICompatible, "http://localhost:80/v1", "http://localhost"},
		{providers.KindOpenAICompatible, "http://localhost:443/v1", "http://localhost:443"},
		{providers.KindOpenAICompatible, "https://example.com:80", "https://example.com:80"},
		{providers.KindOpenAICompatible, "http://example.com:/v1", "http://example.com"},
		{providers.KindOpenAICompatible, "http://[::1]:8080/v1", "http://[::1]:8080"},
		{providers.KindOpenAICompatible, "http://[::1]/v1", "http://[::1]"},
		{providers.KindOpenAICompatible, "https://openrouter.ai/api/v1?x=1#frag", "https://openrouter.ai"},
		{providers.KindAnthropic, "", "https://api.anthropic.com"},
		{providers.KindAnthropic, "https://proxy.example:8443/anthropic", "https://proxy.example:8443"},
		{providers.KindGoogle, "", "https://generativelanguage.googleapis.com"},
		{providers.KindGoogle, "https://generativelanguage.googleapis.com/", "https://generativelanguage.googleapis.com"},
	}
	for _, c := range cases {
		got, err := providers.Origin(c.kind, c.base)
		if err != nil || got != c.want {
			t.Errorf("Origin(%s, %q) = %q, %v; want %q", c.kind, c.base, got, err, c.want)
		}
	}
	for _, bad := range []struct{ kind, base string }{
		{providers.KindOpenAICompatible, ""},
		{providers.KindOpenAICompatible, "ftp://example.com"},
		{providers.KindOpenAICompatible, "http:///v1"},
		{providers.KindAnthropic, "127.0.0.1:8080"},
		{providers.KindAnthropic, "http://%zz"},
	} {
		if got, err := providers.Origin(bad.kind, bad.base); err == nil {
			t.Errorf("Origin(%s, %q) = %q, want an error", bad.kind, bad.base, got)
		}
	}
}

// recordingTransport notes each request's URL and answers none of them.
type recordingTransport struct{ urls chan string }

func (t recordingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	t.urls <- req.URL.String()
	return nil, errors.New("recorded")
}

// A connection without a base URL goes to its provider's default address,
// never to one from the environment (the Gemini SDK reads
// GOOGLE_GEMINI_BASE_URL when it is given no address), so the origin its
// key is bound to is the one it goes to.
func TestEmptyBaseURLIsTheProvidersOwn(t *testing.T) {
	t.Setenv("GOOGLE_GEMINI_BASE_URL", "http://127.0.0.1:1/")
	t.Setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:1/")
	for _, kind := range []string{providers.KindGoogle, providers.KindAnthropic} {
		rt := recordingTransport{urls: make(chan string, 4)}
		p, err := providers.New(providers.Config{Kind: kind, Model: "m", APIKey: "k", Transport: rt})
		if err != nil {
			t.Fatal(err)
		}
		_, _ = p.Models(context.Background())
		got := <-rt.urls
		origin, _ := providers.Origin(kind, "")
		if !strings.HasPrefix(got, origin+"/") {
			t.Errorf("%s went to %s, want %s", kind, got, origin)
		}
	}
}
