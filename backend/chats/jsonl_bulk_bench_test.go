package chats

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"hearth/backend/internal/chatgen"
	"hearth/backend/store"
)

// BenchmarkImportRows stores the 10,000 messages of BenchmarkImportJsonl's
// file already decoded and encoded (untimed), through the import's own
// prepared statements in one transaction, commit included: the rows alone,
// with nothing parsed or validated. It is the ceiling on import speed with
// messages, bodies and swipes as rows (DESIGN §3), and the figure to
// compare the import goal of issue 11 (50,000 messages/s) against.
func BenchmarkImportRows(b *testing.B) {
	opts := chatgen.Options{Seed: 5, Messages: 10_000}
	text, err := chatgen.JSONL(opts, map[string]any{"integrity": "bench"}, chatgen.Messages(opts))
	if err != nil {
		b.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(text)), "\n")[1:]
	imp := &jsonlImporter{userName: "User", charName: "Seraphina", now: time.Now()}
	prepared := make([]*preparedMessage, len(lines))
	for i, l := range lines {
		if prepared[i], err = imp.decode(i+2, []byte(l)); err != nil {
			b.Fatal(err)
		}
	}
	ctx := context.Background()
	var elapsed time.Duration
	for b.Loop() {
		// A fresh database each time, so every run writes into one of the
		// same size; opening it is not timed.
		b.StopTimer()
		db, err := store.Open(ctx, filepath.Join(b.TempDir(), "hearth.db"), store.Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		t0 := time.Now()
		err = db.InTx(ctx, func(tx *store.Tx) error {
			res, err := tx.ExecContext(ctx, `INSERT INTO chats (uuid, owner_kind, owner, file_name, kind, metadata, revision, message_count, bytes, created_at, updated_at, change_seq)
				VALUES ('bench', 'character', 'Seraphina.png', 'bench', 'main', '{}', 0, 0, 0, 0, 0, 1)`)
			if err != nil {
				return err
			}
			chatID, err := res.LastInsertId()
			if err != nil {
				return err
			}
			bulk, err := newBulkInserter(ctx, tx, chatID)
			if err != nil {
				return err
			}
			defer bulk.close()
			for n, p := range prepared {
				if err := bulk.insert(ctx, n, p); err != nil {
					return err
				}
			}
			return nil
		})
		elapsed += time.Since(t0)
		b.StopTimer()
		if err != nil {
			b.Fatal(err)
		}
		db.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(len(prepared))*float64(b.N)/elapsed.Seconds(), "msgs/s")
}
