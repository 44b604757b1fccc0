package profile

import (
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"hearth/backend/apperr"
	"hearth/backend/store"
)

// newStore is a Store over a real SQLite database in a temp dir, with a
// clock that ticks 1 ms per call.
func newStore(t *testing.T) (*Store, *store.Store) {
	t.Helper()
	db, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "hearth.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	clock := time.UnixMilli(1_700_000_000_000)
	return NewStore(db, func() time.Time { clock = clock.Add(time.Millisecond); return clock }), db
}

// insert writes a row directly, the way an older Hearth or a hand edit might.
func insert(t *testing.T, db *store.Store, id, body string) {
	t.Helper()
	err := db.InTx(context.Background(), func(tx *store.Tx) error {
		_, err := tx.Exec(`INSERT INTO agent_profiles (id, body, updated_ms) VALUES (?, ?, 1)`, id, body)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func rows(t *testing.T, db *store.Store) int {
	t.Helper()
	var n int
	if err := db.Reader().QueryRow(`SELECT COUNT(*) FROM agent_profiles`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestStoreSaveLoadList(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, db := newStore(t)

	// A TauriTavern profile is accepted and saved as Hearth's.
	saved, err := s.Save(ctx, doc(t, "id", "b-writer", "displayName", "Alpha", "tools.allow",
		[]string{"workspace_commit", "workspace_finish", "skill_read"}, "x-extra", map[string]any{"k": []int{1, 2}}))
	if err != nil {
		t.Fatal(err)
	}
	if saved.Kind != Kind || !reflect.DeepEqual(saved.Tools.Allow, []string{"workspace.commit", "workspace.finish", "skill.read"}) {
		t.Errorf("saved = %s", saved.JSON())
	}
	var body string
	if err := db.Reader().QueryRow(`SELECT body FROM agent_profiles WHERE id = 'b-writer'`).Scan(&body); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(body, `"kind":"hearth.agentProfile"`) || strings.Contains(body, "tauritavern") || !strings.Contains(body, `"x-extra":{"k":[1,2]}`) {
		t.Errorf("stored body = %s", body)
	}
	loaded, err := s.Load(ctx, "b-writer")
	if err != nil {
		t.Fatal(err)
	}
	if string(loaded.JSON()) != string(saved.JSON()) {
		t.Errorf("load differs from save:\n%s\n%s", loaded.JSON(), saved.JSON())
	}

	if _, err := s.Save(ctx, doc(t, "id", "a-writer", "displayName", "beta", "description", "Second.")); err != nil {
		t.Fatal(err)
	}
	// Saving again replaces the profile and its stamp.
	if _, err := s.Save(ctx, doc(t, "id", "b-writer", "displayName", "Alpha", "tools.maxRounds", 7)); err != nil {
		t.Fatal(err)
	}
	if rows(t, db) != 2 {
		t.Errorf("%d rows, want 2", rows(t, db))
	}
	list, err := s.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []Summary{
		{ID: DefaultID, DisplayName: "Default writer", BuiltIn: true},
		{ID: "b-writer", DisplayName: "Alpha", UpdatedMs: 1_700_000_000_003},
		{ID: "a-writer", DisplayName: "beta", Description: "Second.", UpdatedMs: 1_700_000_000_002},
	}
	if !reflect.DeepEqual(list.Profiles, want) || len(list.Issues) != 0 {
		t.Errorf("list = %+v", list)
	}
	if raw, _ := json.Marshal(list); !strings.Contains(string(raw), `"issues":[]`) || !strings.Contains(string(raw), `"builtIn":true`) {
		t.Errorf("list JSON = %s", raw)
	}
	p, err := s.Resolve(ctx, "b-writer")
	if err != nil || p.Tools.MaxRounds != 7 {
		t.Errorf("resolve = %v, %v", p.Tools, err)
	}
	if err := s.Delete(ctx, "b-writer"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Load(ctx, "b-writer"); apperr.CodeOf(err) != CodeNotFound {
		t.Errorf("load after delete: %v", err)
	}
}

// The built-in profile always loads, and cannot be saved over or deleted;
// refused calls change nothing.
func TestStoreRefusals(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, db := newStore(t)
	if _, err := s.Save(ctx, doc(t, "id", "mine")); err != nil {
		t.Fatal(err)
	}
	snapshot := func() string {
		list, _ := s.List(ctx)
		mine, _ := s.Load(ctx, "mine")
		def, _ := s.Load(ctx, DefaultID)
		raw, _ := json.Marshal([]any{list, mine, def})
		return string(raw)
	}
	before := snapshot()
	for _, c := range []struct {
		name  string
		call  func() error
		code  string
		field string
	}{
		{"save over default", func() error { _, err := s.Save(ctx, DefaultWriter().JSON()); return err }, CodeInvalidProfile, "id"},
		{"save default id", func() error { _, err := s.Save(ctx, doc(t, "id", DefaultID)); return err }, CodeInvalidProfile, "id"},
		{"save invalid", func() error { _, err := s.Save(ctx, doc(t, "id", "mine", "tools.maxRounds", 0)); return err }, CodeInvalidProfile, "tools.maxRounds"},
		{"save garbage", func() error { _, err := s.Save(ctx, []byte("{")); return err }, CodeInvalidProfile, ""},
		{"save null number", func() error { _, err := s.Save(ctx, doc(t, "id", "mine", "tools.maxRounds", nil)); return err }, CodeInvalidProfile, "tools.maxRounds"},
		{"save null section", func() error { _, err := s.Save(ctx, doc(t, "id", "mine", "workspace", nil)); return err }, CodeInvalidProfile, "workspace"},
		{"delete default", func() error { return s.Delete(ctx, DefaultID) }, CodeBuiltin, ""},
		{"delete unknown", func() error { return s.Delete(ctx, "nope") }, CodeNotFound, ""},
		{"load unknown", func() error { _, err := s.Load(ctx, "nope"); return err }, CodeNotFound, ""},
		{"resolve unknown", func() error { _, err := s.Resolve(ctx, "nope"); return err }, CodeNotFound, ""},
		{"diagnose unknown", func() error { _, _, err := s.Diagnose(ctx, "nope"); return err }, CodeNotFound, ""},
	} {
		err := c.call()
		if apperr.CodeOf(err) != c.code {
			t.Errorf("%s: %v, want %s", c.name, err, c.code)
		}
		if c.code == CodeInvalidProfile && field(err) != c.field {
			t.Errorf("%s: field %q, want %q", c.name, field(err), c.field)
		}
	}
	if after := snapshot(); after != before {
		t.Errorf("refused calls changed something:\n%s\n%s", before, after)
	}
	if rows(t, db) != 1 {
		t.Errorf("%d rows", rows(t, db))
	}
	def, err := s.Load(ctx, DefaultID)
	if err != nil || !reflect.DeepEqual(*def, DefaultWriter()) {
		t.Errorf("default = %v, %v", def, err)
	}
	if p, err := s.Resolve(ctx, ""); err != nil || p.ID != DefaultID {
		t.Errorf("resolve \"\" = %v, %v", p.ID, err)
	}
	if ok, issues, err := s.Diagnose(ctx, DefaultID); !ok || issues == nil || len(issues) != 0 || err != nil {
		t.Errorf("diagnose default = %v %v %v", ok, issues, err)
	}
}

// A stored body that no longer parses is listed under issues, not
// dropped, and not fatal for the list.
func TestStoreReportsBrokenProfiles(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, db := newStore(t)
	if _, err := s.Save(ctx, doc(t, "id", "good")); err != nil {
		t.Fatal(err)
	}
	insert(t, db, "broken", `{"id":"broken"}`)
	insert(t, db, "garbage", `not json`)
	insert(t, db, "moved", string(doc(t, "id", "elsewhere")))
	insert(t, db, DefaultID, string(DefaultWriter().JSON()))
	insert(t, db, "old-maxround", string(doc(t, "id", "old-maxround", "tools.maxRound", 3)))

	list, err := s.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Profiles) != 2 || list.Profiles[0].ID != DefaultID || !list.Profiles[0].BuiltIn || list.Profiles[1].ID != "good" {
		t.Errorf("profiles = %+v", list.Profiles)
	}
	want := []struct{ id, field, code string }{
		{"broken", "schemaVersion", IssueRequired},
		{DefaultID, "id", IssueReserved},
		{"garbage", "", IssueSyntax},
		{"moved", "id", IssueValue},
		{"old-maxround", "tools.maxRound", IssueUnknown},
	}
	if len(list.Issues) != len(want) {
		t.Fatalf("issues = %+v", list.Issues)
	}
	for i, w := range want {
		got := list.Issues[i]
		if got.ID != w.id || got.Issues[0].Field != w.field || got.Issues[0].Code != w.code {
			t.Errorf("issue %d = %+v, want %v", i, got, w)
		}
	}

	ok, issues, err := s.Diagnose(ctx, "broken")
	if err != nil || ok {
		t.Fatalf("diagnose broken = %v %v", ok, err)
	}
	var fields []string
	for _, is := range issues {
		fields = append(fields, is.Field)
	}
	if strings.Join(fields, ",") != "schemaVersion,kind,displayName" {
		t.Errorf("diagnose broken = %+v", issues)
	}
	if ok, issues, err := s.Diagnose(ctx, "good"); !ok || len(issues) != 0 || issues == nil || err != nil {
		t.Errorf("diagnose good = %v %v %v", ok, issues, err)
	}

	_, err = s.Load(ctx, "broken")
	if e := apperr.As(err); e == nil || e.Code != CodeInvalidProfile || e.Details["id"] != "broken" || e.Details["field"] != "schemaVersion" {
		t.Errorf("load broken = %v", err)
	}
	// The built-in profile wins over a stray row with its id.
	if p, err := s.Load(ctx, DefaultID); err != nil || !reflect.DeepEqual(*p, DefaultWriter()) {
		t.Errorf("load default = %v", err)
	}
	// A broken profile can be deleted, or fixed by saving it again.
	if err := s.Delete(ctx, "broken"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Save(ctx, doc(t, "id", "old-maxround")); err != nil {
		t.Fatal(err)
	}
	list, _ = s.List(ctx)
	if len(list.Issues) != 3 || len(list.Profiles) != 3 {
		t.Errorf("after repair: %+v", list)
	}
}

// A stored body with null in a number or a section (a hand edit, or an
// older Hearth) still loads, reading null as left out: only documents
// coming in through Save refuse it.
func TestStoredNullsStillLoad(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, db := newStore(t)
	insert(t, db, "old", string(doc(t, "id", "old", "tools.maxRounds", nil, "run.modelRetry", nil, "plan", nil)))
	p, err := s.Load(ctx, "old")
	if err != nil {
		t.Fatal(err)
	}
	if d := DefaultWriter(); p.Tools.MaxRounds != d.Tools.MaxRounds || p.Run.ModelRetry != d.Run.ModelRetry {
		t.Errorf("loaded %s", p.JSON())
	}
	if ok, issues, err := s.Diagnose(ctx, "old"); !ok || len(issues) != 0 || err != nil {
		t.Errorf("diagnose = %v %v %v", ok, issues, err)
	}
	if list, err := s.List(ctx); err != nil || len(list.Issues) != 0 || len(list.Profiles) != 2 {
		t.Errorf("list = %+v, %v", list, err)
	}
}
