package extensions

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"hearth/backend/apperr"
	"hearth/backend/store"
)

func TestReadManifestI18n(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, i18n string
		want       map[string]string
	}{
		{"absent", ``, nil},
		{"null", `,"i18n":null`, nil},
		{"empty", `,"i18n":{}`, nil},
		{"locales and default", `,"i18n":{"zh-cn":"i18n/zh-cn.json","ru-ru":"./i18n/ru-ru.json","default":"en.json","pt_BR":"i18n/pt.json"}`,
			map[string]string{"zh-cn": "i18n/zh-cn.json", "ru-ru": "./i18n/ru-ru.json", "default": "en.json", "pt_BR": "i18n/pt.json"}},
	} {
		m, err := ReadManifest([]byte(`{"js":"a.js"` + c.i18n + `}`))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !reflect.DeepEqual(m.I18n, c.want) {
			t.Errorf("%s: i18n %v, want %v", c.name, m.I18n, c.want)
		}
	}
}

func TestReadManifestI18nRefuses(t *testing.T) {
	t.Parallel()
	many := make([]string, MaxI18nLocales+1)
	for i := range many {
		many[i] = fmt.Sprintf(`"l%d":"i18n/%d.json"`, i, i)
	}
	for _, c := range []struct{ name, i18n, field string }{
		{"a list", `["zh-cn.json"]`, "i18n"},
		{"a string", `"i18n/zh-cn.json"`, "i18n"},
		{"too many", `{` + strings.Join(many, ",") + `}`, "i18n"},
		{"a key with a space", `{"zh cn":"a.json"}`, "i18n"},
		{"an empty key", `{"":"a.json"}`, "i18n"},
		{"a key with a slash", `{"../zh":"a.json"}`, "i18n"},
		{"a key too long", `{"` + strings.Repeat("a", 36) + `":"a.json"}`, "i18n"},
		{"a file not text", `{"zh-cn":{"path":"a.json"}}`, "i18n.zh-cn"},
		{"an empty file", `{"zh-cn":""}`, "i18n.zh-cn"},
		{"a file outside", `{"de":"ok.json","zh-cn":"../zh.json"}`, "i18n.zh-cn"},
		{"a file absolute", `{"zh-cn":"/etc/passwd"}`, "i18n.zh-cn"},
		{"a file with backslashes", `{"zh-cn":"i18n\\zh.json"}`, "i18n.zh-cn"},
		{"a file with a drive", `{"zh-cn":"C:zh.json"}`, "i18n.zh-cn"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ReadManifest([]byte(`{"js":"a.js","i18n":` + c.i18n + `}`))
			e := apperr.As(err)
			if e == nil || e.Code != CodeInvalidManifest || e.Details["field"] != c.field {
				t.Fatalf("got %v, want %s naming %s", err, CodeInvalidManifest, c.field)
			}
		})
	}
}

// TestI18nInList: a page extension's i18n reaches its list entry; one a
// check refuses is not installed; a stored manifest whose i18n later
// rules refuse still lists, without it.
func TestI18nInList(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	dir := writeTree(t, "notes", map[string]string{
		"manifest.json":   `{"display_name":"Notes","js":"index.js","i18n":{"zh-cn":"i18n/zh-cn.json","default":"i18n/en.json"}}`,
		"index.js":        "1",
		"i18n/zh-cn.json": `{"Notes":"笔记"}`,
	})
	got, err := e.svc.Install(ctx, Source{Path: dir}, InstallOptions{Enable: true})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"zh-cn": "i18n/zh-cn.json", "default": "i18n/en.json"}
	if !reflect.DeepEqual(got.I18n, want) {
		t.Errorf("installed entry's i18n %v, want %v", got.I18n, want)
	}
	e.types()

	bad := writeTree(t, "bad", map[string]string{"manifest.json": `{"js":"index.js","i18n":{"zh-cn":"../../x.json"}}`, "index.js": "1"})
	_, err = e.svc.Install(ctx, Source{Path: bad}, InstallOptions{Enable: true})
	if ae := wantCode(t, err, CodeInvalidManifest); ae.Details["field"] != "i18n.zh-cn" {
		t.Errorf("refusal names %v", ae.Details["field"])
	}
	if ty := e.types(); len(ty) != 0 {
		t.Errorf("a refused install sent %v", ty)
	}

	err = e.db.InTx(ctx, func(tx *store.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE extensions SET manifest = ? WHERE id = 'notes'`, `{"display_name":"Notes","js":"index.js","i18n":["zh-cn"]}`)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	list, err := e.svc.List(ctx)
	if err != nil {
		t.Fatalf("a stored manifest with an i18n refused now: %v", err)
	}
	if len(list) != 1 || list[0].ID != "notes" || list[0].I18n != nil || list[0].DisplayName != "Notes" {
		t.Errorf("list %+v", list)
	}
}
