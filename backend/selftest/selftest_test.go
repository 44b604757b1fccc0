package selftest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"hearth/backend/app"
)

// newApp opens a real app on a temp data dir.
func newApp(t *testing.T) *app.App {
	t.Helper()
	a, err := app.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	return a
}

func invoke(t *testing.T, a *app.App, out any, method string, args ...any) {
	t.Helper()
	if err := call(context.Background(), a.Router, out, method, args...); err != nil {
		t.Fatalf("%s: %v", method, err)
	}
}

// newSession returns a seeded, registered session writing into a temp dir,
// with a fake screen capture.
func newSession(t *testing.T, a *app.App, timeout time.Duration) (*Session, string, *bytes.Buffer) {
	t.Helper()
	dir := t.TempDir()
	var log bytes.Buffer
	s := New(Options{
		Report:     filepath.Join(dir, "out", "selftest.json"),
		Screenshot: filepath.Join(dir, "out", "selftest.png"),
		Timeout:    timeout,
		Messages:   120,
		Log:        &log,
		PackageDir: t.TempDir(),
		Capture: func(_ context.Context, path string) error {
			return os.WriteFile(path, []byte("png"), 0o644)
		},
	})
	if err := s.Seed(context.Background(), a.Router); err != nil {
		t.Fatal(err)
	}
	s.Register(a.Router)
	return s, dir, &log
}

func readReport(t *testing.T, path string) Report {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rep Report
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	return rep
}

func TestSeedCreatesTheLargeChats(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	newSession(t, a, time.Minute)
	var info struct {
		ChatID        string `json:"chatId"`
		SelectChatID  string `json:"selectChatId"`
		Avatar        string `json:"avatar"`
		CharacterName string `json:"characterName"`
		Messages      int    `json:"messages"`
	}
	invoke(t, a, &info, "selftest.info")
	if info.ChatID == "" || info.SelectChatID == "" || info.SelectChatID == info.ChatID || info.CharacterName != CharacterName || info.Messages != 120 {
		t.Fatalf("info = %+v", info)
	}
	for _, id := range []string{info.ChatID, info.SelectChatID} {
		var count int
		invoke(t, a, &count, "chat.count", id)
		if count != 120 {
			t.Fatalf("seeded chat %s has %d messages", id, count)
		}
	}
	// A click on the character opens its newest chat: that must be ChatID.
	var list []struct {
		ChatID string `json:"chatId"`
	}
	invoke(t, a, &list, "chat.list", map[string]string{"avatar": info.Avatar})
	if len(list) != 2 || list[0].ChatID != info.ChatID {
		t.Fatalf("chat.list = %+v, want %s first", list, info.ChatID)
	}
	var last []map[string]any
	invoke(t, a, &last, "chat.getStMessages", info.ChatID, map[string]int{"tail": 1})
	if len(last) != 1 || last[0]["name"] == nil {
		t.Fatalf("tail = %v", last)
	}
}

func TestReportedRunPasses(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	s, dir, log := newSession(t, a, time.Minute)
	s.ObserveBootDocument()
	s.ObserveCall("host.capabilities", true)
	s.ObserveCall("characters.create", false)
	s.ObserveCall("characters.create", false)

	var info struct {
		BootDocuments int `json:"bootDocuments"`
		Bridge        struct {
			Accepted map[string]int `json:"accepted"`
			Rejected int            `json:"rejected"`
		} `json:"bridge"`
	}
	invoke(t, a, &info, "selftest.info")
	if info.BootDocuments != 1 || info.Bridge.Rejected != 2 || info.Bridge.Accepted["host.capabilities"] != 1 {
		t.Fatalf("info = %+v", info)
	}

	// What the page extension's first start saves (saveSettingsDebounced).
	invoke(t, a, &struct{}{}, "extensions.storage.set", PageSettingsKey, map[string]any{PageExtensionID: map[string]int{"runs": 1}},
		map[string]string{"extensionId": PageExtensionID})

	done := make(chan Report, 1)
	go func() { done <- s.Wait(context.Background(), a.Router, time.Now()) }()
	var ok bool
	invoke(t, a, &ok, "selftest.report", map[string]any{
		"done":    false,
		"checks":  []Check{{Name: "abi: ready", OK: true}},
		"metrics": map[string]float64{"readyMs": 12},
	})
	invoke(t, a, &ok, "selftest.report", map[string]any{
		"done":      true,
		"checks":    []Check{{Name: "abi: ready", OK: true}, {Name: "perf: first page", OK: true, Detail: "40 ms"}},
		"metrics":   map[string]float64{"readyMs": 12, "firstPaintMs": 40},
		"userAgent": "WebKit",
	})
	rep := <-done
	if !rep.OK || Err(rep) != nil {
		t.Fatalf("report failed: %+v", rep)
	}
	onDisk := readReport(t, filepath.Join(dir, "out", "selftest.json"))
	if !onDisk.OK || onDisk.Metrics["firstPaintMs"] != 40 || onDisk.Metrics["seedMs"] <= 0 || onDisk.UserAgent != "WebKit" {
		t.Fatalf("report on disk = %+v", onDisk)
	}
	names := map[string]bool{}
	for _, c := range onDisk.Checks {
		names[c.Name] = c.OK
	}
	for _, want := range []string{
		"seed: character and chats through the host router", "abi: ready", "perf: first page",
		"self-test: the page finished", "go: no character created by a forged call",
		"go: no message in the extensions' chat from a forged bridge message", "self-test: screenshot of the window",
		"go: the page extension's extension_settings were saved to its storage",
	} {
		if ok, found := names[want]; !found || !ok {
			t.Errorf("check %q: found %v, ok %v", want, found, ok)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "out", "selftest.png")); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"ok   perf: first page: 40 ms", "firstPaintMs=40", "self-test passed"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, log.String())
		}
	}
}

func TestTimeoutKeepsPartialChecksAndFails(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	s, dir, log := newSession(t, a, 50*time.Millisecond)
	var ok bool
	invoke(t, a, &ok, "selftest.report", map[string]any{"done": false, "checks": []Check{{Name: "abi: ready", OK: true}}})
	rep := s.Wait(context.Background(), a.Router, time.Now())
	if rep.OK || Err(rep) == nil || !strings.Contains(Err(rep).Error(), "the page finished") {
		t.Fatalf("a timed-out run passed: %+v", rep)
	}
	onDisk := readReport(t, filepath.Join(dir, "out", "selftest.json"))
	if onDisk.OK || len(onDisk.Checks) < 3 || onDisk.Checks[1].Name != "abi: ready" {
		t.Fatalf("report on disk = %+v", onDisk)
	}
	if !strings.Contains(log.String(), "self-test FAILED") {
		t.Errorf("log:\n%s", log.String())
	}
}

func TestFailingChecksAndForgedCharacterFail(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	s, _, _ := newSession(t, a, time.Minute)
	var card map[string]any
	invoke(t, a, &card, "characters.create", map[string]any{"name": "PWNED"})
	var ok bool
	invoke(t, a, &ok, "selftest.report", map[string]any{"done": true, "checks": []Check{{Name: "iframe: refused", OK: true}}})
	rep := s.Wait(context.Background(), a.Router, time.Now())
	if rep.OK {
		t.Fatal("a run with a PWNED character passed")
	}
	if err := Err(rep); err == nil || !strings.Contains(err.Error(), "go: no character created by a forged call") {
		t.Fatalf("Err = %v", err)
	}
}

func TestScreenshotFailureFails(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	s, _, _ := newSession(t, a, time.Minute)
	s.opts.Capture = func(context.Context, string) error { return errors.New("no display") }
	var ok bool
	invoke(t, a, &ok, "selftest.report", map[string]any{"done": true, "checks": []Check{{Name: "x", OK: true}}})
	if rep := s.Wait(context.Background(), a.Router, time.Now()); rep.OK {
		t.Fatal("a run without its screenshot passed")
	}
}

func TestReportRejectsMalformedArguments(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	newSession(t, a, time.Minute)
	if _, err := a.Router.Invoke(context.Background(), "selftest.report", []byte(`["nope"]`)); err == nil {
		t.Fatal("selftest.report accepted a string")
	}
}

func TestScriptsAreEmbedded(t *testing.T) {
	t.Parallel()
	if !bytes.Contains(PageScript(), []byte(FrameScriptPath)) {
		t.Error("the page script does not load the frame script from FrameScriptPath")
	}
	if !bytes.Contains(FrameScript(), []byte("messageHandlers")) {
		t.Error("the frame script does not post to the Wails message handler")
	}
	if !bytes.Contains(MemoryScript(), []byte("window.__hearthSelfTestMemory = ")) || !bytes.Contains(PageScript(), []byte("window.__hearthSelfTestMemory(")) {
		t.Error("the memory phase is not defined by memory.js and run by page.js")
	}
	if !bytes.Contains(ExtensionScript(), []byte("window.__hearthSelfTestExtensions = { probe, bench, uiUp }")) ||
		!bytes.Contains(PageScript(), []byte("extensions.probe(h, info, tools)")) || !bytes.Contains(PageScript(), []byte("extensions.bench(h, info, tools)")) {
		t.Error("the extension phase is not defined by extension.js and run by page.js")
	}
	if !bytes.Contains(FrameScript(), []byte("mode === 'bridge'")) || !bytes.Contains(PageScript(), []byte("sandboxedFrame('bridge'")) {
		t.Error("the bridge-forging frame is not in frame.js or not made by page.js")
	}
}
