package cards

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math/rand/v2"
	"strings"
	"testing"

	"hearth/backend/jsonx"
)

// typicalCard is a card as they come from card sites: a 400×600 avatar
// with photo-like noise (~0.5 MB of PNG), a few KB of description and
// greetings, and a 40-entry lorebook; the fixture's extensions besides.
func typicalCard(b *testing.B) (data jsonx.Object, pngCard []byte) {
	b.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	img := image.NewNRGBA(image.Rect(0, 0, 400, 600))
	for y := range 600 {
		for x := range 400 {
			n := uint8(rng.IntN(24))
			img.Set(x, y, color.NRGBA{R: uint8(x*255/400) + n, G: uint8(y*255/600) + n, B: 128 + n, A: 255})
		}
	}
	var avatar bytes.Buffer
	if err := png.Encode(&avatar, img); err != nil {
		b.Fatal(err)
	}
	imp, err := Decode("v2.json", readFile(b, "fixtures", "v2.json"))
	if err != nil {
		b.Fatal(err)
	}
	data = imp.Data
	para := strings.Repeat("Seraphina tends the wounded with herbs and quiet songs. ", 12)
	data["description"] = rawJSON(strings.Repeat(para+"\n\n", 6))
	data["first_mes"] = rawJSON(strings.Repeat(para, 3))
	data["alternate_greetings"] = rawJSON([]string{para, para + para, para})
	entries := make([]map[string]any, 40)
	for i := range entries {
		entries[i] = map[string]any{
			"keys": []string{fmt.Sprintf("place%d", i), "glade"}, "content": para, "extensions": map[string]any{"position": 0, "depth": 4},
			"enabled": true, "insertion_order": 100 + i, "id": i, "comment": fmt.Sprintf("entry %d", i), "position": "before_char",
		}
	}
	book, _ := json.Marshal(map[string]any{"name": "Glade", "extensions": map[string]any{}, "entries": entries})
	data["character_book"] = book
	pngCard, err = EncodePNG(data, avatar.Bytes())
	if err != nil {
		b.Fatal(err)
	}
	return data, pngCard
}

// BenchmarkImportCard decodes a typical PNG card: chunk walk with CRCs,
// base64, JSON, normalization and the avatar without its card chunks.
func BenchmarkImportCard(b *testing.B) {
	_, raw := typicalCard(b)
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Decode("card.png", raw); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "cards/s")
}

// BenchmarkExportPNG writes the same card into its avatar.
func BenchmarkExportPNG(b *testing.B) {
	_, raw := typicalCard(b)
	imp, err := Decode("card.png", raw)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := EncodePNG(imp.Data, imp.Image); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "cards/s")
}
