package extensions

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"hearth/backend/internal/extframe"
	"hearth/backend/jsonx"
)

// Limits on a manifest (EXTENSIONS.md §1).
const (
	MaxManifestBytes = 256 << 10
	ManifestName     = "manifest.json"
)

// The two tiers (EXTENSIONS.md, the table at the top).
const (
	ModeSandboxed = "sandboxed"
	ModePage      = "page"
)

// Permissions are the permissions a sandboxed extension may declare, in
// EXTENSIONS.md §2's order.
var Permissions = []string{
	"chat.read", "chat.write", "state", "characters.read", "characters.write",
	"worldinfo.read", "worldinfo.write", "generate", "prompt.hooks", "agent",
	"ui.panel", "notify", "network",
}

// Manifest is what Hearth reads of a manifest.json, as SillyTavern reads
// it: every other key is kept in Raw, the file as it was.
type Manifest struct {
	Raw          json.RawMessage
	DisplayName  string
	Version      string
	Author       string
	HomePage     string
	LoadingOrder int
	JS           string
	CSS          string
	// MinimumClientVersion is minimum_client_version: the SillyTavern
	// version the extension needs at least.
	MinimumClientVersion string
	Dependencies         []string
	// I18n is i18n: locale code → translation file in the package
	// (readI18n); nil when there is none.
	I18n map[string]string
	// Hearth is the "hearth" block; its zero value when there is none
	// (a SillyTavern extension: the page tier).
	Hearth Hearth
}

// Hearth is a manifest's "hearth" block.
type Hearth struct {
	ID          string
	Mode        string
	Entry       string
	Permissions []string
	Network     []string
	Panel       json.RawMessage
}

// idPattern is what an extension id may be: it names a folder under
// <data>/extensions and a URL path segment.
var idPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// ReadManifest parses and checks a manifest.json. Every failure is
// extension.invalid_manifest naming the field (or "manifest.json" for
// the file as a whole). It checks paths lexically; whether the files
// exist is the package's check (checkFiles).
func ReadManifest(raw []byte) (*Manifest, error) {
	return parseManifest(raw, false)
}

// readStoredManifest reads a manifest as installed. It was checked at
// install, but by the rules of then: a check added since (i18n's) must
// not make the whole list unreadable, so an i18n it fails is dropped,
// as SillyTavern ignores one it cannot use, and the rest is ReadManifest's.
func readStoredManifest(raw []byte) (*Manifest, error) {
	return parseManifest(raw, true)
}

func parseManifest(raw []byte, stored bool) (*Manifest, error) {
	if len(raw) > MaxManifestBytes {
		return nil, badManifest(ManifestName, "is %d bytes; at most %d are allowed", len(raw), MaxManifestBytes)
	}
	raw = bytes.TrimPrefix(raw, []byte("\xef\xbb\xbf")) // a BOM, as editors on Windows write
	if d := jsonx.Depth(raw); d > jsonx.MaxDepth {
		return nil, badManifest(ManifestName, "nests %d levels deep; at most %d are allowed", d, jsonx.MaxDepth)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil || top == nil {
		return nil, badManifest(ManifestName, "is not a JSON object")
	}
	m := &Manifest{Raw: json.RawMessage(bytes.Clone(raw))}
	var err error
	text := func(key string, dst *string) {
		if err == nil {
			*dst, err = looseString(top, key)
		}
	}
	text("display_name", &m.DisplayName)
	text("version", &m.Version)
	text("author", &m.Author)
	text("homePage", &m.HomePage)
	text("js", &m.JS)
	text("css", &m.CSS)
	text("minimum_client_version", &m.MinimumClientVersion)
	if err != nil {
		return nil, err
	}
	m.LoadingOrder = parseInt(top["loading_order"])
	if m.Dependencies, err = stringList(top, "dependencies", "dependencies"); err != nil {
		return nil, err
	}
	for i, d := range m.Dependencies {
		if !idPattern.MatchString(d) {
			return nil, badManifest(fmt.Sprintf("dependencies[%d]", i), "%q is not an extension id", d)
		}
	}
	if m.I18n, err = readI18n(top); err != nil {
		if !stored {
			return nil, err
		}
		m.I18n = nil
	}
	if h, ok := top["hearth"]; ok && !isNull(h) {
		if m.Hearth, err = readHearth(h); err != nil {
			return nil, err
		}
	}
	if m.Hearth.Mode == "" {
		m.Hearth.Mode = ModePage
	}
	if m.JS != "" {
		if err := checkRelPath(m.JS); err != nil {
			return nil, badManifest("js", "%v", err)
		}
	}
	if m.CSS != "" {
		if err := checkRelPath(m.CSS); err != nil {
			return nil, badManifest("css", "%v", err)
		}
	}
	if m.JS == "" && m.Hearth.Entry == "" {
		return nil, badManifest("js", "neither js nor hearth.entry names something to run")
	}
	if m.Hearth.Mode == ModeSandboxed && m.Hearth.Entry == "" {
		return nil, badManifest("hearth.entry", "a sandboxed extension needs an entry page to load in its frame")
	}
	if m.DisplayName == "" {
		m.DisplayName = m.Hearth.ID
	}
	return m, nil
}

func readHearth(raw json.RawMessage) (Hearth, error) {
	var h Hearth
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil || top == nil {
		return h, badManifest("hearth", "must be an object")
	}
	var err error
	for _, f := range []struct {
		key string
		dst *string
	}{{"id", &h.ID}, {"mode", &h.Mode}, {"entry", &h.Entry}} {
		if v, ok := top[f.key]; ok && !isNull(v) {
			if json.Unmarshal(v, f.dst) != nil {
				return h, badManifest("hearth."+f.key, "must be a string")
			}
		}
	}
	if h.ID != "" && !idPattern.MatchString(h.ID) {
		return h, badManifest("hearth.id", "%q is not an id: 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit", h.ID)
	}
	switch h.Mode {
	case "", ModeSandboxed, ModePage:
	default:
		return h, badManifest("hearth.mode", "%q is neither %q nor %q", h.Mode, ModeSandboxed, ModePage)
	}
	if h.Entry != "" {
		if err := checkRelPath(h.Entry); err != nil {
			return h, badManifest("hearth.entry", "%v", err)
		}
	}
	if h.Permissions, err = stringList(top, "permissions", "hearth.permissions"); err != nil {
		return h, err
	}
	for i, p := range h.Permissions {
		if !slices.Contains(Permissions, p) {
			return h, badManifest(fmt.Sprintf("hearth.permissions[%d]", i), "unknown permission %q", p).
				WithDetails(map[string]any{"field": fmt.Sprintf("hearth.permissions[%d]", i), "permission": p, "known": Permissions})
		}
	}
	h.Permissions = dedupe(h.Permissions)
	if h.Network, err = stringList(top, "network", "hearth.network"); err != nil {
		return h, err
	}
	// Each goes into the frame's Content-Security-Policy as it is.
	for i, n := range h.Network {
		if err := extframe.CheckNetworkOrigin(n); err != nil {
			return h, badManifest(fmt.Sprintf("hearth.network[%d]", i), "%v", err)
		}
	}
	if p, ok := top["panel"]; ok && !isNull(p) {
		if bytes.TrimSpace(p)[0] != '{' {
			return h, badManifest("hearth.panel", "must be an object")
		}
		h.Panel = p
	}
	return h, nil
}

// checkRelPath refuses a path that could leave the package: absolute,
// with a drive or backslashes, or climbing with "..".
func checkRelPath(p string) error {
	switch {
	case strings.ContainsAny(p, "\\\x00") || strings.Contains(p, ":"):
		return fmt.Errorf("%q must be a relative path with forward slashes", p)
	case path.IsAbs(p):
		return fmt.Errorf("%q is absolute; it must be inside the package", p)
	}
	c := path.Clean(p)
	if c == "." || c == ".." || strings.HasPrefix(c, "../") {
		return fmt.Errorf("%q is outside the package", p)
	}
	return nil
}

// looseString reads key as text: a string, or a number written as one
// (version: 1.2 is seen in the wild); absent and null are "".
func looseString(top map[string]json.RawMessage, key string) (string, error) {
	v, ok := top[key]
	if !ok || isNull(v) {
		return "", nil
	}
	var s string
	if json.Unmarshal(v, &s) == nil {
		return s, nil
	}
	var n json.Number
	if json.Unmarshal(v, &n) == nil {
		return n.String(), nil
	}
	return "", badManifest(key, "must be a string")
}

// stringList reads key as a list of strings (absent and null are none).
func stringList(top map[string]json.RawMessage, key, field string) ([]string, error) {
	v, ok := top[key]
	if !ok || isNull(v) {
		return nil, nil
	}
	var out []string
	if err := json.Unmarshal(v, &out); err != nil {
		return nil, badManifest(field, "must be a list of strings")
	}
	return out, nil
}

// parseInt reads loading_order as JavaScript's parseInt would: a number
// (truncated) or the leading integer of a string; anything else is 0.
func parseInt(v json.RawMessage) int {
	var f float64
	if json.Unmarshal(v, &f) == nil {
		if math.IsNaN(f) || math.Abs(f) > 1e9 {
			return 0
		}
		return int(f)
	}
	var s string
	if json.Unmarshal(v, &s) != nil {
		return 0
	}
	s = strings.TrimSpace(s)
	end := 0
	for end < len(s) && (s[end] >= '0' && s[end] <= '9' || end == 0 && (s[end] == '-' || s[end] == '+')) {
		end++
	}
	n, err := strconv.Atoi(s[:end])
	if err != nil || n > 1e9 || n < -1e9 {
		return 0
	}
	return n
}

func isNull(r json.RawMessage) bool {
	t := bytes.TrimSpace(r)
	return len(t) == 0 || bytes.Equal(t, []byte("null"))
}

func dedupe(in []string) []string {
	out := []string{}
	for _, s := range in {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// sanitizeID turns a folder or repository name into an id: characters
// other than letters, digits, '.', '_' and '-' become '-', leading
// punctuation goes, and it is cut to 64 bytes. "" when nothing is left.
func sanitizeID(name string) string {
	var b strings.Builder
	for _, r := range name {
		switch {
		case r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-'):
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	s := strings.TrimLeft(b.String(), ".-_")
	if len(s) > 64 {
		s = s[:64]
	}
	s = strings.TrimRight(s, ".")
	if !idPattern.MatchString(s) {
		return ""
	}
	return s
}
