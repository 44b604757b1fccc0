package htmlhead

import (
	"bytes"
	"strings"
	"testing"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// snippet is what the tests insert: an element the parser must put first
// in <head>, then a script.
const snippet = `<meta name="probe" content="1"><script src="/probe.js"></script>`

func TestInjectPlacesSnippet(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, doc, want string }{
		{"after head", `<html><head lang="x"><title>t</title></head></html>`, `<html><head lang="x">S<title>t</title></head></html>`},
		{"no head", `<p>no head</p>`, `S<p>no head</p>`},
		{"doctype, html, head in capitals", "<!doctype html>\n<html lang=en>\n<HEAD >x", "<!doctype html>\n<html lang=en>\n<HEAD >Sx"},
		{"after the doctype when there is no head", `<!DOCTYPE html><title>t</title>`, `<!DOCTYPE html>S<title>t</title>`},
		{"byte order mark", "\xef\xbb\xbf<head>x", "\xef\xbb\xbf<head>Sx"},
		{"a head inside a comment is not the head", `<!-- <head> --><head>x`, `<!-- <head> --><head>Sx`},
		{"comment closed by --!>", `<!-- a --!><head>x`, `<!-- a --!><head>Sx`},
		{"abruptly closed comments", `<!--><!---><head>x`, `<!--><!---><head>Sx`},
		{"comment whose first close is not one", `<!--- -><head>--><head>x`, `<!--- -><head>--><head>Sx`},
		{"nested comment opener", `<!--<!--><head>x`, `<!--<!--><head>Sx`},
		{"unterminated comment", `<!-- <head>x`, `S<!-- <head>x`},
		{"quoted > in an attribute of html", `<html data-x="<head>" b='>'><head>x`, `<html data-x="<head>" b='>'><head>Sx`},
		{"quoted > in an attribute of head", `<head data-x=">">x`, `<head data-x=">">Sx`},
		{"unquoted value", `<html a=b><head c=d>x`, `<html a=b><head c=d>Sx`},
		{"quote inside a name is not a quote", `<head a"b>x"`, `<head a"b>Sx"`},
		{"self-closing head", `<head/>x`, `<head/>Sx`},
		{"header is not head", `<header>x</header>`, `S<header>x</header>`},
		{"unterminated head tag", `<head data-x="`, `S<head data-x="`},
		{"processing instruction", `<?xml version="1.0"?><head>x`, `<?xml version="1.0"?><head>Sx`},
		{"text first", `hello <head>`, `Shello <head>`},
		{"script first", `<script>alert(1)</script><head>`, `S<script>alert(1)</script><head>`},
		{"empty", ``, `S`},
	}
	for _, tc := range tests {
		got := string(Inject([]byte(tc.doc), []byte("S")))
		if got != tc.want {
			t.Errorf("%s: Inject(%q) = %q, want %q", tc.name, tc.doc, got, tc.want)
		}
		checkParsed(t, tc.doc)
	}
}

// checkParsed parses doc with the snippet injected, as a browser would,
// and fails unless the snippet's two elements open <head> and nothing of
// the document's came before them.
func checkParsed(t *testing.T, doc string) {
	t.Helper()
	out := Inject([]byte(doc), []byte(snippet))
	// A browser's decoder drops the byte order mark before the tokenizer
	// runs; this parser does not.
	root, err := html.Parse(bytes.NewReader(bytes.TrimPrefix(out, []byte("\xef\xbb\xbf"))))
	if err != nil {
		t.Fatalf("parse %q: %v", out, err)
	}
	var head *html.Node
	var visit func(n *html.Node)
	visit = func(n *html.Node) {
		if n.Type == html.ElementNode && n.DataAtom == atom.Head && head == nil {
			head = n
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			visit(c)
		}
	}
	visit(root)
	var elems []*html.Node
	for c := head.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode {
			elems = append(elems, c)
		}
	}
	if len(elems) < 2 || elems[0].DataAtom != atom.Meta || attr(elems[0], "name") != "probe" ||
		elems[1].DataAtom != atom.Script || attr(elems[1], "src") != "/probe.js" {
		t.Errorf("doc %q: the head does not open with the snippet: %q", doc, out)
		return
	}
	// No script of the document's comes before the snippet's.
	for n := elems[0].PrevSibling; n != nil; n = n.PrevSibling {
		if n.Type == html.ElementNode {
			t.Errorf("doc %q: %s precedes the snippet", doc, n.Data)
		}
	}
	if strings.Count(string(out), snippet) != 1 {
		t.Errorf("snippet not inserted once: %q", out)
	}
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// FuzzInject holds the placement for any document: the parser puts the
// snippet first in the head, whatever the document opens with.
func FuzzInject(f *testing.F) {
	for _, seed := range []string{
		`<!doctype html><html><head><title>x</title>`, `<!-- <head> --><head>`, `<html a="<head>">`,
		`<!--- -><head>--><head>`, `<head a"b>`, `<?x?><!x><head/>`, "\xef\xbb\xbf \n<HTML\t><!----!><head\f>",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		checkParsed(t, doc)
	})
}
