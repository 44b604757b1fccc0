package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestFolderSpecIsDeterministicAndDistinct(t *testing.T) {
	t.Parallel()
	a, b := folderSpec("/r", 7), folderSpec("/r", 7)
	if !reflect.DeepEqual(a, b) {
		t.Error("folder 7 differs between two calls")
	}
	names := map[string]bool{}
	for i := range 30 {
		f := folderSpec("/r", i)
		if len(f.chars) < 2 {
			t.Errorf("folder %d has %d cards", i, len(f.chars))
		}
		for _, c := range f.chars {
			if names[c.name] {
				t.Errorf("card name %q repeats", c.name)
			}
			names[c.name] = true
			for _, chat := range c.chats {
				if len(chat.messages) < 12 {
					t.Errorf("%s has %d messages", chat.stem, len(chat.messages))
				}
			}
		}
	}
}

func TestFolderWrite(t *testing.T) {
	t.Parallel()
	f := folderSpec(t.TempDir(), 3)
	if err := f.write(); err != nil {
		t.Fatal(err)
	}
	read := func(rel ...string) []byte {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(append([]string{f.path}, rel...)...))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	var world struct {
		Entries map[string]any `json:"entries"`
	}
	if err := json.Unmarshal(read("worlds", f.world.name+".json"), &world); err != nil || len(world.Entries) != f.world.entries {
		t.Errorf("world: %d entries (%v), want %d", len(world.Entries), err, f.world.entries)
	}
	for _, c := range f.chars {
		var card struct {
			Spec string `json:"spec"`
			Data struct {
				Name string `json:"name"`
				Book struct {
					Name    string `json:"name"`
					Entries []any  `json:"entries"`
				} `json:"character_book"`
			} `json:"data"`
		}
		if err := json.Unmarshal(read("characters", c.file), &card); err != nil {
			t.Fatal(err)
		}
		if card.Spec != "chara_card_v2" || card.Data.Name != c.name || card.Data.Book.Name != c.book.name || len(card.Data.Book.Entries) != c.book.entries {
			t.Errorf("card %s: %+v", c.file, card)
		}
		for _, chat := range c.chats {
			lines := strings.Split(string(read("chats", strings.TrimSuffix(c.file, ".json"), chat.stem+".jsonl")), "\n")
			if len(lines) != len(chat.messages)+1 {
				t.Fatalf("%s: %d lines for %d messages", chat.stem, len(lines), len(chat.messages))
			}
			var last struct {
				Mes    string   `json:"mes"`
				Swipes []string `json:"swipes"`
			}
			if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil || last.Mes != chat.last() || len(last.Swipes) != 1 {
				t.Errorf("%s: last line %q (%v)", chat.stem, lines[len(lines)-1], err)
			}
		}
	}
}
