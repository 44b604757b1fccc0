package host

import (
	"context"
	"strings"

	"hearth/backend/library"
)

// libraryPath reads the {path} argument of library.importST/exportST (a
// bare string is taken too). The path is the host's file system: in
// browser mode, the machine `hearth serve` runs on.
func libraryPath(a Args) (string, error) {
	var in struct {
		Path *string `json:"path"`
	}
	if t := strings.TrimSpace(string(a.Raw(0))); strings.HasPrefix(t, `"`) {
		p, err := a.String(0, "path")
		in.Path = &p
		if err != nil {
			return "", err
		}
	} else if err := a.Object(0, "options", &in); err != nil {
		return "", err
	}
	if in.Path == nil || strings.TrimSpace(*in.Path) == "" {
		return "", invalid("path is required: a SillyTavern folder on this machine")
	}
	return *in.Path, nil
}

// registerLibrary adds library.importST and library.exportST. Progress
// goes out as LIBRARY_PROGRESS events while the call runs.
func registerLibrary(r *Router, svc *library.Service) {
	r.Register("library.importST", func(ctx context.Context, a Args) (any, error) {
		path, err := libraryPath(a)
		if err != nil {
			return nil, err
		}
		return svc.Import(ctx, path, nil)
	})
	r.Register("library.exportST", func(ctx context.Context, a Args) (any, error) {
		path, err := libraryPath(a)
		if err != nil {
			return nil, err
		}
		return svc.Export(ctx, path, nil)
	})
}
