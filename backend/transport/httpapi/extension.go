package httpapi

import (
	"context"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path"
	"strconv"
	"strings"

	"hearth/backend/apperr"
	"hearth/backend/internal/extframe"
	"hearth/backend/internal/htmlhead"
)

// ExtensionFiles finds what a sandboxed extension's frame may load;
// *extensions.Service satisfies it. Any error but a store failure is
// "not found": not installed, the page tier, off, failed, blocked, or
// safe mode.
type ExtensionFiles interface {
	FrameFiles(ctx context.Context, id string) (extframe.Files, error)
	// PageDir is the folder of an active page-tier extension.
	PageDir(ctx context.Context, id string) (string, error)
}

// codeExtensionNotFound is backend/extensions' not-found code (the
// transport imports no domain package).
const codeExtensionNotFound = "extension.not_found"

// extensionTypes are the content types files under /ext/ are served as;
// any other file is a download (application/octet-stream).
var extensionTypes = map[string]string{
	".html":  "text/html; charset=utf-8",
	".htm":   "text/html; charset=utf-8",
	".js":    "text/javascript; charset=utf-8",
	".mjs":   "text/javascript; charset=utf-8",
	".css":   "text/css; charset=utf-8",
	".json":  "application/json",
	".svg":   "image/svg+xml",
	".png":   "image/png",
	".jpg":   "image/jpeg",
	".jpeg":  "image/jpeg",
	".webp":  "image/webp",
	".gif":   "image/gif",
	".woff2": "font/woff2",
	".wasm":  "application/wasm",
	".txt":   "text/plain; charset=utf-8",
	// What the policy's font-src and media-src let a frame use besides.
	".avif": "image/avif",
	".ico":  "image/x-icon",
	".woff": "font/woff",
	".ttf":  "font/ttf",
	".otf":  "font/otf",
	".mp3":  "audio/mpeg",
	".ogg":  "audio/ogg",
	".wav":  "audio/wav",
	".mp4":  "video/mp4",
	".webm": "video/webm",
}

// The tiers as a 404 names them.
const (
	tierSandboxed = "sandboxed"
	tierPage      = "page"
)

// extensionNotFound answers a request under an extension prefix that
// names no file served: the same 404 whatever the reason, so a caller
// learns nothing of what is installed, off or in the other tier.
func extensionNotFound(w http.ResponseWriter, r *http.Request, tier string) {
	writeError(w, http.StatusNotFound, apperr.New(codeExtensionNotFound, "no file %s of an active %s extension", r.URL.Path, tier))
}

// lookupFailed answers a failed lookup of the extension a request names
// (ExtensionFiles' FrameFiles or PageDir): a store failure is a 500 with
// its log reference; anything else (not installed, the other tier, off,
// failed, blocked, safe mode) is extensionNotFound's 404.
func lookupFailed(w http.ResponseWriter, r *http.Request, err error, tier string) {
	if e := apperr.Shape(err); e.Code == apperr.CodeInternal {
		writeError(w, http.StatusInternalServerError, e)
		return
	}
	extensionNotFound(w, r, tier)
}

// packageType is the Content-Type a package file is served as, by its
// extension (extensionTypes); anything else is a download.
func packageType(name string) string {
	if ctype, ok := extensionTypes[strings.ToLower(path.Ext(name))]; ok {
		return ctype
	}
	return "application/octet-stream"
}

// handleExtension serves /ext/{id}/{path...}. Its origin is the one the
// browser used (the Host guard has checked the host).
func (s *Server) handleExtension(w http.ResponseWriter, r *http.Request) {
	scheme := "http"
	if s.viaTLS(r) {
		scheme = "https"
	}
	ServeExtensionFile(w, r, s.extensions, scheme+"://"+r.Host)
}

// handlePageExtension serves /scripts/extensions/third-party/{id}/{path...}.
func (s *Server) handlePageExtension(w http.ResponseWriter, r *http.Request) {
	ServePageExtensionFile(w, r, s.extensions)
}

// ServeExtensionFile answers a request under extframe.PathPrefix
// (/ext/<id>/<path>) with a file of an active sandboxed extension; both
// transports serve that prefix through it, origin being the app's
// (wails://wails, or the scheme and host `hearth serve` was reached at).
//
// Every answer carries a Content-Security-Policy: the frame's
// (extframe.CSP) once the extension is known, else one that lets nothing
// load; and a second one, "sandbox allow-scripts", so a file opened
// outside its frame still runs in an opaque origin, never as the app.
// The entry document (hearth.entry) has the frame's policy and the
// runtime script injected at the top of its head, the package's other
// HTML documents the policy alone; neither has validators, so a revoked
// network grant is never served from a cache. Only GET and HEAD; only
// regular files, resolved inside the extension's folder (no "..",
// encoded slash, backslash, NUL or dot-file segment, and no symbolic
// link out of it); anything else is 404.
//
// Access-Control-Allow-Origin is "*": the frame's origin is opaque, so
// its module scripts, fonts and fetches of its own files are all
// cross-origin requests, and the files are the package as installed,
// which no session guards in either transport.
func ServeExtensionFile(w http.ResponseWriter, r *http.Request, files ExtensionFiles, origin string) {
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Frame-Options", "SAMEORIGIN")
	h.Set("Referrer-Policy", "no-referrer")
	h["Content-Security-Policy"] = []string{extframe.ClosedCSP, extframe.SandboxCSP}
	notFound := func() { extensionNotFound(w, r, tierSandboxed) }
	id, rest, ok := strings.Cut(strings.TrimPrefix(r.URL.EscapedPath(), extframe.PathPrefix), "/")
	if !ok || files == nil {
		notFound()
		return
	}
	f, err := files.FrameFiles(r.Context(), id)
	if err != nil {
		lookupFailed(w, r, err, tierSandboxed)
		return
	}
	csp, err := extframe.CSP(origin, id, f.Connect)
	if err != nil {
		notFound()
		return
	}
	h["Content-Security-Policy"] = []string{csp, extframe.SandboxCSP}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		h.Set("Allow", "GET, HEAD")
		writeError(w, http.StatusMethodNotAllowed, apperr.Invalid("method %s not allowed", r.Method))
		return
	}
	file, info, name, ok := openPackageFile(f.Dir, rest)
	if !ok {
		notFound()
		return
	}
	defer file.Close()
	ctype := packageType(name)
	h.Set("Content-Type", ctype)
	h.Set("Access-Control-Allow-Origin", "*")
	if !strings.HasPrefix(ctype, "text/html") {
		http.ServeContent(w, r, name, info.ModTime(), file)
		return
	}
	doc, err := io.ReadAll(file)
	if err != nil {
		writeError(w, http.StatusInternalServerError, apperr.Shape(err))
		return
	}
	head := extframe.PolicyHead(csp)
	if name == f.Entry {
		head = extframe.EntryHead(csp)
	}
	doc = htmlhead.Inject(doc, head)
	h.Set("Content-Length", strconv.Itoa(len(doc)))
	// 203 rather than 200: Wails' asset server parses a 200 text/html
	// answer whose path ends in "/index.html" and puts its own scripts
	// at the top of the head, before the policy, where they would run
	// unchecked in the frame; any other status passes through it as is.
	// 203 is also the truth: this is the package's file, modified.
	w.WriteHeader(http.StatusNonAuthoritativeInfo)
	if r.Method != http.MethodHead {
		_, _ = w.Write(doc)
	}
}

// openPackageFile opens the regular file an escaped path names inside
// dir, through os.OpenRoot, so no symbolic link leads out of it; ok is
// false for anything else (see packagePath). The caller closes file.
func openPackageFile(dir, escaped string) (file *os.File, info fs.FileInfo, name string, ok bool) {
	name, ok = packagePath(escaped)
	if !ok {
		return nil, nil, "", false
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, nil, "", false
	}
	defer root.Close()
	file, err = root.Open(name)
	if err != nil {
		return nil, nil, "", false
	}
	info, err = file.Stat()
	if err != nil || !info.Mode().IsRegular() {
		file.Close()
		return nil, nil, "", false
	}
	return file, info, name, true
}

// packagePath turns the escaped rest of a path under an extension's
// prefix into a slash-separated path in its package, refusing what could
// name anything but a file inside it: an empty, "." or ".." segment (or
// any dot-file), and a segment that holds a slash, backslash, colon or
// NUL once unescaped.
func packagePath(escaped string) (string, bool) {
	segs := strings.Split(escaped, "/")
	for i, seg := range segs {
		s, err := url.PathUnescape(seg)
		if err != nil || s == "" || s[0] == '.' || strings.ContainsAny(s, "/\\:\x00") {
			return "", false
		}
		segs[i] = s
	}
	name := strings.Join(segs, "/")
	return name, fs.ValidPath(name)
}
