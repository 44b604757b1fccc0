package wailsbridge

import (
	"bytes"
	"context"
	"html"
	"io/fs"
	"log/slog"
)

// PageScripts lists the active page-tier extensions' script addresses
// (*extensions.Service).
type PageScripts interface {
	PageScripts(ctx context.Context) ([]string, error)
}

// PageHintMeta names the meta element the boot document carries while a
// page extension is active: the frontend's page loader then starts the
// SillyTavern compat runtime at once, beside the UI's start, instead of
// after its first calls have listed the extensions (the list still decides
// what loads).
const PageHintMeta = "hearth-page-extensions"

// compatModules are the compat modules nearly every SillyTavern extension
// imports first.
var compatModules = []string{"/script.js", "/scripts/extensions.js"}

// WithPagePreload has the boot document, while at least one page
// extension is active, preload what the page loader will fetch: the
// compat runtime's chunk and style sheet (found in assets, the built
// frontend, as assets/runtime-*), the two compat modules and each active
// extension's script — so they are fetched and compiled while the app's
// own bundle loads. With none active the document is unchanged and nothing
// of the compat layer is fetched.
func WithPagePreload(src PageScripts, assets fs.FS) MiddlewareOption {
	chunk := func(pattern string) string {
		m, err := fs.Glob(assets, pattern)
		if err != nil || len(m) != 1 {
			return ""
		}
		return "/" + m[0]
	}
	runtimeJS, runtimeCSS := chunk("assets/runtime-*.js"), chunk("assets/runtime-*.css")
	return func(c *middlewareConfig) {
		c.preload = func(ctx context.Context) []byte {
			scripts, err := src.PageScripts(ctx)
			if err != nil {
				slog.Warn("desktop window: page extensions to preload", "err", err)
				return nil
			}
			if len(scripts) == 0 {
				return nil
			}
			return pagePreloadElements(runtimeJS, runtimeCSS, scripts)
		}
	}
}

// pagePreloadElements renders the hint and the preload links. Module
// preloads are CORS requests like the app's own module script
// (crossorigin), so the later import finds them under the same key.
func pagePreloadElements(runtimeJS, runtimeCSS string, scripts []string) []byte {
	var b bytes.Buffer
	b.WriteString(`<meta name="` + PageHintMeta + `" content="1">`)
	if runtimeCSS != "" {
		b.WriteString(`<link rel="preload" as="style" crossorigin href="` + html.EscapeString(runtimeCSS) + `">`)
	}
	modules := append(append([]string{}, compatModules...), scripts...)
	if runtimeJS != "" {
		modules = append([]string{runtimeJS}, modules...)
	}
	for _, m := range modules {
		b.WriteString(`<link rel="modulepreload" crossorigin href="` + html.EscapeString(m) + `">`)
	}
	return b.Bytes()
}
