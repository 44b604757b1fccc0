package chats

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"strings"
)

// Undo and redo follow an editor's rules over the chat's change journal:
// every ordinary write is on the undo stack until it is undone; undo
// reverts the newest write still standing, redo re-applies the write undone
// last, and an ordinary write empties the redo stack. Undo and redo are
// writes of their own (method "undo" / "redo") that chat_undo links to the
// ordinary write they acted on; they are never undo targets themselves.

const (
	methodUndo = "undo"
	methodRedo = "redo"
)

// journalHead is what the walk needs of one journal entry: its revision,
// its method and, for an undo or redo, the revision of the ordinary write
// it acted on (0 for an ordinary write).
type journalHead struct {
	rev    int64
	method string
	target int64
}

func (h journalHead) ordinary() bool { return h.target == 0 }

// subject is the ordinary write an entry concerns: itself, or its target.
func (h journalHead) subject() int64 {
	if h.ordinary() {
		return h.rev
	}
	return h.target
}

// stepPlan is where an undo or redo starts: the ordinary write it acts on,
// the entry after which the chat should be exactly as that write left it
// (undo: the write itself or its latest redo; redo: its latest undo), and
// the entries since then, oldest first.
type stepPlan struct {
	target int64
	since  int64
	later  []journalHead
}

// planUndo finds the newest ordinary write that is not undone. heads come
// newest first; found is false when none is left in them.
func planUndo(heads func(yield func(journalHead) bool) error) (plan stepPlan, found bool, err error) {
	latest := map[int64]journalHead{} // subject → its newest undo/redo entry
	var seen []journalHead
	err = heads(func(h journalHead) bool {
		if !h.ordinary() {
			if _, ok := latest[h.target]; !ok {
				latest[h.target] = h
			}
			seen = append(seen, h)
			return true
		}
		if last, ok := latest[h.rev]; ok && last.method == methodUndo {
			seen = append(seen, h)
			return true
		}
		plan.target, plan.since, found = h.rev, h.rev, true
		if last, ok := latest[h.rev]; ok {
			plan.since = last.rev
		}
		return false
	})
	if err != nil || !found {
		return stepPlan{}, false, err
	}
	plan.later = newerThan(seen, plan.since)
	return plan, true, nil
}

// planRedo finds the write undone last, if no ordinary write came after
// its undo. heads come newest first.
func planRedo(heads func(yield func(journalHead) bool) error) (plan stepPlan, found bool, err error) {
	decided := map[int64]bool{}
	var seen []journalHead
	err = heads(func(h journalHead) bool {
		if h.ordinary() {
			return false // an ordinary write emptied the redo stack
		}
		if !decided[h.target] {
			decided[h.target] = true
			if h.method == methodUndo {
				plan.target, plan.since, found = h.target, h.rev, true
				return false
			}
		}
		seen = append(seen, h)
		return true
	})
	if err != nil || !found {
		return stepPlan{}, false, err
	}
	plan.later = newerThan(seen, plan.since)
	return plan, true, nil
}

// newerThan returns the heads (given newest first) after revision since,
// oldest first.
func newerThan(newestFirst []journalHead, since int64) []journalHead {
	var out []journalHead
	for i := len(newestFirst) - 1; i >= 0; i-- {
		if newestFirst[i].rev > since {
			out = append(out, newestFirst[i])
		}
	}
	return out
}

// standing returns the entries of later (oldest first) whose effect on the
// document still stands. An entry is cancelled when, over later, the write
// it concerns ends where it began: a write made and since undone, or a
// write undone and redone (or redone and undone) as often. Editor rules
// leave nothing standing after an undo or redo target; what stands is
// checked for overlap (see conflicts).
func standing(later []journalHead) []journalHead {
	net := map[int64]int{}
	for _, h := range later {
		switch {
		case h.ordinary(), h.method == methodRedo:
			net[h.subject()]++
		default:
			net[h.subject()]--
		}
	}
	var out []journalHead
	for _, h := range later {
		if net[h.subject()] != 0 {
			out = append(out, h)
		}
	}
	return out
}

// region is the part of the document a journal entry's operations reach:
// every op's path (and move/copy source).
type region []regionPath

type regionPath struct {
	path []string
	// shifts marks the insert or removal of a whole message: every message
	// after it changed position.
	shifts bool
}

// regionOf collects the paths ops reach. A path inside a message counts
// as the whole message: its fields are tied together (mes, swipes,
// swipe_id and swipe_info must agree), so two writes to one message always
// meet.
func regionOf(ops []patchOp) region {
	var r region
	for _, op := range ops {
		r = append(r, regionPath{messageLevel(op.path), wholeMessage(op.path) && op.op != "replace" && op.op != "test"})
		if op.from != nil {
			r = append(r, regionPath{messageLevel(op.from), wholeMessage(op.from) && op.op == "move"})
		}
	}
	return r
}

func messageLevel(p []string) []string {
	if len(p) > 2 && p[0] == "messages" {
		return p[:2]
	}
	return p
}

func wholeMessage(p []string) bool { return len(p) == 2 && p[0] == "messages" }

// overlap returns the paths of r that collide with o, conservatively: two
// paths collide when one is a prefix of the other (/messages/3 and
// /messages/3, /metadata and /metadata/x), and the insert or removal of a
// whole message at index k collides with every path on a message at index
// k or later, whose position it shifted.
func (r region) overlap(o region) []string {
	var out []string
	seen := map[string]bool{}
	for _, p := range r {
		for _, q := range o {
			if !collide(p, q) {
				continue
			}
			if s := joinPointer(p.path); !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
			break
		}
	}
	return out
}

func collide(p, q regionPath) bool {
	if isPrefix(p.path, q.path) || isPrefix(q.path, p.path) {
		return true
	}
	pn, pok := pathMessage(p.path)
	qn, qok := pathMessage(q.path)
	if !pok || !qok {
		return false
	}
	return (q.shifts && pn >= qn) || (p.shifts && qn >= pn)
}

func isPrefix(p, q []string) bool {
	if len(p) > len(q) {
		return false
	}
	for i := range p {
		if p[i] != q[i] {
			return false
		}
	}
	return true
}

// pathMessage is the message index a path names (math.MaxInt for /messages/-).
func pathMessage(p []string) (int, bool) {
	if len(p) < 2 || p[0] != "messages" {
		return 0, false
	}
	if p[1] == "-" {
		return math.MaxInt, true
	}
	return messageIndex(p[1])
}

// walkJournal yields the chat's journal heads, newest first.
func walkJournal(ctx context.Context, q queryer, chatID int64) func(yield func(journalHead) bool) error {
	return func(yield func(journalHead) bool) error {
		rows, err := q.QueryContext(ctx, `
			SELECT j.revision, j.method, COALESCE(u.target, 0)
			FROM chat_journal j LEFT JOIN chat_undo u ON u.chat_id = j.chat_id AND u.revision = j.revision
			WHERE j.chat_id = ? ORDER BY j.revision DESC`, chatID)
		if err != nil {
			return fmt.Errorf("read journal: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			var h journalHead
			if err := rows.Scan(&h.rev, &h.method, &h.target); err != nil {
				return fmt.Errorf("read journal: %w", err)
			}
			if !yield(h) {
				return nil
			}
		}
		if err := rows.Err(); err != nil {
			return fmt.Errorf("read journal: %w", err)
		}
		return nil
	}
}

// journalEntry is one stored journal entry with its operations.
type journalEntry struct {
	rev     int64
	method  string
	ops     []patchOp
	inverse []patchOp
}

// loadEntry reads the journal entry of revision rev; found is false when
// it was pruned.
func loadEntry(ctx context.Context, q queryer, chatID, rev int64) (e journalEntry, found bool, err error) {
	var ops, inverse string
	err = q.QueryRowContext(ctx, `SELECT method, ops, inverse FROM chat_journal WHERE chat_id = ? AND revision = ?`, chatID, rev).
		Scan(&e.method, &ops, &inverse)
	if err == sql.ErrNoRows {
		return e, false, nil
	}
	if err != nil {
		return e, false, fmt.Errorf("read journal entry %d: %w", rev, err)
	}
	e.rev = rev
	if e.ops, err = decodeJournalOps(ops); err != nil {
		return e, false, fmt.Errorf("journal entry %d: ops: %w", rev, err)
	}
	if e.inverse, err = decodeJournalOps(inverse); err != nil {
		return e, false, fmt.Errorf("journal entry %d: inverse: %w", rev, err)
	}
	return e, true, nil
}

// oldestJournal returns the oldest revision still in the chat's journal
// (0 when it is empty).
func oldestJournal(ctx context.Context, q queryer, chatID int64) (int64, error) {
	var rev sql.NullInt64
	if err := q.QueryRowContext(ctx, `SELECT MIN(revision) FROM chat_journal WHERE chat_id = ?`, chatID).Scan(&rev); err != nil {
		return 0, fmt.Errorf("read journal: %w", err)
	}
	return rev.Int64, nil
}

// describeMethod turns a journal method into words for messages.
func describeMethod(method string) string {
	var b strings.Builder
	for i, r := range method {
		if r >= 'A' && r <= 'Z' {
			if i > 0 {
				b.WriteByte(' ')
			}
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}
