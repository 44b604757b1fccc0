package generate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"hearth/backend/apperr"
	"hearth/backend/events"
)

// bindSlowBook binds to the harness's chat a book whose every entry has
// a distinct regex key that backtracks for good over the user's
// message (a run of a's), and lifts the scan's deadline: each key then
// waits out its own timeout, and the scan would take minutes.
func bindSlowBook(t *testing.T, h *harness) {
	t.Helper()
	entries := map[string]any{}
	for i := range 200 {
		entries[fmt.Sprint(i)] = map[string]any{"uid": i, "key": []string{fmt.Sprintf(`/(a+a+)+(?=b|%d)/`, i)}, "content": "slow"}
	}
	text, err := json.Marshal(map[string]any{"entries": entries})
	if err != nil {
		t.Fatal(err)
	}
	h.wi.ScanDeadline = time.Hour
	bindGlade(t, h, string(text))
	h.say(strings.Repeat("a", 40))
}

// TestStopEndsAGenerationStuckInItsLorebookScan: generate.stop reaches a
// generation whose prompt is still being assembled, stuck in a lorebook
// scan: start fails with generate.interrupted at once, and nothing is
// sent, written or announced.
func TestStopEndsAGenerationStuckInItsLorebookScan(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	bindSlowBook(t, h)
	before := h.revision()

	errc := make(chan error, 1)
	go func() {
		_, err := h.gen.Start(context.Background(), Options{ChatID: h.chatID, Type: "normal"})
		errc <- err
	}()
	wait := time.After(10 * time.Second)
	for !h.gen.Current().Generating {
		select {
		case err := <-errc:
			t.Fatalf("start ended before it could be stopped: %v", err)
		case <-wait:
			t.Fatal("the generation never registered")
		case <-time.After(time.Millisecond):
		}
	}
	if !h.gen.Stop("") {
		t.Fatal("stop found nothing running")
	}
	err := <-errc
	if apperr.CodeOf(err) != CodeInterrupted {
		t.Fatalf("start = %v; want %s", err, CodeInterrupted)
	}
	if len(h.server.Requests()) != 0 {
		t.Error("a request was sent")
	}
	h.flush()
	if slices.Contains(h.rec.types(), events.GenerationStarted) || slices.Contains(h.rec.types(), events.WorldInfoScanDone) {
		t.Errorf("events %v", h.rec.types())
	}
	if last, err := h.wi.LastActivation(context.Background(), h.chatID); err != nil || last != nil {
		t.Errorf("last activation %+v, %v; want none", last, err)
	}
	if h.revision() != before || h.gen.Current().Generating {
		t.Error("the stopped generation left something behind")
	}
}

// TestDryRunEndsWithItsContext: a dry run stuck in a lorebook scan ends
// with its caller's context and returns the context's error, whenever
// the context ends (before the scan or in it).
func TestDryRunEndsWithItsContext(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	bindSlowBook(t, h)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	snap, err := h.gen.DryRun(ctx, Options{ChatID: h.chatID, Type: "normal"})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("dry run = %v, %v; want the context's error", snap != nil, err)
	}
}

// TestDryRunReportsSlowKeys: with a deadline of half a second, a book of
// 200 keys that each run out of time (50 ms at least) costs the dry run
// a few of them, not all:
// the answer has what activated, the deadline's warning and the keys
// turned off, and a second dry run names those keys without running
// them again.
func TestDryRunReportsSlowKeys(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	bindSlowBook(t, h)
	h.wi.ScanDeadline = 500 * time.Millisecond
	snap, err := h.gen.DryRun(context.Background(), Options{ChatID: h.chatID, Type: "normal"})
	if err != nil {
		t.Fatal(err)
	}
	act := snap.WorldInfoActivation
	if len(act.DisabledKeys) == 0 || len(act.DisabledKeys) == 200 || !slices.ContainsFunc(act.Warnings, func(w string) bool { return strings.Contains(w, "stopped early") }) {
		t.Fatalf("activation %d disabled keys, warnings %q; want some keys turned off and the scan cut short", len(act.DisabledKeys), act.Warnings)
	}
	first := act.DisabledKeys
	d := first[0]
	if d.World != "Glade" || d.Reason != "timeout" || d.Key != fmt.Sprintf(`/(a+a+)+(?=b|%d)/`, d.UID) {
		t.Errorf("disabled key %+v", d)
	}
	snap, err = h.gen.DryRun(context.Background(), Options{ChatID: h.chatID, Type: "normal"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(snap.WorldInfoActivation.Warnings, func(w string) bool { return strings.Contains(w, "earlier scan") }) {
		t.Errorf("second dry run warnings %q", snap.WorldInfoActivation.Warnings)
	}
	for _, k := range first {
		if !slices.Contains(snap.WorldInfoActivation.DisabledKeys, k) {
			t.Errorf("the second dry run does not name %+v", k)
		}
	}
}
