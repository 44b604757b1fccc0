package providers

import (
	"context"
	"iter"
	"strings"
	"unicode/utf8"

	"hearth/backend/apperr"
)

// minKeyFragment is the shortest piece of a key that is redacted wherever
// it appears. Servers that echo a key show it whole, its first characters,
// or a prefix and a suffix around a mask ("sk-proj-abc1****wxyz"); eight
// bytes catches every such prefix or suffix that says anything about the
// key. Shorter pieces are left: the four-character tails providers
// themselves print in their dashboards leave a random key of 32 or more
// characters as unguessable as before, and matching four bytes would rewrite
// ordinary words that happen to occur in a key. A key shorter than this is
// a placeholder for a local server more than a secret, and is redacted only
// whole, as a word of its own (so that the key "x" does not eat every x).
const minKeyFragment = 8

// redactedMark replaces what is redacted.
const redactedMark = "[redacted]"

// credentialSchemes introduce a credential after a space: an echoed
// Authorization header ("Bearer sk-…").
var credentialSchemes = []string{"bearer", "basic"}

// credentialFields introduce a credential after ':' or '=': echoed headers
// ("x-api-key: …", "x-goog-api-key: …", "Authorization: …") and query or
// form parameters ("api_key=…", "?key=…").
var credentialFields = []string{"api-key", "api_key", "apikey", "authorization", "?key", "&key"}

// redactor removes one connection's key from the text of its errors. It
// runs where errors leave the package (redactingProvider, New), the last
// place that holds the key, so every path an error takes out of a provider
// (an HTTP error body, an error event in the middle of a stream, a
// transport failure quoting a URL) passes it, and a new path cannot forget
// to: a run, a generation, an event or a log line never sees the key.
type redactor struct{ key string }

// redactingProvider is a Provider whose errors went through its redactor.
type redactingProvider struct {
	inner Provider
	r     redactor
}

// Stream implements Provider.
func (p redactingProvider) Stream(ctx context.Context, req Request, onDelta func(Delta)) (Result, error) {
	res, err := p.inner.Stream(ctx, req, onDelta)
	return res, p.r.err(err)
}

// Models implements Provider.
func (p redactingProvider) Models(ctx context.Context) ([]string, error) {
	ids, err := p.inner.Models(ctx)
	return ids, p.r.err(err)
}

// err is err with the key taken out of its message and details. Only
// HostErrors carry a provider's text; anything else a provider returns is
// the caller's own context error, kept as it is so that errors.Is still
// finds context.Canceled.
func (r redactor) err(err error) error {
	ae, ok := err.(*apperr.Error)
	if !ok {
		return err
	}
	out := &apperr.Error{Code: ae.Code, Message: r.text(ae.Message)}
	if ae.Details != nil {
		out.Details = r.value(ae.Details).(map[string]any)
	}
	return out
}

// value redacts the strings in a detail, however deeply nested.
func (r redactor) value(v any) any {
	switch v := v.(type) {
	case string:
		return r.text(v)
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = r.value(x)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = r.value(x)
		}
		return out
	}
	return v
}

// text replaces with redactedMark each run of s that holds a piece of the
// key (see minKeyFragment) or a credential after a header or parameter
// name. It costs O(len(s)·len(key)); provider texts are cut to
// maxProviderMessage before they get here, and keys to a few KiB.
func (r redactor) text(s string) string {
	if s == "" {
		return s
	}
	hidden := make([]bool, len(s))
	found := markKey(s, strings.TrimSpace(r.key), hidden)
	found = markCredentials(s, hidden) || found
	if !found {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if !hidden[i] {
			b.WriteByte(s[i])
			i++
			continue
		}
		b.WriteString(redactedMark)
		for i < len(s) && (hidden[i] || !utf8.RuneStart(s[i])) {
			i++
		}
	}
	return b.String()
}

// markKey marks in hidden every byte of s inside a window of
// minKeyFragment bytes that occurs in key (so every piece of the key at
// least that long), or, for a shorter key, each whole-word occurrence.
func markKey(s, key string, hidden []bool) bool {
	found := false
	mark := func(from, to int) {
		found = true
		for from > 0 && !utf8.RuneStart(s[from]) {
			from-- // a key that is not ASCII is not cut inside a character
		}
		for i := from; i < to; i++ {
			hidden[i] = true
		}
	}
	switch {
	case key == "":
	case len(key) < minKeyFragment:
		for i := 0; i < len(s); {
			j := strings.Index(s[i:], key)
			if j < 0 {
				break
			}
			from, to := i+j, i+j+len(key)
			if (from == 0 || !isWordByte(s[from-1])) && (to == len(s) || !isWordByte(s[to])) {
				mark(from, to)
			}
			i = from + 1
		}
	default:
		for i := 0; i+minKeyFragment <= len(s); i++ {
			if strings.Contains(key, s[i:i+minKeyFragment]) {
				mark(i, i+minKeyFragment)
			}
		}
	}
	return found
}

// markCredentials marks the credential after each scheme or field name in
// s (matched without regard to ASCII case), whether or not it is this
// connection's key: a server may echo a header whole, or a fragment of the
// key too short for markKey.
func markCredentials(s string, hidden []bool) bool {
	lower := asciiLower(s)
	found := false
	mark := func(from int) {
		to := credentialEnd(s, from)
		if !looksLikeCredential(s[from:to]) {
			return
		}
		found = true
		for i := from; i < to; i++ {
			hidden[i] = true
		}
	}
	for _, name := range credentialSchemes {
		for at := range occurrences(lower, name) {
			if i := at + len(name); i < len(s) && s[i] == ' ' {
				mark(skip(s, i, " "))
			}
		}
	}
	for _, name := range credentialFields {
		for at := range occurrences(lower, name) {
			i := skip(s, at+len(name), `"' `)
			if i == len(s) || (s[i] != ':' && s[i] != '=') {
				continue
			}
			i = skip(s, i+1, `"' `)
			for _, scheme := range credentialSchemes {
				if strings.HasPrefix(lower[i:], scheme+" ") {
					i = skip(s, i+len(scheme), " ")
				}
			}
			mark(i)
		}
	}
	return found
}

// looksLikeCredential tells a credential from a word after a scheme name
// ("Bearer auth", "basic authentication"): it is at least minKeyFragment
// bytes and not letters only, as keys, tokens and their masked forms
// ("sk-abc1****wxyz") are.
func looksLikeCredential(tok string) bool {
	if len(tok) < minKeyFragment {
		return false
	}
	return strings.ContainsFunc(tok, func(c rune) bool { return (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') })
}

// credentialEnd is where the credential starting at from ends: the bytes of
// an RFC 6750 b64token, and '*' for masks, without a sentence's final dots.
func credentialEnd(s string, from int) int {
	to := from
	for to < len(s) && (isWordByte(s[to]) || strings.IndexByte("._~+/=*", s[to]) >= 0) {
		to++
	}
	for to > from && s[to-1] == '.' {
		to--
	}
	return to
}

// occurrences yields the offsets of sub in s.
func occurrences(s, sub string) iter.Seq[int] {
	return func(yield func(int) bool) {
		for i := 0; i < len(s); {
			j := strings.Index(s[i:], sub)
			if j < 0 || !yield(i+j) {
				return
			}
			i += j + 1
		}
	}
}

// skip is the first offset from i on whose byte is not in set.
func skip(s string, i int, set string) int {
	for i < len(s) && strings.IndexByte(set, s[i]) >= 0 {
		i++
	}
	return i
}

// isWordByte reports whether c can be part of a key's word: ASCII letters,
// digits, '-' and '_'.
func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_'
}

// asciiLower lowers ASCII letters only, so offsets in it are offsets in s
// (strings.ToLower may change a character's length).
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
