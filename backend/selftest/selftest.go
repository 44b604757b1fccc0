// Package selftest is the desktop smoke test of DESIGN §7.5, run by
// `hearth --self-test OUT.json`: the real binary, the real WebKitGTK
// webview, a seeded data dir, and a script inside the page (page.js) that
// exercises the ABI, checks a sandboxed extension running in its frame
// (extension.js, extensions/) and a SillyTavern-style page extension
// running in the window (stpage.js, pageext.go), attacks the bridges from
// sandboxed frames (frame.js) and measures a 10,000-message chat.
//
// The Go side seeds the data dir through the host router (the extensions
// included: extensions.go), registers the host methods that exist only in
// self-test mode (selftest.info, selftest.memory, selftest.report), counts
// the bridge's accepted and refused calls, the requests to the asset
// handler's invoke route and the token-bearing documents served, and when
// the page has reported (or the deadline passed) checks again from Go,
// captures a screenshot and writes the JSON report. It imports no Wails:
// app.go wires it into the window.
package selftest

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"hearth/backend/host"
	"hearth/backend/internal/chatgen"
)

// Paths the asset middleware serves the two scripts at in self-test mode.
const (
	ScriptPath      = "/__hearth__/selftest.js"
	FrameScriptPath = "/__hearth__/selftest-frame.js"
	// StreamScriptPath serves stream.js, the generation phase, loaded
	// before page.js, which runs it.
	StreamScriptPath = "/__hearth__/selftest-stream.js"
	// MemoryScriptPath serves memory.js, the memory phase (Options.Memory),
	// loaded before page.js, which runs it.
	MemoryScriptPath = "/__hearth__/selftest-memory.js"
	// ExtensionScriptPath serves extension.js, the sandboxed extension's
	// checks and the extension bench mode, loaded before page.js, which
	// runs it.
	ExtensionScriptPath = "/__hearth__/selftest-extension.js"
	// PageTierScriptPath serves stpage.js, the page extension's checks
	// and the page bench mode, loaded before page.js, which runs it.
	PageTierScriptPath = "/__hearth__/selftest-stpage.js"
)

// CharacterName names the seeded character that owns the large chat.
const CharacterName = "Seraphina"

// IdleCharacterName names a seeded character without chats. It is created
// last, so the UI (which lists the most recent first and selects the first
// on start) opens on it and shows no chat: the large chat is opened cold,
// by the page script's click, and not by the window on its own.
const IdleCharacterName = "Aster"

//go:embed page.js
var pageScript []byte

//go:embed frame.js
var frameScript []byte

//go:embed stream.js
var streamScript []byte

//go:embed memory.js
var memoryScript []byte

//go:embed extension.js
var extensionScript []byte

//go:embed stpage.js
var pageTierScript []byte

// PageScript is the script the main document loads in self-test mode.
func PageScript() []byte { return pageScript }

// StreamScript is the generation phase's script (stream.js).
func StreamScript() []byte { return streamScript }

// MemoryScript is the memory phase's script (memory.js).
func MemoryScript() []byte { return memoryScript }

// ExtensionScript is the extension phase's script (extension.js).
func ExtensionScript() []byte { return extensionScript }

// PageTierScript is the page extension's script (stpage.js).
func PageTierScript() []byte { return pageTierScript }

// FrameScript is the script of the sandboxed frames the page creates.
func FrameScript() []byte { return frameScript }

// Options configure a Session. Zero fields take the defaults noted.
type Options struct {
	// Report is the path of the JSON report.
	Report string
	// Screenshot is where the screen is captured once the page reported;
	// empty means no screenshot.
	Screenshot string
	// Timeout bounds the wait for the page's final report (default 90 s).
	Timeout time.Duration
	// Messages is the size of the seeded chat, greeting included
	// (default 10000; benchMessages in the bench modes).
	Messages int
	// Capture takes the screenshot (default: ImageMagick's
	// `import -window root PATH`, which needs $DISPLAY).
	Capture func(ctx context.Context, path string) error
	// Log receives the human-readable summary (default os.Stdout).
	Log io.Writer
	// Memory adds the memory phase (memory.js): the large chats opened ten
	// times, then 30 s idle, with this process's and its web processes'
	// RSS after both. It makes a run about a minute longer, so only
	// desktopbench asks for it (MemoryEnv).
	Memory bool
	// PackageDir is where the extension packages are written, in a temp
	// folder removed once they are installed (default: the system's temp
	// dir). Not under the data dir: a { path } install refuses a folder
	// inside Hearth's own data (library.path_not_allowed).
	PackageDir string
	// ExtensionBench is the extension bench mode (ExtensionsEnv): instead
	// of the probe extension, BenchExtensions generated ones are installed
	// (BenchExtensionIDs); the page measures the window's start until all
	// of them have activated and, with any, one MESSAGE_SENT's way to
	// every frame, and then ends: the other phases are left out, and the
	// chats are small (benchMessages), so desktopbench can afford a few of
	// these short runs beside the full ones. The caller should let the
	// search index settle before the window opens (app.go does).
	ExtensionBench bool
	// BenchExtensions is how many extensions the bench mode installs
	// (0 to MaxBenchExtensions).
	BenchExtensions int
	// PageBench is the page bench mode (PageExtensionsEnv): instead of the
	// probe and the page extension, the page extension alone is installed,
	// enabled when PageExtensions is 1 and disabled when it is 0; the page
	// measures the window's start until the UI is up and the page
	// extension has run, and what of the SillyTavern compat layer the
	// window fetched (stpage.js), and then ends, like the extension bench
	// mode. It and ExtensionBench are separate runs.
	PageBench bool
	// PageExtensions is how many page extensions the page bench mode
	// enables (0 to MaxPageBenchExtensions).
	PageExtensions int
}

// MemoryEnv is the environment variable that turns Options.Memory on for
// `hearth --self-test` when it is set to 1.
const MemoryEnv = "HEARTH_SELFTEST_MEMORY"

// benchMessages is the default size of the seeded chats in the extension
// bench mode: it opens none of them, and a smaller data dir seeds, and
// has its search index built before the window opens, in seconds rather
// than half a minute.
const benchMessages = 500

// memoryTimeout is the default Options.Timeout with the memory phase.
const memoryTimeout = 240 * time.Second

// Check is one named pass/fail result of the report.
type Check struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail,omitempty"`
}

// Report is what the self-test writes to Options.Report.
type Report struct {
	OK         bool               `json:"ok"`
	Checks     []Check            `json:"checks"`
	Metrics    map[string]float64 `json:"metrics"`
	Screenshot string             `json:"screenshot,omitempty"`
	UserAgent  string             `json:"userAgent,omitempty"`
}

// pageReport is the argument of selftest.report.
type pageReport struct {
	Done      bool               `json:"done"`
	Checks    []Check            `json:"checks"`
	Metrics   map[string]float64 `json:"metrics"`
	UserAgent string             `json:"userAgent"`
}

// Session is one self-test run. Its observer methods are safe for
// concurrent use (the bridge calls them from Wails' goroutines).
type Session struct {
	opts Options

	mu       sync.Mutex
	goChecks []Check
	seedMs   float64
	chatID   string
	// selectChatID is the second large chat, opened with api.chat.select.
	selectChatID string
	avatar       string
	// connectionID is the active connection, to the scripted model.
	connectionID string
	// agentChatID is a small chat an agent run works on: its events'
	// way to the window is measured apart from the large chat's rendering.
	agentChatID string
	// ext is what seedExtensions installed.
	ext      extensionSeed
	model    *modelServer
	accepted map[string]int
	rejected map[string]int
	// streamed counts requests to the asset handler's /api/invoke.
	streamed struct{ accepted, rejected int }
	boots    int
	// assets are the compat files the asset handler served (assets.go).
	assets   []assetRequest
	nav      navigationLog
	page     pageReport
	done     chan struct{}
	doneOnce sync.Once
}

// New returns a session; call Seed and Register before the window opens.
func New(opts Options) *Session {
	if opts.Timeout <= 0 {
		opts.Timeout = 90 * time.Second
		if opts.Memory {
			opts.Timeout = memoryTimeout
		}
	}
	if opts.Messages <= 0 {
		opts.Messages = 10000
		if opts.ExtensionBench || opts.PageBench {
			opts.Messages = benchMessages
		}
	}
	if opts.Capture == nil {
		opts.Capture = captureScreen
	}
	if opts.Log == nil {
		opts.Log = os.Stdout
	}
	return &Session{
		opts:     opts,
		accepted: map[string]int{},
		rejected: map[string]int{},
		done:     make(chan struct{}),
	}
}

// Seed creates the character and its large chat through inv (the host
// router, in process): chatgen's realistic messages, added silently in
// batches of 500; then a character without chats (IdleCharacterName).
func (s *Session) Seed(ctx context.Context, inv chatgen.Invoker) error {
	started := time.Now()
	var card struct {
		Avatar string `json:"avatar"`
	}
	if err := call(ctx, inv, &card, "characters.create", map[string]any{
		"name":        CharacterName,
		"description": "The guardian of the self-test glade.",
		"first_mes":   "*Seraphina looks up from the fire.* Welcome back, {{user}}. It has been a long story.",
		"tags":        []string{"self-test"},
	}); err != nil {
		return fmt.Errorf("self-test: seed character: %w", err)
	}
	// Two large chats: the page opens the newer one with a click, and the
	// older one, which the window has never shown, with api.chat.select.
	selectChat, err := s.seedChat(ctx, inv, card.Avatar, 11)
	if err != nil {
		return err
	}
	clickChat, err := s.seedChat(ctx, inv, card.Avatar, 7)
	if err != nil {
		return err
	}
	agentChat, err := s.seedAgentChat(ctx, inv)
	if err != nil {
		return err
	}
	ext, err := s.seedExtensions(ctx, inv)
	if err != nil {
		return err
	}
	var idle struct {
		Avatar string `json:"avatar"`
	}
	if err := call(ctx, inv, &idle, "characters.create", map[string]any{
		"name":        IdleCharacterName,
		"description": "A character without chats: the self-test window opens on her.",
		"tags":        []string{"self-test"},
	}); err != nil {
		return fmt.Errorf("self-test: seed the idle character: %w", err)
	}
	connID, err := s.seedModel(ctx, inv)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.chatID, s.selectChatID, s.avatar, s.connectionID, s.agentChatID, s.ext = clickChat, selectChat, card.Avatar, connID, agentChat, ext
	s.seedMs = float64(time.Since(started).Milliseconds())
	installed := fmt.Sprintf("the sandboxed extension %s and the page extension %s, enabled", ext.probe, ext.page)
	switch {
	case s.opts.ExtensionBench:
		installed = fmt.Sprintf("%d generated sandboxed extension(s) for the extension bench, enabled", len(ext.bench))
	case s.opts.PageBench && ext.pageOn:
		installed = fmt.Sprintf("the page extension %s for the page bench, enabled", ext.page)
	case s.opts.PageBench:
		installed = fmt.Sprintf("the page extension %s for the page bench, disabled", ext.page)
	}
	s.goChecks = append(s.goChecks, Check{
		Name:   "seed: character and chats through the host router",
		OK:     true,
		Detail: fmt.Sprintf("2 chats of %d messages and %s, in %d ms", s.opts.Messages, installed, time.Since(started).Milliseconds()),
	})
	return nil
}

// seedAgentChat creates a character with a short chat for the agent run.
func (s *Session) seedAgentChat(ctx context.Context, inv chatgen.Invoker) (string, error) {
	var card struct {
		Avatar string `json:"avatar"`
	}
	if err := call(ctx, inv, &card, "characters.create", map[string]any{"name": "Wren", "first_mes": "The workshop smells of cedar.", "tags": []string{"self-test"}}); err != nil {
		return "", fmt.Errorf("self-test: seed the agent's character: %w", err)
	}
	var chat struct {
		ChatID string `json:"chatId"`
	}
	if err := call(ctx, inv, &chat, "chat.create", map[string]any{"avatar": card.Avatar}); err != nil {
		return "", fmt.Errorf("self-test: seed the agent's chat: %w", err)
	}
	if err := call(ctx, inv, &[]int{}, "chat.addMessages", chat.ChatID, []any{map[string]any{"is_user": true, "name": "User", "mes": "What are you carving?"}}); err != nil {
		return "", fmt.Errorf("self-test: seed the agent's chat: %w", err)
	}
	return chat.ChatID, nil
}

// seedModel starts the scripted model server and makes a connection to
// it the active one, for the page's generation timings.
func (s *Session) seedModel(ctx context.Context, inv chatgen.Invoker) (string, error) {
	m, err := startModel()
	if err != nil {
		return "", err
	}
	s.mu.Lock()
	s.model = m
	s.mu.Unlock()
	var conn struct {
		ID string `json:"id"`
	}
	if err := call(ctx, inv, &conn, "connections.save", map[string]any{
		"name": "Self-test model", "provider": "openai-compatible", "baseUrl": m.url, "model": modelName,
	}); err != nil {
		return "", fmt.Errorf("self-test: seed the connection: %w", err)
	}
	if err := call(ctx, inv, &struct{}{}, "connections.select", conn.ID); err != nil {
		return "", fmt.Errorf("self-test: select the connection: %w", err)
	}
	return conn.ID, nil
}

// Close stops the scripted model server; safe to call twice.
func (s *Session) Close() error {
	s.mu.Lock()
	m := s.model
	s.model = nil
	s.mu.Unlock()
	return m.Close()
}

// seedChat creates a chat of avatar with s.opts.Messages of chatgen's
// messages (seed picks them) and returns its id.
func (s *Session) seedChat(ctx context.Context, inv chatgen.Invoker, avatar string, seed uint64) (string, error) {
	var chat struct {
		ChatID       string `json:"chatId"`
		MessageCount int    `json:"messageCount"`
	}
	if err := call(ctx, inv, &chat, "chat.create", map[string]any{"avatar": avatar}); err != nil {
		return "", fmt.Errorf("self-test: seed chat: %w", err)
	}
	msgs := chatgen.Messages(chatgen.Options{Seed: seed, Messages: s.opts.Messages - chat.MessageCount, CharName: CharacterName})
	if err := chatgen.Append(ctx, inv, chat.ChatID, msgs, 500); err != nil {
		return "", fmt.Errorf("self-test: seed messages: %w", err)
	}
	var count int
	if err := call(ctx, inv, &count, "chat.count", chat.ChatID); err != nil {
		return "", fmt.Errorf("self-test: count seeded messages: %w", err)
	}
	if count != s.opts.Messages {
		return "", fmt.Errorf("self-test: seeded chat has %d messages, want %d", count, s.opts.Messages)
	}
	return chat.ChatID, nil
}

// Register adds the self-test's host methods to r: selftest.info (the
// seeded chat and the counters), selftest.memory (readMemory: this
// process's and its web processes' RSS) and selftest.report (the page's
// results).
// Only the window's own script can call them: they sit behind the bridge's
// token check like every other method.
func (s *Session) Register(r *host.Router) {
	r.Register("selftest.info", func(context.Context, host.Args) (any, error) {
		return s.info(), nil
	})
	r.Register("selftest.memory", func(context.Context, host.Args) (any, error) {
		m, err := readMemory("/proc", os.Getpid())
		m.GoMB = goHeldMB()
		return m, err
	})
	r.Register("selftest.report", func(_ context.Context, a host.Args) (any, error) {
		var rep pageReport
		if err := a.Object(0, "report", &rep); err != nil {
			return nil, err
		}
		s.mu.Lock()
		s.page = rep
		s.mu.Unlock()
		if rep.Done {
			s.doneOnce.Do(func() { close(s.done) })
		}
		return true, nil
	})
}

// ObserveCall counts one bridge call; pass it to wailsbridge.WithCallObserver.
func (s *Session) ObserveCall(method string, accepted bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if accepted {
		s.accepted[method]++
	} else {
		s.rejected[method]++
	}
}

// ObserveStream counts one request to the asset handler's invoke route;
// pass it to wailsbridge.WithInvokeObserver.
func (s *Session) ObserveStream(accepted bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if accepted {
		s.streamed.accepted++
	} else {
		s.streamed.rejected++
	}
}

// ObserveBootDocument counts one token-bearing document served; pass it to
// wailsbridge.WithBootObserver.
func (s *Session) ObserveBootDocument() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.boots++
}

// info is selftest.info's answer.
func (s *Session) info() map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	accepted := make(map[string]int, len(s.accepted))
	for k, v := range s.accepted {
		accepted[k] = v
	}
	rejected := 0
	for _, v := range s.rejected {
		rejected += v
	}
	return map[string]any{
		"chatId":        s.chatID,
		"selectChatId":  s.selectChatID,
		"avatar":        s.avatar,
		"characterName": CharacterName,
		"idleCharacter": IdleCharacterName,
		"messages":      s.opts.Messages,
		"connectionId":  s.connectionID,
		"agentChatId":   s.agentChatID,
		"memory":        s.opts.Memory,
		"extensions":    s.ext.info(s.mode()),
		"bootDocuments": s.boots,
		"bridge":        map[string]any{"accepted": accepted, "rejected": rejected},
		"stream":        map[string]any{"accepted": s.streamed.accepted, "rejected": s.streamed.rejected},
		"navigation":    s.nav.info(),
		"compatFiles":   append([]assetRequest{}, s.assets...),
	}
}

// Wait blocks until the page's final report arrives, the timeout passes
// or ctx ends, then checks from Go, captures the screenshot and writes the
// report. started is when the window started loading.
func (s *Session) Wait(ctx context.Context, inv chatgen.Invoker, started time.Time) Report {
	timer := time.NewTimer(time.Until(started.Add(s.opts.Timeout)))
	defer timer.Stop()
	var ended Check
	select {
	case <-s.done:
		ended = Check{Name: "self-test: the page finished", OK: true, Detail: fmt.Sprintf("after %d ms", time.Since(started).Milliseconds())}
	case <-timer.C:
		ended = Check{Name: "self-test: the page finished", Detail: fmt.Sprintf("no final report within %s", s.opts.Timeout)}
	case <-ctx.Done():
		ended = Check{Name: "self-test: the page finished", Detail: "the window closed first"}
	}
	return s.finish(ctx, inv, ended)
}

func (s *Session) finish(ctx context.Context, inv chatgen.Invoker, ended Check) Report {
	s.mu.Lock()
	rep := Report{
		Checks:    append(append([]Check{}, s.goChecks...), s.page.Checks...),
		Metrics:   map[string]float64{"seedMs": s.seedMs},
		UserAgent: s.page.UserAgent,
	}
	for k, v := range s.page.Metrics {
		rep.Metrics[k] = v
	}
	s.mu.Unlock()
	rep.Checks = append(rep.Checks, ended, s.checkNoPwned(ctx, inv), s.checkExtensionChat(ctx, inv))
	if c, ok := s.checkPageSettings(ctx, inv); ok {
		rep.Checks = append(rep.Checks, c)
	}

	if s.opts.Screenshot != "" {
		c := Check{Name: "self-test: screenshot of the window", OK: true, Detail: s.opts.Screenshot}
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 20*time.Second)
		if err := os.MkdirAll(filepath.Dir(s.opts.Screenshot), 0o755); err != nil {
			c.OK, c.Detail = false, err.Error()
		} else if err := s.opts.Capture(cctx, s.opts.Screenshot); err != nil {
			c.OK, c.Detail = false, err.Error()
		} else {
			rep.Screenshot = s.opts.Screenshot
		}
		cancel()
		rep.Checks = append(rep.Checks, c)
	}

	rep.OK = true
	for _, c := range rep.Checks {
		rep.OK = rep.OK && c.OK
	}
	if err := writeReport(s.opts.Report, rep); err != nil {
		rep.OK = false
		rep.Checks = append(rep.Checks, Check{Name: "self-test: write the report", Detail: err.Error()})
	}
	s.print(rep)
	return rep
}

// checkNoPwned looks for the forged frames' character from Go, so the
// verdict does not rest on the page's script alone.
func (s *Session) checkNoPwned(ctx context.Context, inv chatgen.Invoker) Check {
	c := Check{Name: "go: no character created by a forged call"}
	var list []struct {
		Avatar string `json:"avatar"`
		Name   string `json:"name"`
	}
	if err := call(context.WithoutCancel(ctx), inv, &list, "characters.list"); err != nil {
		c.Detail = err.Error()
		return c
	}
	for _, ch := range list {
		if strings.Contains(ch.Name, "PWNED") {
			c.Detail = "found " + ch.Avatar
			return c
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	refused := 0
	for _, v := range s.rejected {
		refused += v
	}
	c.OK = true
	c.Detail = fmt.Sprintf("%d character(s), none PWNED; the bridge refused %d call(s)", len(list), refused)
	return c
}

func (s *Session) print(rep Report) {
	w := s.opts.Log
	for _, c := range rep.Checks {
		mark := "ok  "
		if !c.OK {
			mark = "FAIL"
		}
		fmt.Fprintf(w, "%s %s: %s\n", mark, c.Name, c.Detail)
	}
	keys := make([]string, 0, len(rep.Metrics))
	for k := range rep.Metrics {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s=%g", k, rep.Metrics[k]))
	}
	fmt.Fprintf(w, "self-test metrics: %s\n", strings.Join(parts, " "))
	verdict := "passed"
	if !rep.OK {
		verdict = "FAILED"
	}
	fmt.Fprintf(w, "self-test %s: report %s\n", verdict, s.opts.Report)
}

// Err is nil when rep passed, else an error naming the failed checks.
func Err(rep Report) error {
	if rep.OK {
		return nil
	}
	var failed []string
	for _, c := range rep.Checks {
		if !c.OK {
			failed = append(failed, c.Name)
		}
	}
	if len(failed) == 0 {
		return errors.New("self-test failed")
	}
	return fmt.Errorf("self-test failed: %s", strings.Join(failed, "; "))
}

// writeReport writes rep as indented JSON (temp file, then rename).
func writeReport(path string, rep Report) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	data, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(data, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// captureScreen saves the whole X screen with ImageMagick.
func captureScreen(ctx context.Context, path string) error {
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, "import", "-window", "root", path)
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("import -window root: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	return nil
}

// call invokes method with args on inv and decodes the result into out.
func call(ctx context.Context, inv chatgen.Invoker, out any, method string, args ...any) error {
	if args == nil {
		args = []any{}
	}
	raw, err := json.Marshal(args)
	if err != nil {
		return err
	}
	res, err := inv.Invoke(ctx, method, raw)
	if err != nil {
		return err
	}
	return json.Unmarshal(res, out)
}

// Invoker runs one host method; the host router satisfies it.
type Invoker = chatgen.Invoker
