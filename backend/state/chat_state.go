package state

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"hearth/backend/apperr"
	"hearth/backend/events"
	"hearth/backend/jsonx"
	"hearth/backend/store"
)

// MaxBatch bounds getChatStateBatch.
const MaxBatch = 500

// WriteOptions are setChatState's and deleteChatState's options.
type WriteOptions struct {
	// IfRevision makes the write fail with state.conflict unless the
	// namespace is at this revision; 0 means it must not exist.
	IfRevision *int64 `json:"ifRevision"`
	// Lease is the token from BeginUpdate; the write ends that round.
	Lease string `json:"lease"`
}

// stored is a chat_state row: value nil when absent or deleted.
type stored struct {
	value    []byte
	revision int64 // keeps counting across deletes
}

func (s stored) exists() bool { return s.value != nil }

// current is the revision a caller sees: 0 when the namespace does not exist.
func (s stored) current() int64 {
	if !s.exists() {
		return 0
	}
	return s.revision
}

func readStored(ctx context.Context, q queryer, chat int64, ns string) (stored, error) {
	var v sql.NullString
	var st stored
	err := q.QueryRowContext(ctx, `SELECT value, revision FROM chat_state WHERE chat_id = ? AND ns = ?`, chat, ns).Scan(&v, &st.revision)
	if errors.Is(err, sql.ErrNoRows) {
		return stored{}, nil
	}
	if err != nil {
		return stored{}, fmt.Errorf("read chat state %s: %w", ns, err)
	}
	if v.Valid {
		st.value = []byte(v.String)
	}
	return st, nil
}

// writeStored stores value (nil deletes) at the next revision.
func writeStored(ctx context.Context, q queryer, chat int64, ns string, value []byte, prev stored) (int64, error) {
	rev := prev.revision + 1
	var v any
	if value != nil {
		v = string(value)
	}
	_, err := q.ExecContext(ctx, `INSERT INTO chat_state (chat_id, ns, value, revision) VALUES (?, ?, ?, ?)
		ON CONFLICT (chat_id, ns) DO UPDATE SET value = excluded.value, revision = excluded.revision`, chat, ns, v, rev)
	if err != nil {
		return 0, fmt.Errorf("write chat state %s: %w", ns, err)
	}
	return rev, nil
}

func isFloorOwned(ctx context.Context, q queryer, chat int64, ns string) (bool, error) {
	var n int
	if err := q.QueryRowContext(ctx, `SELECT COUNT(*) FROM floor_states WHERE chat_id = ? AND ns = ?`, chat, ns).Scan(&n); err != nil {
		return false, fmt.Errorf("read floor state %s: %w", ns, err)
	}
	return n > 0, nil
}

func checkRevision(ns string, want *int64, st stored) error {
	if want == nil || *want == st.current() {
		return nil
	}
	return apperr.New(apperr.CodeStateConflict, "namespace %q is at revision %d, not %d", ns, st.current(), *want).
		WithDetails(map[string]any{"namespace": ns, "currentRevision": st.current(), "expectedRevision": *want})
}

// normalize compacts a JSON value and bounds it.
func normalize(raw json.RawMessage, label string) ([]byte, error) {
	if jsonx.IsNull(raw) {
		return nil, apperr.Invalid("%s is required (to remove a namespace use deleteChatState)", label)
	}
	if len(raw) > MaxValueBytes {
		return nil, apperr.New(apperr.CodeTooMany, "%s is %d bytes; a namespace holds at most %d", label, len(raw), MaxValueBytes)
	}
	if err := jsonx.CheckDepth(raw, label); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return nil, apperr.Invalid("%s must be JSON: %v", label, err)
	}
	return b.Bytes(), nil
}

// Get returns a namespace's value and revision, nil when it does not exist.
// "<ns>__floor_log" reads a floor state's commit log.
func (s *Service) Get(ctx context.Context, chatID, ns string) (*Entry, error) {
	out, err := s.GetBatch(ctx, chatID, []string{ns})
	if err != nil {
		return nil, err
	}
	return out[ns], nil
}

// GetBatch reads several namespaces from one snapshot.
func (s *Service) GetBatch(ctx context.Context, chatID string, nss []string) (map[string]*Entry, error) {
	if len(nss) > MaxBatch {
		return nil, apperr.New(apperr.CodeTooMany, "at most %d namespaces per batch", MaxBatch)
	}
	for _, ns := range nss {
		if err := checkNamespace(ns); err != nil {
			return nil, err
		}
	}
	out := make(map[string]*Entry, len(nss))
	err := s.read(ctx, func(q queryer) error {
		chat, err := chatRow(ctx, q, chatID)
		if err != nil {
			return err
		}
		for _, ns := range nss {
			e, err := readEntry(ctx, q, chat, ns)
			if err != nil {
				return err
			}
			out[ns] = e
		}
		return nil
	})
	return out, err
}

func readEntry(ctx context.Context, q queryer, chat int64, ns string) (*Entry, error) {
	if base, ok := cutSuffix(ns, LogSuffix); ok {
		return readLog(ctx, q, chat, base)
	}
	st, err := readStored(ctx, q, chat, ns)
	if err != nil || !st.exists() {
		return nil, err
	}
	return &Entry{Value: st.value, Revision: st.revision}, nil
}

// Set writes a namespace. Writing the value it already has changes nothing.
func (s *Service) Set(ctx context.Context, chatID, ns string, value json.RawMessage, opts WriteOptions) (int64, error) {
	defer s.leases.release(chatID, ns, opts.Lease)
	if err := checkWritable(ns); err != nil {
		return 0, err
	}
	val, err := normalize(value, "value")
	if err != nil {
		return 0, err
	}
	var rev int64
	err = s.db.InTx(ctx, func(tx *store.Tx) error {
		chat, st, err := s.openForWrite(ctx, tx, chatID, ns, opts.IfRevision)
		if err != nil {
			return err
		}
		if st.exists() && bytes.Equal(st.value, val) {
			rev = st.revision
			return nil
		}
		if rev, err = writeStored(ctx, tx, chat, ns, val, st); err != nil {
			return err
		}
		s.publishAfter(tx, []events.Event{changed(chatID, ns, rev, false)})
		return nil
	})
	return rev, err
}

// Delete removes a namespace; deleting one that does not exist is a no-op.
func (s *Service) Delete(ctx context.Context, chatID, ns string, opts WriteOptions) error {
	defer s.leases.release(chatID, ns, opts.Lease)
	if err := checkWritable(ns); err != nil {
		return err
	}
	return s.db.InTx(ctx, func(tx *store.Tx) error {
		chat, st, err := s.openForWrite(ctx, tx, chatID, ns, opts.IfRevision)
		if err != nil || !st.exists() {
			return err
		}
		rev, err := writeStored(ctx, tx, chat, ns, nil, st)
		if err != nil {
			return err
		}
		s.publishAfter(tx, []events.Event{changed(chatID, ns, rev, true)})
		return nil
	})
}

// openForWrite checks that ns of chatID may be written at ifRevision and
// returns the chat row and the namespace as stored.
func (s *Service) openForWrite(ctx context.Context, tx *store.Tx, chatID, ns string, ifRevision *int64) (int64, stored, error) {
	chat, err := chatRow(ctx, tx, chatID)
	if err != nil {
		return 0, stored{}, err
	}
	owned, err := isFloorOwned(ctx, tx, chat, ns)
	if err != nil {
		return 0, stored{}, err
	}
	if owned {
		return 0, stored{}, floorOwned(ns)
	}
	st, err := readStored(ctx, tx, chat, ns)
	if err != nil {
		return 0, stored{}, err
	}
	return chat, st, checkRevision(ns, ifRevision, st)
}

// Round is what BeginUpdate hands an updater: the value (nil when the
// namespace does not exist), its revision, and the lease to write with.
type Round struct {
	Value    json.RawMessage `json:"value"`
	Revision int64           `json:"revision"`
	Lease    string          `json:"lease"`
}

// BeginUpdate starts one read-modify-write round of updateChatState. It
// waits its turn behind other rounds on the namespace (first come, first
// served, across every window and client), so cooperating updaters do not
// starve each other with conflicts. The round ends with Set or Delete
// carrying the lease, with EndUpdate, or after leaseTTL.
func (s *Service) BeginUpdate(ctx context.Context, chatID, ns string) (*Round, error) {
	if err := checkWritable(ns); err != nil {
		return nil, err
	}
	lease, free := s.leases.tryAcquire(chatID, ns)
	if !free {
		// A round that has to wait first checks that the chat and the
		// namespace can be updated at all, so a mistake fails at once.
		if _, err := s.checkUpdatable(ctx, chatID, ns); err != nil {
			return nil, err
		}
		var err error
		if lease, err = s.leases.acquire(ctx, chatID, ns); err != nil {
			return nil, err
		}
	}
	st, err := s.checkUpdatable(ctx, chatID, ns)
	if err != nil {
		s.leases.release(chatID, ns, lease)
		return nil, err
	}
	return &Round{Value: st.value, Revision: st.current(), Lease: lease}, nil
}

func (s *Service) checkUpdatable(ctx context.Context, chatID, ns string) (stored, error) {
	var st stored
	err := s.read(ctx, func(q queryer) error {
		chat, err := chatRow(ctx, q, chatID)
		if err != nil {
			return err
		}
		owned, err := isFloorOwned(ctx, q, chat, ns)
		if err != nil {
			return err
		}
		if owned {
			return floorOwned(ns)
		}
		st, err = readStored(ctx, q, chat, ns)
		return err
	})
	return st, err
}

// EndUpdate ends a round that writes nothing (the updater returned undefined).
func (s *Service) EndUpdate(chatID, ns, lease string) {
	s.leases.release(chatID, ns, lease)
}

func cutSuffix(s, suffix string) (string, bool) {
	if len(s) > len(suffix) && s[len(s)-len(suffix):] == suffix {
		return s[:len(s)-len(suffix)], true
	}
	return "", false
}
