package httpapi

import (
	"encoding/json"
	"net/http"
	"net/http/cookiejar"
	"testing"

	"hearth/backend/apperr"
)

const testPassword = "correct horse battery staple"

func sessionOf(t *testing.T, c *http.Client, base string) sessionState {
	t.Helper()
	res, body := do(t, c, "GET", base+"/api/session", "", asBrowser)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("session: status %d: %s", res.StatusCode, body)
	}
	var st sessionState
	if err := json.Unmarshal(body, &st); err != nil {
		t.Fatal(err)
	}
	return st
}

func login(t *testing.T, c *http.Client, base, password string) (*http.Response, []byte) {
	t.Helper()
	b, _ := json.Marshal(map[string]string{"password": password})
	return do(t, c, "POST", base+"/api/login", string(b), jsonAsBrowser)
}

func TestPasswordMode(t *testing.T) {
	t.Parallel()
	_, _, ts := serveApp(t, func(c *Config) { c.Password = testPassword })
	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Jar: jar}
	list := invokeBody(t, "characters.list")

	if st := sessionOf(t, browser, ts.URL); st.Authenticated || !st.PasswordRequired {
		t.Errorf("session before login = %+v", st)
	}
	res, body := do(t, browser, "POST", ts.URL+"/api/invoke", list, jsonAsBrowser)
	wantError(t, res, body, http.StatusUnauthorized, apperr.CodeAuthDenied)
	res, body = do(t, browser, "GET", ts.URL+"/api/avatar/Someone.png", "", asBrowser)
	wantError(t, res, body, http.StatusUnauthorized, apperr.CodeAuthDenied)
	res, body = do(t, browser, "GET", ts.URL+"/api/events", "", asBrowser)
	wantError(t, res, body, http.StatusUnauthorized, apperr.CodeAuthDenied)
	if res, _ := do(t, browser, "GET", ts.URL+"/", "", asBrowser); res.StatusCode != http.StatusOK {
		t.Errorf("static page needs no session, got %d", res.StatusCode)
	}

	res, body = login(t, browser, ts.URL, "wrong")
	wantError(t, res, body, http.StatusUnauthorized, apperr.CodeAuthDenied)
	if len(res.Cookies()) != 0 {
		t.Errorf("failed login set cookies %v", res.Cookies())
	}
	res, body = do(t, browser, "POST", ts.URL+"/api/login", `{"pass":1}`, jsonAsBrowser)
	wantError(t, res, body, http.StatusBadRequest, apperr.CodeInvalidArgument)

	res, body = login(t, browser, ts.URL, testPassword)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("login: status %d: %s", res.StatusCode, body)
	}
	var cookie *http.Cookie
	for _, c := range res.Cookies() {
		if c.Name == sessionCookie {
			cookie = c
		}
	}
	switch {
	case cookie == nil:
		t.Fatal("login set no session cookie")
	case !cookie.HttpOnly:
		t.Error("session cookie is not HttpOnly")
	case cookie.SameSite != http.SameSiteStrictMode:
		t.Errorf("SameSite = %v, want Strict", cookie.SameSite)
	case cookie.Secure:
		t.Error("Secure set on a plain-HTTP login")
	case len(cookie.Value) < 43:
		t.Errorf("token %q is shorter than 32 bytes", cookie.Value)
	}

	res, body = do(t, browser, "POST", ts.URL+"/api/invoke", list, jsonAsBrowser)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("invoke after login: status %d: %s", res.StatusCode, body)
	}
	if st := sessionOf(t, browser, ts.URL); !st.Authenticated || !st.PasswordRequired {
		t.Errorf("session after login = %+v", st)
	}
	forged := map[string]string{"Authorization": "", "Content-Type": "application/json", "Cookie": sessionCookie + "=" + cookie.Value + "x"}
	res, body = do(t, nil, "POST", ts.URL+"/api/invoke", list, forged)
	wantError(t, res, body, http.StatusUnauthorized, apperr.CodeAuthDenied)

	if res, body := do(t, browser, "POST", ts.URL+"/api/logout", "", jsonAsBrowser); res.StatusCode != http.StatusOK {
		t.Fatalf("logout: status %d: %s", res.StatusCode, body)
	}
	stolen := map[string]string{"Authorization": "", "Content-Type": "application/json", "Cookie": sessionCookie + "=" + cookie.Value}
	res, body = do(t, nil, "POST", ts.URL+"/api/invoke", list, stolen)
	wantError(t, res, body, http.StatusUnauthorized, apperr.CodeAuthDenied)
}

func TestLoginRateLimit(t *testing.T) {
	t.Parallel()
	_, _, ts := serveApp(t, func(c *Config) { c.Password = testPassword }, freezeLogins)
	for i := range loginBurst {
		res, body := login(t, nil, ts.URL, "guess")
		if res.StatusCode != http.StatusUnauthorized {
			t.Fatalf("attempt %d: status %d: %s", i+1, res.StatusCode, body)
		}
	}
	res, body := login(t, nil, ts.URL, "guess")
	wantError(t, res, body, http.StatusTooManyRequests, CodeRateLimited)
	if res.Header.Get("Retry-After") == "" {
		t.Error("429 without Retry-After")
	}
	res, body = login(t, nil, ts.URL, testPassword)
	wantError(t, res, body, http.StatusTooManyRequests, CodeRateLimited)
}

func TestClientLogin(t *testing.T) {
	t.Parallel()
	_, _, ts := serveApp(t, func(c *Config) { c.Password = testPassword })
	c := NewClient(ts.URL, "")
	if _, err := c.Invoke(t.Context(), "characters.list", nil); apperr.CodeOf(err) != apperr.CodeAuthDenied {
		t.Fatalf("invoke before login: %v", err)
	}
	if err := c.Login(t.Context(), "wrong"); apperr.CodeOf(err) != apperr.CodeAuthDenied {
		t.Fatalf("wrong login: %v", err)
	}
	if err := c.Login(t.Context(), testPassword); err != nil {
		t.Fatalf("login: %v", err)
	}
	if _, err := c.Invoke(t.Context(), "characters.list", nil); err != nil {
		t.Fatalf("invoke after login: %v", err)
	}
}
