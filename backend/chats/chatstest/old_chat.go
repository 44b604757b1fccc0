// Package chatstest makes databases as older Hearths left them, with a
// chat in them, for the upgrade tests of backend/chats and backend/search.
package chatstest

import (
	"context"
	"fmt"
	"testing"

	"hearth/backend/store"
)

// OldChatID is the id of the chat SeedOldChat writes.
const OldChatID = "0b6f3c1e-5d2a-4c8e-9f10-2a3b4c5d6e7f"

// OldMessage is a message as schema v1–v16 stored it.
type OldMessage struct {
	Name    string
	IsUser  bool
	Hidden  bool
	SwipeID int
	Extra   string
	Swipes  []string
}

// SeedOldChat makes a database at schema version upTo (1–16) holding one
// character with a chat of msgs, written as those versions laid rows out:
// body and swipe rows keyed by their message's id. It returns the chat id
// (OldChatID).
func SeedOldChat(t testing.TB, path string, upTo int, msgs []OldMessage) string {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, path, store.Options{UpTo: upTo})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.InTx(ctx, func(tx *store.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO characters (avatar, name, card, created_at, updated_at)
			VALUES ('Ava.png', 'Ava', '{"name":"Ava"}', 0, 0)`); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO chats (uuid, owner_kind, owner, file_name, message_count, created_at, updated_at, change_seq)
			VALUES (?, 'character', 'Ava.png', 'Ava - old', ?, 0, 0, 1)`, OldChatID, len(msgs))
		if err != nil {
			return err
		}
		chat, _ := res.LastInsertId()
		for i, m := range msgs {
			res, err := tx.ExecContext(ctx, `INSERT INTO messages (chat_id, idx, uuid) VALUES (?, ?, ?)`, chat, i, fmt.Sprintf("00000000-0000-4000-8000-%012d", i))
			if err != nil {
				return err
			}
			id, _ := res.LastInsertId()
			if _, err := tx.ExecContext(ctx, `INSERT INTO message_bodies (message_id, name, is_user, is_system, hidden, swipe_id, extra, fields)
				VALUES (?, ?, ?, 0, ?, ?, ?, '{}')`, id, m.Name, m.IsUser, m.Hidden, m.SwipeID, m.Extra); err != nil {
				return err
			}
			for ord, mes := range m.Swipes {
				if _, err := tx.ExecContext(ctx, `INSERT INTO message_swipes (message_id, ord, mes, info) VALUES (?, ?, ?, '{}')`, id, ord, mes); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return OldChatID
}
