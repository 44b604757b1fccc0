package httpapi

import (
	"errors"
	"io/fs"
	"net/http"
	"os"
	"strings"

	"hearth/backend/apperr"
	"hearth/backend/media"
)

// MediaSource finds a stored attachment by its content-addressed name;
// *media.Store satisfies it.
type MediaSource interface {
	Path(name string) (string, error)
}

// codeMediaNotFound: no attachment has the name.
const codeMediaNotFound = "media.not_found"

// handleMedia serves GET /api/media/{name}.
func (s *Server) handleMedia(w http.ResponseWriter, r *http.Request) {
	ServeMedia(w, r, s.media, r.PathValue("name"))
}

// ServeMedia answers a request for a message attachment; both transports
// serve media.URLPrefix+name through it. Names are content hashes, so an
// answer never changes: it may be cached for good. Only images, video and
// audio are shown inline, each with the type its content was sniffed as
// when stored; every other file is a download (an uploaded page or script
// must never run as Hearth), and nosniff keeps the browser from guessing
// otherwise.
func ServeMedia(w http.ResponseWriter, r *http.Request, src MediaSource, name string) {
	h := w.Header()
	h.Set("Cross-Origin-Resource-Policy", "same-origin")
	h.Set("X-Content-Type-Options", "nosniff")
	if src == nil || name == "" || strings.Contains(name, "/") {
		writeError(w, http.StatusNotFound, apperr.New(codeMediaNotFound, "attachment %q not found", name))
		return
	}
	p, err := src.Path(name)
	if err != nil {
		writeError(w, http.StatusNotFound, apperr.New(codeMediaNotFound, "attachment %q not found", name))
		return
	}
	f, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		writeError(w, http.StatusNotFound, apperr.New(codeMediaNotFound, "attachment %q not found", name))
		return
	}
	if err != nil {
		writeError(w, http.StatusInternalServerError, apperr.Shape(err))
		return
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		writeError(w, http.StatusInternalServerError, apperr.Shape(err))
		return
	}
	h.Set("Content-Type", media.TypeOf(name))
	h.Set("Cache-Control", "private, max-age=31536000, immutable")
	if !media.Inline(name) {
		h.Set("Content-Disposition", "attachment")
		h.Set("Content-Security-Policy", "sandbox")
	}
	http.ServeContent(w, r, name, info.ModTime(), f)
}
