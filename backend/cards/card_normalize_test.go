package cards

import (
	"encoding/json"
	"testing"

	"hearth/backend/jsonx"
)

// TestNormalize pins how each field is repaired, and that normalizing the
// result again changes nothing and warns of nothing.
func TestNormalize(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, in, field, want string
		warnings              int
	}{
		{"missing string", `{}`, "description", `""`, 0},
		{"null string", `{"description":null}`, "description", `""`, 0},
		{"number string", `{"character_version":2.50}`, "character_version", `"2.50"`, 1},
		{"boolean string", `{"creator":false}`, "creator", `"false"`, 1},
		{"string kept with its escapes", `{"scenario":"a\u00e9 \"q\""}`, "scenario", `"a\u00e9 \"q\""`, 0},
		{"missing list", `{}`, "alternate_greetings", `[]`, 0},
		{"greeting string", `{"alternate_greetings":"Hi"}`, "alternate_greetings", `["Hi"]`, 1},
		{"empty greeting string", `{"alternate_greetings":""}`, "alternate_greetings", `[]`, 1},
		{"tags string split", `{"tags":" a ,b,,c"}`, "tags", `["a","b","c"]`, 1},
		{"list cleaned", `{"tags":["a",null,1,true]}`, "tags", `["a","1","true"]`, 1},
		{"list kept", `{"group_only_greetings":[ "x" , "<y>&" ]}`, "group_only_greetings", `["x","<y>&"]`, 0},
		{"extensions kept compact", `{"extensions":{ "a" : [ 1.0 ] }}`, "extensions", `{"a":[1.0]}`, 0},
		{"extensions not an object", `{"extensions":"x"}`, "extensions", `{}`, 1},
		{"book null dropped", `{"character_book":null}`, "character_book", ``, 0},
		{"book not an object dropped", `{"character_book":[]}`, "character_book", ``, 1},
		{"v3 field kept", `{"creation_date": 1.7e9}`, "creation_date", `1.7e9`, 0},
		{"unknown field kept", `{"x_y":{"z":[null]}}`, "x_y", `{"z":[null]}`, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var data jsonx.Object
			if err := json.Unmarshal([]byte(tc.in), &data); err != nil {
				t.Fatal(err)
			}
			var warnings []string
			if err := normalize(data, &warnings); err != nil {
				t.Fatal(err)
			}
			if got := string(data[tc.field]); got != tc.want {
				t.Errorf("%s = %s, want %s", tc.field, got, tc.want)
			}
			if len(warnings) != tc.warnings {
				t.Errorf("warnings %q, want %d", warnings, tc.warnings)
			}
			before, _ := data.MarshalJSON()
			warnings = nil
			if err := normalize(data, &warnings); err != nil || len(warnings) != 0 {
				t.Fatalf("second pass: %v %q", err, warnings)
			}
			if after, _ := data.MarshalJSON(); string(after) != string(before) {
				t.Errorf("second pass changed %s to %s", before, after)
			}
		})
	}
}

// TestSniff: content decides first, then the extension, then a JSON look.
func TestSniff(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		file string
		raw  string
		want Format
	}{
		{"card.json", "\x89PNG\r\n\x1a\nrest", FormatPNG},
		{"card.png", "PK\x03\x04rest", FormatCHARX},
		{"card.PNG", "junk", FormatPNG},
		{`C:\cards\card.CharX`, "\xff\xd8\xffJPEG then zip", FormatCHARX},
		{"card.json", "junk", FormatJSON},
		{"card.txt", "\xEF\xBB\xBF \n{\"name\":\"x\"}", FormatJSON},
		{"card", "[1]", FormatJSON},
		{"card.webp", "RIFF", ""},
		{"", "", ""},
	} {
		if got := sniff(tc.file, []byte(tc.raw)); got != tc.want {
			t.Errorf("sniff(%q, %q) = %q, want %q", tc.file, tc.raw, got, tc.want)
		}
	}
}

// TestCHARXWithPrefix: RisuAI's "charx jpeg" puts an image before the
// archive; a .charx file like that still imports.
func TestCHARXWithPrefix(t *testing.T) {
	t.Parallel()
	zipped := testZip(t,
		[2]string{"card.json", `{"spec":"chara_card_v3","data":{"name":"P","assets":[{"type":"icon","uri":"embedded://icon.png","name":"x","ext":"png"}]}}`},
		[2]string{"icon.png", string(testImage(t, 3, 3, 1))})
	raw := append([]byte("\xff\xd8\xff\xe0 a JPEG would be here \xff\xd9"), zipped...)
	imp, err := Decode("P.charx", raw)
	if err != nil {
		t.Fatal(err)
	}
	if imp.ImageType != "image/png" || len(imp.Assets) != 0 {
		t.Errorf("image %q, assets %d", imp.ImageType, len(imp.Assets))
	}
}
