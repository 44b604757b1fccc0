package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"time"
)

// libraryWriter imports SillyTavern user folders (library.importST) from
// under the server's --library-root, one folder a call, each until a
// call for it is acknowledged; now and then it imports a finished folder
// again, which must bring in nothing. Each item is one transaction on
// the server, so an import cut by a kill leaves some items and not
// others; a check finds every item of an acknowledged import whole, and
// every item of any import whole or absent: a chat with all its
// messages, a card with its embedded lorebook.
type libraryWriter struct {
	l       *Ledger
	root    string
	folders []*libFolder // written as they are needed
	done    []bool
	// duplicates are the cards found imported twice, which the library
	// documents: a kill between an item's transaction and its ledger row
	// imports that item again on the next import.
	duplicates map[string]bool
}

func newLibraryWriter(root string) *libraryWriter {
	return &libraryWriter{l: NewLedger(), root: root, duplicates: map[string]bool{}}
}

func (w *libraryWriter) name() string    { return "library import" }
func (w *libraryWriter) ledger() *Ledger { return w.l }

func (w *libraryWriter) setup(context.Context, *client) error { return nil }

// The keys of a folder's items and what each must hold.

func folderGroup(f *libFolder) string { return filepath.Base(f.path) }

func bookValue(b libBook) Value { return Has(fmt.Sprintf("%d entries", b.entries)) }

func chatValue(count int, last string) Value {
	return Has(fmt.Sprintf("%d messages, last %q", count, last))
}

func (f *libFolder) worldKey() string                 { return folderGroup(f) + "/world" }
func (c libChar) key(f *libFolder) string             { return folderGroup(f) + "/" + c.name }
func (c libChar) bookKey(f *libFolder) string         { return c.key(f) + "/book" }
func (ch libChat) key(f *libFolder, c libChar) string { return c.key(f) + "/" + ch.stem }

func (w *libraryWriter) run(ctx context.Context, c *client, rng *rand.Rand) {
	for ctx.Err() == nil {
		next := slices.Index(w.done, false)
		if next < 0 {
			f := folderSpec(w.root, len(w.folders))
			if err := f.write(); err != nil {
				w.l.Note("write %s: %v", f.path, err)
				return
			}
			w.folders, w.done = append(w.folders, f), append(w.done, false)
			next = len(w.folders) - 1
		}
		var err error
		if next > 0 && rng.IntN(10) == 0 {
			err = w.importAgain(ctx, c, w.folders[rng.IntN(next)])
		} else if err = w.importFolder(ctx, c, w.folders[next]); err == nil {
			w.done[next] = true
		}
		if isNoAnswer(err) {
			return
		}
		// Pace the imports: the folders, and the database, would grow
		// faster than the soak needs.
		select {
		case <-ctx.Done():
		case <-time.After(time.Duration(50+rng.IntN(200)) * time.Millisecond):
		}
	}
}

// importSummary is the part of library.importST's answer the soak reads.
type importSummary struct {
	Imported map[string]int `json:"imported"`
	Failed   []struct {
		Kind  string `json:"kind"`
		Path  string `json:"path"`
		Error string `json:"error"`
	} `json:"failed"`
	Messages int `json:"messages"`
}

// importFolder imports f: every item is written, and acknowledged when
// the call is.
func (w *libraryWriter) importFolder(ctx context.Context, c *client, f *libFolder) error {
	g := folderGroup(f)
	ops := []*Op{w.l.Begin(f.worldKey(), g, bookValue(f.world))}
	for _, ch := range f.chars {
		ops = append(ops, w.l.Begin(ch.key(f), g, Has("present")), w.l.Begin(ch.bookKey(f), g, bookValue(ch.book)))
		for _, chat := range ch.chats {
			ops = append(ops, w.l.Begin(chat.key(f, ch), g, chatValue(len(chat.messages), chat.last())))
		}
	}
	var sum importSummary
	err := c.call(ctx, &sum, "library.importST", f.path)
	if outcome(w.l, err, ops) {
		for _, fl := range sum.Failed {
			w.l.Refused("import %s: %s %s failed: %s", g, fl.Kind, fl.Path, fl.Error)
		}
	}
	return err
}

// importAgain imports a folder imported before: nothing may come in.
func (w *libraryWriter) importAgain(ctx context.Context, c *client, f *libFolder) error {
	var sum importSummary
	err := c.call(ctx, &sum, "library.importST", f.path)
	if err != nil {
		if !isNoAnswer(err) {
			w.l.Refused("import %s again: %v", folderGroup(f), err)
		}
		return err
	}
	w.l.Called()
	for kind, n := range sum.Imported {
		if n > 0 {
			w.l.Check(fmt.Sprintf("%s/again/%s", folderGroup(f), kind), Has(fmt.Sprintf("%d imported again", n)))
		}
	}
	return nil
}

func (w *libraryWriter) verify(ctx context.Context, c *client, full bool) error {
	groups := w.l.Groups(!full)
	if len(groups) == 0 {
		return nil
	}
	var chars []struct {
		Avatar string `json:"avatar"`
		Name   string `json:"name"`
	}
	if err := c.call(ctx, &chars, "characters.list"); err != nil {
		return fmt.Errorf("list characters: %w", err)
	}
	avatars := map[string][]string{}
	for _, ch := range chars {
		avatars[ch.Name] = append(avatars[ch.Name], ch.Avatar)
	}
	var books []struct {
		Name    string `json:"name"`
		Entries int    `json:"entries"`
	}
	if err := c.call(ctx, &books, "worldinfo.list"); err != nil {
		return fmt.Errorf("list lorebooks: %w", err)
	}
	entries := map[string]int{}
	for _, b := range books {
		entries[b.Name] = b.Entries
	}
	byGroup := map[string]*libFolder{}
	for _, f := range w.folders {
		byGroup[folderGroup(f)] = f
	}
	for _, g := range groups {
		f := byGroup[g]
		if f == nil {
			continue // the again/ keys of re-imports
		}
		if err := w.checkFolder(ctx, c, f, avatars, entries); err != nil {
			return err
		}
	}
	return nil
}

// checkFolder checks every item of f.
func (w *libraryWriter) checkFolder(ctx context.Context, c *client, f *libFolder, avatars map[string][]string, entries map[string]int) error {
	w.l.Check(f.worldKey(), bookOf(entries, f.world.name))
	for _, ch := range f.chars {
		list := avatars[ch.name]
		char := None
		if len(list) > 0 {
			char = Has("present")
		}
		if len(list) > 1 && !w.duplicates[ch.name] {
			w.duplicates[ch.name] = true
			w.l.Twice("%s was imported %d times (documented: a kill between an item's transaction and its ledger row)", ch.name, len(list))
		}
		book := bookOf(entries, ch.book.name)
		if char.Present != book.Present {
			w.l.Half("%s: the card is %s and its embedded lorebook %s is %s; they are one transaction", ch.name, presence(char), ch.book.name, presence(book))
		}
		w.l.Check(ch.key(f), char)
		w.l.Check(ch.bookKey(f), book)

		found := map[string][]chatSummary{}
		for _, avatar := range list {
			chats, err := listChats(ctx, c, avatar)
			if err != nil {
				return err
			}
			for _, s := range chats {
				found[s.FileName] = append(found[s.FileName], s)
			}
		}
		for _, chat := range ch.chats {
			want := chatValue(len(chat.messages), chat.last())
			got := None
			for _, s := range found[chat.stem] {
				got = chatValue(s.MessageCount, s.Mes)
				if got != want {
					w.l.Half("%s: chat %q holds %d of its %d messages, last %q", ch.name, chat.stem, s.MessageCount, len(chat.messages), clip(s.Mes, 80))
				}
			}
			if n := len(found[chat.stem]); n > 1 && !w.duplicates[ch.name+"/"+chat.stem] {
				w.duplicates[ch.name+"/"+chat.stem] = true
				w.l.Twice("%s: chat %q was imported %d times, with the card (documented)", ch.name, chat.stem, n)
			}
			w.l.Check(chat.key(f, ch), got)
		}
	}
	return nil
}

// bookOf is a lorebook's value: its number of entries, or nothing.
func bookOf(entries map[string]int, name string) Value {
	n, ok := entries[name]
	if !ok {
		return None
	}
	return bookValue(libBook{name: name, entries: n})
}

func presence(v Value) string {
	if v.Present {
		return "there"
	}
	return "missing"
}
