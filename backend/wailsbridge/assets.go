package wailsbridge

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"runtime/debug"
	"strconv"
	"strings"

	"hearth/backend/apperr"
	"hearth/backend/internal/extframe"
	"hearth/backend/internal/htmlhead"
	"hearth/backend/transport/httpapi"
)

// BootElementID is the id of the element that carries the token to the
// frontend, which reads it once and removes it (frontend/src/abi/boot.ts).
const BootElementID = "hearth-boot"

// avatarPrefix is the desktop twin of the browser server's avatar route.
const avatarPrefix = "/api/avatar/"

// personaAvatarPrefix is the twin of its persona avatar route.
const personaAvatarPrefix = "/api/persona-avatar/"

// mediaPrefix is the twin of its attachment route.
const mediaPrefix = "/api/media/"

// AppOrigin is where Wails serves the app in a built window: the origin
// sandboxed extensions' frame policies name (extframe.CSP).
const AppOrigin = "wails://wails"

// AvatarSource finds the image file of a character; *characters.Service
// satisfies it.
type AvatarSource interface {
	ImagePath(ctx context.Context, avatar string) (string, error)
}

// ExtraScript is a same-origin script the middleware serves at Path (the
// desktop self-test's scripts; the page's CSP allows only 'self' scripts).
// With Boot set, the main document also loads it, right after the boot
// element and before the app's own module.
type ExtraScript struct {
	Path string
	Body []byte
	Boot bool
}

// MiddlewareOption configures Middleware.
type MiddlewareOption func(*middlewareConfig)

type middlewareConfig struct {
	scripts  map[string][]byte
	boot     []byte
	onBoot   func()
	onInvoke func(accepted bool)
	personas AvatarSource
	media    httpapi.MediaSource
	exts     httpapi.ExtensionFiles
}

// WithExtensions serves sandboxed extensions' files at /ext/<id>/… from
// files (*extensions.Service), as `hearth serve` does; without it they
// are 404.
func WithExtensions(files httpapi.ExtensionFiles) MiddlewareOption {
	return func(c *middlewareConfig) { c.exts = files }
}

// WithMedia serves message attachments at /api/media/{name} from files
// (*media.Store); without it they are 404.
func WithMedia(files httpapi.MediaSource) MiddlewareOption {
	return func(c *middlewareConfig) { c.media = files }
}

// WithPersonaAvatars serves /api/persona-avatar/{id} (a persona's
// avatarUrl) from personas (*personas.Service); without it they are 404.
func WithPersonaAvatars(personas AvatarSource) MiddlewareOption {
	return func(c *middlewareConfig) { c.personas = personas }
}

// WithScripts serves scripts (see ExtraScript). Only the self-test uses it;
// a normal window serves nothing but the frontend and avatars.
func WithScripts(scripts ...ExtraScript) MiddlewareOption {
	return func(c *middlewareConfig) {
		for _, s := range scripts {
			c.scripts[s.Path] = s.Body
			if s.Boot {
				c.boot = append(c.boot, `<script src="`+html.EscapeString(s.Path)+`"></script>`...)
			}
		}
	}
}

// WithBootObserver calls observe each time the token-bearing document is
// served, which the self-test reports (WebKitGTK serves it to frames too).
func WithBootObserver(observe func()) MiddlewareOption {
	return func(c *middlewareConfig) { c.onBoot = observe }
}

// DesktopCSP is the desktop window's Content-Security-Policy, as strict as
// the one `hearth serve` sends: scripts only from the app itself, and no
// connection anywhere but the app's own scheme (the window talks to Go over
// Wails IPC and its own /api/invoke, never a socket); frames only of its
// own pages (sandboxed extensions under /ext/). frame-ancestors is for the
// header; a meta policy ignores it.
const DesktopCSP = "default-src 'self'; img-src 'self' data: blob:; style-src 'self' 'unsafe-inline'; script-src 'self'; " +
	"connect-src 'self'; frame-src 'self'; frame-ancestors 'none'; object-src 'none'; base-uri 'none'; form-action 'self'"

// Middleware returns the asset-server middleware for the desktop window.
// It answers token-bearing POSTs to InvokePath with router, serves
// /api/avatar/{avatar} from avatars (and what the options add: /ext/…,
// /api/media/…), and injects the capability token into index.html when —
// and only when — the request is for the main document. Everything else
// passes to next (the embedded frontend, /ext-runtime/frame.js included).
func Middleware(token string, router Invoker, avatars AvatarSource, opts ...MiddlewareOption) func(next http.Handler) http.Handler {
	cfg := &middlewareConfig{scripts: map[string][]byte{}}
	for _, opt := range opts {
		opt(cfg)
	}
	boot := append(append(cspMeta(), bootScript(token)...), cfg.boot...)
	tok := []byte(token)
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			defer recoverRequest(w, r)
			if body, ok := cfg.scripts[r.URL.Path]; ok {
				serveScript(w, r, body)
				return
			}
			switch {
			case r.URL.Path == InvokePath:
				serveInvoke(w, r, router, tok, cfg.onInvoke)
			case strings.HasPrefix(r.URL.Path, avatarPrefix):
				serveAvatar(w, r, avatars)
			case strings.HasPrefix(r.URL.Path, personaAvatarPrefix):
				servePersonaAvatar(w, r, cfg.personas)
			case strings.HasPrefix(r.URL.Path, mediaPrefix):
				serveMedia(w, r, cfg.media)
			case strings.HasPrefix(r.URL.Path, extframe.PathPrefix):
				httpapi.ServeExtensionFile(w, r, cfg.exts, AppOrigin)
			case strings.HasPrefix(r.URL.Path, extframe.PagePathPrefix):
				httpapi.ServePageExtensionFile(w, r, cfg.exts)
			case isMainDocument(r):
				if cfg.onBoot != nil {
					cfg.onBoot()
				}
				serveBootDocument(w, r, next, boot)
			default:
				next.ServeHTTP(w, r)
			}
		})
	}
}

// recoverRequest answers a request whose handler panicked with "internal"
// (the stack goes to the log under the error's ref; the request's headers,
// which may carry the token, do not).
func recoverRequest(w http.ResponseWriter, r *http.Request) {
	if p := recover(); p != nil {
		writeError(w, http.StatusInternalServerError,
			apperr.Shape(fmt.Errorf("panic serving %s %s: %v\n%s", r.Method, r.URL.Path, p, debug.Stack())))
	}
}

// serveScript answers an ExtraScript.
func serveScript(w http.ResponseWriter, r *http.Request, body []byte) {
	h := w.Header()
	h.Set("Content-Type", "text/javascript; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}

// isMainDocument reports whether r may be the window's own load of
// index.html, the only response that carries the token.
//
// Browsers that send fetch metadata mark frame loads Sec-Fetch-Dest
// iframe/frame (embed/object for plugins); anything but "document" is
// refused. WebKitGTK sends no Sec-Fetch-* headers at all for the app's own
// scheme (measured with 2.4x: a frame's load of "/" looks exactly like the
// window's), so without the header the request must at least look like a
// navigation: it asks for text/html and carries no Origin, which fetch()
// and XMLHttpRequest send for cross-origin requests, as every request from
// a sandboxed frame is. A sandboxed frame that still loads "/" as a
// document gets a copy it cannot read (the copy has an opaque origin of its
// own) and in which the frontend refuses to boot.
func isMainDocument(r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	if r.URL.Path != "/" && r.URL.Path != "/index.html" {
		return false
	}
	if r.Header.Get("Origin") != "" {
		return false
	}
	if dest := r.Header.Get("Sec-Fetch-Dest"); dest != "" {
		return strings.EqualFold(dest, "document")
	}
	return strings.Contains(r.Header.Get("Accept"), "text/html")
}

// cspMeta renders DesktopCSP as the first element of <head>, so it holds
// before anything loads. The header is set too; the meta element is what
// every WebKit honours for a custom scheme.
func cspMeta() []byte {
	return []byte(`<meta http-equiv="Content-Security-Policy" content="` + html.EscapeString(DesktopCSP) + `">`)
}

// bootScript renders the element the frontend reads the token from. The
// JSON is escaped for HTML, so no token text could close the element.
func bootScript(token string) []byte {
	payload, _ := json.Marshal(map[string]string{"token": token})
	var b bytes.Buffer
	b.WriteString(`<script id="` + BootElementID + `" type="application/json">`)
	json.HTMLEscape(&b, payload)
	b.WriteString(`</script>`)
	return b.Bytes()
}

// serveBootDocument fetches index.html from next and writes it back with the
// boot element inserted at the top of <head>, where it exists before any
// script runs. The answer is never cached: a cached copy would be a copy of
// the token. X-Frame-Options is for webviews that honour it on the app's
// scheme (WebKitGTK does not); the frontend's own frame check is the
// guarantee.
func serveBootDocument(w http.ResponseWriter, r *http.Request, next http.Handler, boot []byte) {
	inner := r.Clone(r.Context())
	// A 304 would leave nothing to inject into.
	inner.Header.Del("If-Modified-Since")
	inner.Header.Del("If-None-Match")
	inner.Header.Del("Range")
	rec := newRecorder()
	next.ServeHTTP(rec, inner)

	h := w.Header()
	for k, v := range rec.header {
		h[k] = v
	}
	body := rec.body.Bytes()
	if rec.status == http.StatusOK && strings.HasPrefix(rec.header.Get("Content-Type"), "text/html") {
		body = htmlhead.Inject(body, boot)
		h.Set("Content-Security-Policy", DesktopCSP)
		h.Set("Cache-Control", "no-store")
		h.Set("X-Frame-Options", "DENY")
		h.Del("Last-Modified")
		h.Del("ETag")
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(rec.status)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}

// serveAvatar answers /api/avatar/{avatar} exactly as the browser server does.
func serveAvatar(w http.ResponseWriter, r *http.Request, avatars AvatarSource) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		writeError(w, http.StatusMethodNotAllowed, apperr.Invalid("method %s not allowed", r.Method))
		return
	}
	httpapi.ServeAvatar(w, r, avatars, strings.TrimPrefix(r.URL.Path, avatarPrefix))
}

// servePersonaAvatar answers /api/persona-avatar/{id} as the browser
// server does.
func servePersonaAvatar(w http.ResponseWriter, r *http.Request, personas AvatarSource) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		writeError(w, http.StatusMethodNotAllowed, apperr.Invalid("method %s not allowed", r.Method))
		return
	}
	httpapi.ServePersonaAvatar(w, r, personas, strings.TrimPrefix(r.URL.Path, personaAvatarPrefix))
}

// serveMedia answers /api/media/{name} as the browser server does.
func serveMedia(w http.ResponseWriter, r *http.Request, files httpapi.MediaSource) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		writeError(w, http.StatusMethodNotAllowed, apperr.Invalid("method %s not allowed", r.Method))
		return
	}
	httpapi.ServeMedia(w, r, files, strings.TrimPrefix(r.URL.Path, mediaPrefix))
}

func writeError(w http.ResponseWriter, status int, e *apperr.Error) {
	body, _ := json.Marshal(map[string]*apperr.Error{"error": e})
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// recorder buffers a response so the document can be rewritten before it
// is sent.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
	wrote  bool
}

func newRecorder() *recorder { return &recorder{header: http.Header{}, status: http.StatusOK} }

func (rec *recorder) Header() http.Header { return rec.header }

func (rec *recorder) WriteHeader(status int) {
	if !rec.wrote {
		rec.status, rec.wrote = status, true
	}
}

func (rec *recorder) Write(p []byte) (int, error) {
	if !rec.wrote {
		rec.WriteHeader(http.StatusOK)
		if rec.header.Get("Content-Type") == "" {
			rec.header.Set("Content-Type", http.DetectContentType(p))
		}
	}
	return rec.body.Write(p)
}
