package httpapi

import (
	"encoding/json"
	"net/http"
	"testing"

	"hearth/backend/apperr"
)

// An upload is stored by content and served back: images inline with the
// type their bytes say, anything else as a sandboxed download.
func TestMediaUploadAndServe(t *testing.T) {
	t.Parallel()
	a := openApp(t)
	_, ts := serve(t, Config{Router: a.Router, Bus: a.Bus, Media: a.Media})
	png := tinyPNG(t)
	upload := func(name, b64 string) (map[string]any, *apperr.Error) {
		t.Helper()
		res, body := do(t, nil, http.MethodPost, ts.URL+"/api/invoke", invokeBody(t, "chat.uploadMedia", map[string]any{"fileName": name, "base64": b64}), jsonHeader)
		if res.StatusCode != http.StatusOK {
			return nil, decodeAPIError(t, body)
		}
		var out struct {
			Result map[string]any `json:"result"`
		}
		if err := json.Unmarshal(body, &out); err != nil {
			t.Fatal(err)
		}
		return out.Result, nil
	}

	ref, e := upload("cat.txt", "data:image/png;base64,"+b64(png)) // the name lies; the bytes decide
	if e != nil {
		t.Fatal(e)
	}
	if ref["type"] != "image" || ref["mime"] != "image/png" || ref["name"] != "cat.txt" || int(ref["size"].(float64)) != len(png) {
		t.Fatalf("ref %v", ref)
	}
	again, _ := upload("other.png", b64(png))
	if again["url"] != ref["url"] {
		t.Fatalf("the same bytes stored twice: %v, %v", ref["url"], again["url"])
	}
	res, body := do(t, nil, http.MethodGet, ts.URL+ref["url"].(string), "", nil)
	if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "image/png" || string(body) != string(png) ||
		res.Header.Get("Content-Disposition") != "" || res.Header.Get("X-Content-Type-Options") != "nosniff" {
		t.Fatalf("served %d %v", res.StatusCode, res.Header)
	}

	page, e := upload("evil.html", b64([]byte("<html><script>alert(1)</script></html>")))
	if e != nil {
		t.Fatal(e)
	}
	if page["type"] != "file" || page["mime"] != "application/octet-stream" {
		t.Fatalf("html upload %v", page)
	}
	res, _ = do(t, nil, http.MethodGet, ts.URL+page["url"].(string), "", nil)
	if res.Header.Get("Content-Type") != "application/octet-stream" || res.Header.Get("Content-Disposition") != "attachment" || res.Header.Get("Content-Security-Policy") != "sandbox" {
		t.Fatalf("an uploaded page is served as %v", res.Header)
	}

	for _, c := range []struct{ name, b64 string }{{"x", "not base64!"}, {"x", ""}, {"a/b.png", b64(png)}} {
		if _, e := upload(c.name, c.b64); e == nil || e.Code != apperr.CodeInvalidArgument {
			t.Errorf("upload %q: %v", c.name, e)
		}
	}
	for _, path := range []string{"/api/media/nothing.png", "/api/media/" + "0000000000000000000000000000000000000000000000000000000000000000.png", "/api/media/..%2Fhearth.db"} {
		res, body := do(t, nil, http.MethodGet, ts.URL+path, "", nil)
		wantError(t, res, body, http.StatusNotFound, codeMediaNotFound)
	}
}
