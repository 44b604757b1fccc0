package chats

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"iter"
	"time"

	"github.com/google/uuid"

	"hearth/backend/apperr"
	"hearth/backend/jsonx"
	"hearth/backend/store"
)

// ImportJsonl stores a SillyTavern chat file as a new chat of owner, in one
// transaction, and announces it with CHAT_CREATED after the commit, as
// Create does. The file's header (chat_metadata and every other key) and
// its messages (every key, extra and swipe_info included) are kept, so
// ExportJsonl writes them back; see docs/API.md for the normalizations.
//
// Bad input — a line that is not a JSON object, a message that breaks the
// swipe rules, nesting past jsonx.MaxDepth, a file too large — is a
// validation.invalid_argument error naming the 1-based line in its message
// and details.line, and nothing is stored.
func (s *Service) ImportJsonl(ctx context.Context, owner Owner, in JsonlImport) (*Summary, error) {
	if err := owner.validate(); err != nil {
		return nil, err
	}
	lines, text, size, err := in.source()
	if err != nil {
		return nil, err
	}
	if size > MaxJsonlBytes {
		return nil, apperr.Invalid("the chat file is %d bytes; at most %d are accepted", size, MaxJsonlBytes).
			WithDetails(map[string]any{"bytes": size, "maxBytes": MaxJsonlBytes})
	}
	ownerName, err := s.importOwnerName(ctx, owner)
	if err != nil {
		return nil, err
	}
	now := s.now()
	name := in.FileName
	if name == "" {
		name = ownerName + " - " + humanizedDateTime(now) + " imported"
	}
	if name, err = validFileName(name); err != nil {
		return nil, err
	}
	persona := s.userName(ctx, "")

	var sum Summary
	err = s.db.InTx(ctx, func(tx *store.Tx) error {
		var taken int
		kind, key := owner.kind()
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM chats WHERE owner_kind = ? AND owner = ? AND file_name = ?`,
			kind, key, name).Scan(&taken); err != nil {
			return fmt.Errorf("import chat: %w", err)
		}
		if taken > 0 {
			return nameTaken(name)
		}
		c := &chatRow{uuid: uuid.NewString(), ownerKind: kind, owner: key, fileName: name, kind: "main",
			metadata: jsonx.Object{}, createdAt: now.UnixMilli(), updatedAt: now.UnixMilli()}
		res, err := tx.ExecContext(ctx, `INSERT INTO chats (uuid, owner_kind, owner, file_name, kind, metadata, revision, message_count, bytes, created_at, updated_at, change_seq)
			VALUES (?, ?, ?, ?, ?, '{}', 0, 0, 0, ?, ?, (SELECT COALESCE(MAX(change_seq), 0) + 1 FROM chats))`,
			c.uuid, c.ownerKind, c.owner, c.fileName, c.kind, c.createdAt, c.updatedAt)
		if err != nil {
			return fmt.Errorf("import chat: %w", err)
		}
		if c.id, err = res.LastInsertId(); err != nil {
			return fmt.Errorf("import chat: %w", err)
		}
		imp := &jsonlImporter{chat: c, userName: persona, charName: ownerName, now: now}
		if imp.bulk, err = newBulkInserter(ctx, tx, c.id); err != nil {
			return err
		}
		defer imp.bulk.close()
		if err := imp.read(ctx, tx, lines, text); err != nil {
			return err
		}
		if !imp.hadHeader {
			if err := imp.headerless(ctx, tx, owner, in.Metadata); err != nil {
				return err
			}
		}
		// Every message of the new chat needs its chunk: one statement
		// queues them all (the bulk inserter does not, row by row).
		if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO chunks_pending (message_id, chat_id) SELECT id, chat_id FROM messages WHERE chat_id = ?`, c.id); err != nil {
			return fmt.Errorf("import chat: %w", err)
		}
		meta := mustObjectJSON(c.metadata)
		if _, err := tx.ExecContext(ctx, `UPDATE chats SET metadata = ?, message_count = ?, bytes = ? WHERE id = ?`,
			string(meta), c.messageCount, c.bytes, c.id); err != nil {
			return fmt.Errorf("import chat: %w", err)
		}
		sum = summarize(c, imp.last)
		if in.Within != nil {
			if err := in.Within(ctx, tx, sum); err != nil {
				return err
			}
		}
		s.announceCreated(tx, c, sum)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &sum, nil
}

// jsonlImporter is one import in progress.
type jsonlImporter struct {
	chat     *chatRow
	bulk     *bulkInserter
	userName string // for messages without a name: the header's, else the active persona's
	charName string // likewise: the header's character_name, else the card's
	now      time.Time
	last     string // the last message's text, for the summary
	// hadHeader says the file's first line was a header, not a message.
	hadHeader bool
}

// importOwnerName is the display name of owner for an import — the card's
// name, or the group's — and group.not_found / character.not_found when
// there is none.
func (s *Service) importOwnerName(ctx context.Context, owner Owner) (string, error) {
	if owner.Avatar != "" {
		card, err := s.chars.Get(ctx, owner.Avatar)
		if err != nil {
			return "", err
		}
		return card.Name(), nil
	}
	var name string
	err := s.db.Reader().QueryRowContext(ctx, `SELECT name FROM groups WHERE id = ?`, owner.GroupID).Scan(&name)
	if errors.Is(err, sql.ErrNoRows) {
		return "", apperr.New(apperr.CodeGroupNotFound, "no group with id %q", owner.GroupID).
			WithDetails(map[string]any{"groupId": owner.GroupID})
	}
	if err != nil {
		return "", fmt.Errorf("import chat: %w", err)
	}
	return name, nil
}

// headerless finishes the import of a file without a header line: its
// chat_metadata is the caller's (SillyTavern's legacy group chats keep it
// in the group file), and a group chat keeps the header SillyTavern writes
// for group chats, whose names are placeholders, so an export writes that.
func (imp *jsonlImporter) headerless(ctx context.Context, tx *store.Tx, owner Owner, metadata jsonx.Object) error {
	if metadata != nil {
		raw, _ := metadata.MarshalJSON()
		if err := jsonx.LimitDepth(jsonx.Depth(raw), 0, "chat_metadata"); err != nil {
			return err
		}
		imp.chat.metadata = metadata.Clone()
	}
	if owner.GroupID == "" {
		return nil
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO chat_jsonl_headers (chat_id, header) VALUES (?, ?)`,
		imp.chat.id, `{"user_name":"unused","character_name":"unused"}`); err != nil {
		return fmt.Errorf("import chat header: %w", err)
	}
	return nil
}

// read takes the file's lines in order: the first as the header unless it
// is a message, then the messages, decoded in parallel and stored in order.
// lines yields every line, blank ones too, numbered from 1; text makes a
// line's text of what lines yields (unquoting it, for a quoted file).
func (imp *jsonlImporter) read(ctx context.Context, tx *store.Tx, lines iter.Seq2[int, string], text func(string) []byte) error {
	next, stop := iter.Pull2(lines)
	defer stop()
	n, line := 0, []byte(nil)
	for {
		k, raw, ok := next()
		if !ok {
			return apperr.Invalid("the chat file is empty: it needs a header line or a message")
		}
		if line = text(raw); k == 1 {
			line = bytes.TrimPrefix(line, []byte("\uFEFF"))
		}
		if len(bytes.TrimSpace(line)) > 0 {
			n = k
			break
		}
	}
	o, err := decodeLine(n, line)
	if err != nil {
		return err
	}
	if isMessageLine(o) {
		p, err := imp.decode(n, line)
		if err != nil {
			return err
		}
		if err := imp.store(ctx, n, p); err != nil {
			return err
		}
	} else {
		if err := imp.header(ctx, tx, n, o); err != nil {
			return err
		}
		imp.hadHeader = true
	}
	rest := func(yield func(int, string) bool) {
		for k, raw, ok := next(); ok && yield(k, raw); k, raw, ok = next() {
		}
	}
	return decodeInOrder(rest, func(n int, raw string) (*preparedMessage, error) {
		line := text(raw)
		if len(bytes.TrimSpace(line)) == 0 {
			return nil, nil
		}
		return imp.decode(n, line)
	}, func(n int, p *preparedMessage) error {
		return imp.store(ctx, n, p)
	})
}

// decode makes line n into a message ready to store. It runs on the
// decoding workers: it reads imp but never writes it.
func (imp *jsonlImporter) decode(n int, line []byte) (*preparedMessage, error) {
	if err := checkLine(n, line); err != nil {
		return nil, err
	}
	msg, err := decodeJsonlMessage(n, line, imp.defaultName, imp.now)
	if err != nil {
		return nil, err
	}
	p, err := prepareMessage(msg)
	if err != nil {
		return nil, atLine(n, err)
	}
	return p, nil
}

// store appends a decoded message to the chat.
func (imp *jsonlImporter) store(ctx context.Context, n int, p *preparedMessage) error {
	if imp.chat.messageCount >= jsonlMessageLimit {
		return apperr.New(apperr.CodeTooMany, "line %d: a chat file may hold at most %d messages", n, jsonlMessageLimit).
			WithDetails(map[string]any{"line": n, "limit": jsonlMessageLimit})
	}
	if err := imp.bulk.insert(ctx, imp.chat.messageCount, p); err != nil {
		return err
	}
	imp.chat.messageCount++
	imp.chat.bytes += p.size
	imp.last = p.msg.Mes()
	return nil
}

// header keeps the header line: chat_metadata becomes the chat's metadata,
// the other keys are stored for the export.
func (imp *jsonlImporter) header(ctx context.Context, tx *store.Tx, n int, o jsonx.Object) error {
	h, err := parseHeader(o, n)
	if err != nil {
		return err
	}
	imp.chat.metadata = h.metadata
	if name := headerName(h.rest, "user_name"); name != "" {
		imp.userName = name
	}
	if name := headerName(h.rest, "character_name"); name != "" {
		imp.charName = name
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO chat_jsonl_headers (chat_id, header) VALUES (?, ?)`,
		imp.chat.id, string(mustObjectJSON(h.rest))); err != nil {
		return fmt.Errorf("import chat header: %w", err)
	}
	return nil
}

func (imp *jsonlImporter) defaultName(isUser bool) string {
	if isUser {
		return imp.userName
	}
	return imp.charName
}
