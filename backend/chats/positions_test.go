package chats_test

import (
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"testing"

	"hearth/backend/chats"
	"hearth/backend/internal/msgorder"
	"hearth/backend/store"
)

// checkPositions checks how chat chatID's messages are stored: count rows
// at distinct positions, and the chat's gaps exactly the positions below
// the last one that no row holds.
func checkPositions(tb testing.TB, db *sql.DB, chatID string, count int) {
	tb.Helper()
	stored, gaps := readPositions(tb, db, chatID)
	if len(stored) != count {
		tb.Errorf("%d message rows, want %d", len(stored), count)
	}
	var want msgorder.Gaps
	next := 0
	for _, p := range stored {
		for ; next < p; next++ {
			want = append(want, next)
		}
		next = p + 1
	}
	if !slices.Equal(gaps, want) {
		tb.Errorf("chat gaps %v, but the rows leave %v vacant (positions %v)", gaps, want, stored)
	}
}

// readPositions returns the stored positions of a chat's messages in
// order, and its gaps.
func readPositions(tb testing.TB, db *sql.DB, chatID string) ([]int, msgorder.Gaps) {
	tb.Helper()
	rows, err := db.Query(`SELECT m.idx FROM messages m JOIN chats c ON c.id = m.chat_id WHERE c.uuid = ? ORDER BY m.idx`, chatID)
	if err != nil {
		tb.Fatalf("read positions: %v", err)
	}
	defer rows.Close()
	var stored []int
	for rows.Next() {
		var p int
		if err := rows.Scan(&p); err != nil {
			tb.Fatalf("read positions: %v", err)
		}
		stored = append(stored, p)
	}
	if err := rows.Err(); err != nil {
		tb.Fatalf("read positions: %v", err)
	}
	var raw []byte
	if err := db.QueryRow(`SELECT idx_gaps FROM chats WHERE uuid = ?`, chatID).Scan(&raw); err != nil {
		tb.Fatalf("read gaps: %v", err)
	}
	gaps, err := msgorder.Decode(raw)
	if err != nil {
		tb.Fatalf("decode gaps: %v", err)
	}
	return stored, gaps
}

// positionRig is a chat of n numbered messages ("m0" is the greeting's
// place: the chat starts with the character's greeting, then m1...).
func positionRig(t *testing.T, n int) (*rig, string) {
	t.Helper()
	r := openRig(t, t.TempDir())
	chatID := r.newChat("positions")
	batch := make([]map[string]any, 0, n-1)
	for i := 1; i < n; i++ {
		batch = append(batch, map[string]any{"mes": fmt.Sprintf("m%d", i), "is_user": i%2 == 1, "name": "User"})
	}
	r.call("chat.addMessages", chatID, batch)
	return r, chatID
}

// texts is the chat's messages' text, in order (the greeting as "m0").
func texts(r *rig, chatID string) []string {
	msgs := r.stMessages(chatID)
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = m.Mes
	}
	if len(out) > 0 && out[0] != "m0" {
		out[0] = "m0"
	}
	return out
}

// TestMiddleDeleteMovesNoRow: deleting in the middle leaves the rows after
// it where they are, and every read still sees dense indexes.
func TestMiddleDeleteMovesNoRow(t *testing.T) {
	t.Parallel()
	r, chatID := positionRig(t, 20)
	db := r.app.Store.Reader()
	before, _ := readPositions(t, db, chatID)
	r.call("chat.deleteMessages", chatID, 5)
	r.call("chat.deleteMessages", chatID, []int{7, 9})
	after, gaps := readPositions(t, db, chatID)
	// Index 7 was m8 (position 8) and index 9 m10, after 5 went.
	if !slices.Equal(gaps, msgorder.Gaps{5, 8, 10}) {
		t.Fatalf("gaps %v, want [5 8 10]", gaps)
	}
	// Every row still stored keeps its position.
	kept := slices.DeleteFunc(slices.Clone(before), func(p int) bool { return p == 5 || p == 8 || p == 10 })
	if !slices.Equal(after, kept) {
		t.Fatalf("positions %v, want %v (no row moved)", after, kept)
	}
	checkPositions(t, db, chatID, 17)

	want := []string{"m0", "m1", "m2", "m3", "m4", "m6", "m7", "m9", "m11", "m12", "m13", "m14", "m15", "m16", "m17", "m18", "m19"}
	if got := texts(r, chatID); !slices.Equal(got, want) {
		t.Fatalf("messages %v, want %v", got, want)
	}
	var page []map[string]any
	r.decode(r.call("chat.getStMessages", chatID, map[string]any{"start": 6, "end": 9}), &page)
	if len(page) != 3 || page[0]["mes"] != "m7" || page[2]["mes"] != "m11" {
		t.Fatalf("range 6..9 = %v, want m7 m9 m11", page)
	}
	var tail []map[string]any
	r.decode(r.call("chat.getStMessages", chatID, map[string]any{"tail": 2}), &tail)
	if len(tail) != 2 || tail[0]["mes"] != "m18" {
		t.Fatalf("tail 2 = %v", tail)
	}

	// An append goes after the last row; the index it reports is dense.
	var idx int
	r.decode(r.call("chat.addMessages", chatID, map[string]any{"mes": "m20", "is_user": true, "name": "User"}), &idx)
	if idx != 17 {
		t.Fatalf("appended at index %d, want 17", idx)
	}
	checkPositions(t, db, chatID, 18)

	// Deleting from the end drops the vacancies that end up last.
	// m11 (index 8, position 11) goes, and gap 10 is then the end.
	r.call("chat.deleteMessages", chatID, []int{8, 9, 10, 11, 12, 13, 14, 15, 16, 17})
	if _, gaps := readPositions(t, db, chatID); !slices.Equal(gaps, msgorder.Gaps{5, 8}) {
		t.Fatalf("after deleting the end, gaps %v, want [5 8]", gaps)
	}
	checkPositions(t, db, chatID, 8)
	if got := texts(r, chatID); !slices.Equal(got, want[:8]) {
		t.Fatalf("messages %v, want %v", got, want[:8])
	}
}

// TestIndexesThroughGaps: search hits, floor logs, branches and undo all
// report and take dense indexes in a chat with gaps.
func TestIndexesThroughGaps(t *testing.T) {
	t.Parallel()
	r, chatID := positionRig(t, 30)
	db := r.app.Store.Reader()
	r.call("state.floorUpdate", chatID, "fs", map[string]any{"a": 1}, map[string]any{"floor": 20})
	r.call("state.floorUpdate", chatID, "fs", map[string]any{"a": 1, "b": 2}, map[string]any{"floor": 25})
	r.call("chat.deleteMessages", chatID, []int{3, 10})

	var log struct {
		Value struct {
			Commits []struct {
				Floor int `json:"floor"`
			} `json:"commits"`
		} `json:"value"`
	}
	r.decode(r.call("state.getChatState", chatID, "fs__floor_log"), &log)
	if c := log.Value.Commits; len(c) != 2 || c[0].Floor != 18 || c[1].Floor != 23 {
		t.Fatalf("floor log %+v, want floors 18 and 23", c)
	}
	// A floor given by index reaches the message at that index.
	r.call("state.floorUpdate", chatID, "fs", map[string]any{"a": 1, "b": 2, "c": 3}, map[string]any{"floor": 26})
	r.decode(r.call("state.getChatState", chatID, "fs__floor_log"), &log)
	if c := log.Value.Commits; len(c) != 3 || c[2].Floor != 26 {
		t.Fatalf("floor log %+v, want a third commit on floor 26", c)
	}
	msgs := r.stMessages(chatID)

	// The chat's summary quotes its last message.
	var sum struct {
		Mes string `json:"mes"`
	}
	r.decode(r.call("chat.get", chatID), &sum)
	if sum.Mes != "m29" {
		t.Fatalf("summary quotes %q, want the last message, m29", sum.Mes)
	}

	// An edit by index past the gaps, and its undo, touch that message only.
	r.call("chat.updateMessages", chatID, map[string]any{"index": 20, "patch": map[string]any{"mes": "edited"}})
	if got := r.stMessages(chatID); got[20].Mes != "edited" || got[19].Mes != msgs[19].Mes || got[21].Mes != msgs[21].Mes {
		t.Fatalf("edit of index 20 landed elsewhere: %q %q %q", got[19].Mes, got[20].Mes, got[21].Mes)
	}
	r.call("chat.undo", chatID)
	// And by id.
	r.call("chat.updateMessage", chatID, msgs[24].ID, map[string]any{"content": "by id"})
	if got := r.stMessages(chatID); got[20].Mes != msgs[20].Mes || got[24].Mes != "by id" || got[23].Mes != msgs[23].Mes {
		t.Fatalf("after undo and an edit by id: %q %q %q", got[20].Mes, got[23].Mes, got[24].Mes)
	}
	r.call("chat.undo", chatID)

	// A prompt reads the chat through its gaps, to the last message.
	dry := string(r.call("generate.dryRun", map[string]any{"chatId": chatID, "type": "normal"}))
	if at28, at29 := strings.Index(dry, `m28`), strings.Index(dry, `m29`); at28 < 0 || at29 < at28 || strings.Contains(dry, `"m10"`) {
		t.Fatalf("the prompt does not hold the chat in order: %.400s", dry)
	}

	var hits []struct {
		Index int    `json:"index"`
		ID    string `json:"id"`
	}
	r.decode(r.call("chat.search", chatID, "m2", map[string]any{"start": 20, "end": 24, "limit": 50}), &hits)
	var found []int
	for _, h := range hits {
		found = append(found, h.Index)
		if msgs[h.Index].ID != h.ID {
			t.Errorf("hit at index %d is message %s, but %s is there", h.Index, h.ID, msgs[h.Index].ID)
		}
	}
	slices.Sort(found)
	// m20..m29 sit at 18..27 now: 20..23 are m22..m25.
	if !slices.Equal(found, []int{20, 21, 22, 23}) {
		t.Fatalf("search in 20..24 found indexes %v, want 20..23", found)
	}
	err := r.app.Store.InTx(t.Context(), func(tx *store.Tx) error {
		index, ok, err := chats.MessageIndexTx(t.Context(), tx, chatID, msgs[24].ID)
		if err == nil && (!ok || index != 24) {
			err = fmt.Errorf("MessageIndexTx = %d, %v; want 24", index, ok)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}

	// A branch copies the chat up to an index, gaps and floor states with it.
	var br rigSummary
	r.decode(r.call("chat.createBranch", chatID, 21, map[string]any{"open": false}), &br)
	if got := texts(r, br.ChatID); !slices.Equal(got, texts(r, chatID)[:22]) {
		t.Fatalf("branch holds %v", got)
	}
	checkPositions(t, db, br.ChatID, 22)
	r.decode(r.call("state.getChatState", br.ChatID, "fs__floor_log"), &log)
	if c := log.Value.Commits; len(c) != 1 || c[0].Floor != 18 {
		t.Fatalf("branch floor log %+v, want the commit on floor 18 alone", c)
	}

	// Undoing a middle delete puts the messages back in their gaps.
	r.call("chat.deleteMessages", chatID, []int{12, 13})
	stored, _ := readPositions(t, db, chatID)
	r.call("chat.undo", chatID)
	back, gaps := readPositions(t, db, chatID)
	if len(back) != len(stored)+2 || !slices.Equal(slices.DeleteFunc(slices.Clone(back), func(p int) bool { return !slices.Contains(stored, p) }), stored) {
		t.Fatalf("undo moved rows: %v before, %v after", stored, back)
	}
	if !slices.Equal(gaps, msgorder.Gaps{3, 10}) {
		t.Fatalf("after undo, gaps %v, want [3 10]", gaps)
	}
	if got := r.stMessages(chatID); len(got) != len(msgs) || got[12].ID != msgs[12].ID || got[13].ID != msgs[13].ID {
		t.Fatalf("undo did not restore messages 12 and 13")
	}
	checkPositions(t, db, chatID, 28)

	// A commit cut to the orphans keeps its floor as an index.
	r.call("state.floorUpdate", chatID, "ob", map[string]any{"a": 1}, map[string]any{"floor": 12})
	r.call("state.floorUpdate", chatID, "ob", map[string]any{"a": 2}, map[string]any{"floor": 15})
	r.call("chat.deleteMessages", chatID, 12)
	r.decode(r.call("state.getChatState", chatID, "ob__orphans"), &log)
	if c := log.Value.Commits; len(c) != 1 || c[0].Floor != 14 {
		t.Fatalf("orphans %+v, want the commit made on 15, now on 14", c)
	}
}

// TestManyGapsAreClosed: past msgorder.MaxGaps vacancies, a delete
// renumbers the chat's rows and it has none again.
func TestManyGapsAreClosed(t *testing.T) {
	t.Parallel()
	n := 2*msgorder.MaxGaps + 10
	r, chatID := positionRig(t, n)
	db := r.app.Store.Reader()
	// Every other message below the last ten: one at a time would be
	// slow; a batch vacates them all at once.
	var odd []int
	for i := 1; i < 2*(msgorder.MaxGaps-1); i += 2 {
		odd = append(odd, i)
	}
	r.call("chat.deleteMessages", chatID, odd)
	if _, gaps := readPositions(t, db, chatID); len(gaps) != len(odd) {
		t.Fatalf("%d gaps, want %d", len(gaps), len(odd))
	}
	checkPositions(t, db, chatID, n-len(odd))
	left := texts(r, chatID)
	r.call("chat.deleteMessages", chatID, []int{1, 2, 3})
	stored, gaps := readPositions(t, db, chatID)
	if len(gaps) != 0 || stored[len(stored)-1] != len(stored)-1 {
		t.Fatalf("past %d gaps, still %d gaps (last position %d of %d rows)", msgorder.MaxGaps, len(gaps), stored[len(stored)-1], len(stored))
	}
	checkPositions(t, db, chatID, n-len(odd)-3)
	if got := texts(r, chatID); !slices.Equal(got, slices.Delete(left, 1, 4)) {
		t.Fatal("closing the gaps changed the messages")
	}
}
