// Package connections keeps the user's model connections (which provider,
// where, which model) and their API keys, and tests them. Keys are
// write-only from every caller: stored in the secrets file, reported only
// as apiKeySet, handed to the provider layer and nowhere else, and only
// for the origin and provider they were entered for.
package connections

import (
	"net/url"
	"strings"
	"unicode/utf8"

	"hearth/backend/apperr"
	"hearth/backend/internal/inputs"
	"hearth/backend/providers"
)

// CodeNotFound: no connection has the id.
const CodeNotFound = "connection.not_found"

// Limits on what a connection holds.
const (
	maxName        = 200
	maxBaseURL     = 2048
	maxModel       = 256
	maxAPIKey      = 8192
	maxHeaders     = 32
	maxHeaderValue = 4096
)

// Connection is what callers see of a connection: never its key.
type Connection struct {
	ID        string            `json:"id"`
	Name      string            `json:"name"`
	Provider  string            `json:"provider"`
	BaseURL   string            `json:"baseUrl"`
	Model     string            `json:"model"`
	Headers   map[string]string `json:"headers"`
	APIKeySet bool              `json:"apiKeySet"`
	CreatedAt int64             `json:"createdAt"`
	UpdatedAt int64             `json:"updatedAt"`
}

// Input is connections.save's argument. Without ID it creates; with one it
// updates, keeping the fields left out. APIKey: absent or null keeps the
// key, "" removes it, anything else replaces it. A kept key stays only
// while the save leaves the connection's origin and provider as they were
// (Service.Save): it was entered for that server alone.
type Input struct {
	ID       *string           `json:"id"`
	Name     *string           `json:"name"`
	Provider *string           `json:"provider"`
	BaseURL  *string           `json:"baseUrl"`
	Model    *string           `json:"model"`
	APIKey   *string           `json:"apiKey"`
	Headers  map[string]string `json:"headers"`
}

// Providers a connection may name.
var kinds = map[string]bool{providers.KindOpenAICompatible: true, providers.KindAnthropic: true, providers.KindGoogle: true}

// A connection's custom headers are stored in the database in the clear
// and returned by connections.get and list, so a credential among them
// would be readable back by any caller (an extension, a script) and sit in
// backups of the database. Hearth refuses header names that carry
// credentials: the key belongs in apiKey, which lives in the secrets file
// and is never returned.
//
// secretHeaders names credential headers whose names credentialWords
// would miss.
var secretHeaders = map[string]bool{
	"dpop": true, // OAuth proof-of-possession
}

// credentialWords are the parts of a header name that mark it as a
// credential: Authorization, Proxy-Authorization, Cookie, X-Api-Key,
// Api-Key, X-Goog-Api-Key, Ocp-Apim-Subscription-Key (Azure),
// Cf-Access-Client-Secret (Cloudflare), X-Amz-Security-Token (AWS),
// X-Auth-Token, X-Access-Token, Helicone-Auth, X-Portkey-Api-Key… A rule
// on the name, not a list of names, so that a proxy's new header is
// refused too; its cost is refusing an odd harmless header (X-Session-Id,
// Idempotency-Key), which no model connection needs.
var credentialWords = []string{"auth", "key", "token", "secret", "passw", "passphrase", "credential", "session", "cookie", "signature"}

// credentialHeader reports whether header name carries a credential, and
// the word that says so.
func credentialHeader(name string) (string, bool) {
	n := strings.ToLower(name)
	if secretHeaders[n] {
		return n, true
	}
	for _, w := range credentialWords {
		if strings.Contains(n, w) {
			return w, true
		}
	}
	return "", false
}

// apply sets in's fields on c, validating each, and checks that c is a
// whole connection: a name and a server.
func (in Input) apply(c *Connection) error {
	if err := in.set(c); err != nil {
		return err
	}
	if c.Name == "" {
		return apperr.Invalid("name is required")
	}
	return reachable(c)
}

// set sets in's fields on c, validating each.
func (in Input) set(c *Connection) error {
	if in.Name != nil {
		n := strings.TrimSpace(*in.Name)
		if n == "" || utf8.RuneCountInString(n) > maxName || inputs.HasControl(n) {
			return apperr.Invalid("name must be 1 to %d characters without control characters", maxName)
		}
		c.Name = n
	}
	if in.Provider != nil {
		if !kinds[*in.Provider] {
			return apperr.Invalid("provider %q is not supported (use %q, %q or %q)", inputs.Short(*in.Provider),
				providers.KindOpenAICompatible, providers.KindAnthropic, providers.KindGoogle)
		}
		c.Provider = *in.Provider
	}
	if in.BaseURL != nil {
		u := strings.TrimSpace(*in.BaseURL)
		if u != "" {
			if err := checkURL(u); err != nil {
				return err
			}
		}
		c.BaseURL = u
	}
	if in.Model != nil {
		m := strings.TrimSpace(*in.Model)
		if len(m) > maxModel || inputs.HasControl(m) {
			return apperr.Invalid("model must be at most %d characters without control characters", maxModel)
		}
		c.Model = m
	}
	if in.Headers != nil {
		if err := checkHeaders(in.Headers); err != nil {
			return err
		}
		c.Headers = in.Headers
	}
	if in.APIKey != nil && (len(*in.APIKey) > maxAPIKey || inputs.HasControl(*in.APIKey)) {
		return apperr.Invalid("apiKey must be at most %d characters without control characters", maxAPIKey)
	}
	return nil
}

// reachable checks that c names a server: a provider, and an address
// where the provider has no default one.
func reachable(c *Connection) error {
	if c.Provider == "" {
		return apperr.Invalid("provider is required")
	}
	if c.Provider == providers.KindOpenAICompatible && c.BaseURL == "" {
		return apperr.Invalid("baseUrl is required for an OpenAI-compatible connection (for example https://api.openai.com/v1 or http://127.0.0.1:8080/v1)")
	}
	if c.Headers == nil {
		c.Headers = map[string]string{}
	}
	return nil
}

func checkURL(s string) error {
	if len(s) > maxBaseURL {
		return apperr.Invalid("baseUrl is longer than %d characters", maxBaseURL)
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return apperr.Invalid("baseUrl %q is not an http:// or https:// URL", inputs.Short(s))
	}
	if u.User != nil {
		return apperr.Invalid("baseUrl must not carry a user or password: put the key in apiKey")
	}
	return nil
}

func checkHeaders(h map[string]string) error {
	if len(h) > maxHeaders {
		return apperr.Invalid("at most %d headers", maxHeaders)
	}
	for k, v := range h {
		if k == "" || !isToken(k) {
			return apperr.Invalid("header name %q is not a valid HTTP header name", inputs.Short(k))
		}
		if word, ok := credentialHeader(k); ok {
			return apperr.Invalid("header %s looks like a credential (%q): custom headers are stored in the clear and returned by connections.get, so Hearth does not keep credentials there; put the key in apiKey, which is kept in the secrets file, never returned, and sent as the provider's own key header", k, word).
				WithDetails(map[string]any{"header": k})
		}
		if len(v) > maxHeaderValue || strings.ContainsAny(v, "\r\n\x00") {
			return apperr.Invalid("header %s: the value must be one line of at most %d bytes", k, maxHeaderValue)
		}
	}
	return nil
}

// isToken reports whether s is an RFC 9110 token (a header name).
func isToken(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0 {
			continue
		}
		return false
	}
	return true
}
