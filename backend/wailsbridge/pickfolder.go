package wailsbridge

import (
	"context"
	"fmt"
	"sync"

	"hearth/backend/apperr"
	"hearth/backend/host"
)

// FolderDialog asks the person to pick a folder, titled title; an empty
// path means they cancelled. The desktop window passes Wails'
// OpenDirectoryDialog.
type FolderDialog func(ctx context.Context, title string) (path string, err error)

// PickResult is library.pickFolder's answer.
type PickResult struct {
	Picked bool    `json:"picked"`
	Path   *string `json:"path"`
}

// RegisterPickFolder adds library.pickFolder({ title? }) to the desktop
// window's router: the system's folder chooser, for the SillyTavern
// library import and export, whose paths are on this machine. A browser
// has no such chooser (it would hand over the files, not the path), so
// there the person types the path. One dialog at a time.
func RegisterPickFolder(r *host.Router, dialog FolderDialog) {
	var open sync.Mutex
	r.Register("library.pickFolder", func(ctx context.Context, a host.Args) (any, error) {
		var opts struct {
			Title string `json:"title"`
		}
		if err := a.OptObject(0, "options", &opts); err != nil {
			return nil, err
		}
		if len(opts.Title) > 200 {
			return nil, apperr.Invalid("title is longer than 200 bytes")
		}
		if opts.Title == "" {
			opts.Title = "Choose a folder"
		}
		if !open.TryLock() {
			return nil, apperr.New("desktop.dialog_open", "a folder dialog is already open")
		}
		defer open.Unlock()
		path, err := dialog(ctx, opts.Title)
		if err != nil {
			return nil, fmt.Errorf("folder dialog: %w", err)
		}
		if path == "" {
			return PickResult{}, nil
		}
		return PickResult{Picked: true, Path: &path}, nil
	})
}
