package cards

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"strings"
	"testing"

	"hearth/backend/apperr"
	"hearth/backend/jsonx"
)

// sameData fails the test unless a and b encode to the same bytes.
func sameData(t testing.TB, what string, want, got jsonx.Object) {
	t.Helper()
	a, _ := want.MarshalJSON()
	b, _ := got.MarshalJSON()
	if !bytes.Equal(a, b) {
		t.Fatalf("%s changed the card:\nwant %s\n got %s", what, a, b)
	}
}

// cardChunks returns the decoded JSON of the chara and ccv3 chunks of an
// exported PNG, checking with the tests' own reader that each appears
// exactly once, before IEND, with valid CRCs.
func cardChunks(t testing.TB, out []byte) (v2, v3 map[string]any) {
	t.Helper()
	chunks := parseTestPNG(t, out)
	found := map[string][]int{}
	for i, c := range chunks {
		if c.typ != "tEXt" {
			continue
		}
		kw, text, _ := bytes.Cut(c.data, []byte{0})
		k := strings.ToLower(string(kw))
		found[k] = append(found[k], i)
		var card map[string]any
		switch k {
		case "chara":
			v2 = decodeChunkJSON(t, text, &card)
		case "ccv3":
			v3 = decodeChunkJSON(t, text, &card)
		}
	}
	if len(found["chara"]) != 1 || len(found["ccv3"]) != 1 {
		t.Fatalf("want one chara and one ccv3 chunk, got %v", found)
	}
	if iend := len(chunks) - 1; found["chara"][0] >= iend || found["ccv3"][0] >= iend {
		t.Fatal("card chunks after IEND")
	}
	return v2, v3
}

// decodable fails the test unless image/png reads b (for exports of
// avatars it reads; Decode does not check pixels, so fuzzed ones need not).
func decodable(t testing.TB, b []byte) {
	t.Helper()
	if _, err := png.Decode(bytes.NewReader(b)); err != nil {
		t.Fatalf("image/png cannot read the export: %v", err)
	}
}

func decodeChunkJSON(t testing.TB, text []byte, card *map[string]any) map[string]any {
	t.Helper()
	js, err := base64.StdEncoding.DecodeString(string(text))
	if err != nil {
		t.Fatalf("chunk is not base64: %v", err)
	}
	if err := json.Unmarshal(js, card); err != nil {
		t.Fatalf("chunk is not JSON: %v", err)
	}
	return *card
}

// TestExportImportIdentity exports every fixture's card as PNG, V2 JSON
// and V3 JSON and imports each export again: the data, and the avatar of
// a PNG export, come back unchanged and without warnings.
func TestExportImportIdentity(t *testing.T) {
	t.Parallel()
	for _, name := range fixtureNames(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			imp, err := Decode(name, readFile(t, "fixtures", name))
			if err != nil {
				t.Fatal(err)
			}
			out, err := EncodePNG(imp.Data, imp.Image)
			if err != nil {
				t.Fatal(err)
			}
			v2, v3 := cardChunks(t, out)
			decodable(t, out)
			checkMirrors(t, v2, SpecV2, "2.0")
			checkMirrors(t, v3, SpecV3, "3.0")
			back, err := Decode("export.png", out)
			if err != nil {
				t.Fatal(err)
			}
			sameData(t, "PNG export", imp.Data, back.Data)
			if back.Version != V3 || len(back.Warnings) != 0 {
				t.Errorf("re-import: version %d, warnings %q", back.Version, back.Warnings)
			}
			if imp.ImageType == "image/png" && !bytes.Equal(back.Image, imp.Image) {
				t.Error("the avatar changed through export")
			}
			for _, v := range []Version{V2, V3} {
				js, err := EncodeJSON(imp.Data, v)
				if err != nil {
					t.Fatal(err)
				}
				back, err := Decode("export.json", js)
				if err != nil {
					t.Fatal(err)
				}
				sameData(t, "JSON export", imp.Data, back.Data)
				if back.Version != v || len(back.Warnings) != 0 {
					t.Errorf("re-import: version %d (want %d), warnings %q", back.Version, v, back.Warnings)
				}
			}
		})
	}
}

// checkMirrors checks a written card's spec and that its V1 top-level
// fields mirror data, as SillyTavern's reader expects.
func checkMirrors(t testing.TB, card map[string]any, spec, version string) {
	t.Helper()
	if card["spec"] != spec || card["spec_version"] != version {
		t.Errorf("spec %v %v, want %s %s", card["spec"], card["spec_version"], spec, version)
	}
	data, _ := card["data"].(map[string]any)
	for _, k := range coreFields {
		if card[k] != data[k] {
			t.Errorf("%s: top level %q, data %q", k, card[k], data[k])
		}
	}
	if card["creatorcomment"] != data["creator_notes"] {
		t.Errorf("creatorcomment %q, creator_notes %q", card["creatorcomment"], data["creator_notes"])
	}
	if card["avatar"] != "none" || card["fav"] != false {
		t.Errorf("avatar %v fav %v", card["avatar"], card["fav"])
	}
	a, _ := json.Marshal(card["tags"])
	b, _ := json.Marshal(data["tags"])
	if !bytes.Equal(a, b) {
		t.Errorf("tags %s, data.tags %s", a, b)
	}
}

// TestEncodePNGReplacesCardChunks writes a card into a PNG that already
// carries one (and a RisuAI asset chunk): the old chunks go, the other
// chunks stay in their order, the new card is the one read back.
func TestEncodePNGReplacesCardChunks(t *testing.T) {
	t.Parallel()
	old := withText(testImage(t, 8, 8, 1),
		textPair{"Software", "x"}, textPair{"CHARA", b64([]byte(`{"name":"Old"}`))},
		textPair{"ccv3", b64([]byte(`{"spec":"chara_card_v3","data":{"name":"Old"}}`))},
		textPair{"chara-ext-asset_:0", b64([]byte("sprite"))}, textPair{"Comment", "y"})
	data := jsonx.Object{"name": jsonx.Raw("New")}
	out, err := EncodePNG(data, old)
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, c := range parseTestPNG(t, out) {
		if c.typ == "tEXt" {
			kw, _, _ := bytes.Cut(c.data, []byte{0})
			texts = append(texts, string(kw))
		}
	}
	if got := strings.Join(texts, ","); got != "Software,Comment,chara,ccv3" {
		t.Errorf("text chunks %s", got)
	}
	back, err := DecodePNG(out)
	if err != nil {
		t.Fatal(err)
	}
	if string(back.Data["name"]) != `"New"` {
		t.Errorf("name %s", back.Data["name"])
	}
	if len(back.Assets) != 0 {
		t.Errorf("the old asset chunk survived: %v", back.Assets)
	}
}

// TestEncodePNGImages covers the avatars EncodePNG accepts and refuses.
func TestEncodePNGImages(t *testing.T) {
	t.Parallel()
	var jpg bytes.Buffer
	src := image.NewRGBA(image.Rect(0, 0, 10, 6))
	src.Set(1, 1, color.RGBA{R: 200, A: 255})
	if err := jpeg.Encode(&jpg, src, nil); err != nil {
		t.Fatal(err)
	}
	corrupt := testImage(t, 4, 4, 1)
	corrupt[len(corrupt)-20] ^= 0xff
	data := jsonx.Object{"name": jsonx.Raw("Img")}
	for _, tc := range []struct {
		name   string
		image  []byte
		w, h   int
		reason string
	}{
		{name: "none: the default avatar", w: DefaultAvatarWidth, h: DefaultAvatarHeight},
		{name: "png", image: testImage(t, 5, 7, 2), w: 5, h: 7},
		{name: "jpeg converted", image: jpg.Bytes(), w: 10, h: 6},
		{name: "webp refused", image: []byte("RIFF\x10\x00\x00\x00WEBPVP8 \x04\x00\x00\x00abcd"), reason: "format"},
		{name: "text refused", image: []byte("hello"), reason: "format"},
		{name: "corrupt png refused", image: corrupt, reason: "png_crc"},
		{name: "truncated png refused", image: testImage(t, 4, 4, 1)[:40], reason: "png_truncated"},
		{name: "corrupt jpeg refused", image: jpg.Bytes()[:30], reason: "corrupt"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out, err := EncodePNG(data, tc.image)
			if tc.reason != "" {
				e := apperr.As(err)
				if e == nil || e.Code != CodeImageUnsupported || e.Details["reason"] != tc.reason {
					t.Fatalf("want %s/%s, got %v", CodeImageUnsupported, tc.reason, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			cardChunks(t, out)
			decodable(t, out)
			cfg, err := png.DecodeConfig(bytes.NewReader(out))
			if err != nil || cfg.Width != tc.w || cfg.Height != tc.h {
				t.Fatalf("config %+v, %v; want %d×%d", cfg, err, tc.w, tc.h)
			}
		})
	}
}

// TestExportFillsDefaults: a card made in Hearth with only some fields
// exports with every V2 field and imports as the normalized card.
func TestExportFillsDefaults(t *testing.T) {
	t.Parallel()
	data := jsonx.Object{"name": jsonx.Raw("Bare"), "x_custom": json.RawMessage(`{"a": [1, 2]}`)}
	out, err := EncodeJSON(data, V2)
	if err != nil {
		t.Fatal(err)
	}
	var card struct {
		Data map[string]json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(out, &card); err != nil {
		t.Fatal(err)
	}
	for _, k := range append(stringFields, "alternate_greetings", "tags", "extensions", "group_only_greetings") {
		if _, ok := card.Data[k]; !ok {
			t.Errorf("data.%s missing", k)
		}
	}
	if string(compact(card.Data["x_custom"])) != `{"a":[1,2]}` {
		t.Errorf("x_custom %s", card.Data["x_custom"])
	}
	back, err := DecodeJSON(out)
	if err != nil {
		t.Fatal(err)
	}
	again, err := EncodeJSON(back.Data, V2)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, again) {
		t.Errorf("a second export differs:\n%s\n%s", out, again)
	}
	if _, err := MarshalCard(data, V1); err == nil {
		t.Error("MarshalCard wrote a V1 card")
	}
}
