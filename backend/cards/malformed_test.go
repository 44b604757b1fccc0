package cards

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"encoding/binary"
	"hash/crc32"
	"strings"
	"testing"

	"hearth/backend/apperr"
)

// nested is a JSON value n levels of arrays deep around 0.
func nested(n int) string {
	return strings.Repeat("[", n) + "0" + strings.Repeat("]", n)
}

// rawChunk is a PNG chunk with any type and a correct CRC.
func rawChunk(typ string, data []byte) []byte {
	out := binary.BigEndian.AppendUint32(nil, uint32(len(data)))
	out = append(out, typ...)
	out = append(out, data...)
	return binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(append([]byte(typ), data...)))
}

// liarZip holds card.json and an entry whose header claims size bytes
// unpacked while it holds actual deflated zeros.
func liarZip(t *testing.T, claimed uint64, actual int) []byte {
	t.Helper()
	var comp bytes.Buffer
	fw, err := flate.NewWriter(&comp, flate.BestCompression)
	if err != nil {
		t.Fatal(err)
	}
	zeros := make([]byte, actual)
	if _, err := fw.Write(zeros); err != nil {
		t.Fatal(err)
	}
	if err := fw.Close(); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, _ := zw.Create("card.json")
	_, _ = w.Write([]byte(`{"spec":"chara_card_v3","data":{"name":"L","assets":[{"type":"x","uri":"embeded://big.bin","name":"b","ext":"bin"}]}}`))
	raw, err := zw.CreateRaw(&zip.FileHeader{Name: "big.bin", Method: zip.Deflate,
		CRC32: crc32.ChecksumIEEE(zeros), CompressedSize64: uint64(comp.Len()), UncompressedSize64: claimed})
	if err != nil {
		t.Fatal(err)
	}
	_, _ = raw.Write(comp.Bytes())
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestMalformed feeds broken and hostile files to the decoder: each is a
// card.invalid error with the expected reason, never a panic.
func TestMalformed(t *testing.T) {
	t.Parallel()
	goodPNG := readFile(t, "fixtures", "v2_chara.png")
	badCRC := bytes.Clone(goodPNG)
	badCRC[len(badCRC)-40] ^= 0x01
	img := testImage(t, 4, 4, 1)
	iend := len(img) - 12
	card := func(js string) []byte { return withText(img, textPair{"chara", b64([]byte(js))}) }
	many := img[:iend:iend]
	for range MaxPNGChunks {
		many = append(many, rawChunk("tEXt", []byte("a\x00b"))...)
	}
	many = append(many, img[iend:]...)
	manyFiles := make([][2]string, 0, MaxZipEntries+1)
	manyFiles = append(manyFiles, [2]string{"card.json", `{"spec":"chara_card_v3","data":{"name":"M"}}`})
	for i := range MaxZipEntries {
		manyFiles = append(manyFiles, [2]string{"f" + string(rune('a'+i%26)) + strings.Repeat("x", i/26), ""})
	}
	bigAsset := `{"spec":"chara_card_v3","data":{"name":"B","assets":[{"type":"x","uri":"embeded://a","name":"a"},{"type":"x","uri":"embeded://b","name":"b"}]}}`
	storedCard := func() []byte {
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		w, _ := zw.CreateHeader(&zip.FileHeader{Name: "card.json", Method: zip.Store})
		_, _ = w.Write([]byte(`{"spec":"chara_card_v3","data":{"name":"Stored"}}`))
		_ = zw.Close()
		b := buf.Bytes()
		i := bytes.Index(b, []byte("Stored"))
		b[i] = 's' // the content no longer matches its CRC
		return b
	}()
	small := defaultLimits
	small.fileBytes, small.cardBytes, small.dataBytes, small.pngChunks = 8192, 1024, 800, 4
	small.zipEntries, small.zipEntry, small.zipTotal = 3, 1000, 1500

	for _, tc := range []struct {
		name, file string
		raw        []byte
		lim        *limits
		reason     string
	}{
		// Any format.
		{name: "file over the cap", file: "big.png", raw: make([]byte, 9000), lim: &small, reason: "too_large"},
		{name: "unknown format", file: "card.webp", raw: []byte("RIFF....WEBP"), reason: "format"},
		{name: "empty file without extension", file: "card", raw: nil, reason: "format"},

		// PNG structure.
		{name: "png signature", file: "card.png", raw: []byte("GIF89a not a png"), reason: "png_signature"},
		{name: "png truncated mid-chunk", file: "card.png", raw: goodPNG[:len(goodPNG)-30], reason: "png_truncated"},
		{name: "png without IEND", file: "card.png", raw: goodPNG[:len(goodPNG)-12], reason: "png_truncated"},
		{name: "png signature only", file: "card.png", raw: pngSignature, reason: "png_truncated"},
		{name: "png bad CRC", file: "card.png", raw: badCRC, reason: "png_crc"},
		{name: "png chunk claims 2^31-1 bytes", file: "card.png",
			raw: append(bytes.Clone(img[:33]), 0x7f, 0xff, 0xff, 0xff, 't', 'E', 'X', 't', 0, 0, 0, 0), reason: "png_truncated"},
		{name: "png chunk length past the PNG limit", file: "card.png",
			raw: append(bytes.Clone(img[:33]), 0x80, 0, 0, 0, 't', 'E', 'X', 't', 0, 0, 0, 0), reason: "png_chunk"},
		{name: "png bad chunk type", file: "card.png", raw: append(bytes.Clone(img[:33]), rawChunk("a1b2", nil)...), reason: "png_chunk"},
		{name: "png not starting with IHDR", file: "card.png", raw: append(bytes.Clone(pngSignature), rawChunk("tEXt", []byte("chara\x00e30="))...), reason: "png_chunk"},
		{name: "png too many chunks", file: "card.png", raw: many, reason: "too_many_chunks"},
		{name: "png too many chunks, small cap", file: "card.png", raw: withText(img, textPair{"a", ""}, textPair{"b", ""}), lim: &small, reason: "too_many_chunks"},

		// PNG card content.
		{name: "png without a card", file: "card.png", raw: img, reason: "no_card"},
		{name: "png bad base64", file: "card.png", raw: withText(img, textPair{"chara", "@@@@"}), reason: "base64"},
		{name: "png card over the cap", file: "card.png", raw: card(`{"name":"` + strings.Repeat("x", 1100) + `"}`), lim: &small, reason: "too_large"},
		{name: "json data over its cap", file: "card.json", raw: []byte(`{"name":"` + strings.Repeat("x", 300) + `"}`),
			lim: &limits{fileBytes: 8192, cardBytes: 4096, dataBytes: 300, pngChunks: 100, maxDataDepth: 64}, reason: "too_large"},
		{name: "png card not JSON", file: "card.png", raw: card(`{"name":`), reason: "json"},
		{name: "png card is an array", file: "card.png", raw: card(`[{"name":"x"}]`), reason: "not_object"},
		{name: "png card nests too deep", file: "card.png", raw: card(`{"name":"x","data":` + nested(80) + `}`), reason: "too_deep"},
		{name: "png broken ccv3 and chara", file: "card.png", raw: withText(img, textPair{"ccv3", "!!"}, textPair{"chara", "??"}), reason: "base64"},

		// JSON.
		{name: "json empty", file: "card.json", raw: []byte(" \n"), reason: "json"},
		{name: "json string", file: "card.json", raw: []byte(`"a card"`), reason: "not_object"},
		{name: "json array", file: "card.json", raw: []byte(`[]`), reason: "not_object"},
		{name: "json number", file: "card.json", raw: []byte(`42`), reason: "not_object"},
		{name: "json null", file: "card.json", raw: []byte(`null`), reason: "not_object"},
		{name: "json truncated", file: "card.json", raw: []byte(`{"name": "x"`), reason: "json"},
		{name: "json trailing garbage", file: "card.json", raw: []byte(`{"name": "x"} {}`), reason: "json"},
		{name: "json too deep before decoding", file: "card.json", raw: []byte(`{"name":"x","a":` + nested(70) + `}`), reason: "too_deep"},
		{name: "json data too deep after flattening", file: "card.json", raw: []byte(`{"name":"x","talkativeness":` + nested(64) + `}`), reason: "too_deep"},
		{name: "json v2 data too deep", file: "card.json", raw: []byte(`{"spec":"chara_card_v2","data":{"name":"x","extensions":{"a":` + nested(63) + `}}}`), reason: "too_deep"},
		{name: "json not a card", file: "card.json", raw: []byte(`{"description":"no name"}`), reason: "spec"},
		{name: "json lorebook", file: "card.json", raw: []byte(`{"spec":"lorebook_v3","data":{"entries":[]}}`), reason: "spec"},
		{name: "json unknown spec", file: "card.json", raw: []byte(`{"spec":"chara_card_v9","data":{"name":"x"}}`), reason: "spec"},
		{name: "json spec not a string", file: "card.json", raw: []byte(`{"spec":2,"data":{"name":"x"}}`), reason: "spec"},
		{name: "json spec without data", file: "card.json", raw: []byte(`{"spec":"chara_card_v2","name":"x"}`), reason: "no_data"},
		{name: "json data not an object", file: "card.json", raw: []byte(`{"spec":"chara_card_v3","data":"x"}`), reason: "no_data"},
		{name: "json blank name", file: "card.json", raw: []byte(`{"spec":"chara_card_v2","data":{"name":"  "}}`), reason: "no_name"},
		{name: "json v1 empty name", file: "card.json", raw: []byte(`{"name":""}`), reason: "no_name"},
		{name: "json name an object", file: "card.json", raw: []byte(`{"spec":"chara_card_v2","data":{"name":{}}}`), reason: "field_type"},
		{name: "json description a list", file: "card.json", raw: []byte(`{"spec":"chara_card_v2","data":{"name":"x","description":["a"]}}`), reason: "field_type"},
		{name: "json tags an object", file: "card.json", raw: []byte(`{"spec":"chara_card_v2","data":{"name":"x","tags":{"a":1}}}`), reason: "field_type"},
		{name: "json greetings holding a list", file: "card.json", raw: []byte(`{"spec":"chara_card_v2","data":{"name":"x","alternate_greetings":[["a"]]}}`), reason: "field_type"},
		{name: "json over the card cap", file: "card.json", raw: []byte(`{"name":"` + strings.Repeat("x", 1100) + `"}`), lim: &small, reason: "too_large"},

		// CHARX.
		{name: "charx not a zip", file: "card.charx", raw: []byte("hello"), reason: "zip"},
		{name: "charx zip header then garbage", file: "card.charx", raw: []byte("PK\x03\x04garbage"), reason: "zip"},
		{name: "charx without card.json", file: "card.charx", raw: testZip(t, [2]string{"other.json", "{}"}), reason: "no_card_json"},
		{name: "charx card.json in a folder", file: "card.charx", raw: testZip(t, [2]string{"x/card.json", `{"spec":"chara_card_v3","data":{"name":"x"}}`}), reason: "no_card_json"},
		{name: "charx v1 card", file: "card.charx", raw: testZip(t, [2]string{"card.json", `{"name":"x"}`}), reason: "spec"},
		{name: "charx card.json not JSON", file: "card.charx", raw: testZip(t, [2]string{"card.json", `{`}), reason: "json"},
		{name: "charx card.json too deep", file: "card.charx", raw: testZip(t, [2]string{"card.json", `{"spec":"chara_card_v3","data":{"name":"x","a":` + nested(70) + `}}`}), reason: "too_deep"},
		{name: "charx card.json over the cap", file: "card.charx", raw: testZip(t, [2]string{"card.json", `{"spec":"chara_card_v3","data":{"name":"` + strings.Repeat("x", 1100) + `"}}`}), lim: &small, reason: "too_large"},
		{name: "charx corrupt entry", file: "card.charx", raw: storedCard, reason: "zip"},
		{name: "charx too many entries", file: "card.charx", raw: testZip(t, manyFiles...), reason: "too_many_entries"},
		{name: "charx too many entries, small cap", file: "card.charx", raw: testZip(t, [2]string{"card.json", "{}"}, [2]string{"a", ""}, [2]string{"b", ""}, [2]string{"c", ""}), lim: &small, reason: "too_many_entries"},
		{name: "charx entry over the per-file cap", file: "card.charx", raw: testZip(t, [2]string{"card.json", bigAsset}, [2]string{"a", strings.Repeat("\x00", 1001)}), lim: &small, reason: "zip_bomb"},
		{name: "charx entries over the total cap", file: "card.charx", raw: testZip(t, [2]string{"card.json", bigAsset}, [2]string{"a", strings.Repeat("\x00", 900)}, [2]string{"b", strings.Repeat("\x00", 900)}), lim: &small, reason: "zip_bomb"},
		{name: "charx entry claiming a terabyte", file: "card.charx", raw: liarZip(t, 1<<40, 10), reason: "zip_bomb"},
		{name: "charx entry larger than it claims", file: "card.charx", raw: liarZip(t, 10, 5000), reason: "zip"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			lim := defaultLimits
			if tc.lim != nil {
				lim = *tc.lim
			}
			imp, err := decode(tc.file, tc.raw, lim)
			e := apperr.As(err)
			if e == nil {
				t.Fatalf("want card.invalid/%s, got %v (%+v)", tc.reason, err, imp)
			}
			if e.Code != CodeInvalid || e.Details["reason"] != tc.reason {
				t.Fatalf("want card.invalid/%s, got %s/%v: %s", tc.reason, e.Code, e.Details["reason"], e.Message)
			}
			if e.Message == "" {
				t.Error("empty message")
			}
		})
	}
}

// TestLayoutDoesNotCount: the card cap applies to the compact card, so
// indentation and trailing blanks do not push a card over it.
func TestLayoutDoesNotCount(t *testing.T) {
	t.Parallel()
	lim := defaultLimits
	lim.cardBytes = 64
	raw := []byte("{\n    \"spec\": \"chara_card_v2\",\n    \"data\": {\n        \"name\": \"x\"\n    }\n}" + strings.Repeat(" ", 600))
	if _, err := decode("card.json", raw, lim); err != nil {
		t.Fatal(err)
	}
}

// TestDecodeNamesTheFile: the public Decode puts the file name in the
// message and details, and enforces MaxFileBytes.
func TestDecodeNamesTheFile(t *testing.T) {
	t.Parallel()
	_, err := Decode("Huge.png", make([]byte, MaxFileBytes+1))
	e := apperr.As(err)
	if e == nil || e.Details["reason"] != "too_large" || e.Details["fileName"] != "Huge.png" || !strings.HasPrefix(e.Message, "Huge.png: ") {
		t.Fatalf("got %v", err)
	}
	_, err = DecodePNG(make([]byte, MaxFileBytes+1))
	if e := apperr.As(err); e == nil || e.Details["reason"] != "too_large" {
		t.Fatalf("DecodePNG: got %v", err)
	}
	_, err = DecodeCHARX(make([]byte, MaxFileBytes+1))
	if e := apperr.As(err); e == nil || e.Details["reason"] != "too_large" {
		t.Fatalf("DecodeCHARX: got %v", err)
	}
}
