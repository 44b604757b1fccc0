package library_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"hearth/backend/app"
	"hearth/backend/cards"
	"hearth/backend/internal/chatgen"
	"hearth/backend/jsonx"
)

// The committed fixture (testdata/default-user) holds the hand-written,
// format-varied files; generated() adds the bulk deterministically.
const (
	fixtureCards     = 10 // characters/*.png|json in testdata
	fixtureChats     = 4  // chats owned by a fixture card (chats/Nobody has none)
	fixtureLorebooks = 5
	fixturePersonas  = 3
	fixturePresets   = 2
	// groups/: a current group (header-line chats) and a legacy one
	// (metadata in the group file); a third, refused, is kept as a file,
	// with the group chat no group names.
	fixtureGroups        = 2
	fixtureGroupChats    = 4
	fixtureGroupFiles    = 2
	fixtureGroupMessages = 2 + 3 + 2 + 3
	fixtureMessages      = 4 + 3 + 2 + 2
	// extensions/Echo Notes in the user folder, and testdata/install's
	// global public/scripts/extensions/third-party/Clockwork, which only
	// an import of the install reaches.
	fixtureUserExtensions   = 1
	fixtureGlobalExtensions = 1

	generatedCards     = 12
	generatedChatsEach = 4  // per generated card, plus the big chat
	generatedMessages  = 20 // per small generated chat
	bigChatMessages    = 5000
)

// openApp opens a whole app on a fresh data dir (real SQLite).
func openApp(t testing.TB) *app.App {
	t.Helper()
	a, err := app.Open(t.Context(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Close() })
	return a
}

// copyTree copies the folder src into dst.
func copyTree(t testing.TB, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// install copies the fixture into a new SillyTavern install layout (the
// user folder, and testdata/install's global extension) and returns the
// install's folder and its user folder.
func install(t testing.TB) (installDir, userDir string) {
	t.Helper()
	installDir = t.TempDir()
	userDir = filepath.Join(installDir, "data", "default-user")
	copyTree(t, filepath.Join("testdata", "default-user"), userDir)
	copyTree(t, filepath.Join("testdata", "install"), installDir)
	return installDir, userDir
}

// writeFile writes a test file, making its folder.
func writeFile(t testing.TB, p string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// testPNG is a small w×h picture.
func testPNG(t testing.TB, w, h int, seed uint8) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.NRGBA{R: uint8(x*40) ^ seed, G: uint8(y * 40), B: seed, A: 255})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// generated adds generatedCards PNG cards to the user folder, with
// generatedChatsEach chats of generatedMessages each, and one chat of
// bigChatMessages to the first. It returns the messages it added.
func generated(t testing.TB, userDir string, bigBodyChars int) int {
	t.Helper()
	total := 0
	for i := range generatedCards {
		name := fmt.Sprintf("Gen %02d", i)
		data := jsonx.Object{}
		data.Set("name", name)
		data.Set("description", fmt.Sprintf("Generated character %d.", i))
		data.Set("first_mes", "Hello from "+name+".")
		data.Set("tags", []string{"generated"})
		card, err := cards.EncodePNG(data, testPNG(t, 8, 8, uint8(i)))
		if err != nil {
			t.Fatal(err)
		}
		fileStem := fmt.Sprintf("gen_%02d", i)
		writeFile(t, filepath.Join(userDir, "characters", fileStem+".png"), card)
		chats := generatedChatsEach
		for c := range chats {
			opts := chatgen.Options{Seed: uint64(i*100 + c + 1), Messages: generatedMessages, BodyChars: 200, Swipes: 2, UserName: "Wren", CharName: name}
			writeChat(t, filepath.Join(userDir, "chats", fileStem, fmt.Sprintf("%s - chat %d.jsonl", name, c)), opts)
			total += generatedMessages
		}
		if i == 0 {
			opts := chatgen.Options{Seed: 4242, Messages: bigChatMessages, BodyChars: bigBodyChars, Swipes: 2, UserName: "Wren", CharName: name}
			writeChat(t, filepath.Join(userDir, "chats", fileStem, name+" - the long one.jsonl"), opts)
			total += bigChatMessages
		}
	}
	return total
}

func writeChat(t testing.TB, p string, opts chatgen.Options) {
	t.Helper()
	text, err := chatgen.JSONL(opts, map[string]any{"integrity": fmt.Sprint(opts.Seed)}, chatgen.Messages(opts))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, p, text)
}

// jsonEqual compares two JSON texts as values.
func jsonEqual(t testing.TB, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatalf("not JSON: %v: %.200s", err, a)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatalf("not JSON: %v: %.200s", err, b)
	}
	ja, _ := json.Marshal(x)
	jb, _ := json.Marshal(y)
	return bytes.Equal(ja, jb)
}
