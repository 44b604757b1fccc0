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
	serveImage(w, r, avatars, avatar, apperr.CodeCharacterNotFound, "character")
}

// handlePersonaAvatar serves GET /api/persona-avatar/{id}.
func (s *Server) handlePersonaAvatar(w http.ResponseWriter, r *http.Request) {
	ServePersonaAvatar(w, r, s.personaAvatars, r.PathValue("id"))
}

// ServePersonaAvatar answers a request for a persona's avatar image (the
// persona's avatarUrl) as ServeAvatar does for characters; both transports
// serve /api/persona-avatar/{id} through it.
func ServePersonaAvatar(w http.ResponseWriter, r *http.Request, personas AvatarSource, id string) {
	serveImage(w, r, personas, id, codePersonaNotFound, "persona")
}

// codePersonaNotFound is backend/personas' not-found code (the transport
// imports no domain package).
const codePersonaNotFound = "persona.not_found"

// serveImage serves key's image file from src; what names the owner kind
// in errors, whose code is notFound.
func serveImage(w http.ResponseWriter, r *http.Request, src AvatarSource, key, notFound, what string) {
	w.Header().Set("Cross-Origin-Resource-Policy", "same-origin")
	if src == nil || key == "" || strings.Contains(key, "/") {
		writeError(w, http.StatusNotFound, apperr.New(notFound, "%s %q not found", what, key))
		return
	}
	p, err := src.ImagePath(r.Context(), key)
	if err != nil {
		e := apperr.Shape(err)
		writeError(w, statusFor(e.Code), e)
		return
	}
	f, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		writeError(w, http.StatusNotFound, apperr.New(notFound, "image of %s %q is missing", what, key))
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
