package agent

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"hearth/backend/agent/runstore"
	"hearth/backend/agent/workspace"
	"hearth/backend/events"
	"hearth/backend/store"
)

// TestReportTellsOwnWritesFromOutsideEdits drives the watcher's report
// directly, so the order that matters (the settle delay ending while the
// run is still storing its write) is set up rather than waited for.
func TestReportTellsOwnWritesFromOutsideEdits(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "hearth.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	bus := events.NewBus()
	t.Cleanup(bus.Close)
	runs := runstore.New(db, time.Now)
	row, _, err := runs.Create(ctx, runstore.Run{ChatID: "chat-1", WorkspaceID: WorkspaceID("chat-1"), GenerationType: "normal", Presentation: "foreground"},
		runstore.EventInput{Type: "run_created"})
	if err != nil {
		t.Fatal(err)
	}
	svc := &Service{d: Deps{DB: db, Bus: bus, Runs: runs}, log: slog.New(slog.DiscardHandler)}
	wt := &watcher{svc: svc}
	dir, err := workspace.OpenWorkingCopy(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	r := &run{svc: svc, id: row.ID, dir: dir, seen: map[string]seenText{}, wrote: map[string]string{}, dirty: map[string]bool{}, writing: map[string]int{}}
	abs := filepath.Join(dir.Root(), "output", "main.md")
	write := func(text string) {
		if err := os.WriteFile(abs, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	outside := func() int {
		evs, _, err := runs.Events(ctx, row.ID, 0, nil, 100)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, e := range evs {
			if e.Type == "workspace_file_changed_externally" {
				n++
			}
		}
		return n
	}

	// The run's write is on disk, its hash not yet recorded.
	r.writing["output/main.md"] = 1
	write("Drafted by the run.")
	wt.report(r, "output/main.md")
	if n := outside(); n != 0 || r.dirty["output/main.md"] {
		t.Fatalf("a write under way was taken for an outside edit (%d events, dirty %v)", n, r.dirty)
	}

	// Written and recorded: the same content is the run's, other content is not.
	delete(r.writing, "output/main.md")
	r.wrote["output/main.md"] = hashOf([]byte("Drafted by the run."))
	wt.report(r, "output/main.md")
	if n := outside(); n != 0 {
		t.Fatalf("the run's recorded write was reported as outside (%d events)", n)
	}
	write("Edited in another program.")
	wt.report(r, "output/main.md")
	if n := outside(); n != 1 || !r.dirty["output/main.md"] {
		t.Fatalf("an outside edit gave %d events, dirty %v; want 1 and dirty", n, r.dirty)
	}
}
