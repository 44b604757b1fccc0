package providers

import "testing"

func TestRedactorText(t *testing.T) {
	t.Parallel()
	const key = "sk-proj-Q7xv93KfLm2Rt8Wz4Np6Hs1Jd5Gc0BaYe"
	cases := []struct{ key, in, want string }{
		{key, "", ""},
		{key, "no key here", "no key here"},
		{key, "Incorrect API key provided: " + key + ".", "Incorrect API key provided: [redacted]."},
		{key, "key sk-proj-Q7xv****Gc0BaYe (masked)", "key [redacted]****Gc0BaYe (masked)"},
		{key, "tail ****Hs1Jd5Gc0BaYe", "tail ****[redacted]"},
		{key, "first 8: sk-proj-", "first 8: [redacted]"},
		{key, "first 7: sk-proj", "first 7: sk-proj"},
		{key, "two pieces 93KfLm2R and 8Wz4Np6Hs", "two pieces [redacted] and [redacted]"},
		{"  " + key + "\n", "padded " + key, "padded [redacted]"},
		{"clé-secrète-été-2024", "la clé: clé-secrète-été-2024!", "la clé: [redacted]!"},
		{"éabcdefgh", "x©abcdefgh y", "x[redacted] y"},
		{"abcdefgé", "abcdefgã y", "[redacted] y"},
		{"abc1", "key abc1, not abc12 or xabc1", "key [redacted], not abc12 or xabc1"},
		{"x", "the x-ray said x", "the x-ray said [redacted]"},
		{"", "Authorization: Bearer sk-other-1234567890.", "Authorization: Bearer [redacted]."},
		{"", "header authorization=\"Bearer sk-abc1****wxyz\"", "header authorization=\"Bearer [redacted]\""},
		{"", "Authorization: Basic dXNlcjpwYXNzd29yZA==", "Authorization: Basic [redacted]"},
		{"", "Proxy-Authorization: tok-1234567890", "Proxy-Authorization: [redacted]"},
		{"", "x-api-key: abc123def456 was refused", "x-api-key: [redacted] was refused"},
		{"", `{"x-goog-api-key": "AIzaSyD-9tSrke72PouQ"}`, `{"x-goog-api-key": "[redacted]"}`},
		{"", "GET /v1beta/models?key=AIzaSyD-9tSrke72PouQ&alt=sse", "GET /v1beta/models?key=[redacted]&alt=sse"},
		{"", "use api_key=YOUR_API_KEY", "use api_key=[redacted]"},
		{"", "api_key=missing", "api_key=missing"},
		{"", "using Bearer auth (i.e. Authorization: Bearer YOUR_KEY)", "using Bearer auth (i.e. Authorization: Bearer [redacted])"},
		{"", "Missing bearer or basic authentication in header", "Missing bearer or basic authentication in header"},
		{"", "find your key at https://platform.openai.com/account/api-keys.", "find your key at https://platform.openai.com/account/api-keys."},
		{"", "BEARER ", "BEARER "},
	}
	for _, c := range cases {
		if got := (redactor{key: c.key}).text(c.in); got != c.want {
			t.Errorf("key %q: text(%q)\n= %q\nwant %q", c.key, c.in, got, c.want)
		}
	}
}
