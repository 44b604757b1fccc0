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
// extensions/probe, the sandboxed extension of every run, and
// extensions/fan, the template of the extension bench mode's copies.
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
	v := strings.TrimSpace(getenv(ExtensionsEnv))
	if v == "" {
		return false, 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 || n > MaxBenchExtensions {
		return false, 0, fmt.Errorf("%s=%q: want a count of extensions from 0 to %d", ExtensionsEnv, v, MaxBenchExtensions)
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
}

func (e extensionSeed) info(benchMode bool) map[string]any {
	mode := "probe"
	if benchMode {
		mode = "bench"
	}
	return map[string]any{"mode": mode, "chatId": e.chatID, "probe": e.probe, "bench": append([]string{}, e.bench...)}
}

// seedExtensions creates the extensions' character and chat, then
// installs and enables either the probe (a normal run) or the bench
// mode's generated copies, each from a folder written under
// Options.PackageDir and removed once installed (the install copies it).
func (s *Session) seedExtensions(ctx context.Context, inv Invoker) (extensionSeed, error) {
	var seed extensionSeed
	if n := s.opts.BenchExtensions; n < 0 || n > MaxBenchExtensions {
		return seed, fmt.Errorf("self-test: %d bench extensions; at most %d", n, MaxBenchExtensions)
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
	if !s.opts.ExtensionBench {
		if err := installPackage(ctx, inv, work, "probe", ProbeExtensionID); err != nil {
			return seed, err
		}
		if err := call(ctx, inv, &struct{}{}, "extensions.storage.set", "config", map[string]any{"chatId": chat.ChatID},
			map[string]any{"extensionId": ProbeExtensionID}); err != nil {
			return seed, fmt.Errorf("self-test: configure the probe extension: %w", err)
		}
		seed.probe = ProbeExtensionID
		return seed, nil
	}
	seed.bench = BenchExtensionIDs(s.opts.BenchExtensions)
	for _, id := range seed.bench {
		if err := installPackage(ctx, inv, work, "fan", id); err != nil {
			return seed, err
		}
	}
	return seed, nil
}

// installPackage writes the embedded package extensions/<name> under work
// with its manifest's hearth.id set to id, then installs it enabled and
// checks that it is active.
func installPackage(ctx context.Context, inv Invoker, work, name, id string) error {
	dir := filepath.Join(work, id)
	if err := writePackage(dir, name, id); err != nil {
		return fmt.Errorf("self-test: write the extension %s: %w", id, err)
	}
	var entry struct {
		ID     string `json:"id"`
		Status string `json:"status"`
		Error  string `json:"error"`
	}
	if err := call(ctx, inv, &entry, "extensions.install", map[string]any{"path": dir}, map[string]any{"enable": true}); err != nil {
		return fmt.Errorf("self-test: install the extension %s: %w", id, err)
	}
	if entry.ID != id || entry.Status != "active" {
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

// renameManifest sets hearth.id to id and appends it to display_name.
func renameManifest(data []byte, id string) ([]byte, error) {
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, err
	}
	block, ok := m["hearth"].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("manifest.json has no hearth block")
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
