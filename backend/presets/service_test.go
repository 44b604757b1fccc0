package presets

import (
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"hearth/backend/apperr"
	"hearth/backend/events"
	"hearth/backend/events/eventstest"
	"hearth/backend/prompt"
	"hearth/backend/store"
)

// env is a service over a real SQLite database in a temp dir, with the
// events it published.
type env struct {
	t   *testing.T
	svc *Service
	db  *store.Store
	bus *events.Bus

	rec *eventstest.Recorder
}

func newEnv(t *testing.T) *env {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "hearth.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	bus := events.NewBus()
	clock := time.UnixMilli(1_700_000_000_000)
	e := &env{t: t, db: db, bus: bus}
	e.svc = New(db, bus, func() time.Time { clock = clock.Add(time.Millisecond); return clock })
	e.rec = eventstest.Record(t, bus)
	t.Cleanup(func() {
		bus.Close()
		db.Close()
	})
	return e
}

// events returns what was published since the last call, once delivered.
func (e *env) events() []events.Event {
	e.t.Helper()
	return e.rec.Take(e.t)
}

// changed asserts the events since the last call are PresetChanged for ids.
func (e *env) changed(ids ...string) {
	e.t.Helper()
	var got []string
	for _, ev := range e.events() {
		if ev.Type != events.PresetChanged {
			e.t.Errorf("unexpected event %s", ev.Type)
			continue
		}
		got = append(got, ev.Payload.(*events.PresetChangedPayload).PresetID)
	}
	if !reflect.DeepEqual(got, ids) && len(got)+len(ids) > 0 {
		e.t.Errorf("PresetChanged for %v, want %v", got, ids)
	}
}

func mine(name string) prompt.Preset {
	p := prompt.DefaultPreset()
	p.ID, p.Name = "", name
	return p
}

func TestServiceLifecycle(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()

	list, err := e.svc.List(ctx)
	if err != nil || len(list) != 1 || list[0].ID != DefaultID || !list[0].Builtin || !list[0].Active {
		t.Fatalf("fresh list %+v %v", list, err)
	}
	active, err := e.svc.Active(ctx)
	if err != nil || !reflect.DeepEqual(active, prompt.DefaultPreset()) {
		t.Fatalf("fresh active %+v %v", active, err)
	}

	b, err := e.svc.Save(ctx, mine("b roleplay"))
	if err != nil {
		t.Fatal(err)
	}
	a, err := e.svc.Save(ctx, mine("A story"))
	if err != nil {
		t.Fatal(err)
	}
	if a.ID == "" || a.ID == b.ID || a.Sampling.Stop == nil {
		t.Fatalf("created %+v", a)
	}
	e.changed() // neither is active
	list, _ = e.svc.List(ctx)
	if names := []string{list[0].Name, list[1].Name, list[2].Name}; !reflect.DeepEqual(names, []string{"Default", "A story", "b roleplay"}) {
		t.Fatalf("list order %v", names)
	}

	got, err := e.svc.Select(ctx, &a.ID)
	if err != nil || got.ID != a.ID {
		t.Fatalf("select %+v %v", got, err)
	}
	e.changed(a.ID)
	if _, err := e.svc.Select(ctx, &a.ID); err != nil {
		t.Fatal(err)
	}
	e.changed() // no change, no event

	// A whole replace of the active preset: fields left out are defaults.
	upd := a
	upd.Name = "A story v2"
	temp := 0.6
	upd.Sampling.Temperature = &temp
	upd.Prompts = upd.Prompts[:0:0]
	upd.Prompts = append(upd.Prompts, prompt.Item{Identifier: prompt.IdentChatHistory, Enabled: true})
	saved, err := e.svc.Save(ctx, upd)
	if err != nil {
		t.Fatal(err)
	}
	e.changed(a.ID)
	if saved.Prompts[0].Name != prompt.IdentChatHistory || !saved.Prompts[0].Marker || saved.Prompts[0].Role != "system" {
		t.Errorf("normalized item %+v", saved.Prompts[0])
	}
	active, _ = e.svc.Active(ctx)
	if !reflect.DeepEqual(active, saved) {
		t.Errorf("active %+v\nsaved %+v", active, saved)
	}

	// Saving another preset is not news.
	b.Name = "B roleplay"
	if _, err := e.svc.Save(ctx, b); err != nil {
		t.Fatal(err)
	}
	e.changed()

	// Deleting the active one makes the default active.
	if err := e.svc.Delete(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	e.changed(DefaultID)
	active, _ = e.svc.Active(ctx)
	if active.ID != DefaultID {
		t.Errorf("active after delete %s", active.ID)
	}
	if err := e.svc.Delete(ctx, b.ID); err != nil {
		t.Fatal(err)
	}
	e.changed()

	c, _ := e.svc.Save(ctx, mine("C"))
	if _, err := e.svc.Select(ctx, &c.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.Select(ctx, nil); err != nil {
		t.Fatal(err)
	}
	e.changed(c.ID, DefaultID)
	def := DefaultID
	if p, err := e.svc.Select(ctx, &def); err != nil || p.ID != DefaultID {
		t.Fatalf("select default: %v", err)
	}
	e.changed()
}

// Refused calls change nothing and publish nothing.
func TestServiceRefusals(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	a, err := e.svc.Save(ctx, mine("A"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.Select(ctx, &a.ID); err != nil {
		t.Fatal(err)
	}
	e.events()
	snapshot := func() string {
		list, _ := e.svc.List(ctx)
		p, _ := e.svc.Get(ctx, a.ID)
		act, _ := e.svc.Active(ctx)
		raw, _ := json.Marshal([]any{list, p, act})
		return string(raw)
	}
	before := snapshot()

	bad := a
	bad.MaxContext = 100
	missing := mine("x")
	missing.ID = "nope"
	def := prompt.DefaultPreset()
	nope := "nope"
	for _, c := range []struct {
		name string
		call func() error
		code string
	}{
		{"save default", func() error { _, err := e.svc.Save(ctx, def); return err }, CodeBuiltin},
		{"delete default", func() error { return e.svc.Delete(ctx, DefaultID) }, CodeBuiltin},
		{"save invalid", func() error { _, err := e.svc.Save(ctx, bad); return err }, apperr.CodeInvalidArgument},
		{"save missing id", func() error { _, err := e.svc.Save(ctx, missing); return err }, CodeNotFound},
		{"delete missing", func() error { return e.svc.Delete(ctx, "nope") }, CodeNotFound},
		{"get missing", func() error { _, err := e.svc.Get(ctx, "nope"); return err }, CodeNotFound},
		{"select missing", func() error { _, err := e.svc.Select(ctx, &nope); return err }, CodeNotFound},
		{"export missing", func() error { _, err := e.svc.Export(ctx, "nope"); return err }, CodeNotFound},
		{"import garbage", func() error { _, err := e.svc.Import(ctx, "x.json", []byte(`"{nope"`)); return err }, apperr.CodeInvalidArgument},
		{"import invalid", func() error {
			_, err := e.svc.Import(ctx, "x.json", []byte(`{"openai_max_context": 1024, "openai_max_tokens": 2048}`))
			return err
		}, apperr.CodeInvalidArgument},
	} {
		err := c.call()
		if apperr.CodeOf(err) != c.code {
			t.Errorf("%s: %v, want %s", c.name, err, c.code)
		}
	}
	if after := snapshot(); after != before {
		t.Errorf("refused calls changed something:\n%s\n%s", before, after)
	}
	if evs := e.events(); len(evs) != 0 {
		t.Errorf("refused calls published %v", evs)
	}
}

// Save keeps the caller's slice untouched (normalize writes a copy).
func TestSaveDoesNotWriteTheCallersItems(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	p := mine("A")
	p.Prompts[0].Name, p.Prompts[0].Role = "", ""
	if _, err := e.svc.Save(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	if p.Prompts[0].Name != "" || p.Prompts[0].Role != "" {
		t.Errorf("the caller's item was changed: %+v", p.Prompts[0])
	}
}

func TestImportExport(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	res, err := e.svc.Import(ctx, "Default.json", readFixture(t, "st-default.json"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Preset.Name != "Default (2)" || res.Preset.ID == "" || res.Warnings == nil {
		t.Fatalf("import %+v", res)
	}
	stored, err := e.svc.Get(ctx, res.Preset.ID)
	if err != nil || !reflect.DeepEqual(stored, res.Preset) {
		t.Fatalf("stored %+v %v", stored, err)
	}
	e.changed() // an import does not select

	ex, err := e.svc.Export(ctx, res.Preset.ID)
	if err != nil {
		t.Fatal(err)
	}
	if ex.FileName != "Default (2).json" {
		t.Errorf("file name %q", ex.FileName)
	}
	again, err := e.svc.Import(ctx, ex.FileName, ex.JSON)
	if err != nil {
		t.Fatal(err)
	}
	if again.Preset.Name != "Default (3)" || len(again.Warnings) != 0 {
		t.Errorf("re-import %q %q", again.Preset.Name, again.Warnings)
	}
	want := res.Preset
	want.ID, want.Name = again.Preset.ID, again.Preset.Name
	if !reflect.DeepEqual(again.Preset, want) {
		t.Errorf("export → import changed the preset:\n%+v\n%+v", res.Preset, again.Preset)
	}
	// The text form (what a file input reads) works as well.
	text, _ := json.Marshal(string(ex.JSON))
	third, err := e.svc.Import(ctx, "Default (2).json", text)
	if err != nil || third.Preset.Name != "Default (4)" {
		t.Fatalf("text import %+v %v", third, err)
	}
	// The built-in preset exports too.
	if ex, err := e.svc.Export(ctx, DefaultID); err != nil || ex.FileName != "Default.json" || !strings.Contains(string(ex.JSON), `"character_id": 100001`) {
		t.Fatalf("export default: %v %s", err, ex.JSON)
	}
}

// A settings row naming a preset that is gone means the default.
func TestActiveFallsBackToDefault(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	err := e.db.InTx(ctx, func(tx *store.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO settings (key, value) VALUES (?, ?)`, activeKey, `"gone"`)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	p, err := e.svc.Active(ctx)
	if err != nil || p.ID != DefaultID {
		t.Fatalf("active %s %v", p.ID, err)
	}
	list, err := e.svc.List(ctx)
	if err != nil || !list[0].Active {
		t.Fatalf("list %+v %v", list, err)
	}
}

// TestGroupTextsDefaultWhenStoredWithout: a preset stored before the group
// texts existed reads SillyTavern's defaults for them; one saved with
// them empty keeps them empty, and a SillyTavern file's own are imported.
func TestGroupTextsDefaultWhenStoredWithout(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	p := prompt.DefaultPreset()
	p.ID, p.Name, p.GroupNudge, p.NewGroupChatPrompt = "", "Quiet groups", "", ""
	saved, err := e.svc.Save(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := e.svc.Get(ctx, saved.ID); got.GroupNudge != "" || got.NewGroupChatPrompt != "" {
		t.Fatalf("emptied group texts read back as %q, %q", got.GroupNudge, got.NewGroupChatPrompt)
	}
	// The body as an older Hearth wrote it: no group keys.
	if err := e.db.InTx(ctx, func(tx *store.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE presets SET body = json_remove(body, '$.groupNudge', '$.newGroupChatPrompt') WHERE id = ?`, saved.ID)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	got, err := e.svc.Get(ctx, saved.ID)
	if err != nil || got.GroupNudge != prompt.DefaultGroupNudge || got.NewGroupChatPrompt != prompt.DefaultNewGroupChatPrompt {
		t.Fatalf("old body read as %q, %q (%v)", got.GroupNudge, got.NewGroupChatPrompt, err)
	}
	imported, _, err := FromST("g.json", []byte(`{"temperature": 1, "group_nudge_prompt": "[{{char}}, go.]", "new_group_chat_prompt": ""}`))
	if err != nil || imported.GroupNudge != "[{{char}}, go.]" || imported.NewGroupChatPrompt != "" {
		t.Fatalf("imported %q, %q (%v)", imported.GroupNudge, imported.NewGroupChatPrompt, err)
	}
}
