package extensions

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
)

// MaxI18nLocales bounds a manifest's i18n: more locales than any
// extension ships, few enough that the list entry stays small.
const MaxI18nLocales = 64

// localePattern is what an i18n key may be: a locale code as SillyTavern
// names its locales ("zh-cn", "pt-br", "sr-latn-rs") or "default", which
// it falls back to. Case is kept: SillyTavern matches the key exactly
// against the window's locale, lowercased.
var localePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,34}$`)

// readI18n reads i18n, SillyTavern's { locale: file } map of the JSON
// files in the package holding an extension's translations for each
// locale (absent, null and {} are none). A key that is not a locale
// code, a file that is not a relative path inside the package, or more
// than MaxI18nLocales entries is extension.invalid_manifest naming the
// field. Whether the files exist is not checked: SillyTavern loads an
// extension whose translation file is missing, without it, and so does
// Hearth's page loader.
func readI18n(top map[string]json.RawMessage) (map[string]string, error) {
	v, ok := top["i18n"]
	if !ok || isNull(v) {
		return nil, nil
	}
	var raw map[string]json.RawMessage
	if bytes.TrimSpace(v)[0] != '{' || json.Unmarshal(v, &raw) != nil {
		return nil, badManifest("i18n", "must be an object of locale codes and the translation files they name")
	}
	if len(raw) > MaxI18nLocales {
		return nil, badManifest("i18n", "names %d locales; at most %d are allowed", len(raw), MaxI18nLocales)
	}
	if len(raw) == 0 {
		return nil, nil
	}
	out := make(map[string]string, len(raw))
	for _, locale := range slices.Sorted(maps.Keys(raw)) {
		if !localePattern.MatchString(locale) {
			return nil, badManifest("i18n", "%q is not a locale code: 1 to 35 letters, digits, '-' or '_' (as \"zh-cn\" or \"default\")", cut(locale, 40))
		}
		field := "i18n." + locale
		var file string
		if json.Unmarshal(raw[locale], &file) != nil || file == "" {
			return nil, badManifest(field, "must name a file in the package")
		}
		if err := checkRelPath(file); err != nil {
			return nil, badManifest(field, "%v", err)
		}
		out[locale] = file
	}
	return out, nil
}

// cut shortens s to at most n bytes for a message, marking the cut.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return fmt.Sprintf("%s…", s[:n])
}
