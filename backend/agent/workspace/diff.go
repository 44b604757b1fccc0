package workspace

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/aymanbagabas/go-udiff"
	"github.com/wI2L/jsondiff"
)

// File statuses of a FileDiff.
const (
	StatusAdded    = "added"
	StatusModified = "modified"
	StatusDeleted  = "deleted"
)

// MaxUnifiedBytes bounds one file's unified diff, so a rewritten large file
// does not become a multi-megabyte ABI response.
const MaxUnifiedBytes = 256 << 10

// DiffContextLines is the context a unified diff shows around each change,
// the same as git's default.
const DiffContextLines = 3

// Unified texts for files a line diff cannot show.
const (
	binaryDiffers   = "Binary files differ\n"
	tooLargeDiffers = "Files differ (too large to diff)\n"
)

// FileDiff is one changed file between two checkpoints, in the shape of the
// ABI's readDiff result.
type FileDiff struct {
	Path    string `json:"path"`
	Status  string `json:"status"`
	Unified string `json:"unified"`
	// JSONPatch is the RFC 6902 patch from the old to the new document, for
	// a modified .json file whose both versions parse.
	JSONPatch json.RawMessage `json:"jsonPatch,omitempty"`
}

// Diff compares two checkpoints and returns the changed files sorted by
// path; unchanged files are left out, and a non-empty only restricts the
// result to that path. Contents come from b, so both manifests must be
// backed by it.
func Diff(b *Blobs, from, to Manifest, only string) ([]FileDiff, error) {
	paths := map[string]struct{}{}
	for p := range from {
		paths[p] = struct{}{}
	}
	for p := range to {
		paths[p] = struct{}{}
	}
	var out []FileDiff
	for _, p := range slices.Sorted(maps.Keys(paths)) {
		if only != "" && p != only {
			continue
		}
		old, hadOld := from[p]
		cur, hasCur := to[p]
		fd := FileDiff{Path: p}
		switch {
		case hadOld && hasCur && old.SHA256 == cur.SHA256:
			continue
		case !hadOld:
			fd.Status = StatusAdded
		case !hasCur:
			fd.Status = StatusDeleted
		default:
			fd.Status = StatusModified
		}
		if err := fill(b, &fd, old, cur); err != nil {
			return nil, err
		}
		out = append(out, fd)
	}
	return out, nil
}

// fill computes the unified diff and, for JSON, the patch of one file. An
// absent side is an empty Entry and reads as empty text.
func fill(b *Blobs, fd *FileDiff, old, cur Entry) error {
	if old.Bytes > MaxFileBytes || cur.Bytes > MaxFileBytes {
		fd.Unified = tooLargeDiffers
		return nil
	}
	before, err := content(b, old)
	if err != nil {
		return err
	}
	after, err := content(b, cur)
	if err != nil {
		return err
	}
	if isBinary(before) || isBinary(after) {
		fd.Unified = binaryDiffers
		return nil
	}
	edits := udiff.Lines(string(before), string(after))
	unified, err := udiff.ToUnified("a/"+fd.Path, "b/"+fd.Path, string(before), edits, DiffContextLines)
	if err != nil {
		return fmt.Errorf("workspace: diff %s: %w", fd.Path, err)
	}
	fd.Unified = capUnified(unified)
	if fd.Status == StatusModified && strings.HasSuffix(strings.ToLower(fd.Path), ".json") &&
		json.Valid(before) && json.Valid(after) {
		fd.JSONPatch = jsonPatch(before, after)
	}
	return nil
}

func content(b *Blobs, e Entry) ([]byte, error) {
	if e.SHA256 == "" {
		return nil, nil
	}
	return b.Get(e.SHA256)
}

// jsonPatch returns the RFC 6902 patch between two valid documents, "[]"
// when they differ only in formatting, or nil if it cannot be built.
func jsonPatch(before, after []byte) json.RawMessage {
	patch, err := jsondiff.CompareJSON(before, after)
	if err != nil {
		return nil
	}
	if len(patch) == 0 {
		return json.RawMessage("[]")
	}
	raw, err := json.Marshal(patch)
	if err != nil {
		return nil
	}
	return raw
}

// isBinary reports content a line diff cannot show: a NUL byte or invalid
// UTF-8.
func isBinary(data []byte) bool {
	return bytes.IndexByte(data, 0) >= 0 || !utf8.Valid(data)
}

// capUnified cuts a unified diff over MaxUnifiedBytes at a line boundary
// and says how much was left out.
func capUnified(u string) string {
	if len(u) <= MaxUnifiedBytes {
		return u
	}
	cut := strings.LastIndexByte(u[:MaxUnifiedBytes], '\n') + 1
	return u[:cut] + fmt.Sprintf("... diff truncated: %d of %d bytes shown\n", cut, len(u))
}
