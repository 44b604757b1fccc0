// Package workspace is the file side of agent runs (AGENT.md §5–6): a run's
// workspace directory with its five roots, the one path policy that both
// the model's tools and the host ABI go through, a content-addressed blob
// store, checkpoints as manifests over those blobs, diffs between
// checkpoints and a text search.
//
// It is a library: it imports no Hearth package but apperr, so the agent
// runtime, the host ABI and tests can all share it without cycles.
package workspace

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"hearth/backend/apperr"
)

// Error codes of this package (HOST-ABI §0: stable, dotted). The agent
// runtime hands the workspace.* ones back to the model as tool results,
// since the model can correct them.
const (
	// CodePathDenied: a path breaks the policy; details.reason says which rule.
	CodePathDenied = "workspace.path_denied"
	// CodeFileNotFound: the path names no file.
	CodeFileNotFound = "workspace.file_not_found"
	// CodeNotAFile: the path names a directory or a special file.
	CodeNotAFile = "workspace.not_a_file"
	// CodeNotADirectory: a parent of the path is a file, so nothing can be
	// written below it.
	CodeNotADirectory = "workspace.not_a_directory"
	// CodeFileTooLarge: the content is over MaxFileBytes.
	CodeFileTooLarge = "workspace.file_too_large"
	// CodeQuotaExceeded: a write would take the workspace past one of its
	// caps (MaxWorkspaceBytes, MaxWorkspaceFiles, MaxWorkspaceFolders);
	// details.limit names it ("bytes", "files", "folders"), details.max is
	// its value and details.wouldBe what the write would have made it
	// (left out when the workspace is past the cap already).
	CodeQuotaExceeded = "workspace.quota_exceeded"
	// CodeInvalidQuery: a search query is empty.
	CodeInvalidQuery = "workspace.invalid_query"
	// CodeBlobMissing: a checkpoint refers to a blob the store does not have.
	CodeBlobMissing = "agent.blob_missing"
	// CodeBlobCorrupt: a blob's content no longer hashes to its name.
	CodeBlobCorrupt = "agent.blob_corrupt"
)

// Bounds of a workspace path. They keep paths portable (every supported
// file system takes them) and keep error messages and tool results short.
const (
	MaxPathBytes    = 512
	MaxPathSegments = 16
	// MaxSegmentBytes is the common file-name limit of ext4, APFS and NTFS;
	// refusing longer names here turns an OS error into a policy error the
	// model can correct.
	MaxSegmentBytes = 255
)

// Reasons a path is denied, as details.reason of a CodePathDenied error.
// They are stable so a UI or a test can tell them apart.
const (
	ReasonEmpty          = "empty"
	ReasonTooLong        = "too_long"
	ReasonTooDeep        = "too_deep"
	ReasonSegmentTooLong = "segment_too_long"
	ReasonInvalidUTF8    = "invalid_utf8"
	ReasonNUL            = "nul"
	ReasonControl        = "control_character"
	ReasonUNC            = "unc"
	ReasonAbsolute       = "absolute"
	ReasonBackslash      = "backslash"
	ReasonDrive          = "drive_prefix"
	ReasonColon          = "colon"
	ReasonDotDot         = "dot_dot"
	ReasonTrailingDot    = "trailing_dot_or_space"
	ReasonReservedName   = "reserved_name"
	ReasonNotVisible     = "root_not_visible"
	ReasonSymlink        = "symlink"
)

var reasonText = map[string]string{
	ReasonEmpty:          "it is empty",
	ReasonTooLong:        "it is longer than 512 bytes",
	ReasonTooDeep:        "it has more than 16 segments",
	ReasonSegmentTooLong: "a segment is longer than 255 bytes",
	ReasonInvalidUTF8:    "it is not valid UTF-8",
	ReasonNUL:            "it contains a NUL byte",
	ReasonControl:        "it contains a control character",
	ReasonUNC:            "it is a UNC path",
	ReasonAbsolute:       "it is absolute; use a path relative to the workspace",
	ReasonBackslash:      "it contains a backslash; use / as separator",
	ReasonDrive:          "it has a drive prefix",
	ReasonColon:          "it contains a colon",
	ReasonDotDot:         "it contains a .. segment",
	ReasonTrailingDot:    "a segment ends in a dot or a space",
	ReasonReservedName:   "a segment is a reserved name",
	ReasonNotVisible:     "it does not start with a visible root",
	ReasonSymlink:        "a component is a symbolic link",
}

// Roots are the top-level folders of every workspace (AGENT.md §6). A
// profile makes a subset of them visible or writable; nothing outside them
// is ever reachable.
var Roots = []string{"output", "scratch", "plan", "summaries", "persist"}

// TmpPrefix starts the names of in-flight temp files. Paths may not use it,
// so the model can neither read a half-written file nor collide with one,
// and listings can skip them.
const TmpPrefix = ".hearth-tmp-"

// Clean checks p against the path policy and returns its normal form:
// segments joined by "/", without "." or empty segments. The first segment
// must be one of visible (names that are not Roots never match). Every
// refusal is a CodePathDenied error with details {path, reason}.
//
// The policy is deliberately stricter than any one file system: it refuses
// what would be harmless on Linux but escapes or aliases on Windows (drive
// letters, colons, device names, trailing dots), so a path accepted on one
// machine means the same file on every other.
func Clean(p string, visible []string) (string, error) {
	segs, reason := split(p)
	if reason == "" && len(segs) == 0 {
		reason = ReasonEmpty
	}
	if reason == "" && !isVisible(segs[0], visible) {
		reason = ReasonNotVisible
	}
	if reason != "" {
		return "", denied(p, reason)
	}
	return strings.Join(segs, "/"), nil
}

// CleanDir is Clean for a directory argument, where "" or "." names the
// workspace root itself (returned as ""); listing and searching take it,
// reading and writing files never do.
func CleanDir(p string, visible []string) (string, error) {
	segs, reason := split(p)
	if reason == "" && len(segs) == 0 {
		return "", nil
	}
	if reason == "" && !isVisible(segs[0], visible) {
		reason = ReasonNotVisible
	}
	if reason != "" {
		return "", denied(p, reason)
	}
	return strings.Join(segs, "/"), nil
}

// split applies every rule but the root check and returns the path's
// segments, or the reason it is refused.
func split(p string) ([]string, string) {
	switch {
	case len(p) > MaxPathBytes:
		return nil, ReasonTooLong
	case !utf8.ValidString(p):
		return nil, ReasonInvalidUTF8
	case strings.IndexByte(p, 0) >= 0:
		return nil, ReasonNUL
	case strings.IndexFunc(p, unicode.IsControl) >= 0:
		return nil, ReasonControl
	case strings.HasPrefix(p, "//") || strings.HasPrefix(p, `\\`):
		return nil, ReasonUNC
	case strings.HasPrefix(p, "/"):
		return nil, ReasonAbsolute
	case strings.IndexByte(p, '\\') >= 0:
		return nil, ReasonBackslash
	case len(p) >= 2 && p[1] == ':' && isASCIILetter(p[0]):
		return nil, ReasonDrive
	case strings.IndexByte(p, ':') >= 0:
		return nil, ReasonColon
	}
	var segs []string
	for seg := range strings.SplitSeq(p, "/") {
		switch {
		case seg == "" || seg == ".":
			continue
		case seg == "..":
			return nil, ReasonDotDot
		case len(seg) > MaxSegmentBytes:
			return nil, ReasonSegmentTooLong
		case strings.HasSuffix(seg, ".") || strings.HasSuffix(seg, " "):
			return nil, ReasonTrailingDot
		case isReserved(seg):
			return nil, ReasonReservedName
		}
		segs = append(segs, seg)
	}
	if len(segs) > MaxPathSegments {
		return nil, ReasonTooDeep
	}
	return segs, ""
}

func isVisible(root string, visible []string) bool {
	return slices.Contains(visible, root) && slices.Contains(Roots, root)
}

func isASCIILetter(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }

// isReserved reports Windows device names (CON, NUL.txt, COM1, …), which
// open a device instead of a file there, and the temp-file prefix.
func isReserved(seg string) bool {
	if strings.HasPrefix(seg, TmpPrefix) {
		return true
	}
	base, _, _ := strings.Cut(seg, ".")
	base = strings.ToUpper(strings.TrimRight(base, " "))
	switch base {
	case "CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$":
		return true
	}
	if len(base) >= 4 && (base[:3] == "COM" || base[:3] == "LPT") {
		switch base[3:] {
		case "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "\u00b9", "\u00b2", "\u00b3":
			return true
		}
	}
	return false
}

// denied builds the CodePathDenied error; the path is shortened so a
// megabyte of garbage does not end up in a tool result.
func denied(p, reason string) error {
	shown := p
	if len(shown) > MaxPathBytes {
		shown = strings.ToValidUTF8(shown[:MaxPathBytes], "") + "…"
	}
	return apperr.New(CodePathDenied, "workspace path %q is not allowed: %s", shown, reasonText[reason]).
		WithDetails(map[string]any{"path": shown, "reason": reason})
}
