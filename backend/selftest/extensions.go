package selftest

import (
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
)

// The extension packages the self-test installs (extensions.install with
// { path }, through the host router, as `hearth ext install` would):
// extensions/probe, the sandboxed extension of a normal run;
// extensions/fan, the template of the extension bench mode's copies; and
// extensions/st-page, the page extension of a normal run and of the page
// bench mode (pageext.go).
//
//go:embed extensions
var extensionFiles embed.FS

// ProbeExtensionID is the id of the self-test's sandboxed extension
// (extensions/probe/manifest.json).
const ProbeExtensionID = "selftest-probe"

// BenchExtensionPrefix starts the ids of the bench mode's generated
// extensions: ext-fan-01, ext-fan-02, ….
const BenchExtensionPrefix = "ext-fan-"

// MaxBenchExtensions bounds Options.BenchExtensions.
const MaxBenchExtensions = 20

// ExtensionsEnv is the environment variable that turns the extension
// bench mode on for `hearth --self-test`: a count from 0 to
// MaxBenchExtensions (Options.ExtensionBench, Options.BenchExtensions).
const ExtensionsEnv = "HEARTH_SELFTEST_EXTENSIONS"

// ExtensionCharacterName names the seeded character whose small chat the
// extensions read (the probe counts it; a message added to it starts the
// probe's bridge timing and the bench mode's fan-out).
const ExtensionCharacterName = "Ember"

// ExtensionBenchFromEnv reads ExtensionsEnv through getenv: unset or empty
// is the normal run; a count from 0 to MaxBenchExtensions is the bench
// mode with that many extensions; anything else is an error, so a typo
// does not run the wrong test.
func ExtensionBenchFromEnv(getenv func(string) string) (on bool, count int, err error) {
	return benchCountFromEnv(getenv, ExtensionsEnv, MaxBenchExtensions)
}

// benchCountFromEnv reads a bench mode's variable name through getenv:
// unset or empty is off; a count from 0 to most turns the mode on; anything
// else is an error naming the variable.
func benchCountFromEnv(getenv func(string) string, name string, most int) (on bool, count int, err error) {
	v := strings.TrimSpace(getenv(name))
	if v == "" {
		return false, 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 || n > most {
		return false, 0, fmt.Errorf("%s=%q: want a count of extensions from 0 to %d", name, v, most)
	}
	return true, n, nil
}

// BenchExtensionIDs returns the ids of the bench mode's n extensions.
func BenchExtensionIDs(n int) []string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("%s%02d", BenchExtensionPrefix, i+1)
	}
	return ids
}

// extensionSeed is what Seed installed for the page: the chat the
// extensions read, and the extensions' ids.
type extensionSeed struct {
	chatID string
	probe  string
	bench  []string
	// page is the page extension's id when it is installed (a normal run,
	// the page bench mode); pageOn says whether it is enabled.
	page   string
	pageOn bool
}

// info is selftest.info's extensions block; mode is Session.mode().
func (e extensionSeed) info(mode string) map[string]any {
	return map[string]any{
		"mode": mode, "chatId": e.chatID, "probe": e.probe, "bench": append([]string{}, e.bench...),
		"page": e.page, "pageEnabled": e.pageOn,
	}
}

// seedExtensions creates the extensions' character and chat, then
// installs either the probe and the page extension, both enabled (a
// normal run), the extension bench mode's generated copies, or the page
// bench mode's page extension (enabled with Options.PageExtensions 1,
// disabled with 0), each from a folder written under Options.PackageDir
// and removed once installed (the install copies it).
func (s *Session) seedExtensions(ctx context.Context, inv Invoker) (extensionSeed, error) {
	var seed extensionSeed
	if n := s.opts.BenchExtensions; n < 0 || n > MaxBenchExtensions {
		return seed, fmt.Errorf("self-test: %d bench extensions; at most %d", n, MaxBenchExtensions)
	}
	if n := s.opts.PageExtensions; n < 0 || n > MaxPageBenchExtensions {
		return seed, fmt.Errorf("self-test: %d bench page extensions; at most %d", n, MaxPageBenchExtensions)
	}
	if s.opts.ExtensionBench && s.opts.PageBench {
		return seed, fmt.Errorf("self-test: the extension bench mode and the page bench mode are separate runs")
	}
	var card struct {
		Avatar string `json:"avatar"`
	}
	if err := call(ctx, inv, &card, "characters.create", map[string]any{
		"name": ExtensionCharacterName, "first_mes": "The lantern hums.", "tags": []string{"self-test"},
	}); err != nil {
		return seed, fmt.Errorf("self-test: seed the extensions' character: %w", err)
	}
	var chat struct {
		ChatID string `json:"chatId"`
	}
	if err := call(ctx, inv, &chat, "chat.create", map[string]any{"avatar": card.Avatar}); err != nil {
		return seed, fmt.Errorf("self-test: seed the extensions' chat: %w", err)
	}
	seed.chatID = chat.ChatID
	work, err := os.MkdirTemp(s.opts.PackageDir, "hearth-selftest-extensions-")
	if err != nil {
		return seed, fmt.Errorf("self-test: a folder for the extension packages: %w", err)
	}
	defer os.RemoveAll(work)
	switch {
	case s.opts.PageBench:
		on := s.opts.PageExtensions == 1
		if err := installPackage(ctx, inv, work, pagePackage, PageExtensionID, on); err != nil {
			return seed, err
		}
		seed.page, seed.pageOn = PageExtensionID, on
	case s.opts.ExtensionBench:
		seed.bench = BenchExtensionIDs(s.opts.BenchExtensions)
		for _, id := range seed.bench {
			if err := installPackage(ctx, inv, work, "fan", id, true); err != nil {
				return seed, err
			}
		}
	default:
		if err := installPackage(ctx, inv, work, "probe", ProbeExtensionID, true); err != nil {
			return seed, err
		}
		if err := call(ctx, inv, &struct{}{}, "extensions.storage.set", "config", map[string]any{"chatId": chat.ChatID},
			map[string]any{"extensionId": ProbeExtensionID}); err != nil {
			return seed, fmt.Errorf("self-test: configure the probe extension: %w", err)
		}
		seed.probe = ProbeExtensionID
		if err := installPackage(ctx, inv, work, pagePackage, PageExtensionID, true); err != nil {
			return seed, err
		}
		seed.page, seed.pageOn = PageExtensionID, true
	}
	return seed, nil
}

// installPackage writes the embedded package extensions/<name> under work
// as the folder id (with its manifest's hearth.id set to id, when it has a
// hearth block: a SillyTavern package's id is its folder's name), then
// installs it, enabled or not, and checks that it is active or disabled.
func installPackage(ctx context.Context, inv Invoker, work, name, id string, enable bool) error {
	dir := filepath.Join(work, id)
	if err := writePackage(dir, name, id); err != nil {
		return fmt.Errorf("self-test: write the extension %s: %w", id, err)
	}
	var entry struct {
		ID     string `json:"id"`
		Status string `json:"status"`
		Error  string `json:"error"`
	}
	if err := call(ctx, inv, &entry, "extensions.install", map[string]any{"path": dir}, map[string]any{"enable": enable}); err != nil {
		return fmt.Errorf("self-test: install the extension %s: %w", id, err)
	}
	want := "active"
	if !enable {
		want = "disabled"
	}
	if entry.ID != id || entry.Status != want {
		return fmt.Errorf("self-test: the extension %s installed as %q, %s %s", id, entry.ID, entry.Status, entry.Error)
	}
	return nil
}

// writePackage copies extensions/<name> into dir, rewriting hearth.id in
// its manifest to id (and its display name, so copies tell apart).
func writePackage(dir, name, id string) error {
	root := path.Join("extensions", name)
	return fs.WalkDir(extensionFiles, root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(filepath.FromSlash(root), filepath.FromSlash(p))
		target := filepath.Join(dir, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := extensionFiles.ReadFile(p)
		if err != nil {
			return err
		}
		if d.Name() == "manifest.json" {
			if data, err = renameManifest(data, id); err != nil {
				return err
			}
		}
		return os.WriteFile(target, data, 0o644)
	})
}

// renameManifest sets hearth.id to id and appends it to display_name. A
// manifest without a hearth block (a SillyTavern extension's) is kept as
// it is: its id is its folder's name.
func renameManifest(data []byte, id string) ([]byte, error) {
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, err
	}
	if _, ok := m["hearth"]; !ok {
		return data, nil
	}
	block, ok := m["hearth"].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("manifest.json's hearth block is not an object")
	}
	if block["id"] != id {
		block["id"] = id
		m["display_name"] = fmt.Sprintf("%v %s", m["display_name"], strings.TrimPrefix(id, BenchExtensionPrefix))
	}
	return json.MarshalIndent(m, "", "  ")
}

// checkExtensionChat reads the extensions' chat from Go: the forged
// bridge frame's chat.addMessages must have left nothing in it, whatever
// the page's script concluded.
func (s *Session) checkExtensionChat(ctx context.Context, inv Invoker) Check {
	c := Check{Name: "go: no message in the extensions' chat from a forged bridge message"}
	s.mu.Lock()
	chatID := s.ext.chatID
	s.mu.Unlock()
	var msgs []struct {
		Mes string `json:"mes"`
	}
	if err := call(context.WithoutCancel(ctx), inv, &msgs, "chat.getStMessages", chatID); err != nil {
		c.Detail = err.Error()
		return c
	}
	for i, m := range msgs {
		if strings.Contains(m.Mes, "PWNED") {
			c.Detail = fmt.Sprintf("message %d says %q", i, m.Mes)
			return c
		}
	}
	c.OK = true
	c.Detail = fmt.Sprintf("%d message(s), none PWNED", len(msgs))
	return c
}
