package providers_test

import (
	"context"
	"testing"

	"hearth/backend/providers"
	"hearth/backend/providers/providertest"
)

// TestErrorAnswersKeepTheirText: whatever shape a server's error answer
// has — a proxy's HTML page, {"error": "…"} (which the OpenAI SDK failed
// to read, reporting a malformed chunk and no status), FastAPI's detail,
// a bare message or plain text — every provider kind reports the status's
// code and the answer's text, without markup.
func TestErrorAnswersKeepTheirText(t *testing.T) {
	t.Parallel()
	nginx := `<html><head><title>502 Bad Gateway</title><style>h1{}</style></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>`
	answers := []struct {
		name   string
		status int
		body   string
		code   string
		text   string
	}{
		{"html page", 502, nginx, providers.CodeUnavailable, "502 Bad Gateway"},
		{"html without title", 503, `<!DOCTYPE html><html><body><script>var a = 1;</script><p>Service   busy</p><p>retry later</p></body></html>`, providers.CodeUnavailable, "Service busy retry later"},
		{"error string", 400, `{"error":"model 'foo' not found"}`, providers.CodeRequestFailed, "model 'foo' not found"},
		{"error object", 401, `{"error":{"message":"Incorrect API key","type":"invalid_request_error"}}`, providers.CodeAuthFailed, "Incorrect API key"},
		{"fastapi detail", 422, `{"detail":"max_tokens must be positive"}`, providers.CodeRequestFailed, "max_tokens must be positive"},
		{"fastapi detail list", 422, `{"detail":[{"loc":["body","model"],"msg":"field required","type":"missing"}]}`, providers.CodeRequestFailed, "field required"},
		{"bare message", 400, `{"message":"context length exceeded"}`, providers.CodeRequestFailed, "context length exceeded"},
		{"unknown json", 400, `{"oops":1}`, providers.CodeRequestFailed, `{"oops":1}`},
		{"plain text", 404, "404 page not found", providers.CodeRequestFailed, "404 page not found"},
	}
	for _, kind := range []string{providers.KindOpenAICompatible, providers.KindAnthropic, providers.KindGoogle} {
		for _, a := range answers {
			t.Run(kind+"/"+a.name, func(t *testing.T) {
				t.Parallel()
				srv, p := ofKind(t, kind)
				srv.Push(providertest.Script{Status: a.status, Body: a.body})
				_, _, err := collect(context.Background(), p, hello())
				ae := wantCode(t, err, a.code)
				if ae.Details["providerMessage"] != a.text || ae.Details["status"] != a.status {
					t.Errorf("details %#v, want providerMessage %q and status %d", ae.Details, a.text, a.status)
				}
			})
		}
	}
}
