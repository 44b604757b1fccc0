package cards

import (
	"bytes"
	"testing"
)

// FuzzDecodePNG decodes arbitrary bytes as a PNG card, and arbitrary text
// as the chara chunk of a well-formed PNG (mutations of the first mostly
// stop at a CRC; the second reaches base64 and the card behind it). No
// panic, checkDecoded's promises hold, and an accepted card and its
// avatar come back unchanged from a PNG export.
func FuzzDecodePNG(f *testing.F) {
	for _, name := range []string{"v1_chara.png", "v2_chara.png", "v3_both.png", "ccv3_broken.png", "risu_assets.png"} {
		raw := readFile(f, "fixtures", name)
		f.Add(raw, "")
		f.Add(raw[:len(raw)/2], "")
	}
	img := testImage(f, 2, 2, 1)
	f.Add(img, b64([]byte(`{"name":"tiny"}`)))
	f.Add(withText(img, textPair{"ccv3", "e30"}, textPair{"chara", b64([]byte(`{"name":"fallback"}`))}), "e30=")
	f.Add(withText(img, textPair{"chara", "eyJuYW1lIjoi\nd3MifQ"}), "eyJuYW1lIjoi\nd3MifQ")
	f.Add(withText(img, textPair{"chara-ext-asset_:1", "AAAA"}, textPair{"ccv3", b64([]byte(`{"spec":"chara_card_v3","data":{"name":"r"}}`))}), "-_-_")
	f.Add(readFile(f, "fixtures", "v2_chara.png"), b64(readFile(f, "fixtures", "v3.json")))
	f.Fuzz(func(t *testing.T, raw []byte, chunkText string) {
		checkPNG(t, raw)
		checkPNG(t, withText(img, textPair{"chara", chunkText}))
	})
}

// checkPNG decodes raw as a PNG card and, when it is one, exports it and
// imports the export.
func checkPNG(t *testing.T, raw []byte) {
	imp, err := DecodePNG(raw)
	if !checkDecoded(t, imp, err) {
		return
	}
	if imp.ImageType != "image/png" {
		t.Fatalf("image type %q", imp.ImageType)
	}
	out, err := EncodePNG(imp.Data, imp.Image)
	if err != nil {
		t.Fatalf("the avatar of an accepted PNG cannot be exported: %v", err)
	}
	cardChunks(t, out)
	back, err := DecodePNG(out)
	if err != nil {
		t.Fatalf("the PNG export does not import: %v", err)
	}
	sameData(t, "a PNG export", imp.Data, back.Data)
	if !bytes.Equal(back.Image, imp.Image) {
		t.Fatal("the avatar changed through export")
	}
}
