package library

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"hearth/backend/apperr"
	"hearth/backend/characters"
	"hearth/backend/chats"
)

// exportRun is one export in progress.
type exportRun struct {
	s     *Service
	ctx   context.Context
	root  string
	sum   *ExportSummary
	rep   *reporter
	taken map[string]bool // lower-cased paths written, so no two items share a file
	// cards maps a character's avatar key to the file name its card was
	// written under (characters/<name>): a group names its members so.
	cards map[string]string
}

// Export writes Hearth's library as a SillyTavern user folder at path, an
// absolute path Access allows, which must be empty or not exist yet (in a
// folder that does): characters/ (PNG cards), chats/
// (each character's chats as JSONL, in the folder named after its card),
// worlds/, User Avatars/ and settings.json (personas, World Info), OpenAI
// Settings/ (presets), groups/ and group chats/ (Hearth's groups and
// their chats, and the group files an import kept). Each file is
// written to a temporary name and renamed, so a crash leaves whole files.
// An item that cannot be written is listed in Failed; the others go on.
func (s *Service) Export(ctx context.Context, path string, progress func(Progress)) (ExportSummary, error) {
	if err := s.lock(); err != nil {
		return ExportSummary{}, err
	}
	defer s.running.Unlock()
	root, err := s.prepareTarget(path)
	if err != nil {
		return ExportSummary{}, err
	}
	sum := ExportSummary{Folder: root, Failed: []Failed{}}
	x := &exportRun{s: s, ctx: ctx, root: root, sum: &sum, taken: map[string]bool{}, cards: map[string]string{},
		rep: &reporter{op: "export", bus: s.d.Bus, progress: progress}}
	for _, phase := range []func() error{x.lorebooks, x.characters, x.personas, x.presets, x.groups} {
		if err := ctx.Err(); err != nil {
			return sum, err
		}
		if err := phase(); err != nil {
			return sum, err
		}
	}
	return sum, nil
}

// prepareTarget checks that path may be written and is an empty folder or
// a new one in a folder that exists, creates it (one exclusive mkdir: no
// chain of parents, never through a link) with SillyTavern's folders, and
// returns its real path. Everything is private to the user (0700): a
// library is chats and personas.
func (s *Service) prepareTarget(path string) (string, error) {
	real, missing, err := s.d.Access.resolve(path)
	if err != nil {
		return "", err
	}
	switch {
	case missing > 1:
		return "", apperr.New(CodeNotFound, "the folder %s does not exist: an export creates only its own folder, inside one that exists", filepath.Dir(path)).
			WithDetails(map[string]any{"path": path})
	case missing == 1:
		if err := os.Mkdir(real, 0o700); err != nil {
			if errors.Is(err, fs.ErrExist) {
				return "", apperr.New(CodeTargetNotEmpty, "%s already exists: export into an empty or new folder", path).WithDetails(map[string]any{"path": path})
			}
			return "", apperr.New(CodeNotFound, "cannot create %s: %v", path, errors.Unwrap(err)).WithDetails(map[string]any{"path": path})
		}
	default:
		st, err := os.Stat(real)
		if err != nil {
			return "", apperr.New(CodeNotFound, "cannot read %s: %v", path, errors.Unwrap(err))
		}
		if !st.IsDir() {
			return "", apperr.New(CodeTargetNotEmpty, "%s is a file: export into an empty or new folder", path).WithDetails(map[string]any{"path": path})
		}
		entries, err := os.ReadDir(real)
		if err != nil {
			return "", apperr.New(CodeNotFound, "cannot read %s: %v", path, errors.Unwrap(err))
		}
		if len(entries) > 0 {
			return "", apperr.New(CodeTargetNotEmpty, "%s is not empty: an export writes a whole SillyTavern user folder, so give it an empty or new folder", path).
				WithDetails(map[string]any{"path": path})
		}
	}
	for _, dir := range []string{dirCharacters, dirChats, dirWorlds, dirAvatars, dirPresets, dirGroups, dirGroupChats} {
		if err := os.Mkdir(filepath.Join(real, dir), 0o700); err != nil {
			return "", fmt.Errorf("create %s: %w", filepath.Join(real, dir), err)
		}
	}
	return real, nil
}

func (x *exportRun) fail(kind, rel string, err error) {
	x.sum.Failed = append(x.sum.Failed, Failed{Kind: kind, Path: rel, Error: message(err)})
}

// claim returns the path dir/name, or dir/"name (2).ext" … when a written
// file has it (compared case-insensitively: the folder may be on a file
// system that folds case).
func (x *exportRun) claim(dir, name string) string {
	ext := path.Ext(name)
	base := strings.TrimSuffix(name, ext)
	for i := 1; ; i++ {
		candidate := name
		if i > 1 {
			candidate = fmt.Sprintf("%s (%d)%s", base, i, ext)
		}
		rel := dir + "/" + candidate
		if !x.taken[strings.ToLower(rel)] {
			x.taken[strings.ToLower(rel)] = true
			return rel
		}
	}
}

// lorebooks writes worlds/<name>.json: the stored text, as imported.
func (x *exportRun) lorebooks() error {
	books, err := x.s.d.WorldInfo.List(x.ctx)
	if err != nil {
		return err
	}
	for i, b := range books {
		x.rep.report(Progress{Phase: "lorebooks", Done: i, Total: len(books), Current: b.Name})
		out, err := x.s.d.WorldInfo.Export(x.ctx, b.Name)
		rel := x.claim(dirWorlds, b.Name+".json")
		if err == nil {
			err = writeFile(x.root, rel, []byte(out.Text))
		}
		if err != nil {
			x.fail(KindLorebook, rel, err)
			continue
		}
		x.sum.Exported.Lorebooks++
	}
	x.rep.report(Progress{Phase: "lorebooks", Done: len(books), Total: len(books)})
	return nil
}

// characters writes each card as characters/<file>.png, under the file
// name it was imported from where there is one, and its chats into
// chats/<that name without .png>/.
func (x *exportRun) characters() error {
	list, err := x.s.d.Characters.List(x.ctx)
	if err != nil {
		return err
	}
	sort.Slice(list, func(i, j int) bool { return list[i].Avatar < list[j].Avatar })
	origins, err := x.s.origins(x.ctx, KindCharacter)
	if err != nil {
		return err
	}
	for i, c := range list {
		if err := x.ctx.Err(); err != nil {
			return err
		}
		fileStem := stem(c.Avatar)
		if o, ok := origins[c.Avatar]; ok {
			fileStem = stem(path.Base(o.key))
		}
		rel := x.claim(dirCharacters, fileStem+".png")
		x.rep.report(Progress{Phase: "characters", Done: i, Total: len(list), Current: rel})
		_, data, err := x.s.d.Characters.ExportCardBytes(x.ctx, c.Avatar, characters.ExportOptions{Format: "png"})
		if err == nil {
			err = writeFile(x.root, rel, data)
		}
		if err != nil {
			x.fail(KindCharacter, rel, err)
			continue
		}
		x.sum.Exported.Characters++
		x.cards[c.Avatar] = path.Base(rel)
		if err := x.chatsOf(c.Avatar, stem(path.Base(rel))); err != nil {
			return err
		}
	}
	x.rep.report(Progress{Phase: "characters", Done: len(list), Total: len(list)})
	return nil
}

// chatsOf writes avatar's chats into chats/<folder>/.
func (x *exportRun) chatsOf(avatar, folder string) error {
	list, err := x.s.d.Chats.List(x.ctx, chats.Owner{Avatar: avatar})
	if err != nil {
		return err
	}
	for _, c := range list {
		f, err := x.s.d.Chats.ExportJsonl(x.ctx, c.ChatID)
		rel := x.claim(dirChats+"/"+folder, c.FileName+".jsonl")
		if err == nil {
			err = writeFile(x.root, rel, []byte(f.Text))
		}
		if err != nil {
			x.fail(KindChat, rel, err)
			continue
		}
		x.sum.Exported.Chats++
		x.sum.Messages += c.MessageCount
	}
	return nil
}
