package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync/atomic"
)

// stMessage is the part of a SillyTavern message the soak reads.
type stMessage struct {
	Mes       string         `json:"mes"`
	IsUser    bool           `json:"is_user"`
	SwipeID   int            `json:"swipe_id"`
	Swipes    []string       `json:"swipes"`
	SwipeInfo []swipeInfo    `json:"swipe_info"`
	Extra     map[string]any `json:"extra"`
}

// swipeInfo is one swipe's data.
type swipeInfo struct {
	Extra struct {
		Hearth struct {
			GenerationID string `json:"generationId"`
			Agent        struct {
				RunID    string `json:"runId"`
				CommitID string `json:"commitId"`
			} `json:"agent"`
		} `json:"hearth"`
	} `json:"extra"`
}

// soakKey is the key the soak gave a message in extra.soak, "" for none.
func (m *stMessage) soakKey() string {
	k, _ := m.Extra["soak"].(string)
	return k
}

// whole reports whether m keeps the message invariants a write must
// never break halfway: at least one swipe, swipe_id in range, mes the
// active swipe, one swipe_info per swipe.
func (m *stMessage) whole() bool {
	return len(m.Swipes) > 0 && m.SwipeID >= 0 && m.SwipeID < len(m.Swipes) &&
		m.Mes == m.Swipes[m.SwipeID] && len(m.SwipeInfo) == len(m.Swipes)
}

// chatSummary is the part of a chat summary the soak reads.
type chatSummary struct {
	ChatID       string  `json:"chatId"`
	FileName     string  `json:"fileName"`
	Mes          string  `json:"mes"`
	MessageCount int     `json:"messageCount"`
	Kind         string  `json:"kind"`
	ParentChatID *string `json:"parentChatId"`
	BranchPoint  *int    `json:"branchPoint"`
}

// readMessages reads a chat's messages from index start to its end.
func readMessages(ctx context.Context, c *client, chatID string, start int) ([]stMessage, error) {
	var out []stMessage
	if err := c.call(ctx, &out, "chat.getStMessages", chatID, map[string]any{"start": start}); err != nil {
		return nil, fmt.Errorf("read chat %s from %d: %w", chatID, start, err)
	}
	return out, nil
}

// createCharacter makes a character and returns its avatar key.
func createCharacter(ctx context.Context, c *client, name string) (string, error) {
	var card struct {
		Avatar string `json:"avatar"`
	}
	err := c.call(ctx, &card, "characters.create", map[string]any{"name": name, "first_mes": "Hello from " + name + "."})
	if err != nil {
		return "", fmt.Errorf("create character %s: %w", name, err)
	}
	return card.Avatar, nil
}

// chatSerial numbers the chats the soak makes: names from the clock
// collide when two are made in one millisecond.
var chatSerial atomic.Int64

// createChat makes a chat of avatar and returns its id.
func createChat(ctx context.Context, c *client, avatar string) (string, error) {
	var chat chatSummary
	name := fmt.Sprintf("%s soak chat %d", strings.TrimSuffix(avatar, ".png"), chatSerial.Add(1))
	if err := c.call(ctx, &chat, "chat.create", map[string]any{"avatar": avatar}, map[string]any{"fileName": name}); err != nil {
		return "", fmt.Errorf("create a chat of %s: %w", avatar, err)
	}
	return chat.ChatID, nil
}

// listChats lists the chats of avatar.
func listChats(ctx context.Context, c *client, avatar string) ([]chatSummary, error) {
	var out []chatSummary
	if err := c.call(ctx, &out, "chat.list", map[string]any{"avatar": avatar}); err != nil {
		return nil, fmt.Errorf("list the chats of %s: %w", avatar, err)
	}
	return out, nil
}

// canonical is raw JSON re-encoded with sorted keys and no spaces, so two
// encodings of one value compare equal; null is None.
func canonical(raw json.RawMessage) (Value, error) {
	if len(raw) == 0 {
		return None, nil
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return None, err
	}
	if v == nil {
		return None, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return None, err
	}
	return Has(string(b)), nil
}

// canonicalOf encodes v as canonical does.
func canonicalOf(v any) Value {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // the soak's own maps and numbers always encode
	}
	out, err := canonical(b)
	if err != nil {
		panic(err)
	}
	return out
}

// vocabulary fills the soak's texts.
var vocabulary = []string{"lantern", "river", "ember", "glade", "harbour", "quiet", "stone", "winter", "ash", "wren",
	"bridge", "salt", "copper", "moss", "thread", "bell", "orchard", "tide", "ink", "hollow"}

// words is n words of vocabulary, separated by spaces.
func words(rng *rand.Rand, n int) string {
	out := make([]string, n)
	for i := range out {
		out[i] = vocabulary[rng.IntN(len(vocabulary))]
	}
	return strings.Join(out, " ")
}
