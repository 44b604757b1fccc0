package httpapi

import (
	"bytes"
	"io"
	"io/fs"
	"net/http"
	"path"
	"regexp"
	"strings"
	"time"

	"hearth/backend/apperr"
)

// apiCSP covers responses that are never rendered as documents (JSON,
// images): nothing may load from them and nothing may frame them.
const apiCSP = "default-src 'none'; frame-ancestors 'none'"

// safeHost matches Host values that can be pasted into a CSP header as is.
var safeHost = regexp.MustCompile(`^[A-Za-z0-9.\-]+(:[0-9]+)?$|^\[[0-9A-Fa-f:.]+\](:[0-9]+)?$`)

// appCSP is the policy for the frontend: the page renders untrusted text
// (cards, model output), so scripts come only from this origin, nothing
// frames it and the only sockets it may open are this server's. It frames
// its own pages only: sandboxed extensions under /ext/ (frame-src says so
// rather than leaving it to default-src).
func appCSP(r *http.Request) string {
	connect := "'self'"
	if safeHost.MatchString(r.Host) {
		connect += " ws://" + r.Host + " wss://" + r.Host
	}
	return "default-src 'self'; img-src 'self' data: blob:; style-src 'self' 'unsafe-inline'; " +
		"script-src 'self'; connect-src " + connect + "; frame-src 'self'; frame-ancestors 'none'; object-src 'none'; " +
		"base-uri 'none'; form-action 'self'"
}

// handleStatic serves the built frontend. Unknown paths without a file
// extension get index.html, so client-side routes survive a reload; a
// missing file with an extension is a plain 404 (never HTML posing as a
// script).
func (s *Server) handleStatic(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		s.refuse(w, r, http.StatusMethodNotAllowed, apperr.Invalid("method %s not allowed", r.Method))
		return
	}
	w.Header().Set("Content-Security-Policy", appCSP(r))
	if s.assets == nil {
		servePlaceholder(w, r)
		return
	}
	name := strings.TrimPrefix(path.Clean("/"+r.URL.Path), "/")
	if name == "" {
		name = "index.html"
	}
	if s.serveAsset(w, r, name) {
		return
	}
	if path.Ext(name) != "" || !s.serveAsset(w, r, "index.html") {
		http.NotFound(w, r)
	}
}

// serveAsset serves one regular file from the assets, reporting false when
// there is none by that name.
func (s *Server) serveAsset(w http.ResponseWriter, r *http.Request, name string) bool {
	if !fs.ValidPath(name) {
		return false
	}
	f, err := s.assets.Open(name)
	if err != nil {
		return false
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() {
		return false
	}
	content, ok := f.(io.ReadSeeker)
	if !ok {
		data, err := io.ReadAll(f)
		if err != nil {
			return false
		}
		content = bytes.NewReader(data)
	}
	if strings.HasPrefix(name, "assets/") {
		// Vite puts content-hashed bundles under assets/.
		w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		w.Header().Set("Cache-Control", "no-cache")
	}
	http.ServeContent(w, r, name, info.ModTime(), content)
	return true
}

const placeholderHTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Hearth</title>
<style>body{font-family:system-ui,sans-serif;max-width:40rem;margin:4rem auto;padding:0 1rem;line-height:1.5}</style>
</head>
<body>
<h1>Hearth is running</h1>
<p>This server was started without the built frontend, so there is no interface to show.
Build the frontend and restart, or talk to the API directly.</p>
</body>
</html>
`

// servePlaceholder stands in for the frontend when none was configured.
func servePlaceholder(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-cache")
	http.ServeContent(w, r, "index.html", time.Time{}, strings.NewReader(placeholderHTML))
}
