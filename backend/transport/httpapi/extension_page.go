package httpapi

import (
	"net/http"
	"strings"

	"hearth/backend/apperr"
	"hearth/backend/internal/extframe"
)

// ServePageExtensionFile answers a request under extframe.PagePathPrefix
// (/scripts/extensions/third-party/<id>/<path>) with a file of an active
// page-tier extension, in the app's own origin: that is where SillyTavern
// extensions expect to live, and where their module scripts must come
// from to run in the window (script-src 'self'). Both transports serve
// the prefix through it; `hearth serve` only to a window with a session.
//
// The rules for paths are /ext/'s (openPackageFile): GET and HEAD of a
// regular file inside the package, nothing else. Every answer carries
// extframe.PageCSP, so a package file opened as a document runs nothing
// and has no origin: the package's code runs only as the window imports
// it, and only while the user has it turned on.
func ServePageExtensionFile(w http.ResponseWriter, r *http.Request, files ExtensionFiles) {
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-cache")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Content-Security-Policy", extframe.PageCSP)
	notFound := func() { extensionNotFound(w, r, tierPage) }
	id, rest, ok := strings.Cut(strings.TrimPrefix(r.URL.EscapedPath(), extframe.PagePathPrefix), "/")
	if !ok || files == nil {
		notFound()
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		h.Set("Allow", "GET, HEAD")
		writeError(w, http.StatusMethodNotAllowed, apperr.Invalid("method %s not allowed", r.Method))
		return
	}
	dir, err := files.PageDir(r.Context(), id)
	if err != nil {
		lookupFailed(w, r, err, tierPage)
		return
	}
	file, info, name, ok := openPackageFile(dir, rest)
	if !ok {
		notFound()
		return
	}
	defer file.Close()
	ctype := packageType(name)
	h.Set("Content-Type", ctype)
	if strings.HasPrefix(ctype, "text/html") {
		// Not 200: Wails' asset server rewrites a 200 text/html answer
		// whose path ends in "/index.html" (see ServeExtensionFile), and
		// a template fetched by an extension must arrive as written.
		w = statusWriter{ResponseWriter: w, status: http.StatusNonAuthoritativeInfo}
	}
	http.ServeContent(w, r, name, info.ModTime(), file)
}

// statusWriter turns the 200 http.ServeContent writes into status and
// passes any other (304, 206, 416) through.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (s statusWriter) WriteHeader(code int) {
	if code == http.StatusOK {
		code = s.status
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s statusWriter) Write(b []byte) (int, error) { return s.ResponseWriter.Write(b) }
