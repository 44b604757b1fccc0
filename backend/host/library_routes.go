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

// LibraryAccess is library.access's answer: whether paths are confined
// to roots (hearth serve), and those roots (empty: import and export by
// path are off).
type LibraryAccess struct {
	Confined bool     `json:"confined"`
	Roots    []string `json:"roots"`
}

// registerLibrary adds library.importST, library.exportST and
// library.access. Progress goes out as LIBRARY_PROGRESS events while an
// import or export runs.
func registerLibrary(r *Router, svc *library.Service) {
	r.Register("library.access", func(ctx context.Context, _ Args) (any, error) {
		acc := svc.Access()
		roots := acc.Roots()
		if roots == nil {
			roots = []string{}
		}
		return LibraryAccess{Confined: acc.Confined(), Roots: roots}, nil
	})
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
