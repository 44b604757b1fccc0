package personas

import (
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"hearth/backend/apperr"
	"hearth/backend/characters"
	"hearth/backend/chats"
	"hearth/backend/events"
	"hearth/backend/events/eventstest"
	"hearth/backend/jsonx"
	"hearth/backend/media"
	"hearth/backend/prompt"
	"hearth/backend/store"
)

// env is the service over a real SQLite database in a temp dir, with a
// character, the chats service wired as the app wires it, and the events
// published.
type env struct {
	t     *testing.T
	svc   *Service
	chats *chats.Service
	db    *store.Store
	bus   *events.Bus
	char  string

	rec *eventstest.Recorder
}

func newEnv(t *testing.T) *env {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	db, err := store.Open(ctx, filepath.Join(dir, "hearth.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	files, err := media.New(filepath.Join(dir, "media"))
	if err != nil {
		t.Fatal(err)
	}
	bus := events.NewBus()
	clock := time.UnixMilli(1_700_000_000_000)
	var clockMu sync.Mutex
	now := func() time.Time {
		clockMu.Lock()
		defer clockMu.Unlock()
		clock = clock.Add(time.Millisecond)
		return clock
	}
	chars := characters.New(db, bus, files, nil, now)
	e := &env{t: t, db: db, bus: bus}
	e.chats = chats.New(db, bus, chars, now, chats.Hooks{
		UserName: func(ctx context.Context, chatID string) string { return e.svc.UserName(ctx, chatID) },
	})
	e.svc = New(db, bus, files, e.chats, now)
	card, err := chars.Create(ctx, jsonx.Object{"name": json.RawMessage(`"Seraphina"`), "first_mes": json.RawMessage(`"Welcome, {{user}}."`)}, characters.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	e.char = card.Avatar
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

// types lists the events' types.
func types(evs []events.Event) []string {
	out := []string{}
	for _, ev := range evs {
		out = append(out, ev.Type)
	}
	return out
}

func (e *env) save(in Input) *Persona {
	e.t.Helper()
	p, err := e.svc.Save(context.Background(), in)
	if err != nil {
		e.t.Fatalf("save %+v: %v", in, err)
	}
	return p
}

func (e *env) newChat() string {
	e.t.Helper()
	sum, err := e.chats.Create(context.Background(), chats.Owner{Avatar: e.char}, chats.CreateOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	return sum.ChatID
}

func (e *env) effectiveName(chatID string) string {
	e.t.Helper()
	p, err := e.svc.Effective(context.Background(), chatID)
	if err != nil {
		e.t.Fatalf("effective %q: %v", chatID, err)
	}
	if p == nil {
		return ""
	}
	return p.Name
}

func ptr[T any](v T) *T { return &v }

func TestSaveCreatesWithDefaultsAndUpdatesKeepingTheRest(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	p := e.save(Input{Name: ptr("  Wren  "), Description: ptr("A lantern-keeper.\nQuiet.")})
	want := Persona{ID: p.ID, Name: "Wren", Description: "A lantern-keeper.\nQuiet.", Position: PositionInPrompt, Depth: DefaultDepth,
		Role: RoleSystem, CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt}
	if len(p.ID) != 36 || p.CreatedAt == 0 || p.UpdatedAt < p.CreatedAt || !reflect.DeepEqual(*p, want) {
		t.Fatalf("created %+v\nwant    %+v", *p, want)
	}
	if got := types(e.events()); !reflect.DeepEqual(got, []string{events.PersonaChanged}) {
		t.Fatalf("events %v", got)
	}

	// Position 1 (SillyTavern's deprecated AFTER_CHAR) is stored as 0; the
	// at-depth fields stick; what is left out is kept.
	p = e.save(Input{ID: &p.ID, Position: ptr(1), Depth: ptr(0), Role: ptr(RoleAssistant)})
	if p.Position != PositionInPrompt || p.Depth != 0 || p.Role != RoleAssistant || p.Name != "Wren" || p.Description != want.Description {
		t.Fatalf("after a partial update %+v", *p)
	}
	p = e.save(Input{ID: &p.ID, Position: ptr(PositionAtDepth), Depth: ptr(10000)})
	got, err := e.svc.Get(context.Background(), p.ID)
	if err != nil || !reflect.DeepEqual(got, p) || got.Position != PositionAtDepth || got.Depth != 10000 {
		t.Fatalf("get %+v (%v), saved %+v", got, err, p)
	}
	if p.UpdatedAt <= want.UpdatedAt || p.CreatedAt != want.CreatedAt {
		t.Errorf("timestamps %d/%d after %d/%d", p.CreatedAt, p.UpdatedAt, want.CreatedAt, want.UpdatedAt)
	}

	a := e.save(Input{Name: ptr("alder")})
	list, err := e.svc.List(context.Background())
	if err != nil || len(list) != 2 || list[0].ID != a.ID || list[1].ID != p.ID {
		t.Fatalf("list by name %+v (%v)", list, err)
	}
}

func TestEffectivePersonaAndUserName(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	chat := e.newChat()
	if n := e.effectiveName(chat); n != "" {
		t.Fatalf("effective with no personas: %q", n)
	}
	if n := e.svc.UserName(ctx, chat); n != "User" {
		t.Fatalf("user name with no personas: %q", n)
	}
	// The legacy settings row names the user until a persona applies.
	if err := e.db.InTx(ctx, func(tx *store.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO settings (key, value) VALUES ('user_name', '"Legacy"')`)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if n := e.svc.UserName(ctx, chat); n != "Legacy" {
		t.Fatalf("user name from the settings row: %q", n)
	}

	wren := e.save(Input{Name: ptr("Wren")})
	ash := e.save(Input{Name: ptr("Ash")})
	e.events()
	if _, err := e.svc.SetDefault(ctx, &ash.ID); err != nil {
		t.Fatal(err)
	}
	if n := e.effectiveName(chat); n != "Ash" {
		t.Fatalf("the default applies when none is active: %q", n)
	}
	act, err := e.svc.SetActive(ctx, &wren.ID)
	if err != nil || act.ID != wren.ID || !act.IsActive || act.IsDefault {
		t.Fatalf("setActive %+v (%v)", act, err)
	}
	evs := e.events()
	want := []any{
		&events.PersonaChangedPayload{PersonaID: &ash.ID, Change: ChangeDefault, ActiveID: nil, DefaultID: &ash.ID},
		&events.PersonaChangedPayload{PersonaID: &wren.ID, Change: ChangeActive, ActiveID: &wren.ID, DefaultID: &ash.ID},
	}
	if len(evs) != 2 || evs[0].Type != events.PersonaChanged || !reflect.DeepEqual(evs[0].Payload, want[0]) || !reflect.DeepEqual(evs[1].Payload, want[1]) {
		t.Fatalf("events %+v", evs)
	}
	if n := e.effectiveName(chat); n != "Wren" {
		t.Fatalf("the active persona applies over the default: %q", n)
	}
	if n := e.effectiveName(""); n != "Wren" {
		t.Fatalf("no chat: %q", n)
	}
	list, _ := e.svc.List(ctx)
	if !list[0].IsDefault || list[0].IsActive || !list[1].IsActive || list[1].IsDefault {
		t.Fatalf("flags in the list %+v", list)
	}

	// A lock beats the active persona, in that chat only; a lock naming no
	// persona (SillyTavern's chats name avatar files) is passed over.
	other := e.newChat()
	res, err := e.svc.LockToChat(ctx, chat, &ash.ID)
	if err != nil || res.Persona == nil || res.Persona.ID != ash.ID || res.Revision != 1 {
		t.Fatalf("lock %+v (%v)", res, err)
	}
	if a, b := e.effectiveName(chat), e.effectiveName(other); a != "Ash" || b != "Wren" {
		t.Fatalf("locked chat %q, other chat %q", a, b)
	}
	if n := e.svc.UserName(ctx, chat); n != "Ash" {
		t.Fatalf("user name in the locked chat %q", n)
	}
	if _, err := e.chats.SaveMetadata(ctx, other, jsonx.Object{LockKey: json.RawMessage(`"user-default.png"`)}, chats.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if n := e.effectiveName(other); n != "Wren" {
		t.Fatalf("a foreign lock: %q", n)
	}
	if _, err := e.svc.Effective(ctx, "no-such-chat"); apperr.CodeOf(err) != apperr.CodeChatNotFound {
		t.Fatalf("effective of a missing chat: %v", err)
	}

	// Unlocking removes the key; setActive(nil) leaves the default.
	if res, err = e.svc.LockToChat(ctx, chat, nil); err != nil || res.Persona.ID != wren.ID || res.Revision != 2 {
		t.Fatalf("unlock %+v (%v)", res, err)
	}
	meta, _ := e.chats.Metadata(ctx, chat)
	if _, ok := meta[LockKey]; ok {
		t.Fatalf("unlock left %s", meta[LockKey])
	}
	if p, err := e.svc.SetActive(ctx, nil); p != nil || err != nil {
		t.Fatalf("setActive(nil) %v %v", p, err)
	}
	if p, _ := e.svc.Active(ctx); p != nil {
		t.Fatalf("active after setActive(nil) %+v", p)
	}
	if n := e.effectiveName(chat); n != "Ash" {
		t.Fatalf("after setActive(nil): %q", n)
	}
	if _, err := e.svc.SetDefault(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if n := e.svc.UserName(ctx, chat); n != "Legacy" {
		t.Fatalf("with no persona in effect: %q", n)
	}
}

func TestLockIsValidatedAndGoesThroughChatMetadata(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	chat := e.newChat()
	p := e.save(Input{Name: ptr("Wren")})
	e.events()
	if _, err := e.svc.LockToChat(ctx, "no-such-chat", &p.ID); apperr.CodeOf(err) != apperr.CodeChatNotFound {
		t.Errorf("lock of a missing chat: %v", err)
	}
	if _, err := e.svc.LockToChat(ctx, chat, ptr("no-such-persona")); apperr.CodeOf(err) != CodeNotFound {
		t.Errorf("lock to a missing persona: %v", err)
	}
	if got := e.events(); len(got) != 0 {
		t.Fatalf("refused locks published %v", types(got))
	}
	if d, _ := e.chats.Get(ctx, chat); d.Revision != 0 {
		t.Fatalf("refused locks moved the revision to %d", d.Revision)
	}
	if _, err := e.svc.LockToChat(ctx, chat, &p.ID); err != nil {
		t.Fatal(err)
	}
	evs := e.events()
	if len(evs) != 1 || evs[0].Type != events.ChatMetadataUpdated || evs[0].Payload.(*events.ChatMetadataUpdatedPayload).ChatRevision != (events.ChatRevision{ChatID: chat, Revision: 1}) {
		t.Fatalf("lock events %+v", evs)
	}
	meta, _ := e.chats.Metadata(ctx, chat)
	if string(meta[LockKey]) != `"`+p.ID+`"` {
		t.Fatalf("metadata %s", meta[LockKey])
	}
	// Locking again to the same persona changes nothing.
	if res, err := e.svc.LockToChat(ctx, chat, &p.ID); err != nil || res.Revision != 1 {
		t.Fatalf("same lock again %+v (%v)", res, err)
	}
	if got := e.events(); len(got) != 0 {
		t.Fatalf("a no-op lock published %v", types(got))
	}
}

func TestDeleteClearsActiveDefaultAndLocksAtOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	wren := e.save(Input{Name: ptr("Wren")})
	ash := e.save(Input{Name: ptr("Ash")})
	locked, otherLock, free := e.newChat(), e.newChat(), e.newChat()
	for _, step := range []func() error{
		func() error { _, err := e.svc.SetActive(ctx, &wren.ID); return err },
		func() error { _, err := e.svc.SetDefault(ctx, &wren.ID); return err },
		func() error { _, err := e.svc.LockToChat(ctx, locked, &wren.ID); return err },
		func() error { _, err := e.svc.LockToChat(ctx, otherLock, &ash.ID); return err },
	} {
		if err := step(); err != nil {
			t.Fatal(err)
		}
	}
	e.events()
	if err := e.svc.Delete(ctx, wren.ID); err != nil {
		t.Fatal(err)
	}
	evs := e.events()
	if got := types(evs); !reflect.DeepEqual(got, []string{events.PersonaChanged, events.ChatMetadataUpdated}) {
		t.Fatalf("delete events %v", got)
	}
	if want := (&events.PersonaChangedPayload{PersonaID: &wren.ID, Change: ChangeDeleted}); !reflect.DeepEqual(evs[0].Payload, want) {
		t.Errorf("PERSONA_CHANGED %+v", evs[0].Payload)
	}
	if got := evs[1].Payload.(*events.ChatMetadataUpdatedPayload).ChatRevision; got != (events.ChatRevision{ChatID: locked, Revision: 2}) {
		t.Errorf("CHAT_METADATA_UPDATED %+v", got)
	}
	if p, _ := e.svc.Active(ctx); p != nil {
		t.Errorf("active after delete %+v", p)
	}
	if p, _ := e.svc.Default(ctx); p != nil {
		t.Errorf("default after delete %+v", p)
	}
	meta, _ := e.chats.Metadata(ctx, locked)
	if _, ok := meta[LockKey]; ok {
		t.Error("the deleted persona's lock stayed")
	}
	if n := e.effectiveName(otherLock); n != "Ash" {
		t.Errorf("another persona's lock: %q", n)
	}
	if d, _ := e.chats.Get(ctx, free); d.Revision != 0 {
		t.Errorf("an unlocked chat moved to revision %d", d.Revision)
	}
	if err := e.svc.Delete(ctx, wren.ID); apperr.CodeOf(err) != CodeNotFound {
		t.Errorf("second delete %v", err)
	}
}

// A lock and a delete racing never leave a chat locked to a deleted
// persona: the lock checks the persona in the transaction that writes it.
func TestLockRacingDeleteLeavesNoDanglingLock(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	chat := e.newChat()
	for range 20 {
		p := e.save(Input{Name: ptr("Brief")})
		var wg sync.WaitGroup
		wg.Add(2)
		go func() { defer wg.Done(); _, _ = e.svc.LockToChat(ctx, chat, &p.ID) }()
		go func() { defer wg.Done(); _ = e.svc.Delete(ctx, p.ID) }()
		wg.Wait()
		meta, _ := e.chats.Metadata(ctx, chat)
		if string(meta[LockKey]) == `"`+p.ID+`"` {
			t.Fatal("the chat is locked to a deleted persona")
		}
	}
}

// The chats service names the user after the persona in effect: a new
// chat's greeting, a user message without a name, an exported header.
func TestChatsNameTheUserAfterThePersona(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	wren := e.save(Input{Name: ptr("Wren")})
	ash := e.save(Input{Name: ptr("Ash")})
	if _, err := e.svc.SetActive(ctx, &wren.ID); err != nil {
		t.Fatal(err)
	}
	chat := e.newChat()
	msgs, err := e.chats.StMessages(ctx, chat, nil)
	if err != nil || len(msgs) != 1 || msgs[0].Mes() != "Welcome, Wren." {
		t.Fatalf("greeting %+v (%v)", msgs, err)
	}
	if _, err := e.svc.LockToChat(ctx, chat, &ash.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := e.chats.AddMessages(ctx, chat, []json.RawMessage{json.RawMessage(`{"is_user":true,"mes":"hello"}`)}, chats.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	msgs, _ = e.chats.StMessages(ctx, chat, nil)
	if msgs[1].Name != "Ash" {
		t.Fatalf("a nameless user message in the locked chat is named %q", msgs[1].Name)
	}
	file, err := e.chats.ExportJsonl(ctx, chat)
	if err != nil {
		t.Fatal(err)
	}
	header, _, _ := strings.Cut(file.Text, "\n")
	if !strings.Contains(header, `"user_name":"Ash"`) {
		t.Fatalf("exported header %s", header)
	}
}

func TestForPrompt(t *testing.T) {
	t.Parallel()
	// The numbering is prompt's: the values pass through unchanged.
	for mine, theirs := range map[int]int{PositionInPrompt: prompt.PersonaInPrompt, PositionTopAN: prompt.PersonaTopAN,
		PositionBottomAN: prompt.PersonaBottomAN, PositionAtDepth: prompt.PersonaAtDepth, PositionNone: prompt.PersonaNowhere} {
		if mine != theirs {
			t.Errorf("position %d is prompt's %d", mine, theirs)
		}
	}
	e := newEnv(t)
	ctx := context.Background()
	chat := e.newChat()
	got, err := e.svc.ForPrompt(ctx, chat)
	if want := (prompt.Persona{Name: "User", Position: PositionNone, Depth: DefaultDepth}); err != nil || got != want {
		t.Fatalf("no persona: %+v (%v)", got, err)
	}
	p := e.save(Input{Name: ptr("Wren"), Description: ptr("{{user}} keeps the lanterns."), Position: ptr(PositionAtDepth), Depth: ptr(3), Role: ptr(RoleUser)})
	if _, err := e.svc.LockToChat(ctx, chat, &p.ID); err != nil {
		t.Fatal(err)
	}
	got, err = e.svc.ForPrompt(ctx, chat)
	if want := (prompt.Persona{Name: "Wren", Description: "{{user}} keeps the lanterns.", Position: 4, Depth: 3, Role: 1}); err != nil || got != want {
		t.Fatalf("locked persona: %+v (%v)", got, err)
	}
	if _, err := e.svc.ForPrompt(ctx, "no-such-chat"); apperr.CodeOf(err) != apperr.CodeChatNotFound {
		t.Fatalf("missing chat: %v", err)
	}
}
