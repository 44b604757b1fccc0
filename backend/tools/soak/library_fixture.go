package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// A SillyTavern user folder the soak imports: lorebooks, cards with an
// embedded lorebook, and chats of each card, all with known content, so a
// check can tell a whole item from a part of one.

// libFolder is one user folder and what importing it must bring in.
type libFolder struct {
	index int
	path  string
	world libBook
	chars []libChar
}

// libBook is a lorebook: its name and its number of entries.
type libBook struct {
	name    string
	entries int
}

// libChar is one card.
type libChar struct {
	name  string
	file  string // characters/<file>
	book  libBook
	chats []libChat
}

// libChat is one chat file of a card.
type libChat struct {
	stem     string // the file's name without .jsonl: the chat's name
	messages []string
}

// last is the chat's last message.
func (c libChat) last() string { return c.messages[len(c.messages)-1] }

// folderSpec is folder i's content: two or three cards of one to three
// chats of 12 to 70 messages.
func folderSpec(root string, i int) *libFolder {
	f := &libFolder{index: i, path: filepath.Join(root, fmt.Sprintf("st-%03d", i)),
		world: libBook{name: fmt.Sprintf("Soak L%03d World", i), entries: 1 + i%4}}
	for ci := range 2 + i%2 {
		name := fmt.Sprintf("Soak L%03d C%d", i, ci)
		ch := libChar{name: name, file: fmt.Sprintf("soak-l%03d-c%d.json", i, ci),
			book: libBook{name: name + " Book", entries: 1 + (i+ci)%3}}
		for j := range 1 + (i+ci)%3 {
			n := 12 + (i*7+ci*13+j*29)%59
			chat := libChat{stem: fmt.Sprintf("%s - chat %d", name, j)}
			for k := range n {
				chat.messages = append(chat.messages, fmt.Sprintf("L%03d C%d chat %d message %d: %s", i, ci, j, k, vocabulary[(i+ci+j+k)%len(vocabulary)]))
			}
			ch.chats = append(ch.chats, chat)
		}
		f.chars = append(f.chars, ch)
	}
	return f
}

// write puts the folder on disk.
func (f *libFolder) write() error {
	files := map[string][]byte{
		filepath.Join("worlds", f.world.name+".json"): worldJSON(f.world),
	}
	for _, c := range f.chars {
		files[filepath.Join("characters", c.file)] = cardJSON(c)
		for _, chat := range c.chats {
			files[filepath.Join("chats", strings.TrimSuffix(c.file, ".json"), chat.stem+".jsonl")] = chatJSONL(c, chat)
		}
	}
	for rel, data := range files {
		p := filepath.Join(f.path, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			return err
		}
		if err := os.WriteFile(p, data, 0o600); err != nil {
			return err
		}
	}
	return nil
}

// worldJSON is a lorebook file as SillyTavern writes it.
func worldJSON(b libBook) []byte {
	entries := map[string]any{}
	for i := range b.entries {
		entries[fmt.Sprint(i)] = map[string]any{
			"uid": i, "key": []string{fmt.Sprintf("soakkey%d", i)}, "keysecondary": []string{}, "comment": fmt.Sprintf("entry %d", i),
			"content": fmt.Sprintf("%s entry %d.", b.name, i), "constant": false, "selective": true, "order": 100,
			"position": 0, "disable": false, "displayIndex": i,
		}
	}
	return mustJSON(map[string]any{"entries": entries})
}

// cardJSON is a V2 card with an embedded lorebook.
func cardJSON(c libChar) []byte {
	var entries []any
	for i := range c.book.entries {
		entries = append(entries, map[string]any{
			"id": i, "keys": []string{fmt.Sprintf("bookkey%d", i)}, "content": fmt.Sprintf("%s entry %d.", c.book.name, i),
			"extensions": map[string]any{}, "enabled": true, "insertion_order": 100, "name": fmt.Sprintf("entry %d", i),
		})
	}
	return mustJSON(map[string]any{
		"spec": "chara_card_v2", "spec_version": "2.0",
		"data": map[string]any{
			"name": c.name, "description": "A character of the crash soak.", "personality": "patient",
			"scenario": "A soak.", "first_mes": "Hello from " + c.name + ".", "mes_example": "",
			"creator_notes": "", "system_prompt": "", "post_history_instructions": "", "alternate_greetings": []string{},
			"tags": []string{"soak"}, "creator": "soak", "character_version": "1", "extensions": map[string]any{},
			"character_book": map[string]any{"name": c.book.name, "extensions": map[string]any{}, "entries": entries},
		},
	})
}

// chatJSONL is a chat file as SillyTavern writes it: a header line, then
// one message per line.
func chatJSONL(c libChar, chat libChat) []byte {
	lines := []string{string(mustJSON(map[string]any{
		"user_name": "User", "character_name": c.name, "create_date": "2024-05-01@12h00m00s", "chat_metadata": map[string]any{},
	}))}
	for k, text := range chat.messages {
		user := k%2 == 1
		name := c.name
		if user {
			name = "User"
		}
		date := fmt.Sprintf("2024-05-01T12:%02d:%02d.000Z", k/60%60, k%60)
		lines = append(lines, string(mustJSON(map[string]any{
			"name": name, "is_user": user, "is_system": false, "send_date": date, "mes": text,
			"swipe_id": 0, "swipes": []string{text},
			"swipe_info": []any{map[string]any{"send_date": date, "gen_started": nil, "gen_finished": nil, "extra": map[string]any{}}},
			"extra":      map[string]any{},
		})))
	}
	return []byte(strings.Join(lines, "\n"))
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // the soak's own maps always encode
	}
	return b
}
