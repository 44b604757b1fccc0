package httpapi

import (
	"encoding/json"
	"net/http"
	"net/http/cookiejar"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"hearth/backend/apperr"
)

// noRedirect is a client that keeps cookies and shows redirects instead of
// following them.
func noRedirect() *http.Client {
	jar, _ := cookiejar.New(nil)
	return &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// TestLaunchToken: a loopback server without a password no longer trusts
// whoever can reach it (any account of the machine can). A request with
// no Origin and a JSON body — what any local process can send — is
// refused; the launch token, as a bearer token or through the login form,
// lets it in; a password login is refused, there being no password.
func TestLaunchToken(t *testing.T) {
	t.Parallel()
	_, _, ts := serveApp(t, nil)
	list := invokeBody(t, "characters.list")
	res, body := do(t, nil, "POST", ts.URL+"/api/invoke", list, jsonAsBrowser)
	e := wantError(t, res, body, http.StatusUnauthorized, apperr.CodeAuthDenied)
	if !strings.Contains(e.Message, "Bearer") {
		t.Errorf("the refusal does not say how to get in: %q", e.Message)
	}
	for _, path := range []string{"/api/events", "/api/avatar/A.png", "/api/media/x.png"} {
		res, body := do(t, nil, "GET", ts.URL+path, "", asBrowser)
		wantError(t, res, body, http.StatusUnauthorized, apperr.CodeAuthDenied)
	}
	wrong := map[string]string{"Content-Type": "application/json", "Authorization": "Bearer " + testToken + "x"}
	res, body = do(t, nil, "POST", ts.URL+"/api/invoke", list, wrong)
	wantError(t, res, body, http.StatusUnauthorized, apperr.CodeAuthDenied)
	if res, body := do(t, nil, "POST", ts.URL+"/api/invoke", list, jsonHeader); res.StatusCode != http.StatusOK {
		t.Fatalf("with the bearer token: %d %s", res.StatusCode, body)
	}
	if st := sessionOf(t, nil, ts.URL); st.Authenticated || st.PasswordRequired || !st.TokenRequired {
		t.Errorf("session without a credential = %+v", st)
	}

	browser := &http.Client{}
	browser.Jar, _ = cookiejar.New(nil)
	res, body = login(t, browser, ts.URL, "anything")
	wantError(t, res, body, http.StatusUnauthorized, apperr.CodeAuthDenied)
	for _, token := range []string{testToken + "x", ""} {
		b, _ := json.Marshal(map[string]string{"token": token})
		res, body = do(t, browser, "POST", ts.URL+"/api/login", string(b), jsonAsBrowser)
		wantError(t, res, body, http.StatusUnauthorized, apperr.CodeAuthDenied)
	}
	res, body = do(t, browser, "POST", ts.URL+"/api/login", `{"token":"`+testToken+`","password":"x"}`, jsonAsBrowser)
	wantError(t, res, body, http.StatusBadRequest, apperr.CodeInvalidArgument)
	res, body = do(t, browser, "POST", ts.URL+"/api/login", `{"token":" `+testToken+`\n"}`, jsonAsBrowser)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("token login: %d %s", res.StatusCode, body)
	}
	if res, body := do(t, browser, "POST", ts.URL+"/api/invoke", list, jsonAsBrowser); res.StatusCode != http.StatusOK {
		t.Fatalf("with the session of a token login: %d %s", res.StatusCode, body)
	}
	if st := sessionOf(t, browser, ts.URL); !st.Authenticated || !st.TokenRequired {
		t.Errorf("session after the token login = %+v", st)
	}
}

// TestTokenAddress: the address serve prints, /?token=…, gives a browser
// its session cookie and sends it on without the token; a token of another
// launch is refused; API paths never take the token from the address.
func TestTokenAddress(t *testing.T) {
	t.Parallel()
	_, s, ts := serveApp(t, nil)
	browser := noRedirect()
	res, body := do(t, browser, "GET", ts.URL+"/chats/x?token="+testToken+"&tab=2", "", asBrowser)
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/chats/x?tab=2" {
		t.Fatalf("token address: %d, Location %q: %s", res.StatusCode, res.Header.Get("Location"), body)
	}
	if res.Header.Get("Cache-Control") != "no-store" || len(res.Cookies()) != 1 || !res.Cookies()[0].HttpOnly {
		t.Errorf("headers %v, cookies %v", res.Header, res.Cookies())
	}
	if res, body := do(t, browser, "POST", ts.URL+"/api/invoke", invokeBody(t, "characters.list"), jsonAsBrowser); res.StatusCode != http.StatusOK {
		t.Fatalf("with the session the address gave: %d %s", res.StatusCode, body)
	}

	stranger := noRedirect()
	res, body = do(t, stranger, "GET", ts.URL+"/?token=stale", "", asBrowser)
	wantError(t, res, body, http.StatusUnauthorized, apperr.CodeAuthDenied)
	if len(res.Cookies()) != 0 {
		t.Errorf("a wrong token set %v", res.Cookies())
	}
	res, _ = do(t, stranger, "GET", ts.URL+"/api/session?token="+testToken, "", asBrowser)
	if len(res.Cookies()) != 0 || sessionOf(t, stranger, ts.URL).Authenticated {
		t.Error("an API path took the token from its address")
	}

	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2, base := start(t, Config{Router: fakeRouter{}, Token: "launch"})
	if want := base + "/?token=launch"; s2.LaunchURL() != want {
		t.Errorf("LaunchURL = %q, want %q", s2.LaunchURL(), want)
	}
	drawn, err := New(Config{Router: fakeRouter{}})
	if err != nil {
		t.Fatal(err)
	}
	if len(drawn.Token()) != 43 || drawn.LaunchURL() != "" {
		t.Errorf("drawn token %q, LaunchURL before Start %q", drawn.Token(), drawn.LaunchURL())
	}
}

// TestEventSocketEndsWithSession: an event socket opened by a session
// closes when that session logs out or expires — its events are no longer
// the peer's to see — while one opened with the launch token stays.
func TestEventSocketEndsWithSession(t *testing.T) {
	t.Parallel()
	_, s, ts := serveApp(t, func(c *Config) { c.Password = testPassword })
	cookieOf := func() string {
		res, body := login(t, nil, ts.URL, testPassword)
		if res.StatusCode != http.StatusOK || len(res.Cookies()) != 1 {
			t.Fatalf("login: %d %s", res.StatusCode, body)
		}
		return sessionCookie + "=" + res.Cookies()[0].Value
	}
	closedWith := func(conn *websocket.Conn) websocket.StatusCode {
		t.Helper()
		errc := make(chan error, 1)
		go func() {
			_, _, err := conn.Read(t.Context())
			errc <- err
		}()
		select {
		case err := <-errc:
			return websocket.CloseStatus(err)
		case <-time.After(10 * time.Second):
			t.Fatal("the socket is still open")
			return 0
		}
	}

	byToken, _, err := dialEvents(t, ts.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	loggedOut := cookieOf()
	conn, _, err := dialEvents(t, ts.URL, http.Header{"Cookie": {loggedOut}, "Authorization": {""}})
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, "two sockets", func() bool { return s.activeSockets() == 2 })
	res, body := do(t, nil, "POST", ts.URL+"/api/logout", "", map[string]string{"Cookie": loggedOut, "Authorization": "", "Content-Type": "application/json"})
	if res.StatusCode != http.StatusOK {
		t.Fatalf("logout: %d %s", res.StatusCode, body)
	}
	if code := closedWith(conn); code != websocket.StatusPolicyViolation {
		t.Errorf("after logout the socket closed with %v, want %v", code, websocket.StatusPolicyViolation)
	}

	expiring := cookieOf()
	s.auth.mu.Lock()
	for k := range s.auth.sessions {
		s.auth.sessions[k] = time.Now().Add(300 * time.Millisecond)
	}
	s.auth.mu.Unlock()
	conn, _, err = dialEvents(t, ts.URL, http.Header{"Cookie": {expiring}, "Authorization": {""}})
	if err != nil {
		t.Fatal(err)
	}
	if code := closedWith(conn); code != websocket.StatusPolicyViolation {
		t.Errorf("at expiry the socket closed with %v, want %v", code, websocket.StatusPolicyViolation)
	}
	if _, _, err := dialEvents(t, ts.URL, http.Header{"Cookie": {expiring}, "Authorization": {""}}); err == nil {
		t.Error("an expired session opened a socket")
	}
	eventually(t, "only the token's socket", func() bool { return s.activeSockets() == 1 })
	_ = byToken.CloseNow()
	eventually(t, "no socket", func() bool { return s.activeSockets() == 0 })
}

// TestTokenAddressOpenedOften: the printed address is opened again for
// every new tab or window, so the right token never spends the login
// budget; wrong ones do, and past it are refused with 429.
func TestTokenAddressOpenedOften(t *testing.T) {
	t.Parallel()
	_, _, ts := serveApp(t, nil, freezeLogins)
	for i := range loginBurst * 3 {
		res, body := do(t, noRedirect(), "GET", ts.URL+"/?token="+testToken, "", asBrowser)
		if res.StatusCode != http.StatusSeeOther {
			t.Fatalf("opening %d: %d %s", i+1, res.StatusCode, body)
		}
	}
	for range loginBurst {
		res, body := do(t, nil, "GET", ts.URL+"/?token=guess", "", asBrowser)
		wantError(t, res, body, http.StatusUnauthorized, apperr.CodeAuthDenied)
	}
	res, body := do(t, nil, "GET", ts.URL+"/?token=guess", "", asBrowser)
	wantError(t, res, body, http.StatusTooManyRequests, CodeRateLimited)
	if res, body := do(t, noRedirect(), "GET", ts.URL+"/?token="+testToken, "", asBrowser); res.StatusCode != http.StatusSeeOther {
		t.Errorf("the right token after the budget is spent: %d %s", res.StatusCode, body)
	}
}
