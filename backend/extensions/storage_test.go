package extensions

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestStorage(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	dir := writeTree(t, "store-me", map[string]string{"manifest.json": pageManifest, "index.js": ""})
	if _, err := e.svc.Install(ctx, Source{Path: dir}, InstallOptions{}); err != nil {
		t.Fatal(err)
	}
	const id = "store-me"
	if v, err := e.svc.StorageGet(ctx, id, "missing"); err != nil || string(v) != "null" {
		t.Errorf("missing key: %s %v", v, err)
	}
	for k, v := range map[string]string{"a/1": `1`, "a/2": `{"x":[true]}`, "a%": `"pct"`, "b": `null`} {
		if err := e.svc.StorageSet(ctx, id, k, json.RawMessage(v)); err != nil {
			t.Fatal(err)
		}
	}
	if v, _ := e.svc.StorageGet(ctx, "STORE-ME", "a/2"); string(v) != `{"x":[true]}` {
		t.Errorf("get: %s", v)
	}
	if keys, _ := e.svc.StorageList(ctx, id, "a"); !reflect.DeepEqual(keys, []string{"a%", "a/1", "a/2"}) {
		t.Errorf("list a: %v", keys)
	}
	if keys, _ := e.svc.StorageList(ctx, id, "a%"); !reflect.DeepEqual(keys, []string{"a%"}) {
		t.Errorf("list a%%: %v (a prefix is not a pattern)", keys)
	}
	if err := e.svc.StorageDelete(ctx, id, "a/1"); err != nil {
		t.Fatal(err)
	}
	if keys, _ := e.svc.StorageList(ctx, id, ""); !reflect.DeepEqual(keys, []string{"a%", "a/2", "b"}) {
		t.Errorf("list after delete: %v", keys)
	}

	// Bad input is refused and writes nothing.
	for _, bad := range []struct{ key, value, code string }{
		{"", `1`, "validation.invalid_argument"},
		{strings.Repeat("k", MaxKeyBytes+1), `1`, "validation.invalid_argument"},
		{"k", `{`, "validation.invalid_argument"},
		{"k", strings.Repeat("[", 70) + strings.Repeat("]", 70), "validation.invalid_argument"},
	} {
		wantCode(t, e.svc.StorageSet(ctx, id, bad.key, json.RawMessage(bad.value)), bad.code)
	}
	wantCode(t, e.svc.StorageSet(ctx, "nobody", "k", json.RawMessage(`1`)), CodeNotFound)
	_, err := e.svc.StorageGet(ctx, "nobody", "k")
	wantCode(t, err, CodeNotFound)

	// The quota counts key and value bytes; an overwrite counts once.
	chunk := `"` + strings.Repeat("x", 3<<20) + `"`
	for _, k := range []string{"q1", "q2", "q3"} {
		if err := e.svc.StorageSet(ctx, id, k, json.RawMessage(chunk)); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.svc.StorageSet(ctx, id, "q3", json.RawMessage(chunk)); err != nil {
		t.Fatalf("overwriting within the quota: %v", err)
	}
	wantCode(t, e.svc.StorageSet(ctx, id, "q4", json.RawMessage(chunk)), CodeQuotaExceeded)
	if v, _ := e.svc.StorageGet(ctx, id, "q4"); string(v) != "null" {
		t.Errorf("a write past the quota stored %d bytes", len(v))
	}
	if err := e.svc.StorageSet(ctx, id, "q4", json.RawMessage(`1`)); err != nil {
		t.Errorf("a small write under the quota: %v", err)
	}
}
