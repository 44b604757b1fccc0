package worldinfo

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"hearth/backend/apperr"
	"hearth/backend/events"
	"hearth/backend/store"
)

// Request is one generation's activation: the scan input a caller
// assembled from the chat (Messages, ChatLength, Global, MaxContext,
// Tokens, Substitute, Trigger, CharacterFile, CharacterTags, DryRun,
// Timed) and the books the chat and its character name. The service adds
// the settings, the globally selected books and the books themselves.
type Request struct {
	ChatID string
	// CharacterWorld is the card's extensions.world, ChatWorld the chat's
	// metadata world_info ("" for none).
	CharacterWorld string
	// MemberWorlds are more character lorebooks: in a group chat's join
	// modes, the other included members' (each scanned once).
	MemberWorlds []string
	ChatWorld    string
	// PersonaWorld is the user's persona's lorebook ("" for none).
	PersonaWorld string
	Input        Input
	// Messages, when set, reads the newest n messages of the chat (as
	// Input.Messages, oldest first) once the books are known: the scan
	// then reads only as deep as the settings and the books' entries can
	// look, not MaxScanDepth messages every time.
	Messages func(n int) ([]Message, error)
}

// scanReach is how many of the newest messages an activation with s over
// sources can read: the global depth, widened by min activations, and any
// entry's own scan depth.
func scanReach(s Settings, sources []Source) int {
	n := s.Depth
	if s.MinActivations > 0 {
		n = MaxScanDepth
		if s.MinActivationsDepthMax > 0 {
			n = max(s.Depth, s.MinActivationsDepthMax)
		}
	}
	for _, src := range sources {
		for _, e := range src.Book.Entries {
			if e.ScanDepth != nil {
				n = max(n, *e.ScanDepth)
			}
		}
	}
	return min(n, MaxScanDepth)
}

// ActivationEntry is one activated entry as generate.dryRun and
// lastActivation report it.
type ActivationEntry struct {
	World       string `json:"world"`
	UID         int    `json:"uid"`
	DisplayName string `json:"displayName"`
	Constant    bool   `json:"constant"`
	Content     string `json:"content"`
	Position    string `json:"position"`
}

// Activation is what a generation's World Info scan activated, and what
// it could not do: its warnings, and the regex keys it did not run (too
// slow, or past their book's cap), which the lorebook editor marks on
// their entries. Both are left out when empty.
type Activation struct {
	TimestampMs  int64             `json:"timestampMs"`
	Trigger      string            `json:"trigger"`
	Entries      []ActivationEntry `json:"entries"`
	Warnings     []string          `json:"warnings,omitempty"`
	DisabledKeys []DisabledKey     `json:"disabledKeys,omitempty"`
}

// ActivateFor runs the scan of one generation. A book a chat or card
// names that does not exist is skipped with a warning in the result, as
// SillyTavern skips it. Unless the input is a dry run, the activation is
// kept as the chat's last and WORLDINFO_SCAN_DONE is published. The scan
// ends with ctx (generate.stop, a closed run): it then returns ctx's
// error and keeps nothing; it stops matching at the input's Deadline, or
// ScanDeadline when the input sets none.
func (s *Service) ActivateFor(ctx context.Context, req Request) (*Result, *Activation, error) {
	cfg, err := s.Config(ctx)
	if err != nil {
		return nil, nil, err
	}
	in := req.Input
	in.Settings = cfg.Settings
	in.Sources = nil
	var missing []string
	add := func(name, kind string) error {
		if name == "" {
			return nil
		}
		book, err := s.activationBook(ctx, name)
		if err != nil {
			if apperr.CodeOf(err) == CodeNotFound {
				missing = append(missing, name)
				return nil
			}
			return err
		}
		in.Sources = append(in.Sources, Source{World: name, Kind: kind, Book: book})
		return nil
	}
	for _, name := range cfg.GlobalSelect {
		if err := add(name, SourceGlobal); err != nil {
			return nil, nil, err
		}
	}
	seen := map[string]bool{}
	for _, name := range append([]string{req.CharacterWorld}, req.MemberWorlds...) {
		if seen[name] {
			continue
		}
		seen[name] = true
		if err := add(name, SourceCharacter); err != nil {
			return nil, nil, err
		}
	}
	if err := add(req.ChatWorld, SourceChat); err != nil {
		return nil, nil, err
	}
	if err := add(req.PersonaWorld, SourcePersona); err != nil {
		return nil, nil, err
	}
	if req.Messages != nil && len(in.Sources) > 0 {
		if in.Messages, err = req.Messages(scanReach(in.Settings, in.Sources)); err != nil {
			return nil, nil, err
		}
	}
	if in.Deadline == 0 {
		in.Deadline = s.ScanDeadline
	}
	res, err := s.engine.Activate(ctx, in)
	if err != nil {
		return nil, nil, err
	}
	for _, name := range missing {
		res.Warnings = append(res.Warnings, fmt.Sprintf("lorebook %q is not in the library: skipped", name))
	}
	act := &Activation{TimestampMs: s.now().UnixMilli(), Trigger: in.Trigger, Entries: []ActivationEntry{},
		Warnings: res.Warnings, DisabledKeys: res.DisabledKeys}
	if act.Trigger == "" {
		act.Trigger = "normal"
	}
	for _, a := range res.Activated {
		act.Entries = append(act.Entries, ActivationEntry{World: a.World, UID: a.UID, DisplayName: a.DisplayName,
			Constant: a.Constant, Content: a.Content, Position: a.PositionName})
	}
	if in.DryRun || req.ChatID == "" {
		return res, act, nil
	}
	body, _ := json.Marshal(act)
	err = s.db.InTx(ctx, func(tx *store.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO lorebook_activations (chat_id, body, updated_ms) VALUES (?, ?, ?)
			ON CONFLICT (chat_id) DO UPDATE SET body = excluded.body, updated_ms = excluded.updated_ms`, req.ChatID, string(body), act.TimestampMs)
		if err != nil {
			return fmt.Errorf("keep the last activation of chat %s: %w", req.ChatID, err)
		}
		tx.AfterCommit(func() {
			s.bus.Publish(events.Event{Type: events.WorldInfoScanDone, Payload: &events.WorldInfoScanDonePayload{
				ChatID: req.ChatID, Activation: act, Budget: res.Budget, BudgetOverflowed: res.BudgetOverflowed,
			}})
		})
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return res, act, nil
}

// LastActivation returns what the chat's last generation activated, nil
// before its first; chat.not_found for a chat that does not exist (any
// more).
func (s *Service) LastActivation(ctx context.Context, chatID string) (*Activation, error) {
	// null is for a chat with no activation yet, not for a misspelt id.
	var body sql.NullString
	err := s.db.Reader().QueryRowContext(ctx, `SELECT a.body FROM chats c
		LEFT JOIN lorebook_activations a ON a.chat_id = c.uuid WHERE c.uuid = ?`, chatID).Scan(&body)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, apperr.New(apperr.CodeChatNotFound, "no chat with id %q", chatID).WithDetails(map[string]any{"chatId": chatID})
	}
	if err != nil {
		return nil, fmt.Errorf("read the last activation of chat %s: %w", chatID, err)
	}
	if !body.Valid {
		return nil, nil
	}
	var act Activation
	if err := json.Unmarshal([]byte(body.String), &act); err != nil {
		return nil, fmt.Errorf("read the last activation of chat %s: %w", chatID, err)
	}
	return &act, nil
}
