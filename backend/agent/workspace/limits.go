package workspace

import (
	"io/fs"
	"os"
	"strings"

	"hearth/backend/apperr"
)

// Caps on a workspace as a whole (one run's folder), beside MaxFileBytes
// for each file and MaxPathSegments for each path. A write that would
// take the workspace past one fails with CodeQuotaExceeded and changes
// nothing; files put there from outside past them are left out of
// checkpoints (Skipped) and never read.
const (
	// MaxWorkspaceBytes bounds the bytes of all its files: 64 MiB, sixteen
	// files at MaxFileBytes. A run writes prose and notes (a reply is
	// kilobytes), so only a runaway loop or files dropped in come near it;
	// every byte a checkpoint takes in is also kept in the blob store for
	// as long as the run is.
	MaxWorkspaceBytes = 64 << 20
	// MaxWorkspaceFiles bounds its files: MaxListFiles, so one listing
	// shows them all, which also keeps a checkpoint's manifest under
	// about 250 KB.
	MaxWorkspaceFiles = MaxListFiles
	// MaxWorkspaceFolders bounds its folders below the roots. While a run
	// goes, each folder is an inotify watch (fsnotify is not recursive),
	// and Linux's limit on them, 8,192 per user on many systems, is shared
	// by every program the user runs: 128 folders, with the root and the
	// five roots, are 134 watches, so a dozen runs at once take a fifth of
	// it. A run that files its notes needs a handful.
	MaxWorkspaceFolders = 128
	// MaxFolderDepth is how deep, in segments from the workspace root, a
	// folder can hold a file a path can name (MaxPathSegments less the
	// file's own): walks and the watcher go no deeper. A write can never
	// make a deeper one, as its path would be refused.
	MaxFolderDepth = MaxPathSegments - 1
)

// Limits, as details.limit of a CodeQuotaExceeded error and as the Reason
// of a Skip.
const (
	LimitBytes     = "bytes"      // MaxWorkspaceBytes
	LimitFiles     = "files"      // MaxWorkspaceFiles
	LimitFolders   = "folders"    // MaxWorkspaceFolders
	LimitFileBytes = "file_bytes" // MaxFileBytes, for one file
)

// limitMax is each limit's value, for messages and details.
var limitMax = map[string]int64{
	LimitBytes: MaxWorkspaceBytes, LimitFiles: MaxWorkspaceFiles, LimitFolders: MaxWorkspaceFolders, LimitFileBytes: MaxFileBytes,
}

// Usage is what a workspace holds below its roots, as the file system
// tells it: every entry but a folder or an in-flight temp file counts as a
// file (names the policy refuses and links included: they take room even
// if no tool can see them), folders below the roots as folders.
type Usage struct {
	Files   int
	Folders int
	Bytes   int64
	// Over names the first cap found exceeded: Usage stops counting there,
	// so the counts are then lower bounds. "" when within every cap.
	Over string
}

// Usage counts what the workspace holds. Its cost is bounded by the caps:
// it stops at the first one exceeded.
func (d *Dir) Usage() (Usage, error) {
	var u Usage
	err := d.withRoot(func(r *os.Root) error {
		cut, err := d.visit(r, Roots, 0, func(rel string, e fs.DirEntry, _ int) error {
			switch {
			case e.IsDir():
				u.Folders++
			case strings.HasPrefix(e.Name(), TmpPrefix):
				return nil
			default:
				u.Files++
				if e.Type().IsRegular() {
					if info, err := e.Info(); err == nil {
						u.Bytes += info.Size()
					}
				}
			}
			switch {
			case u.Files > MaxWorkspaceFiles:
				u.Over = LimitFiles
			case u.Folders > MaxWorkspaceFolders:
				u.Over = LimitFolders
			case u.Bytes > MaxWorkspaceBytes:
				u.Over = LimitBytes
			default:
				return nil
			}
			return fs.SkipAll
		})
		if cut && u.Over == "" {
			u.Over = LimitFiles
		}
		return err
	})
	return u, err
}

// admit refuses a write of n bytes at t, before anything changes, when it
// cannot be made (a parent is a file, or a folder or special file is in
// the way) or would take the workspace past a cap. A write that adds
// nothing a cap counts (a file rewritten no bigger) is let through even in
// a workspace already past its caps, so a run can still revise its work.
func (d *Dir) admit(t target, n int64) error {
	if t.blocker != "" {
		return notADirectory(t)
	}
	if t.info != nil && !t.info.Mode().IsRegular() {
		return notAFile(t.rel)
	}
	newFolders := max(0, segments(t.rel)-1-t.firstMissing)
	newFiles, newBytes := 1, n
	if t.info != nil {
		newFiles, newBytes = 0, n-t.info.Size()
	}
	if newFolders == 0 && newFiles == 0 && newBytes <= 0 {
		return nil
	}
	u, err := d.Usage()
	if err != nil {
		return err
	}
	switch {
	case u.Over != "":
		return quotaExceeded(t.rel, u.Over, -1)
	case newFolders > 0 && u.Folders+newFolders > MaxWorkspaceFolders:
		return quotaExceeded(t.rel, LimitFolders, int64(u.Folders+newFolders))
	case newFiles > 0 && u.Files+newFiles > MaxWorkspaceFiles:
		return quotaExceeded(t.rel, LimitFiles, int64(u.Files+newFiles))
	case newBytes > 0 && u.Bytes+newBytes > MaxWorkspaceBytes:
		return quotaExceeded(t.rel, LimitBytes, u.Bytes+newBytes)
	}
	return nil
}

// quotaExceeded is the CodeQuotaExceeded error of a write at rel; would is
// what the write would bring the workspace to, or -1 when the workspace
// is past the cap already.
func quotaExceeded(rel, limit string, would int64) error {
	noun := map[string]string{LimitBytes: "bytes", LimitFiles: "files", LimitFolders: "folders"}[limit]
	details := map[string]any{"path": rel, "limit": limit, "max": limitMax[limit]}
	if would < 0 {
		return apperr.New(CodeQuotaExceeded, "cannot write %s: the workspace already holds more than %d %s (put there from outside); it takes no more",
			rel, limitMax[limit], noun).WithDetails(details)
	}
	details["wouldBe"] = would
	hint := map[string]string{LimitBytes: "write less", LimitFiles: "write into a file that exists", LimitFolders: "write into a folder that exists"}[limit]
	return apperr.New(CodeQuotaExceeded, "cannot write %s: the workspace would hold %d %s; the limit is %d (%s)",
		rel, would, noun, limitMax[limit], hint).WithDetails(details)
}

func notADirectory(t target) error {
	return apperr.New(CodeNotADirectory, "cannot write %s: %s is a file", t.rel, t.blocker).
		WithDetails(map[string]any{"path": t.rel, "parent": t.blocker})
}
