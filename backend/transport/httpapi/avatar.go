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

// handleAvatar serves a character's avatar image. Media files are named by
// their content hash, which makes a strong ETag; the same avatar key can get
// a new image, so browsers revalidate instead of caching blindly.
func (s *Server) handleAvatar(w http.ResponseWriter, r *http.Request) {
	avatar := r.PathValue("avatar")
	if s.avatars == nil {
		writeError(w, http.StatusNotFound, apperr.New(apperr.CodeCharacterNotFound, "character %q not found", avatar))
		return
	}
	p, err := s.avatars.ImagePath(r.Context(), avatar)
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
