package chats

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/google/uuid"

	"hearth/backend/apperr"
	"hearth/backend/events"
	"hearth/backend/jsonx"
	"hearth/backend/state"
	"hearth/backend/store"
)

// CheckpointOptions name a checkpoint.
type CheckpointOptions struct {
	Name string `json:"name"`
}

// BranchOptions tune a branch. Open is the window's business (the ABI
// selects the branch); the backend only validates it.
type BranchOptions struct {
	SwipeID *int  `json:"swipeId"`
	Open    *bool `json:"open"`
	// IsolateLorebook false keeps the chat-bound lorebook shared; by
	// default the branch binds its own copy.
	IsolateLorebook *bool `json:"isolateLorebook"`
}

// CreateCheckpoint copies messages 0..index into a new chat of kind
// "checkpoint" (SillyTavern's bookmark) and stays on the source, whose
// message index records the checkpoint's name in extra.bookmark_link.
func (s *Service) CreateCheckpoint(ctx context.Context, chatID string, index int, opts CheckpointOptions) (*Summary, error) {
	return s.fork(ctx, chatID, index, "checkpoint", opts.Name, nil, true)
}

// CreateBranch copies messages 0..index into a new chat of kind "branch"
// (message index switched to swipeId when given); the source message lists
// it in extra.branches.
func (s *Service) CreateBranch(ctx context.Context, chatID string, index int, opts BranchOptions) (*Summary, error) {
	return s.fork(ctx, chatID, index, "branch", "", opts.SwipeID, opts.IsolateLorebook == nil || *opts.IsolateLorebook)
}

// copyIDs gives a copy's messages fresh ids: one UUIDv7 (RFC 9562) per
// copy, its last 48 bits counted up by index (the standard's monotonic
// random method). The ids of one copy so sort in index order and land
// side by side in the unique index, where random ones would each touch a
// page of their own.
func copyIDs() (prefix string, base int64) {
	id := uuid.Must(uuid.NewV7()).String()
	n, _ := strconv.ParseInt(id[24:], 16, 64)
	return id[:24], n
}

// fork makes the checkpoint or branch in one transaction: the new chat with
// its messages and isolated state, and the source message's link to it.
func (s *Service) fork(ctx context.Context, chatID string, index int, kind, name string, swipeID *int, isolateBook bool) (*Summary, error) {
	var sum Summary
	err := s.db.InTx(ctx, func(tx *store.Tx) error {
		src, err := loadChat(ctx, tx, chatID)
		if err != nil {
			return err
		}
		at, err := loadAt(ctx, tx, src, index)
		if err != nil {
			return err
		}
		if swipeID != nil {
			if err := checkSwipe(*swipeID, len(at.msg.Swipes)); err != nil {
				return err
			}
		}
		if name, err = forkName(ctx, tx, src, kind, name); err != nil {
			return err
		}
		dst, firstRow, err := s.copyChat(ctx, tx, src, index, kind, name, isolateBook)
		if err != nil {
			return err
		}
		var moved []int64
		var grew int64
		if swipeID != nil && *swipeID != at.msg.SwipeID {
			sm, err := loadAt(ctx, tx, dst, index)
			if err != nil {
				return err
			}
			next := sm.msg.Clone()
			navigate(next, *swipeID)
			if err := rewriteMessage(ctx, tx, sm.rowID, sm.msg, next); err != nil {
				return err
			}
			moved = append(moved, sm.rowID)
			grew = int64(len(next.mustJSON()) - len(sm.msg.mustJSON()))
		}
		if err := measure(ctx, tx, src, dst, grew); err != nil {
			return err
		}
		if err := state.Fork(ctx, tx, src.id, dst.id, firstRow, dst.uuid, src.gaps.Pos(index), moved); err != nil {
			return err
		}
		if err := s.linkSource(ctx, tx, src.uuid, index, kind, name); err != nil {
			return err
		}
		if s.hooks.AfterFork != nil {
			if err := s.hooks.AfterFork(ctx, tx, Fork{SourceChatID: src.uuid, ChatID: dst.uuid, Index: index, Kind: kind}); err != nil {
				return err
			}
		}
		d, err := s.details(ctx, tx, dst.uuid)
		if err != nil {
			return err
		}
		sum = d.Summary
		ref := events.ChatRevision{ChatID: dst.uuid, Revision: dst.revision}
		created := &events.ChatCreatedPayload{ChatRevision: ref, Chat: sum}
		branched := &events.ChatBranchCreatedPayload{ChatRevision: ref, SourceChatID: src.uuid, Index: index, Kind: kind, FileName: name}
		tx.AfterCommit(func() {
			s.bus.Publish(events.Event{Type: events.ChatCreated, Payload: created})
			s.bus.Publish(events.Event{Type: events.ChatBranchCreated, Payload: branched})
		})
		// A group lists its chats' checkpoints and branches too, as
		// SillyTavern's saveGroupBookmarkChat does, without opening them.
		if dst.ownerKind == "group" && s.hooks.Groups != nil {
			return s.hooks.Groups.AddChatIn(ctx, tx, dst.owner, name, false)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &sum, nil
}

// forkName validates a chosen name, or picks "<source> - Checkpoint #N" /
// "<source> - Branch #N" with the first free N.
func forkName(ctx context.Context, tx *store.Tx, src *chatRow, kind, name string) (string, error) {
	taken := func(n string) (bool, error) {
		var c int
		err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM chats WHERE owner_kind = ? AND owner = ? AND file_name = ?`, src.ownerKind, src.owner, n).Scan(&c)
		return c > 0, err
	}
	if name != "" {
		n, err := validFileName(name)
		if err != nil {
			return "", err
		}
		t, err := taken(n)
		if err != nil {
			return "", fmt.Errorf("name %s: %w", kind, err)
		}
		if t {
			return "", nameTaken(n)
		}
		return n, nil
	}
	label := "Checkpoint"
	if kind == "branch" {
		label = "Branch"
	}
	base := src.fileName
	for i := 1; i <= 100000; i++ {
		suffix := fmt.Sprintf(" - %s #%d", label, i)
		n := base
		if len(n)+len(suffix) > 200 {
			n = truncate(n, 200-len(suffix)-len("…"))
		}
		n += suffix
		t, err := taken(n)
		if err != nil {
			return "", fmt.Errorf("name %s: %w", kind, err)
		}
		if !t {
			return n, nil
		}
	}
	return "", apperr.New(apperr.CodeChatNameTaken, "no free %s name for %q", strings.ToLower(label), base)
}

// copyChat inserts the new chat row and copies messages 0..index of src
// into it, with fresh message ids, sharing their bodies and swipes. The
// copies keep their positions, and src's gaps below them; their row ids
// are firstRow+idx.
func (s *Service) copyChat(ctx context.Context, tx *store.Tx, src *chatRow, index int, kind, name string, isolateBook bool) (dst *chatRow, firstRow int64, err error) {
	now := s.now().UnixMilli()
	meta := src.metadata.Clone()
	meta.Set("main_chat", src.fileName)
	meta.Set("integrity", uuid.NewString())
	var book string
	_ = json.Unmarshal(meta["world_info"], &book)
	if book != "" && isolateBook && s.hooks.CloneLorebook != nil {
		clone, ok, err := s.hooks.CloneLorebook(ctx, tx, book, name)
		if err != nil {
			return nil, 0, err
		}
		if ok {
			meta.Set("world_info", clone)
		}
	}
	metaJSON, _ := meta.MarshalJSON()
	if err := jsonx.LimitDepth(jsonx.ObjectDepth(meta), jsonx.ObjectDepth(src.metadata), "the metadata"); err != nil {
		return nil, 0, err
	}
	last := src.gaps.Pos(index)
	dst = &chatRow{uuid: uuid.NewString(), ownerKind: src.ownerKind, owner: src.owner, fileName: name, kind: kind,
		metadata: meta, messageCount: index + 1, gaps: src.gaps.Below(last), createdAt: now, updatedAt: now}
	dst.parentUUID.String, dst.parentUUID.Valid = src.uuid, true
	dst.branchPoint.Int64, dst.branchPoint.Valid = int64(index), true
	res, err := tx.ExecContext(ctx, `INSERT INTO chats (uuid, owner_kind, owner, file_name, kind, parent_uuid, branch_point, metadata,
		revision, message_count, idx_gaps, bytes, created_at, updated_at, change_seq)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, 0, ?, ?, (SELECT COALESCE(MAX(change_seq), 0) + 1 FROM chats))`,
		dst.uuid, dst.ownerKind, dst.owner, dst.fileName, kind, src.uuid, index, string(metaJSON), dst.messageCount, dst.gaps.Encode(), now, now)
	if err != nil {
		return nil, 0, fmt.Errorf("create %s: %w", kind, err)
	}
	if dst.id, err = res.LastInsertId(); err != nil {
		return nil, 0, fmt.Errorf("create %s: %w", kind, err)
	}
	// The copies share src's bodies and swipes (see ownBody): only the
	// small rows that carry order and identity are written, with the row
	// ids firstRow+idx (state.Fork maps commits onto them by that).
	if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(id), 0) + 1 FROM messages`).Scan(&firstRow); err != nil {
		return nil, 0, fmt.Errorf("copy messages: %w", err)
	}
	// One backlog row stands for the copies' chunks (migration 0019); they
	// are not queued one by one.
	if _, err := tx.ExecContext(ctx, `INSERT INTO chunks_backlog (chat_id, next_message_id) VALUES (?, ?)`, dst.id, firstRow); err != nil {
		return nil, 0, fmt.Errorf("copy messages: %w", err)
	}
	if err := s.indexAfterCommit(ctx, tx); err != nil {
		return nil, 0, err
	}
	prefix, base := copyIDs()
	if _, err := tx.ExecContext(ctx, `INSERT INTO messages (id, chat_id, idx, uuid, body_id)
		SELECT ?6 + idx, ?1, idx, ?4 || printf('%012x', (?5 + idx) % 281474976710656), body_id
		FROM messages WHERE chat_id = ?2 AND idx <= ?3 ORDER BY idx`, dst.id, src.id, last, prefix, base, firstRow); err != nil {
		return nil, 0, fmt.Errorf("copy messages: %w", err)
	}
	return dst, firstRow, nil
}

// measure stores the JSONL size of dst, a copy of src's first messages
// whose copied lines changed by grew bytes. It sums whichever part is
// smaller: the copy, or the source messages that were not copied (message
// ids have one length, so the copy's lines are the source's).
func measure(ctx context.Context, tx *store.Tx, src, dst *chatRow, grew int64) error {
	copied, rest := dst.messageCount, src.messageCount-dst.messageCount
	if copied <= rest {
		n, err := rangeLineBytes(ctx, tx, dst, 0, copied)
		if err != nil {
			return err
		}
		dst.bytes = n
	} else {
		n, err := rangeLineBytes(ctx, tx, src, copied, src.messageCount)
		if err != nil {
			return err
		}
		dst.bytes = src.bytes - n + grew
	}
	if _, err := tx.ExecContext(ctx, `UPDATE chats SET bytes = ? WHERE id = ?`, dst.bytes, dst.id); err != nil {
		return fmt.Errorf("measure chat: %w", err)
	}
	return nil
}

// rangeLineBytes is the size of messages start <= index < end as JSONL
// lines, newlines included: the sum of their bodies' line_bytes, or, when
// a body's is not known (written before schema v24), of their lines
// serialized one by one into a reused buffer.
func rangeLineBytes(ctx context.Context, q queryer, chat *chatRow, start, end int) (int64, error) {
	if start >= end {
		return 0, nil
	}
	var rows, known, sum int64
	if err := q.QueryRowContext(ctx, `SELECT count(*), count(b.line_bytes), coalesce(sum(b.line_bytes), 0)
		FROM messages m JOIN message_bodies b ON b.id = m.body_id
		WHERE m.chat_id = ? AND m.idx >= ? AND m.idx < ?`, chat.id, chat.gaps.Pos(start), chat.gaps.Pos(end)).Scan(&rows, &known, &sum); err != nil {
		return 0, fmt.Errorf("measure messages: %w", err)
	}
	if known == rows {
		return sum, nil
	}
	var n int64
	var line []byte
	err := scanRange(ctx, q, chat, start, end, func(r *rawMessage) error {
		line = appendMessageJSON(line[:0], r.id, r.name, r.isUser, r.isSystem, r.swipeID, r.swipes, r.infos, r.extra, r.fields)
		n += int64(len(line)) + 1
		return nil
	})
	return n, err
}

// linkSource records the new chat on the source message, as SillyTavern
// does: extra.bookmark_link for a checkpoint, extra.branches[] for a branch.
func (s *Service) linkSource(ctx context.Context, tx *store.Tx, chatID string, index int, kind, name string) error {
	_, err := s.mutateIn(ctx, tx, chatID, "create"+strings.ToUpper(kind[:1])+kind[1:], WriteOptions{}, func(m *mutation) error {
		sm, err := loadAt(ctx, m.tx, m.chat, index)
		if err != nil {
			return err
		}
		next := sm.msg.Clone()
		if kind == "checkpoint" {
			next.Extra.Set("bookmark_link", name)
		} else {
			var list []string
			if raw, ok := next.Extra["branches"]; ok {
				list, _ = jsonx.Strings(raw, "branches") // a malformed list is replaced
			}
			next.Extra.Set("branches", append(list, name))
		}
		changed, err := s.rewrite(ctx, m, sm, next)
		if err != nil || !changed {
			return err
		}
		p := messagePayload(index, next)
		m.emit(events.MessageUpdated, &p)
		return nil
	})
	return err
}
