package extensions

import (
	"context"
	"reflect"
	"testing"

	"hearth/backend/events"
)

// TestSafeMode: off by default; on, every enabled extension shows as
// disabled with the reason (still enabled) and no frame is served; the
// event fires once per change; atStart outlives the process and the flag
// starts a run in safe mode whatever is saved.
func TestSafeMode(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	on, off := true, false
	if _, err := e.svc.Install(ctx, Source{Path: writeTree(t, "m", map[string]string{"manifest.json": sandboxManifest, "index.html": "<p>", "x.js": "1"})}, InstallOptions{Enable: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.Install(ctx, Source{Path: writeTree(t, "page", map[string]string{"manifest.json": pageManifest, "index.js": "1"})}, InstallOptions{Enable: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.Install(ctx, Source{Path: writeTree(t, "idle", map[string]string{"manifest.json": `{"js":"a.js"}`, "a.js": "1"})}, InstallOptions{}); err != nil {
		t.Fatal(err)
	}
	e.types()
	if got, err := e.svc.SafeMode(ctx); err != nil || got != (SafeMode{}) {
		t.Fatalf("SafeMode = %+v, %v; want all off", got, err)
	}

	_, err := e.svc.SetSafeMode(ctx, SafeModePatch{})
	wantCode(t, err, "validation.invalid_argument")

	got, err := e.svc.SetSafeMode(ctx, SafeModePatch{Active: &on})
	if err != nil || got != (SafeMode{Active: true}) {
		t.Fatalf("SetSafeMode(active) = %+v, %v", got, err)
	}
	list, _ := e.svc.List(ctx)
	for _, x := range list {
		want := Entry{Status: StatusDisabled, Enabled: x.ID != "idle"}
		if x.Enabled {
			want.Error = SafeModeReason
		}
		if x.Status != want.Status || x.Enabled != want.Enabled || x.Error != want.Error {
			t.Errorf("in safe mode %s: status %q enabled %v error %q", x.ID, x.Status, x.Enabled, x.Error)
		}
	}
	_, err = e.svc.FrameFiles(ctx, "mood")
	wantCode(t, err, CodeNotFound)
	// Again: nothing changes, no event.
	if _, err := e.svc.SetSafeMode(ctx, SafeModePatch{Active: &on, AtStart: &off}); err != nil {
		t.Fatal(err)
	}
	if got, err = e.svc.SetSafeMode(ctx, SafeModePatch{AtStart: &on}); err != nil || got != (SafeMode{Active: true, AtStart: true}) {
		t.Fatalf("SetSafeMode(atStart) = %+v, %v", got, err)
	}
	payloads := []events.ExtensionSafeModePayload{}
	for _, ev := range e.rec.Take(t) {
		if ev.Type != events.ExtensionSafeMode {
			t.Errorf("unexpected event %s", ev.Type)
			continue
		}
		payloads = append(payloads, *ev.Payload.(*events.ExtensionSafeModePayload))
	}
	if want := []events.ExtensionSafeModePayload{{Active: true}, {Active: true, AtStart: true}}; !reflect.DeepEqual(payloads, want) {
		t.Errorf("events %+v, want %+v", payloads, want)
	}

	// Leaving it turns the extensions back on at once.
	if got, err = e.svc.SetSafeMode(ctx, SafeModePatch{Active: &off}); err != nil || got != (SafeMode{AtStart: true}) {
		t.Fatalf("leave = %+v, %v", got, err)
	}
	if x, _ := e.svc.Get(ctx, "mood"); x.Status != StatusActive || x.Error != "" {
		t.Errorf("after leaving: %+v", x)
	}
	if _, err := e.svc.FrameFiles(ctx, "mood"); err != nil {
		t.Errorf("no frame after leaving: %v", err)
	}

	// A later start reads atStart; the flag starts in safe mode too.
	later := New(e.db, events.NewBus(), Options{Dir: e.dir})
	if got, _ := later.SafeMode(ctx); got != (SafeMode{Active: true, AtStart: true}) {
		t.Errorf("next start = %+v", got)
	}
	if x, _ := later.Get(ctx, "mood"); x.Status != StatusDisabled {
		t.Errorf("next start shows %s", x.Status)
	}
	if _, err := later.SetSafeMode(ctx, SafeModePatch{AtStart: &off}); err != nil {
		t.Fatal(err)
	}
	flagged := New(e.db, events.NewBus(), Options{Dir: e.dir, SafeMode: true})
	if got, _ := flagged.SafeMode(ctx); got != (SafeMode{Active: true, Flag: true}) {
		t.Errorf("--safe-mode start = %+v", got)
	}
	plain := New(e.db, events.NewBus(), Options{Dir: e.dir})
	if got, _ := plain.SafeMode(ctx); got != (SafeMode{}) {
		t.Errorf("start after atStart went off = %+v", got)
	}
}
