package library_test

import (
	"strings"
	"testing"

	"hearth/backend/library"
	"hearth/backend/store"
)

// TestChatCommitsWithItsLedgerRow: a chat and the ledger row that says it
// was imported are one transaction. With the ledger refusing chat rows, the
// import stops at the first chat and stores none (two transactions stored
// the chat first, which the next import then stored a second time); once
// the ledger takes them again, every chat is imported once, each with its
// row.
func TestChatCommitsWithItsLedgerRow(t *testing.T) {
	t.Parallel()
	_, userDir := install(t)
	a := openApp(t)
	ctx := t.Context()
	exec := func(q string) {
		t.Helper()
		if err := a.Store.InTx(ctx, func(tx *store.Tx) error { _, err := tx.ExecContext(ctx, q); return err }); err != nil {
			t.Fatal(err)
		}
	}
	exec(`CREATE TRIGGER ledger_down BEFORE INSERT ON library_imports WHEN new.kind = 'chat' BEGIN SELECT RAISE(ABORT, 'ledger down'); END`)
	_, err := a.Library.Import(ctx, userDir, nil)
	if err == nil || !strings.Contains(err.Error(), "ledger down") {
		t.Fatalf("import with the ledger down: %v, want its error", err)
	}
	if got := stateOf(t, a); got.chats != 0 || got.characters != fixtureCards {
		t.Fatalf("after the failed chat: %+v, want the cards and no chat", got)
	}

	exec(`DROP TRIGGER ledger_down`)
	sum, err := a.Library.Import(ctx, userDir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Imported.Chats != fixtureChats {
		t.Errorf("imported %d chats, want %d", sum.Imported.Chats, fixtureChats)
	}
	var rows int
	if err := a.Store.Reader().QueryRowContext(ctx, `SELECT COUNT(*) FROM library_imports WHERE kind = ?`, library.KindChat).Scan(&rows); err != nil {
		t.Fatal(err)
	}
	// Group chats have their rows too, of the same kind.
	if got := stateOf(t, a); got.chats+got.groupChats != fixtureChats+fixtureGroupChats || rows != fixtureChats+fixtureGroupChats {
		t.Errorf("Hearth holds %d chats and %d ledger rows for chats, want %d of each", got.chats+got.groupChats, rows, fixtureChats+fixtureGroupChats)
	}
}
