package cards

import (
	"encoding/json"
	"net/http"
	"path"
	"strings"

	"hearth/backend/jsonx"
)

// embeddedPrefixes are the URI schemes that point into the card's own
// file. The V3 specification spells the first (`embeded://`, sic); the
// others are what RisuAI and SillyTavern also accept.
var embeddedPrefixes = []string{"embeded://", "embedded://", "__asset:"}

// avatarTypes are the image types Hearth keeps as an avatar.
var avatarTypes = map[string]bool{"image/png": true, "image/jpeg": true, "image/webp": true, "image/gif": true}

// assetEntries lists the card's V3 `assets` (type, name, ext and uri of
// each object entry; other entries and a non-list are ignored, the data
// keeps them as they are).
func assetEntries(data jsonx.Object) []Asset {
	var items []json.RawMessage
	if kindOf(data["assets"]) != '[' || json.Unmarshal(data["assets"], &items) != nil {
		return nil
	}
	out := make([]Asset, 0, len(items))
	for _, it := range items {
		var a struct {
			Type, Name, Ext, URI any
		}
		if kindOf(it) != '{' || json.Unmarshal(it, &a) != nil {
			continue
		}
		out = append(out, Asset{Type: str(a.Type), Name: str(a.Name), Ext: str(a.Ext), URI: str(a.URI)})
	}
	return out
}

// listedAssets indexes assetEntries by uri (the first entry of each).
func listedAssets(data jsonx.Object) map[string]Asset {
	out := map[string]Asset{}
	for _, a := range assetEntries(data) {
		if _, dup := out[a.URI]; !dup {
			out[a.URI] = a
		}
	}
	return out
}

// str is v when it is a string, "" otherwise.
func str(v any) string {
	s, _ := v.(string)
	return s
}

// embeddedPath is the archive path a uri points to, ok false when it does
// not point into the file.
func embeddedPath(uri string) (string, bool) {
	uri = strings.TrimSpace(uri)
	for _, p := range embeddedPrefixes {
		if len(uri) >= len(p) && strings.EqualFold(uri[:len(p)], p) {
			clean := cleanPath(uri[len(p):])
			return clean, clean != ""
		}
	}
	return "", false
}

// cleanPath normalizes a path inside an archive: forward slashes, no
// leading slash or dot segments. "" for a path that is empty or escapes.
func cleanPath(p string) string {
	p = path.Clean("/" + strings.ReplaceAll(p, `\`, "/"))
	return strings.TrimPrefix(p, "/")
}

// pickIcon returns the index in assets of the avatar: the `icon` named
// `main` (the V3 rule), else the first icon, among those whose content is
// an image Hearth keeps; -1 when there is none.
func pickIcon(assets []Asset) int {
	first := -1
	for i, a := range assets {
		if !strings.EqualFold(a.Type, "icon") || !avatarTypes[http.DetectContentType(a.Data)] {
			continue
		}
		if strings.EqualFold(a.Name, "main") {
			return i
		}
		if first < 0 {
			first = i
		}
	}
	return first
}
