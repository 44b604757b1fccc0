package library

import (
	"context"
	"fmt"

	"hearth/backend/apperr"
	"hearth/backend/cards"
	"hearth/backend/chats"
	"hearth/backend/store"
	"hearth/backend/worldinfo"
)

// lorebooks imports worlds/*.json through worldinfo.Import. A book whose
// name Hearth has already is left alone: Hearth's copy may be newer.
func (r *importRun) lorebooks() error {
	files, _, err := r.files(KindLorebook, dirWorlds, []string{".json"}, "not a World Info file (.json)")
	if err != nil {
		return err
	}
	return r.each("lorebooks", files, func(e entry) error {
		raw, err := read(e, worldinfo.MaxBookBytes)
		if err != nil {
			r.fail(KindLorebook, e.rel, err)
			return nil
		}
		sha := hashOf(raw)
		if seen, _, err := r.known(KindLorebook, e.rel, sha); err != nil || seen {
			return err
		}
		book, err := r.s.d.WorldInfo.Import(r.ctx, worldinfo.ImportInput{FileName: e.name, Text: string(raw)})
		switch {
		case apperr.CodeOf(err) == worldinfo.CodeNameTaken:
			r.skip(KindLorebook, e.rel, fmt.Sprintf("a lorebook named %q is in Hearth already; Hearth's copy kept", stem(e.name)))
			return nil
		case err != nil:
			r.fail(KindLorebook, e.rel, err)
			return nil
		}
		r.sum.Imported.Lorebooks++
		return r.s.remember(r.ctx, record{Library: r.f.root, Kind: KindLorebook, Key: e.rel, SHA: sha, HearthID: book.Name})
	})
}

// characters imports the cards in characters/ (PNG and JSON) through
// characters.ImportCardBytes. Its subfolders hold sprites and are not
// imported.
func (r *importRun) characters() error {
	files, dirs, err := r.files(KindCharacter, dirCharacters, []string{".png", ".json"}, "not a character card (.png or .json)")
	if err != nil {
		return err
	}
	for _, d := range dirs {
		r.skip(KindCharacter, d.rel, "a folder of sprites or expressions; not imported")
	}
	return r.each("characters", files, func(e entry) error {
		raw, err := read(e, cards.MaxFileBytes)
		if err != nil {
			r.fail(KindCharacter, e.rel, err)
			return nil
		}
		sha := hashOf(raw)
		seen, avatar, err := r.known(KindCharacter, e.rel, sha)
		if err != nil {
			return err
		}
		if seen {
			if _, err := r.s.d.Characters.Get(r.ctx, avatar); err == nil {
				r.avatars[stem(e.name)] = avatar
			}
			return nil
		}
		imp, err := r.s.d.Characters.ImportCardBytes(r.ctx, e.name, raw)
		if err != nil {
			r.fail(KindCharacter, e.rel, err)
			return nil
		}
		r.avatars[stem(e.name)] = imp.Avatar
		r.sum.Imported.Characters++
		return r.s.remember(r.ctx, record{Library: r.f.root, Kind: KindCharacter, Key: e.rel, SHA: sha, HearthID: imp.Avatar})
	})
}

// chats imports chats/<card stem>/*.jsonl through chats.ImportJsonl, each
// as a chat of the character imported from characters/<card stem>.png.
func (r *importRun) chats() error {
	_, dirs, err := r.files(KindChat, dirChats, nil, "not in a character's chat folder")
	if err != nil {
		return err
	}
	var items []entry
	owners := map[string]string{} // chat file → avatar
	for _, d := range dirs {
		files, _, err := r.files(KindChat, d.rel, []string{".jsonl"}, "not a chat file (.jsonl)")
		if err != nil {
			return err
		}
		avatar, ok := r.avatars[d.name]
		for _, f := range files {
			if !ok {
				r.skip(KindChat, f.rel, fmt.Sprintf("no character card characters/%s.png was imported to own it", d.name))
				continue
			}
			owners[f.rel] = avatar
			items = append(items, f)
		}
	}
	return r.each("chats", items, func(e entry) error {
		avatar := owners[e.rel]
		raw, err := read(e, chats.MaxJsonlBytes)
		if err != nil {
			r.fail(KindChat, e.rel, err)
			return nil
		}
		sha := hashOf(raw)
		if seen, _, err := r.known(KindChat, e.rel, sha); err != nil || seen {
			return err
		}
		text := string(raw)
		// The ledger row commits with the chat (JsonlImport.Within): a
		// crash between two transactions would leave a chat the ledger
		// does not know, imported a second time by the next run.
		var ledgerErr error
		remember := func(ctx context.Context, tx *store.Tx, sum chats.Summary) error {
			ledgerErr = r.s.rememberIn(ctx, tx, record{Library: r.f.root, Kind: KindChat, Key: e.rel, SHA: sha, HearthID: sum.ChatID})
			return ledgerErr
		}
		sum, err := r.s.d.Chats.ImportJsonl(r.ctx, chats.Owner{Avatar: avatar}, chats.JsonlImport{FileName: e.name, Text: &text, Within: remember})
		switch {
		case ledgerErr != nil:
			return ledgerErr
		case apperr.CodeOf(err) == apperr.CodeChatNameTaken:
			r.skip(KindChat, e.rel, fmt.Sprintf("%s has a chat named %q in Hearth already; Hearth's copy kept", avatar, stem(e.name)))
			return nil
		case err != nil:
			r.fail(KindChat, e.rel, err)
			return nil
		}
		r.sum.Imported.Chats++
		r.sum.Messages += sum.MessageCount
		return nil
	})
}

// Kinds of kept files (library_files.kind).
const (
	keptGroup     = "group"
	keptGroupChat = "group_chat"
	keptSettings  = "settings"
	keptPreset    = "preset"
)
