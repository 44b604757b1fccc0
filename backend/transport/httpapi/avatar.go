package httpapi

import (
	"errors"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"hearth/backend/apperr"
)

// handleAvatar serves GET /api/avatar/{avatar}.
func (s *Server) handleAvatar(w http.ResponseWriter, r *http.Request) {
	ServeAvatar(w, r, s.avatars, r.PathValue("avatar"))
}

// ServeAvatar answers a request for a character's avatar image; both
// transports (this server and the desktop asset handler) serve
// /api/avatar/{avatar} through it. Media files are named by their content
// hash, which makes a strong ETag; the same avatar key can get a new image,
// so browsers revalidate instead of caching blindly. A nil source makes
// every avatar 404. Cross-Origin-Resource-Policy: same-origin keeps other
// sites from loading the images into their pages (to probe which
// characters exist, or to read them through a Spectre-class side channel);
// it is set here so both transports send it, on every answer.
func ServeAvatar(w http.ResponseWriter, r *http.Request, avatars AvatarSource, avatar string) {
	w.Header().Set("Cross-Origin-Resource-Policy", "same-origin")
	if avatars == nil || avatar == "" || strings.Contains(avatar, "/") {
		writeError(w, http.StatusNotFound, apperr.New(apperr.CodeCharacterNotFound, "character %q not found", avatar))
		return
	}
	p, err := avatars.ImagePath(r.Context(), avatar)
	if err != nil {
		e := apperr.Shape(err)
		writeError(w, statusFor(e.Code), e)
		return
	}
	f, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		writeError(w, http.StatusNotFound, apperr.New(apperr.CodeCharacterNotFound, "image of %q is missing", avatar))
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
	base := filepath.Base(p)
	h := w.Header()
	h.Set("Cache-Control", "private, no-cache")
	h.Set("ETag", `"`+strings.TrimSuffix(base, filepath.Ext(base))+`"`)
	http.ServeContent(w, r, base, info.ModTime(), f)
}
