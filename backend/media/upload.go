package media

import (
	"net/http"
	"path/filepath"
	"strings"
)

// MaxUpload bounds one attachment.
const MaxUpload = 32 << 20

// URLPrefix is where both transports serve stored attachments:
// URLPrefix + name.
const URLPrefix = "/api/media/"

// Kinds of attachment, as SillyTavern's extra.media[].type names them.
const (
	KindImage = "image"
	KindVideo = "video"
	KindAudio = "audio"
	KindFile  = "file"
)

// known maps a sniffed content type to what Hearth stores and serves
// inline. Anything else is stored as an opaque ".bin" file and served
// only as a download, so an uploaded page or script never runs as Hearth.
var known = map[string]struct{ ext, kind string }{
	"image/png":       {"png", KindImage},
	"image/jpeg":      {"jpg", KindImage},
	"image/gif":       {"gif", KindImage},
	"image/webp":      {"webp", KindImage},
	"video/mp4":       {"mp4", KindVideo},
	"video/webm":      {"webm", KindVideo},
	"audio/mpeg":      {"mp3", KindAudio},
	"audio/ogg":       {"ogg", KindAudio},
	"audio/wave":      {"wav", KindAudio},
	"application/pdf": {"pdf", KindFile},
}

// textExts are plain-text files kept with their extension (served as
// text/plain downloads).
var textExts = map[string]bool{"txt": true, "md": true, "json": true, "csv": true, "log": true}

// Sniffed is what an upload turned out to be.
type Sniffed struct {
	Ext  string
	MIME string
	Kind string
}

// Sniff classifies data by its content (not by the name a caller gave it,
// which may lie); fileName only tells text files apart.
func Sniff(data []byte, fileName string) Sniffed {
	ct := http.DetectContentType(data)
	base, _, _ := strings.Cut(ct, ";")
	if k, ok := known[base]; ok {
		return Sniffed{Ext: k.ext, MIME: base, Kind: k.kind}
	}
	ext := strings.ToLower(strings.TrimPrefix(filepath.Ext(fileName), "."))
	if base == "text/plain" && textExts[ext] {
		return Sniffed{Ext: ext, MIME: "text/plain", Kind: KindFile}
	}
	return Sniffed{Ext: "bin", MIME: "application/octet-stream", Kind: KindFile}
}

// Inline says whether a stored name may be shown in the page (images,
// video, audio): every other file is served as a download.
func Inline(name string) bool {
	ext := strings.TrimPrefix(filepath.Ext(name), ".")
	for _, k := range known {
		if k.ext == ext {
			return k.kind != KindFile
		}
	}
	return false
}

// TypeOf is the content type a stored name is served with.
func TypeOf(name string) string {
	ext := strings.TrimPrefix(filepath.Ext(name), ".")
	for mime, k := range known {
		if k.ext == ext {
			return mime
		}
	}
	if textExts[ext] {
		return "text/plain; charset=utf-8"
	}
	return "application/octet-stream"
}
