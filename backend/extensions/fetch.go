package extensions

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"path"
	"strings"
	"syscall"
	"time"

	"hearth/backend/apperr"
)

// Limits on a URL install (EXTENSIONS.md §1): https only, a bounded
// download, few redirects, and no read that stalls.
const (
	MaxDownloadBytes = 50 << 20
	// MaxUploadBytes bounds a zip uploaded as base64: its text must fit
	// in one call of the HTTP transport (64 MiB, with room for the rest).
	MaxUploadBytes = 46 << 20
	MaxRedirects   = 5
	connectTimeout = 15 * time.Second
	readTimeout    = 30 * time.Second
	totalTimeout   = 5 * time.Minute
)

// Fetcher downloads packages over https.
type Fetcher struct {
	client *http.Client
	// readTimeout bounds each read of the body (tests shorten it).
	readTimeout time.Duration
}

// NewFetcher returns a fetcher using client's transport, or, when nil,
// one with connect, TLS and header timeouts that connects only to public
// addresses (publicDial) or to the environment's proxy. Redirects are
// held to MaxRedirects, each to https.
func NewFetcher(client *http.Client) *Fetcher {
	if client == nil {
		return newFetcher(defaultTransport(http.ProxyFromEnvironment))
	}
	return newFetcher(client.Transport)
}

func newFetcher(rt http.RoundTripper) *Fetcher {
	c := &http.Client{Timeout: totalTimeout, Transport: rt}
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) > MaxRedirects {
			return fmt.Errorf("more than %d redirects", MaxRedirects)
		}
		if req.URL.Scheme != "https" {
			return fmt.Errorf("a redirect to %s, which is not https", req.URL.Redacted())
		}
		return nil
	}
	return &Fetcher{client: c, readTimeout: readTimeout}
}

// defaultTransport is NewFetcher's transport, with proxy as its proxy
// rule.
func defaultTransport(proxy func(*http.Request) (*url.URL, error)) *http.Transport {
	proxyAddr := ""
	if req, err := http.NewRequest(http.MethodGet, "https://codeload.github.com/", nil); err == nil {
		if u, err := proxy(req); err == nil && u != nil {
			port := u.Port()
			if port == "" {
				port = map[string]string{"https": "443"}[u.Scheme]
				if port == "" {
					port = "80"
				}
			}
			proxyAddr = net.JoinHostPort(u.Hostname(), port)
		}
	}
	return &http.Transport{
		Proxy:                 proxy,
		DialContext:           publicDial(proxyAddr),
		TLSHandshakeTimeout:   connectTimeout,
		ResponseHeaderTimeout: readTimeout,
		TLSClientConfig:       &tls.Config{MinVersion: tls.VersionTLS12},
	}
}

// publicDial connects to public addresses only: a URL install must not
// make Hearth (`hearth serve` takes calls from the network) reach the
// machine itself or its local network. proxyAddr, the configured proxy,
// is the one exception; what a proxy fetches is its own policy.
func publicDial(proxyAddr string) func(ctx context.Context, network, addr string) (net.Conn, error) {
	direct := &net.Dialer{Timeout: connectTimeout}
	checked := &net.Dialer{Timeout: connectTimeout, Control: func(_, address string, _ syscall.RawConn) error {
		host, _, err := net.SplitHostPort(address)
		if err != nil {
			return err
		}
		ip := net.ParseIP(host)
		if ip == nil || !publicIP(ip) {
			return fmt.Errorf("%s is not a public address", host)
		}
		return nil
	}}
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		if proxyAddr != "" && addr == proxyAddr {
			return direct.DialContext(ctx, network, addr)
		}
		return checked.DialContext(ctx, network, addr)
	}
}

// publicIP tells whether ip is on the public internet: not loopback,
// private, link-local, shared (CGNAT), multicast or unspecified.
func publicIP(ip net.IP) bool {
	if ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsInterfaceLocalMulticast() || ip.IsMulticast() || ip.IsUnspecified() {
		return false
	}
	if v4 := ip.To4(); v4 != nil && (v4[0] == 100 && v4[1]&0xc0 == 64 || v4[0] == 0) {
		return false
	}
	return true
}

// archiveURL turns a git host's repository URL into its zip archive's
// URL, and gives the name the id comes from: GitHub's
// https://github.com/o/r(.git) → codeload's zip of HEAD, GitLab's and
// Codeberg's → their /archive/ form. A URL ending in .zip is fetched as
// it is, named by its file.
func archiveURL(raw string) (string, string, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "https" || u.Host == "" || u.User != nil {
		return "", "", apperr.Invalid("url must be an https URL of a repository or a .zip")
	}
	base := path.Base(u.Path)
	if strings.HasSuffix(strings.ToLower(u.Path), ".zip") {
		return u.String(), strings.TrimSuffix(base, base[len(base)-4:]), nil
	}
	parts := strings.Split(strings.Trim(u.Path, "/"), "/")
	if len(parts) < 2 || parts[0] == "" || parts[1] == "" {
		return "", "", apperr.Invalid("url must name a repository (https://host/owner/name) or a .zip file")
	}
	owner, repo := parts[0], strings.TrimSuffix(parts[1], ".git")
	switch strings.ToLower(u.Hostname()) {
	case "github.com", "www.github.com":
		return "https://codeload.github.com/" + url.PathEscape(owner) + "/" + url.PathEscape(repo) + "/zip/HEAD", repo, nil
	case "gitlab.com":
		p := strings.TrimSuffix(strings.Trim(u.Path, "/"), ".git")
		return "https://gitlab.com/" + p + "/-/archive/HEAD/" + path.Base(p) + "-HEAD.zip", path.Base(p), nil
	default: // Gitea, Forgejo (Codeberg): /owner/repo/archive/HEAD.zip
		return u.Scheme + "://" + u.Host + "/" + url.PathEscape(owner) + "/" + url.PathEscape(repo) + "/archive/HEAD.zip", repo, nil
	}
}

// Fetch downloads the package at raw (see archiveURL), returning the
// zip's bytes and the name the id comes from.
func (f *Fetcher) Fetch(ctx context.Context, raw string) ([]byte, string, error) {
	target, name, err := archiveURL(raw)
	if err != nil {
		return nil, "", err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return nil, "", apperr.Invalid("url: %v", err)
	}
	req.Header.Set("Accept", "application/zip, application/octet-stream")
	resp, err := f.client.Do(req)
	if err != nil {
		return nil, "", fetchFailed(raw, "%v", unwrapURL(err))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, "", fetchFailed(raw, "the server answered %s", resp.Status)
	}
	if resp.ContentLength > MaxDownloadBytes {
		return nil, "", fetchFailed(raw, "the download is %d bytes; at most %d MiB are allowed", resp.ContentLength, MaxDownloadBytes>>20)
	}
	data, err := f.readBody(resp.Body, cancel)
	if err != nil {
		return nil, "", fetchFailed(raw, "%v", err)
	}
	return data, name, nil
}

// readBody reads at most MaxDownloadBytes, failing when one read waits
// longer than the read timeout (the request's context is cancelled,
// which ends the blocked read).
func (f *Fetcher) readBody(body io.Reader, cancel func()) ([]byte, error) {
	timer := time.AfterFunc(f.readTimeout, cancel)
	defer timer.Stop()
	var out []byte
	buf := make([]byte, 64<<10)
	for {
		n, err := body.Read(buf)
		if !timer.Stop() {
			return nil, fmt.Errorf("no data for %s", f.readTimeout)
		}
		out = append(out, buf[:n]...)
		if len(out) > MaxDownloadBytes {
			return nil, fmt.Errorf("the download is larger than %d MiB", MaxDownloadBytes>>20)
		}
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		timer.Reset(f.readTimeout)
	}
}

func unwrapURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

func fetchFailed(raw, format string, args ...any) *apperr.Error {
	return apperr.New(CodeFetchFailed, "fetch %s: "+format, append([]any{raw}, args...)...).
		WithDetails(map[string]any{"url": raw})
}
