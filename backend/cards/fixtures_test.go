package cards

import (
	"archive/zip"
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"flag"
	"hash/crc32"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// update rewrites the fixtures and golden files from what the code makes
// now: go test ./backend/cards -run 'Fixtures|Golden' -update, then review
// the diff.
var update = flag.Bool("update", false, "rewrite testdata/fixtures (binary ones) and testdata/golden")

// readFile reads a file under testdata.
func readFile(t testing.TB, elem ...string) []byte {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(append([]string{"testdata"}, elem...)...))
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// fixtureNames lists testdata/fixtures, sorted.
func fixtureNames(t testing.TB) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join("testdata", "fixtures"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return names
}

// testImage is a small w×h PNG with a gradient, written by image/png.
func testImage(t testing.TB, w, h int, seed uint8) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.NRGBA{R: uint8(x*255/max(w-1, 1)) ^ seed, G: uint8(y * 255 / max(h-1, 1)), B: seed, A: 255})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// textPair is a tEXt chunk's keyword and text.
type textPair struct{ keyword, text string }

// withText inserts tEXt chunks before the IEND of a PNG that image/png
// wrote (its last 12 bytes are IEND). It shares no code with the package,
// so the reader is checked against an independent writer.
func withText(pngBytes []byte, texts ...textPair) []byte {
	iend := len(pngBytes) - 12
	out := append([]byte{}, pngBytes[:iend]...)
	for _, tp := range texts {
		data := append(append([]byte(tp.keyword), 0), tp.text...)
		var hdr [8]byte
		binary.BigEndian.PutUint32(hdr[:4], uint32(len(data)))
		copy(hdr[4:], "tEXt")
		out = append(out, hdr[:]...)
		out = append(out, data...)
		out = binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(append([]byte("tEXt"), data...)))
	}
	return append(out, pngBytes[iend:]...)
}

// b64 is base64 of s.
func b64(s []byte) string { return base64.StdEncoding.EncodeToString(s) }

// testChunk is one chunk as the test reader sees it.
type testChunk struct {
	typ  string
	data []byte
}

// parseTestPNG is the tests' own chunk reader: it fails the test on a bad
// signature, length or CRC, or a missing IEND at the end.
func parseTestPNG(t testing.TB, b []byte) []testChunk {
	t.Helper()
	if !bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")) {
		t.Fatal("no PNG signature")
	}
	var out []testChunk
	for pos := 8; pos < len(b); {
		if len(b)-pos < 12 {
			t.Fatalf("truncated chunk at %d", pos)
		}
		n := int(binary.BigEndian.Uint32(b[pos:]))
		if pos+12+n > len(b) {
			t.Fatalf("chunk at %d overruns the file", pos)
		}
		body := b[pos+4 : pos+8+n]
		if crc32.ChecksumIEEE(body) != binary.BigEndian.Uint32(b[pos+8+n:]) {
			t.Fatalf("bad CRC on %s at %d", body[:4], pos)
		}
		out = append(out, testChunk{typ: string(body[:4]), data: body[4:]})
		pos += 12 + n
	}
	if len(out) == 0 || out[len(out)-1].typ != "IEND" {
		t.Fatal("the PNG does not end with IEND")
	}
	return out
}

// testZip builds a zip from name/content pairs, in order.
func testZip(t testing.TB, files ...[2]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range files {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: f[0], Method: zip.Deflate})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(f[1])); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// binaryFixtures builds the PNG and CHARX fixtures from the JSON ones.
func binaryFixtures(t testing.TB) map[string][]byte {
	v1 := readFile(t, "fixtures", "v1.json")
	v2 := readFile(t, "fixtures", "v2.json")
	v3 := readFile(t, "fixtures", "v3.json")
	backfill := readFile(t, "src", "v2_backfill.json")
	charx := readFile(t, "src", "charx_card.json")
	risu := readFile(t, "src", "risu_card.json")
	return map[string][]byte{
		// An old TavernAI card: a V1 object in chara.
		"v1_chara.png": withText(testImage(t, 8, 12, 1), textPair{"chara", b64(v1)}),
		// A V2 card as SillyTavern wrote them before V3, beside an
		// unrelated text chunk that must stay in the image.
		"v2_chara.png": withText(testImage(t, 8, 12, 2), textPair{"Software", "hearth tests"}, textPair{"chara", b64(v2)}),
		// A V3 card with a V2 backfill: ccv3 wins, whatever the order.
		"v3_both.png": withText(testImage(t, 8, 12, 3), textPair{"ccv3", b64(v3)}, textPair{"Chara", b64(backfill)}),
		// A broken ccv3 with a good chara: chara is used, with a warning.
		"ccv3_broken.png": withText(testImage(t, 8, 12, 4), textPair{"chara", b64(v2)}, textPair{"ccv3", "not*base64"}),
		// RisuAI's asset chunk, listed in the card as __asset:0.
		"risu_assets.png": withText(testImage(t, 8, 12, 5), textPair{"ccv3", b64(risu)}, textPair{"chara-ext-asset_:0", b64(testImage(t, 4, 4, 6))}),
		// A CHARX archive: the main icon becomes the avatar, the other
		// listed files come back as assets, forest.jpg is missing.
		"card.charx": testZip(t,
			[2]string{"card.json", string(charx)},
			[2]string{"assets/icon/images/main.png", string(testImage(t, 16, 16, 7))},
			[2]string{"assets/icon/images/alt.png", string(testImage(t, 16, 16, 8))},
			[2]string{"assets/emotion/images/happy.png", string(testImage(t, 8, 8, 9))},
			[2]string{"x_meta/1.json", `{"app":"data"}`},
		),
	}
}

// TestGenerateFixtures writes the binary fixtures (with -update only):
// they are committed so they can be opened in other tools too.
func TestGenerateFixtures(t *testing.T) {
	if !*update {
		t.Skip("run with -update to rewrite the binary fixtures")
	}
	for name, raw := range binaryFixtures(t) {
		if err := os.WriteFile(filepath.Join("testdata", "fixtures", name), raw, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
