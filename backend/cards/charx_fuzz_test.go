package cards

import "testing"

// FuzzDecodeCHARX decodes arbitrary bytes as a CHARX archive: no panic,
// checkDecoded's promises hold, every asset has content, and an accepted
// card comes back unchanged from a PNG export.
func FuzzDecodeCHARX(f *testing.F) {
	raw := readFile(f, "fixtures", "card.charx")
	f.Add(raw)
	f.Add(raw[:len(raw)-10])
	f.Add(testZip(f, [2]string{"card.json", `{"spec":"chara_card_v2","data":{"name":"z"}}`}))
	f.Add(testZip(f,
		[2]string{"card.json", `{"spec":"chara_card_v3","data":{"name":"z","assets":[{"type":"icon","uri":"embeded://i.png","name":"main"},{"type":"x","uri":"__asset:/i.png"}]}}`},
		[2]string{"i.png", string(testImage(f, 2, 2, 1))}))
	f.Add(testZip(f, [2]string{"card.json", `{"name":"v1"}`}))
	f.Add([]byte("PK\x05\x06" + string(make([]byte, 18))))
	f.Fuzz(func(t *testing.T, raw []byte) {
		imp, err := DecodeCHARX(raw)
		if !checkDecoded(t, imp, err) {
			return
		}
		for _, a := range imp.Assets {
			if a.Data == nil || a.Path == "" {
				t.Fatalf("asset without content or path: %+v", a)
			}
		}
		if (imp.Image == nil) != (imp.ImageType == "") {
			t.Fatalf("image %d bytes, type %q", len(imp.Image), imp.ImageType)
		}
		out, err := EncodePNG(imp.Data, nil)
		if err != nil {
			t.Fatal(err)
		}
		back, err := DecodePNG(out)
		if err != nil {
			t.Fatalf("the PNG export does not import: %v", err)
		}
		sameData(t, "a PNG export", imp.Data, back.Data)
	})
}
