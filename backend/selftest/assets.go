package selftest

import (
	"net/http"
	"path"
	"strings"
	"time"
)

// What the window fetched of the SillyTavern compat layer, seen from the
// asset handler. WebKitGTK keeps no Resource Timing entries for the
// window's wails:// files, so the page bench mode (stpage.js) cannot see
// in the window what was fetched; Go logs every request for a compat file
// as the asset handler serves it, and selftest.info hands the log to the
// page.

// maxAssetLog bounds the log: a page extension's package can hold many
// files, and the figures need the first few hundred at most.
const maxAssetLog = 500

// assetRequest is one compat file the asset handler served: its path,
// its kind (compatKind), when the request arrived (wall-clock ms since
// the Unix epoch, with a fraction, comparable with the window's
// performance.timeOrigin + performance.now()), how long serving it took,
// its status and how many body bytes were written.
type assetRequest struct {
	Path   string  `json:"path"`
	Kind   string  `json:"kind"`
	At     float64 `json:"at"`
	Ms     float64 `json:"ms"`
	Status int     `json:"status"`
	Bytes  int64   `json:"bytes"`
}

// compatKind says which part of the SillyTavern compat layer a request
// path is: "runtime" (the compat runtime's chunks, which Vite names after
// frontend/src/extensions/st/runtime.ts), "module" (the compat modules
// generated into frontend/public: /script.js, /lib.js, /scripts/*.js),
// "package" (a page extension's files) or "" (not the compat layer). A
// page bench run with the extension enabled fails unless it saw all three,
// so a renamed chunk does not make the cost with none read 0 by mistake.
func compatKind(p string) string {
	p = path.Clean("/" + p)
	switch {
	case strings.HasPrefix(p, "/scripts/extensions/third-party/"):
		return "package"
	case strings.HasPrefix(p, "/assets/runtime-") && (strings.HasSuffix(p, ".js") || strings.HasSuffix(p, ".css")):
		return "runtime"
	case p == "/script.js" || p == "/lib.js" || (strings.HasPrefix(p, "/scripts/") && strings.HasSuffix(p, ".js")):
		return "module"
	}
	return ""
}

// ObserveAssets wraps the asset handler's chain: it logs each request for
// a compat file (compatKind) and passes every request on unchanged. app.go
// puts it outside the asset middleware in self-test mode.
func (s *Session) ObserveAssets(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		kind := compatKind(r.URL.Path)
		if kind == "" {
			next.ServeHTTP(w, r)
			return
		}
		started := time.Now()
		cw := &countingWriter{ResponseWriter: w}
		next.ServeHTTP(cw, r)
		req := assetRequest{
			Path:   r.URL.Path,
			Kind:   kind,
			At:     float64(started.UnixMicro()) / 1000,
			Ms:     float64(time.Since(started).Microseconds()) / 1000,
			Status: cw.status,
			Bytes:  cw.bytes,
		}
		if req.Status == 0 {
			req.Status = http.StatusOK
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		if len(s.assets) < maxAssetLog {
			s.assets = append(s.assets, req)
		}
	})
}

// countingWriter counts the body bytes written and keeps the status.
type countingWriter struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (c *countingWriter) WriteHeader(code int) {
	if c.status == 0 {
		c.status = code
	}
	c.ResponseWriter.WriteHeader(code)
}

func (c *countingWriter) Write(b []byte) (int, error) {
	if c.status == 0 {
		c.status = http.StatusOK
	}
	n, err := c.ResponseWriter.Write(b)
	c.bytes += int64(n)
	return n, err
}
