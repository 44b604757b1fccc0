package wailsbridge

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"hearth/backend/apperr"
)

func TestMiddlewareInvoke(t *testing.T) {
	t.Parallel()
	const body = `{"method":"chat.getStMessages","args":["c1",{"tail":2}]}`
	tests := []struct {
		name        string
		method      string
		header      map[string]string
		body        string
		router      fakeRouter
		wantStatus  int
		wantCode    string
		wantResult  string
		wantCalls   []string
		wantObserve []bool
	}{
		{
			name: "token and JSON body run the call", method: http.MethodPost,
			header: map[string]string{TokenHeader: testToken, "Content-Type": "application/json"},
			body:   body, router: fakeRouter{result: []byte(`[{"mes":"hi"}]`)},
			wantStatus: http.StatusOK, wantResult: `[{"mes":"hi"}]`,
			wantCalls: []string{`chat.getStMessages ["c1",{"tail":2}]`}, wantObserve: []bool{true},
		},
		{
			name: "host errors keep their code", method: http.MethodPost,
			header: map[string]string{TokenHeader: testToken, "Content-Type": "application/json; charset=utf-8"},
			body:   body, router: fakeRouter{err: apperr.New(apperr.CodeChatNotFound, "chat %q not found", "c1")},
			wantStatus: http.StatusNotFound, wantCode: apperr.CodeChatNotFound,
			wantCalls: []string{`chat.getStMessages ["c1",{"tail":2}]`}, wantObserve: []bool{true},
		},
		{
			name: "no token", method: http.MethodPost,
			header: map[string]string{"Content-Type": "application/json"}, body: body,
			wantStatus: http.StatusUnauthorized, wantCode: apperr.CodeAuthDenied, wantObserve: []bool{false},
		},
		{
			name: "wrong token", method: http.MethodPost,
			header: map[string]string{TokenHeader: strings.Repeat("0", len(testToken)), "Content-Type": "application/json"}, body: body,
			wantStatus: http.StatusUnauthorized, wantCode: apperr.CodeAuthDenied, wantObserve: []bool{false},
		},
		{
			name: "token in the body does not count", method: http.MethodPost,
			header:     map[string]string{"Content-Type": "application/json"},
			body:       `{"token":"` + testToken + `","method":"characters.list","args":[]}`,
			wantStatus: http.StatusUnauthorized, wantCode: apperr.CodeAuthDenied, wantObserve: []bool{false},
		},
		{
			name: "a simple (form or text) POST is refused even with the token", method: http.MethodPost,
			header: map[string]string{TokenHeader: testToken, "Content-Type": "text/plain"}, body: body,
			wantStatus: http.StatusUnsupportedMediaType, wantCode: apperr.CodeInvalidArgument, wantObserve: []bool{true},
		},
		{
			name: "GET is not an invoke", method: http.MethodGet,
			header:     map[string]string{TokenHeader: testToken},
			wantStatus: http.StatusMethodNotAllowed, wantCode: apperr.CodeInvalidArgument,
		},
		{
			name: "a CORS preflight gets no grant", method: http.MethodOptions,
			header:     map[string]string{"Origin": "null", "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "x-hearth-token"},
			wantStatus: http.StatusMethodNotAllowed, wantCode: apperr.CodeInvalidArgument,
		},
		{
			name: "a body that is not a call", method: http.MethodPost,
			header: map[string]string{TokenHeader: testToken, "Content-Type": "application/json"}, body: `[1,2]`,
			wantStatus: http.StatusBadRequest, wantCode: apperr.CodeInvalidArgument, wantObserve: []bool{true},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			router := tt.router
			var observed []bool
			h := Middleware(testToken, &router, nil, WithInvokeObserver(func(ok bool) { observed = append(observed, ok) }))(assetsHandler())
			req := httptest.NewRequest(tt.method, "wails://wails"+InvokePath, strings.NewReader(tt.body))
			for k, v := range tt.header {
				req.Header.Set(k, v)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)

			if rec.Code != tt.wantStatus {
				t.Fatalf("status %d, want %d (body %s)", rec.Code, tt.wantStatus, rec.Body)
			}
			if got := rec.Header().Get("Access-Control-Allow-Origin"); got != "" {
				t.Errorf("Access-Control-Allow-Origin %q: the invoke route must grant no other origin", got)
			}
			if cc := rec.Header().Get("Cache-Control"); cc != "no-store" {
				t.Errorf("Cache-Control %q, want no-store", cc)
			}
			var got struct {
				Result json.RawMessage `json:"result"`
				Error  *apperr.Error   `json:"error"`
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
				t.Fatalf("body %q is not JSON: %v", rec.Body, err)
			}
			switch {
			case tt.wantCode != "":
				if got.Error == nil || got.Error.Code != tt.wantCode {
					t.Errorf("error %+v, want code %s", got.Error, tt.wantCode)
				}
			case string(got.Result) != tt.wantResult:
				t.Errorf("result %s, want %s", got.Result, tt.wantResult)
			}
			if strings.Join(router.calls, "|") != strings.Join(tt.wantCalls, "|") {
				t.Errorf("router calls %q, want %q", router.calls, tt.wantCalls)
			}
			if len(observed) != len(tt.wantObserve) || (len(observed) == 1 && observed[0] != tt.wantObserve[0]) {
				t.Errorf("observed %v, want %v", observed, tt.wantObserve)
			}
		})
	}
}
