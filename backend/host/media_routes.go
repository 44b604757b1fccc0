package host

import (
	"context"
	"encoding/base64"
	"strings"
	"unicode/utf8"

	"hearth/backend/apperr"
	"hearth/backend/media"
)

// MediaRef is chat.uploadMedia's answer: what a message's extra.media[]
// (images, video, audio) or extra.files[] entry holds.
type MediaRef struct {
	URL  string `json:"url"`
	Type string `json:"type"`
	MIME string `json:"mime"`
	Size int    `json:"size"`
	Name string `json:"name"`
}

// maxMediaName bounds an attachment's display name.
const maxMediaName = 255

func registerMedia(r *Router, files *media.Store) {
	r.Register("chat.uploadMedia", func(ctx context.Context, a Args) (any, error) {
		var in struct {
			FileName *string `json:"fileName"`
			Base64   *string `json:"base64"`
		}
		if err := a.Object(0, "file", &in); err != nil {
			return nil, err
		}
		if in.Base64 == nil {
			return nil, apperr.Invalid("file.base64 is required")
		}
		name := ""
		if in.FileName != nil {
			name = strings.TrimSpace(*in.FileName)
		}
		if utf8.RuneCountInString(name) > maxMediaName || strings.ContainsAny(name, "\x00/\\") {
			return nil, apperr.Invalid("file.fileName must be at most %d characters, without slashes", maxMediaName)
		}
		b64 := *in.Base64
		if i := strings.Index(b64, ";base64,"); strings.HasPrefix(b64, "data:") && i >= 0 {
			b64 = b64[i+len(";base64,"):]
		}
		if base64.StdEncoding.DecodedLen(len(b64)) > media.MaxUpload {
			return nil, apperr.Invalid("the file is larger than %d MB", media.MaxUpload>>20).
				WithDetails(map[string]any{"maxBytes": media.MaxUpload})
		}
		data, err := base64.StdEncoding.DecodeString(b64)
		if err != nil {
			return nil, apperr.Invalid("file.base64 is not base64: %v", err)
		}
		if len(data) == 0 {
			return nil, apperr.Invalid("the file is empty")
		}
		kind := media.Sniff(data, name)
		stored, err := files.Put(data, kind.Ext)
		if err != nil {
			return nil, err
		}
		if name == "" {
			name = stored
		}
		return MediaRef{URL: media.URLPrefix + stored, Type: kind.Kind, MIME: kind.MIME, Size: len(data), Name: name}, nil
	})
}
