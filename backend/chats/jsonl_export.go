package chats

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"strings"
	"time"

	"hearth/backend/jsonx"
)

// ExportJsonl returns a chat as a SillyTavern JSONL file: the header line,
// then one message per line without Hearth's message ids (they are
// Hearth's identities, not SillyTavern data, and ids are unique across the
// database, so an import of the file gives its messages fresh ones).
func (s *Service) ExportJsonl(ctx context.Context, chatID string) (*JsonlFile, error) {
	var text []byte
	fileName, err := s.exportJsonl(ctx, chatID, func(c *chatRow) {
		text = make([]byte, 0, c.bytes+4096)
	}, func(line []byte) {
		if len(text) > 0 {
			text = append(text, '\n')
		}
		text = append(text, line...)
	})
	if err != nil {
		return nil, err
	}
	return &JsonlFile{FileName: fileName, Text: string(text)}, nil
}

// ExportJsonlJSON is ExportJsonl already encoded as the JSON object
// {fileName, text}, written line by line straight into its one buffer: the
// host's answer for a chat of tens of megabytes without a second copy of
// the text or a re-encoding pass.
func (s *Service) ExportJsonlJSON(ctx context.Context, chatID string) (json.RawMessage, error) {
	var out []byte
	first := true
	_, err := s.exportJsonl(ctx, chatID, func(c *chatRow) {
		// Escaping adds about a fifth to JSONL (every key is quoted).
		out = make([]byte, 0, c.bytes+c.bytes/4+4096)
		out = append(out, `{"fileName":`...)
		out = appendString(out, c.fileName+".jsonl")
		out = append(out, `,"text":"`...)
	}, func(line []byte) {
		if !first {
			out = append(out, `\n`...)
		}
		first = false
		out = appendStringBody(out, string(line))
	})
	if err != nil {
		return nil, err
	}
	return append(out, `"}`...), nil
}

// appendStringBody is appendString without the surrounding quotes: one
// line of the text inside the JSON string being built.
func appendStringBody(b []byte, s string) []byte {
	n := len(b)
	b = appendString(b, s)       // "…"
	copy(b[n:], b[n+1:len(b)-1]) // drop the opening quote
	return b[:len(b)-2]          // and the closing one's place
}

// exportJsonl reads the chat in one snapshot and hands emit each line
// (without its newline), header first; start runs once the chat row is
// known, to size buffers. It returns the file name, with ".jsonl".
func (s *Service) exportJsonl(ctx context.Context, chatID string, start func(c *chatRow), emit func(line []byte)) (string, error) {
	var fileName, user string
	if s.hooks.UserName != nil {
		// Asked before the snapshot holds a read connection: the hook reads
		// through the pool too.
		user = s.hooks.UserName(ctx, chatID)
	}
	err := s.readSnapshot(ctx, chatID, func(q queryer, c *chatRow) error {
		start(c)
		header, err := s.headerLine(ctx, q, c, user)
		if err != nil {
			return err
		}
		emit(header)
		var buf []byte
		err = scanRange(ctx, q, c, 0, c.messageCount, func(r *rawMessage) error {
			buf = appendMessageJSON(buf[:0], "", r.name, r.isUser, r.isSystem, r.swipeID, r.swipes, r.infos, r.extra, r.fields)
			emit(oneLine(buf))
			return nil
		})
		if err != nil {
			return err
		}
		fileName = c.fileName + ".jsonl"
		return nil
	})
	return fileName, err
}

// headerLine builds the chat's header: what an import kept, and for the
// name keys it did not have (or a chat made in Hearth) the name of the
// persona in effect (user; "" reads the legacy settings row), the
// character's name and the chat's creation time. A group chat's header is
// SillyTavern's for group chats (appendGroupHeaderLine).
func (s *Service) headerLine(ctx context.Context, q queryer, c *chatRow, user string) ([]byte, error) {
	rest := jsonx.Object{}
	var stored string
	err := q.QueryRowContext(ctx, `SELECT header FROM chat_jsonl_headers WHERE chat_id = ?`, c.id).Scan(&stored)
	switch {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return nil, fmt.Errorf("export chat header: %w", err)
	default:
		if rest, err = jsonx.DecodeObject([]byte(stored), "header"); err != nil {
			return nil, fmt.Errorf("chat %s has a corrupt JSONL header: %w", c.uuid, err)
		}
	}
	if c.ownerKind == "group" {
		return oneLine(appendGroupHeaderLine(nil, rest, mustObjectJSON(c.metadata))), nil
	}
	defaults := map[string]string{
		"user_name":      cmp.Or(user, readUserName(ctx, q)),
		"character_name": ownerName(ctx, q, c),
		"create_date":    humanizedDateTime(time.UnixMilli(c.createdAt)),
	}
	return oneLine(appendHeaderLine(nil, rest, defaults, mustObjectJSON(c.metadata))), nil
}

// readUserName is the legacy settings row user_name read through q (so
// an export reads everything from its one snapshot), else "User".
func readUserName(ctx context.Context, q queryer) string {
	var raw, name string
	if q.QueryRowContext(ctx, `SELECT value FROM settings WHERE key = 'user_name'`).Scan(&raw) != nil ||
		json.Unmarshal([]byte(raw), &name) != nil || name == "" {
		return "User"
	}
	return name
}

// ownerName is the character's display name; a chat whose character is
// gone (or a group chat) falls back to the owner key without extension.
func ownerName(ctx context.Context, q queryer, c *chatRow) string {
	if c.ownerKind == "character" {
		var name string
		if q.QueryRowContext(ctx, `SELECT name FROM characters WHERE avatar = ?`, c.owner).Scan(&name) == nil && name != "" {
			return name
		}
	}
	return strings.TrimSuffix(c.owner, path.Ext(c.owner))
}
