package cards

import (
	"strings"
	"testing"

	"hearth/backend/apperr"
	"hearth/backend/jsonx"
)

// checkDecoded holds every decode to the package's promises: a failure is
// a card.invalid error with a message; a success is a named card within
// the bounds that survives a V2 and a V3 JSON export unchanged. It reports
// whether the decode succeeded.
func checkDecoded(t *testing.T, imp *Imported, err error) bool {
	t.Helper()
	if err != nil {
		e := apperr.As(err)
		if e == nil || e.Code != CodeInvalid || e.Message == "" || e.Details["reason"] == nil {
			t.Fatalf("not a card.invalid error with a reason: %#v", err)
		}
		return false
	}
	if imp.Warnings == nil {
		t.Fatal("nil warnings")
	}
	if name, err := jsonx.String(imp.Data["name"], "name"); err != nil || strings.TrimSpace(name) == "" {
		t.Fatalf("accepted a card without a name: %s", imp.Data["name"])
	}
	if d := jsonx.ObjectDepth(imp.Data); d > jsonx.MaxDepth {
		t.Fatalf("accepted data %d levels deep", d)
	}
	for _, v := range []Version{V2, V3} {
		js, err := EncodeJSON(imp.Data, v)
		if err != nil {
			t.Fatalf("export V%d: %v", v, err)
		}
		back, err := DecodeJSON(js)
		if err != nil {
			t.Fatalf("the V%d export does not import: %v\n%s", v, err, js)
		}
		sameData(t, "a JSON export", imp.Data, back.Data)
		if len(back.Warnings) != 0 {
			t.Fatalf("warnings on re-import: %q", back.Warnings)
		}
	}
	return true
}

// FuzzDecodeJSON decodes arbitrary text as a JSON card: no panic, and
// checkDecoded's promises hold.
func FuzzDecodeJSON(f *testing.F) {
	for _, name := range []string{"v1.json", "v2.json", "v3.json", "messy.json", "pygmalion.json", "v3_future.json"} {
		f.Add(readFile(f, "fixtures", name))
	}
	for _, seed := range []string{
		``, `null`, `[]`, `"x"`, `{}`, `{"name":""}`, `{"name":" y "}`,
		`{"spec":"chara_card_v3","data":{"name":"a","tags":"x,,y","alternate_greetings":[1,null,"z"]}}`,
		`{"spec":"chara_card_v2","data":{"name":"a","extensions":[],"character_book":7}}`,
		`{"spec":"chara_card_v2","first_mes":"top","data":{"name":"a","description":null}}`,
		`{"data":{"name":"no spec"}}`,
		`{"char_name":"pyg","char_persona":"p"}`,
		`{"spec":"lorebook_v3","data":{}}`,
		"\xEF\xBB\xBF{\"name\":\"bom\",\"description\":\"\xff\xfe\"}",
		`{"name":"d","talkativeness":` + nested(63) + `}`,
		`{"spec":"chara_card_v2","data":{"name":"d","x":` + nested(62) + `}}`,
		`{"spec":"chara_card_v2","data":{"name":"a","assets":[{"type":"icon","uri":"embeded://../x"}]}}`,
		`{"spec":"chara_card_v2","data":{"name":"k","":1,"\u0000":"\ud800"}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		imp, err := DecodeJSON(raw)
		checkDecoded(t, imp, err)
	})
}
