package chats

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"hearth/backend/apperr"
	"hearth/backend/events"
	"hearth/backend/jsonx"
	"hearth/backend/state"
	"hearth/backend/store"
)

// Owner names whose chats a call is about: a character (by avatar) or a group.
type Owner struct {
	Avatar  string `json:"avatar,omitempty"`
	GroupID string `json:"groupId,omitempty"`
}

func (o Owner) validate() error {
	if (o.Avatar == "") == (o.GroupID == "") {
		return apperr.Invalid("give exactly one of avatar or groupId")
	}
	return nil
}

func (o Owner) kind() (string, string) {
	if o.Avatar != "" {
		return "character", o.Avatar
	}
	return "group", o.GroupID
}

// Summary describes a chat in lists (SillyTavern's getPastCharacterChats
// fields plus Hearth's own).
type Summary struct {
	ChatID       string  `json:"chatId"`
	FileName     string  `json:"fileName"`
	FileNameExt  string  `json:"file_name"`
	FileID       string  `json:"file_id"`
	FileSize     string  `json:"file_size"`
	Bytes        int64   `json:"bytes"`
	Mes          string  `json:"mes"`
	LastMes      int64   `json:"last_mes"`
	MessageCount int     `json:"messageCount"`
	Revision     int64   `json:"revision"`
	Kind         string  `json:"kind"`
	ParentChatID *string `json:"parentChatId"`
	BranchPoint  *int64  `json:"branchPoint"`
	Avatar       *string `json:"avatar"`
	GroupID      *string `json:"groupId"`
	CreatedAt    int64   `json:"createdAt"`
}

// Details is a chat summary with its metadata (api.chat.get).
type Details struct {
	Summary
	Metadata jsonx.Object `json:"metadata"`
}

// previewLimit caps the last-message preview in summaries.
const previewLimit = 500

func summarize(c *chatRow, lastMes string) Summary {
	meta, _ := c.metadata.MarshalJSON()
	bytes := c.bytes + int64(len(meta)) + 64 // JSONL header line: metadata plus names
	s := Summary{
		ChatID: c.uuid, FileName: c.fileName, FileNameExt: c.fileName + ".jsonl", FileID: c.fileName,
		FileSize: humanSize(bytes), Bytes: bytes, Mes: truncate(lastMes, previewLimit), LastMes: c.updatedAt,
		MessageCount: c.messageCount, Revision: c.revision, Kind: c.kind, CreatedAt: c.createdAt,
	}
	if c.parentUUID.Valid {
		s.ParentChatID = &c.parentUUID.String
	}
	if c.branchPoint.Valid {
		s.BranchPoint = &c.branchPoint.Int64
	}
	owner := c.owner
	if c.ownerKind == "character" {
		s.Avatar = &owner
	} else {
		s.GroupID = &owner
	}
	return s
}

func humanSize(n int64) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%d B", n)
	case n < 1024*1024:
		return fmt.Sprintf("%.1f KB", float64(n)/1024)
	case n < 1024*1024*1024:
		return fmt.Sprintf("%.1f MB", float64(n)/(1024*1024))
	}
	return fmt.Sprintf("%.1f GB", float64(n)/(1024*1024*1024))
}

func truncate(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// lastMesSQL selects the active text of a chat's last message (the one
// stored at the highest position).
const lastMesSQL = `COALESCE((SELECT s.mes FROM messages m
	JOIN message_bodies b ON b.id = m.body_id
	JOIN message_swipes s ON s.body_id = m.body_id AND s.ord = b.swipe_id
	WHERE m.chat_id = c.id ORDER BY m.idx DESC LIMIT 1), '')`

// List returns the owner's chats, most recently changed first.
func (s *Service) List(ctx context.Context, owner Owner) ([]Summary, error) {
	if err := owner.validate(); err != nil {
		return nil, err
	}
	kind, key := owner.kind()
	rows, err := s.db.Reader().QueryContext(ctx, `SELECT `+prefixCols("c.", chatColumns)+`, `+lastMesSQL+`
		FROM chats c WHERE c.owner_kind = ? AND c.owner = ? ORDER BY c.change_seq DESC`, kind, key)
	if err != nil {
		return nil, fmt.Errorf("list chats: %w", err)
	}
	defer rows.Close()
	out := []Summary{}
	for rows.Next() {
		var last string
		var c *chatRow
		c, err = scanChat(func(dst ...any) error { return rows.Scan(append(dst, &last)...) })
		if err != nil {
			return nil, fmt.Errorf("list chats: %w", err)
		}
		out = append(out, summarize(c, last))
	}
	return out, rows.Err()
}

func prefixCols(prefix, cols string) string {
	parts := strings.Split(cols, ",")
	for i, p := range parts {
		parts[i] = prefix + strings.TrimSpace(p)
	}
	return strings.Join(parts, ", ")
}

// Get returns a chat's summary and metadata.
func (s *Service) Get(ctx context.Context, chatID string) (*Details, error) {
	return s.details(ctx, s.db.Reader(), chatID)
}

func (s *Service) details(ctx context.Context, q queryer, chatID string) (*Details, error) {
	var last string
	row := q.QueryRowContext(ctx, `SELECT `+prefixCols("c.", chatColumns)+`, `+lastMesSQL+` FROM chats c WHERE c.uuid = ?`, chatID)
	c, err := scanChat(func(dst ...any) error { return row.Scan(append(dst, &last)...) })
	if errors.Is(err, sql.ErrNoRows) {
		return nil, chatNotFound(chatID)
	}
	if err != nil {
		return nil, fmt.Errorf("get chat: %w", err)
	}
	return &Details{Summary: summarize(c, last), Metadata: c.metadata}, nil
}

// Ref names a chat: by id, or by owner and file name.
type Ref struct {
	ChatID   string `json:"chatId"`
	Avatar   string `json:"avatar"`
	GroupID  string `json:"groupId"`
	FileName string `json:"fileName"`
}

// Resolve turns a ref into a chat id.
func (s *Service) Resolve(ctx context.Context, ref Ref) (string, error) {
	if ref.ChatID != "" {
		if _, err := loadChat(ctx, s.db.Reader(), ref.ChatID); err != nil {
			return "", err
		}
		return ref.ChatID, nil
	}
	owner := Owner{Avatar: ref.Avatar, GroupID: ref.GroupID}
	if err := owner.validate(); err != nil {
		return "", apperr.Invalid("a chat ref is { chatId } or { avatar | groupId, fileName }")
	}
	name := strings.TrimSuffix(ref.FileName, ".jsonl")
	if name == "" {
		return "", apperr.Invalid("fileName is required")
	}
	kind, key := owner.kind()
	var id string
	err := s.db.Reader().QueryRowContext(ctx, `SELECT uuid FROM chats WHERE owner_kind = ? AND owner = ? AND file_name = ?`, kind, key, name).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", apperr.New(apperr.CodeChatNotFound, "no chat %q for %s %q", name, kind, key).
			WithDetails(map[string]any{"fileName": name})
	}
	if err != nil {
		return "", fmt.Errorf("resolve chat: %w", err)
	}
	return id, nil
}

// CreateOptions configure a new chat.
type CreateOptions struct {
	FileName string `json:"fileName"`
}

var badFileName = regexp.MustCompile(`[/\\:*?"<>|\x00-\x1f]`)

// validFileName normalizes a chat file name (no ".jsonl") or explains why not.
func validFileName(name string) (string, error) {
	name = strings.TrimSpace(strings.TrimSuffix(name, ".jsonl"))
	switch {
	case name == "":
		return "", apperr.Invalid("fileName must not be empty")
	case len(name) > 200:
		return "", apperr.Invalid("fileName is longer than 200 bytes")
	case badFileName.MatchString(name), name == "." || name == "..":
		return "", apperr.Invalid("fileName %q contains characters not allowed in file names", name)
	}
	return name, nil
}

// humanizedDateTime formats like SillyTavern's chat names: 2026-11-22@03h04m05s123ms.
func humanizedDateTime(t time.Time) string {
	return fmt.Sprintf("%04d-%02d-%02d@%02dh%02dm%02ds%03dms", t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond()/1e6)
}

// Create starts a chat. A character chat opens with the card's greeting and
// its alternate greetings as further swipes, macros resolved; a group chat
// with each member's greeting (createGroupChat).
func (s *Service) Create(ctx context.Context, owner Owner, opts CreateOptions) (*Summary, error) {
	if err := owner.validate(); err != nil {
		return nil, err
	}
	if owner.GroupID != "" {
		return s.createGroupChat(ctx, owner.GroupID, opts)
	}
	card, err := s.chars.Get(ctx, owner.Avatar)
	if err != nil {
		return nil, err
	}
	now := s.now()
	name := opts.FileName
	if name == "" {
		name = card.Name() + " - " + humanizedDateTime(now)
	}
	if name, err = validFileName(name); err != nil {
		return nil, err
	}
	user := s.userName(ctx, "")
	var greetings []*StMessage
	if first := card.FirstMes(); first != "" || len(card.AlternateGreetings()) > 0 {
		swipes := []string{resolveMacros(first, card.Name(), user)}
		for _, alt := range card.AlternateGreetings() {
			swipes = append(swipes, resolveMacros(alt, card.Name(), user))
		}
		greeting := &StMessage{Name: card.Name(), Swipes: swipes, Extra: jsonx.Object{}, Fields: jsonx.Object{"send_date": isoTime(now)}}
		alignSwipeInfo(greeting, now)
		mirrorActive(greeting)
		greetings = append(greetings, greeting)
	}
	var sum Summary
	err = s.db.InTx(ctx, func(tx *store.Tx) error {
		c, err := s.insertNewChat(ctx, tx, "character", owner.Avatar, name, now, greetings)
		if err != nil {
			return err
		}
		sum = c.summary
		s.announceCreated(tx, c.row, sum)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &sum, nil
}

// createdChat is a chat insertNewChat made: its row and its summary.
type createdChat struct {
	row     *chatRow
	summary Summary
}

// insertNewChat adds a main chat of the owner named name, holding msgs in
// order, inside tx; chat.name_taken when the owner has a chat of that name.
func (s *Service) insertNewChat(ctx context.Context, tx *store.Tx, ownerKind, owner, name string, now time.Time, msgs []*StMessage) (*createdChat, error) {
	var taken int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM chats WHERE owner_kind = ? AND owner = ? AND file_name = ?`, ownerKind, owner, name).Scan(&taken); err != nil {
		return nil, fmt.Errorf("create chat: %w", err)
	}
	if taken > 0 {
		return nil, nameTaken(name)
	}
	c := &chatRow{uuid: uuid.NewString(), ownerKind: ownerKind, owner: owner, fileName: name, kind: "main",
		metadata: jsonx.Object{}, createdAt: now.UnixMilli(), updatedAt: now.UnixMilli(), messageCount: len(msgs)}
	res, err := tx.ExecContext(ctx, `INSERT INTO chats (uuid, owner_kind, owner, file_name, kind, metadata, revision, message_count, bytes, created_at, updated_at, change_seq)
		VALUES (?, ?, ?, ?, ?, '{}', 0, ?, 0, ?, ?, (SELECT COALESCE(MAX(change_seq), 0) + 1 FROM chats))`, c.uuid, c.ownerKind, c.owner, c.fileName, c.kind, c.messageCount, c.createdAt, c.updatedAt)
	if err != nil {
		return nil, fmt.Errorf("create chat: %w", err)
	}
	if c.id, err = res.LastInsertId(); err != nil {
		return nil, fmt.Errorf("create chat: %w", err)
	}
	last := ""
	for i, m := range msgs {
		if _, err := insertMessage(ctx, tx, c.id, i, m); err != nil {
			return nil, err
		}
		c.bytes += int64(len(m.mustJSON()) + 1) // now with its id
		last = m.Mes()
	}
	if c.bytes > 0 {
		if _, err := tx.ExecContext(ctx, `UPDATE chats SET bytes = ? WHERE id = ?`, c.bytes, c.id); err != nil {
			return nil, fmt.Errorf("create chat: %w", err)
		}
	}
	return &createdChat{row: c, summary: summarize(c, last)}, nil
}

func nameTaken(name string) error {
	return apperr.New(apperr.CodeChatNameTaken, "a chat named %q already exists", name).WithDetails(map[string]any{"fileName": name})
}

var macroRe = regexp.MustCompile(`(?i)\{\{(char|user)\}\}|<(BOT|USER)>`)

// resolveMacros substitutes {{char}}/{{user}} (and the legacy <BOT>/<USER>).
func resolveMacros(text, char, user string) string {
	return macroRe.ReplaceAllStringFunc(text, func(m string) string {
		switch strings.ToLower(strings.Trim(m, "{}<>")) {
		case "char", "bot":
			return char
		default:
			return user
		}
	})
}

// userName is the user's name in chatID ("" for a chat not created yet):
// the UserName hook's answer, else the legacy settings row, else "User".
func (s *Service) userName(ctx context.Context, chatID string) string {
	if s.hooks.UserName != nil {
		if n := s.hooks.UserName(ctx, chatID); n != "" {
			return n
		}
	}
	return readUserName(ctx, s.db.Reader())
}

// Rename gives a chat a new file name; its id never changes. A group
// chat's group follows in the same transaction (GroupChats.RenameChatIn;
// its GROUP_UPDATED after CHAT_RENAMED).
func (s *Service) Rename(ctx context.Context, chatID, newName string) (*Summary, error) {
	name, err := validFileName(newName)
	if err != nil {
		return nil, err
	}
	var out *Details
	err = s.db.InTx(ctx, func(tx *store.Tx) error {
		c, err := loadChat(ctx, tx, chatID)
		if err != nil {
			return err
		}
		if c.fileName == name {
			out, err = s.details(ctx, tx, chatID)
			return err
		}
		var taken int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM chats WHERE owner_kind = ? AND owner = ? AND file_name = ?`, c.ownerKind, c.owner, name).Scan(&taken); err != nil {
			return fmt.Errorf("rename chat: %w", err)
		}
		if taken > 0 {
			return nameTaken(name)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE chats SET file_name = ? WHERE id = ?`, name, c.id); err != nil {
			return fmt.Errorf("rename chat: %w", err)
		}
		if out, err = s.details(ctx, tx, chatID); err != nil {
			return err
		}
		old := c.fileName
		tx.AfterCommit(func() {
			s.bus.Publish(events.Event{Type: events.ChatRenamed, Payload: &events.ChatRenamedPayload{
				ChatRevision: events.ChatRevision{ChatID: c.uuid, Revision: c.revision}, OldFileName: old, FileName: name}})
		})
		if c.ownerKind == "group" && s.hooks.Groups != nil {
			return s.hooks.Groups.RenameChatIn(ctx, tx, c.owner, old, name)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &out.Summary, nil
}

// Delete removes a chat with its messages, metadata and journal. Branches of
// it survive and keep their parentChatId. A group chat leaves its group's
// list too (GroupChats.RemoveChatIn), and CHAT_DELETED, GROUP_UPDATED
// (when the group changed) and GROUP_CHAT_DELETED follow, in that order,
// as SillyTavern's deleteGroupChatByName saves the group before its event.
func (s *Service) Delete(ctx context.Context, chatID string) error {
	return s.db.InTx(ctx, func(tx *store.Tx) error {
		c, err := loadChat(ctx, tx, chatID)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM chats WHERE id = ?`, c.id); err != nil {
			return fmt.Errorf("delete chat: %w", err)
		}
		if err := state.Forget(ctx, tx, c.id); err != nil {
			return err
		}
		rev := events.ChatRevision{ChatID: c.uuid, Revision: c.revision}
		payload := &events.ChatDeletedPayload{ChatRevision: rev, FileName: c.fileName}
		owner := c.owner
		if c.ownerKind == "character" {
			payload.Avatar = &owner
		} else {
			payload.GroupID = &owner
		}
		tx.AfterCommit(func() { s.bus.Publish(events.Event{Type: events.ChatDeleted, Payload: payload}) })
		if c.ownerKind != "group" {
			return nil
		}
		if s.hooks.Groups != nil {
			if err := s.hooks.Groups.RemoveChatIn(ctx, tx, c.owner, c.fileName); err != nil {
				return err
			}
		}
		group := &events.GroupChatPayload{ChatRevision: rev, GroupID: c.owner, FileName: c.fileName}
		tx.AfterCommit(func() { s.bus.Publish(events.Event{Type: events.GroupChatDeleted, Payload: group}) })
		return nil
	})
}

// announceCreated publishes CHAT_CREATED for a chat made in tx (a new
// chat, an imported one), once tx commits.
func (s *Service) announceCreated(tx *store.Tx, c *chatRow, sum Summary) {
	tx.AfterCommit(func() {
		s.bus.Publish(events.Event{Type: events.ChatCreated, Payload: &events.ChatCreatedPayload{
			ChatRevision: events.ChatRevision{ChatID: c.uuid, Revision: c.revision}, Chat: sum}})
	})
}
