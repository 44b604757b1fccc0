package wailsbridge

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
)

// switchablePages answers PageScripts with whatever the test set last.
type switchablePages struct {
	mu      sync.Mutex
	scripts []string
	err     error
}

func (p *switchablePages) set(scripts []string, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.scripts, p.err = scripts, err
}

func (p *switchablePages) PageScripts(context.Context) ([]string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.scripts, p.err
}

var builtFrontend = fstest.MapFS{
	"index.html":                {Data: []byte(indexHTML)},
	"assets/index-Ab12.js":      {Data: []byte("")},
	"assets/runtime-Cd34.js":    {Data: []byte("")},
	"assets/runtime-Ef56.css":   {Data: []byte("")},
	"scripts/extensions.js":     {Data: []byte("")},
	"assets/runtimes-other.txt": {Data: []byte("")},
}

func TestBootDocumentPreloadsPageExtensionsWhileOneIsOn(t *testing.T) {
	t.Parallel()
	pages := &switchablePages{}
	h := Middleware(testToken, nil, nil, WithPagePreload(pages, builtFrontend))(assetsHandler())
	doc := func() string {
		res := get(t, h, "/", map[string]string{"Sec-Fetch-Dest": "document"})
		return body(t, res)
	}
	hint := `<meta name="` + PageHintMeta + `" content="1">`

	if got := doc(); strings.Contains(got, hint) || strings.Contains(got, "preload") {
		t.Fatalf("with none on the document preloads something: %s", got)
	}

	pages.set([]string{"/scripts/extensions/third-party/notes/index.js", "/scripts/extensions/third-party/a%20b/main.js"}, nil)
	want := hint +
		`<link rel="preload" as="style" crossorigin href="/assets/runtime-Ef56.css">` +
		`<link rel="modulepreload" crossorigin href="/assets/runtime-Cd34.js">` +
		`<link rel="modulepreload" crossorigin href="/script.js">` +
		`<link rel="modulepreload" crossorigin href="/scripts/extensions.js">` +
		`<link rel="modulepreload" crossorigin href="/scripts/extensions/third-party/notes/index.js">` +
		`<link rel="modulepreload" crossorigin href="/scripts/extensions/third-party/a%20b/main.js">`
	got := doc()
	boot := string(cspMeta()) + `<script id="hearth-boot" type="application/json">{"token":"feedface"}</script>`
	if !strings.Contains(got, "<HEAD>"+boot+want+"<meta charset") {
		t.Fatalf("with two on, after the boot element want\n%s\ngot\n%s", want, got)
	}

	// Turned off again: the next load carries nothing, and a failed read is no hint.
	pages.set(nil, nil)
	if got := doc(); strings.Contains(got, "preload") {
		t.Fatalf("after turning off the document still preloads: %s", got)
	}
	pages.set([]string{"/x.js"}, errors.New("database is locked"))
	if got := doc(); strings.Contains(got, "preload") || !strings.Contains(got, testToken) {
		t.Fatalf("a failed read should leave the plain boot document: %s", got)
	}
	// Only the main document: a frame's or a script's load is never asked.
	pages.set([]string{"/x.js"}, nil)
	if got := body(t, get(t, h, "/", map[string]string{"Sec-Fetch-Dest": "iframe"})); strings.Contains(got, "preload") {
		t.Fatalf("a frame's copy preloads: %s", got)
	}
}

func TestPagePreloadWithoutABuiltRuntimeStillPreloadsTheModules(t *testing.T) {
	t.Parallel()
	got := string(pagePreloadElements("", "", []string{`/scripts/extensions/third-party/q"x/index.js`}))
	for _, part := range []string{`href="/script.js"`, `href="/scripts/extensions/third-party/q&#34;x/index.js"`} {
		if !strings.Contains(got, part) {
			t.Fatalf("missing %s in %s", part, got)
		}
	}
	if strings.Contains(got, "runtime") {
		t.Fatalf("a runtime link without a runtime: %s", got)
	}
}
