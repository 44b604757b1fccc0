// Package extframe is what Hearth's two transports and the extensions
// service agree on about a sandboxed extension's frame (EXTENSIONS.md §4):
// where its files are served, the Content-Security-Policy it runs under,
// which network origins may go into that policy, and the markup that
// opens its entry document. It imports nothing of Hearth's.
package extframe

import (
	"fmt"
	"html"
	"regexp"
	"strconv"
	"strings"
)

// PathPrefix is where a sandboxed extension's files are served:
// PathPrefix + id + "/" + the file's path in its package.
const PathPrefix = "/ext/"

// RuntimePath is the frame-side runtime (frontend/dist/ext-runtime/
// frame.js, a classic script), which every entry document loads first.
const RuntimePath = "/ext-runtime/frame.js"

// Files is what a frame may load for one extension: the folder its
// package is installed in, its entry document (hearth.entry, a path in
// the package), and the origins its policy lets it connect to (its
// hearth.network while it holds the network permission, else none).
type Files struct {
	Dir     string
	Entry   string
	Connect []string
}

// safeID matches ids that can go into a URL path and a policy as they
// are (the extensions service's ids are a subset).
var safeID = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// safeOrigin matches the origins a policy is rendered for: the desktop's
// wails://wails and what `hearth serve` answers to (a host name or IPv4
// address; a CSP source cannot hold an IPv6 literal).
var safeOrigin = regexp.MustCompile(`^(https?|wails)://[A-Za-z0-9.-]+(:[0-9]{1,5})?$`)

// hostLabel is one label of a host name in a network origin.
var hostLabel = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$`)

// CheckNetworkOrigin reports why s cannot be one of hearth.network's
// origins: it must be https://HOST or https://HOST:PORT, with a trailing
// slash at most; HOST a DNS name or an IPv4 address.
// No path, query, user, wildcard or anything a policy would read as
// syntax (quotes, semicolons, spaces, commas).
func CheckNetworkOrigin(s string) error {
	rest, ok := strings.CutPrefix(s, "https://")
	if !ok {
		return fmt.Errorf("%q is not an https origin such as https://api.example.com", s)
	}
	rest = strings.TrimSuffix(rest, "/")
	host, port, hasPort := strings.Cut(rest, ":")
	if hasPort {
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 || port != strconv.Itoa(n) {
			return fmt.Errorf("%q: the port must be a number from 1 to 65535", s)
		}
	}
	if host == "" || len(host) > 253 {
		return fmt.Errorf("%q names no host", s)
	}
	for _, label := range strings.Split(host, ".") {
		if !hostLabel.MatchString(label) {
			return fmt.Errorf("%q is not an https origin such as https://api.example.com: the host must be a name or IPv4 address, with no path, wildcard or other characters", s)
		}
	}
	return nil
}

// CSP is the policy of id's frame when the app is served from origin
// (wails://wails, or http(s)://HOST[:PORT]): nothing but the extension's
// own files under PathPrefix+id+"/" and the runtime script, inline
// styles, data:/blob: images and media, and connections only to connect
// (each checked again; one that fails is left out). 'self' is avoided on
// purpose: in an opaque-origin sandboxed document engines disagree on
// what it means. An origin or id that cannot be written into a policy
// safely is an error.
func CSP(origin, id string, connect []string) (string, error) {
	if !safeOrigin.MatchString(origin) {
		return "", fmt.Errorf("extframe: origin %q cannot go into a policy", origin)
	}
	if !safeID.MatchString(id) {
		return "", fmt.Errorf("extframe: id %q cannot go into a policy", id)
	}
	own := origin + PathPrefix + id + "/"
	var hosts []string
	for _, c := range connect {
		if CheckNetworkOrigin(c) == nil {
			hosts = append(hosts, strings.TrimSuffix(c, "/"))
		}
	}
	conn := "'none'"
	if len(hosts) > 0 {
		conn = strings.Join(hosts, " ")
	}
	return "default-src 'none'; script-src " + own + " " + origin + RuntimePath +
		"; style-src " + own + " 'unsafe-inline'; img-src " + own + " data: blob:; font-src " + own +
		" data:; media-src " + own + " data: blob:; connect-src " + conn +
		"; frame-src 'none'; child-src 'none'; worker-src 'none'; object-src 'none'; base-uri 'none'; form-action 'none'", nil
}

// ClosedCSP is the policy of an answer under PathPrefix that names no
// usable extension: nothing may load.
const ClosedCSP = "default-src 'none'; base-uri 'none'; form-action 'none'"

// SandboxCSP goes beside the frame's policy as a second header: a file
// opened outside the frame (a link to it, typed in the address bar)
// still runs in an opaque origin, never as the app.
const SandboxCSP = "sandbox allow-scripts"

// EntryHead is what opens the entry document's head: the policy as a
// meta element (WebKitGTK honours that, not the header, for the
// desktop's custom scheme), then the runtime, which must run before any
// script of the extension's.
func EntryHead(csp string) []byte {
	return append(PolicyHead(csp), `<script src="`+RuntimePath+`"></script>`...)
}

// PolicyHead is what opens the head of the package's other HTML
// documents: the policy alone. A frame may navigate itself to one of
// them, and in the desktop window only the meta element would hold it to
// the policy there.
func PolicyHead(csp string) []byte {
	return []byte(`<meta http-equiv="Content-Security-Policy" content="` + html.EscapeString(csp) + `">`)
}

// PagePathPrefix is where a page-tier (SillyTavern) extension's files are
// served in the app's own origin, where SillyTavern serves third-party
// extensions, so their imports by relative path ("../../../../script.js")
// reach Hearth's compat modules.
const PagePathPrefix = "/scripts/extensions/third-party/"

// PageCSP goes on every answer under PagePathPrefix. A policy on a
// script or style sheet does nothing to the window that loads it, but a
// package's HTML opened as a document of its own gets an opaque origin
// and runs nothing, so no file of a package can become a page of the app.
const PageCSP = "default-src 'none'; sandbox"
