package wailsbridge

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sync"

	"hearth/backend/apperr"
	"hearth/backend/characters"
	"hearth/backend/chats"
	"hearth/backend/host"
	"hearth/backend/media"
	"hearth/backend/presets"
	"hearth/backend/worldinfo"
)

// SaveRequest is what the Save dialog shows: its title, the suggested
// file name and the filter of the file's kind.
type SaveRequest struct {
	Title       string
	FileName    string
	FilterName  string
	FilterGlobs string
}

// SaveDialog asks the person where to save a file; an empty path means
// they cancelled. The desktop window passes Wails' SaveFileDialog.
type SaveDialog func(ctx context.Context, req SaveRequest) (path string, err error)

// Exporters are the services whose files the desktop saves.
type Exporters struct {
	Chats interface {
		ExportJsonl(ctx context.Context, chatID string) (*chats.JsonlFile, error)
	}
	Characters interface {
		ExportCardBytes(ctx context.Context, avatar string, opts characters.ExportOptions) (string, []byte, error)
	}
	WorldInfo interface {
		Export(ctx context.Context, name string) (worldinfo.Exported, error)
	}
	Presets interface {
		Export(ctx context.Context, id string) (*presets.Export, error)
	}
}

// SaveResult is the answer of the save methods.
type SaveResult struct {
	Saved bool    `json:"saved"`
	Path  *string `json:"path"`
}

// exported is one file to save and how the dialog presents it.
type exported struct {
	req  SaveRequest
	data []byte
	// private files (chats: a person's conversations) are written 0600,
	// whatever the umask; the others (cards, lorebooks, presets, made to
	// be shared) 0644.
	private bool
}

// RegisterSaveFiles adds the desktop window's save methods to its router:
// chat.saveJsonl(chatId), characters.saveCard(avatar, {format}),
// worldinfo.saveBook(name) and presets.saveFile(id) write the chat, card,
// lorebook or preset file where the
// person picks in the system's Save dialog. A page's own download does not
// do: WebKitGTK, which Wails v2 leaves without download handlers, saves it
// silently into the downloads folder under the suggested name, replacing a
// file already there (measured with WebKitGTK 2.50 on Debian 12). One
// dialog at a time; the file is exported before the dialog shows (a bad
// call fails without one) and written whole or not at all.
func RegisterSaveFiles(r *host.Router, ex Exporters, dialog SaveDialog) {
	var open sync.Mutex
	register := func(method string, export func(ctx context.Context, a host.Args) (*exported, error)) {
		r.Register(method, func(ctx context.Context, a host.Args) (any, error) {
			file, err := export(ctx, a)
			if err != nil {
				return nil, err
			}
			if !open.TryLock() {
				return nil, apperr.New("desktop.dialog_open", "a Save dialog is already open")
			}
			defer open.Unlock()
			path, err := dialog(ctx, file.req)
			if err != nil {
				return nil, fmt.Errorf("save dialog: %w", err)
			}
			if path == "" {
				return SaveResult{}, nil
			}
			perm := os.FileMode(0o644)
			if file.private {
				perm = 0o600
			}
			if err := media.WriteFileAtomic(path, file.data, perm); err != nil {
				return nil, apperr.New("desktop.write_failed", "could not save %s: %v", file.req.FileName, err).WithDetails(map[string]any{"path": path})
			}
			return SaveResult{Saved: true, Path: &path}, nil
		})
	}
	register("chat.saveJsonl", func(ctx context.Context, a host.Args) (*exported, error) {
		id, err := a.String(0, "chatId")
		if err != nil {
			return nil, err
		}
		file, err := ex.Chats.ExportJsonl(ctx, id)
		if err != nil {
			return nil, err
		}
		return &exported{req: SaveRequest{"Export chat", file.FileName, "SillyTavern chat (*.jsonl)", "*.jsonl"}, data: []byte(file.Text), private: true}, nil
	})
	register("characters.saveCard", func(ctx context.Context, a host.Args) (*exported, error) {
		avatar, err := a.String(0, "avatar")
		if err != nil {
			return nil, err
		}
		var opts characters.ExportOptions
		if err := a.OptObject(1, "options", &opts); err != nil {
			return nil, err
		}
		name, data, err := ex.Characters.ExportCardBytes(ctx, avatar, opts)
		if err != nil {
			return nil, err
		}
		req := SaveRequest{"Export character card", name, "Character card (*.png)", "*.png"}
		if opts.Format == "json" {
			req.FilterName, req.FilterGlobs = "Character card (*.json)", "*.json"
		}
		return &exported{req: req, data: data}, nil
	})
	register("worldinfo.saveBook", func(ctx context.Context, a host.Args) (*exported, error) {
		name, err := a.String(0, "name")
		if err != nil {
			return nil, err
		}
		file, err := ex.WorldInfo.Export(ctx, name)
		if err != nil {
			return nil, err
		}
		return &exported{req: SaveRequest{"Export lorebook", file.FileName, "SillyTavern World Info (*.json)", "*.json"}, data: []byte(file.Text)}, nil
	})
	register("presets.saveFile", func(ctx context.Context, a host.Args) (*exported, error) {
		id, err := a.String(0, "id")
		if err != nil {
			return nil, err
		}
		file, err := ex.Presets.Export(ctx, id)
		if err != nil {
			return nil, err
		}
		// Indented with four spaces, as SillyTavern writes its presets.
		var out bytes.Buffer
		if err := json.Indent(&out, file.JSON, "", "    "); err != nil {
			return nil, fmt.Errorf("format preset: %w", err)
		}
		return &exported{req: SaveRequest{"Export preset", file.FileName, "SillyTavern preset (*.json)", "*.json"}, data: out.Bytes()}, nil
	})
}
