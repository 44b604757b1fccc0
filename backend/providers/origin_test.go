package providers

import (
	"errors"
	"net/http"
	"testing"
)

// The redirect policy compares each hop with the first request's origin.
func TestSameOriginRedirects(t *testing.T) {
	t.Parallel()
	cases := []struct {
		from, to string
		ok       bool
	}{
		{"https://api.example.com/v1/models", "https://api.example.com/v1/models/", true},
		{"https://api.example.com/v1/models", "https://API.example.com:443/v2/models", true},
		{"http://127.0.0.1:8080/v1/models", "http://127.0.0.1:8080/models", true},
		{"https://api.example.com/v1/models", "http://api.example.com/v1/models", false},
		{"https://api.example.com/v1/models", "https://api.example.com:8443/v1/models", false},
		{"https://api.example.com/v1/models", "https://evil.example.com/v1/models", false},
		{"https://api.example.com/v1/models", "https://sub.api.example.com/v1/models", false},
		{"http://127.0.0.1:8080/v1/models", "http://127.0.0.1:8081/v1/models", false},
		{"http://127.0.0.1:8080/v1/models", "http://localhost:8080/v1/models", false},
	}
	for _, c := range cases {
		first, _ := http.NewRequest(http.MethodGet, c.from, nil)
		next, _ := http.NewRequest(http.MethodGet, c.to, nil)
		err := sameOriginRedirects(next, []*http.Request{first})
		var re *redirectError
		if c.ok != (err == nil) || (!c.ok && !errors.As(err, &re)) {
			t.Errorf("%s → %s: %v", c.from, c.to, err)
		}
	}
	// Every hop is held to the first request's origin, not the last one's.
	a, _ := http.NewRequest(http.MethodGet, "https://a.example/x", nil)
	b, _ := http.NewRequest(http.MethodGet, "https://b.example/x", nil)
	if err := sameOriginRedirects(b, []*http.Request{a, a}); err == nil {
		t.Error("a second hop to another origin was followed")
	}
	via := make([]*http.Request, maxRedirects)
	for i := range via {
		via[i] = a
	}
	if err := sameOriginRedirects(a, via); err == nil {
		t.Error("an endless redirect loop was followed")
	}
}
