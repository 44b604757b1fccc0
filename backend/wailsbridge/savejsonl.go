package wailsbridge

import (
	"context"
	"fmt"
	"sync"

	"hearth/backend/apperr"
	"hearth/backend/chats"
	"hearth/backend/host"
	"hearth/backend/media"
)

// SaveDialog asks the person where to save a file, suggesting name; an
// empty path means they cancelled. The desktop window passes Wails'
// SaveFileDialog.
type SaveDialog func(ctx context.Context, name string) (path string, err error)

// JsonlExporter is what saving a chat file needs of the chat service.
type JsonlExporter interface {
	ExportJsonl(ctx context.Context, chatID string) (*chats.JsonlFile, error)
}

// SaveResult is chat.saveJsonl's answer.
type SaveResult struct {
	Saved bool    `json:"saved"`
	Path  *string `json:"path"`
}

// RegisterSaveJsonl adds chat.saveJsonl(chatId) to the desktop window's
// router: the chat exported as SillyTavern JSONL and written where the
// person picks in the system's Save dialog. A page's own download does not
// do: WebKitGTK, which Wails v2 leaves without download handlers, saves it
// silently into the downloads folder under the suggested name, replacing a
// file already there (measured with WebKitGTK 2.50 on Debian 12). One
// dialog at a time; the file is written whole or not at all.
func RegisterSaveJsonl(r *host.Router, svc JsonlExporter, dialog SaveDialog) {
	var open sync.Mutex
	r.Register("chat.saveJsonl", func(ctx context.Context, a host.Args) (any, error) {
		id, err := a.String(0, "chatId")
		if err != nil {
			return nil, err
		}
		if !open.TryLock() {
			return nil, apperr.New("desktop.dialog_open", "a Save dialog is already open")
		}
		defer open.Unlock()
		// Export first: an unknown chat fails before any dialog shows.
		file, err := svc.ExportJsonl(ctx, id)
		if err != nil {
			return nil, err
		}
		path, err := dialog(ctx, file.FileName)
		if err != nil {
			return nil, fmt.Errorf("save dialog: %w", err)
		}
		if path == "" {
			return SaveResult{}, nil
		}
		if err := media.WriteFileAtomic(path, []byte(file.Text), 0o644); err != nil {
			return nil, apperr.New("desktop.write_failed", "could not save the chat: %v", err).WithDetails(map[string]any{"path": path})
		}
		return SaveResult{Saved: true, Path: &path}, nil
	})
}
