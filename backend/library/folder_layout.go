package library

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"hearth/backend/apperr"
)

// The folders and files of a SillyTavern user folder (SillyTavern's
// USER_DIRECTORY_TEMPLATE) that Hearth reads and writes.
const (
	dirCharacters = "characters"
	dirChats      = "chats"
	dirWorlds     = "worlds"
	dirAvatars    = "User Avatars"
	dirPresets    = "OpenAI Settings"
	dirGroups     = "groups"
	dirGroupChats = "group chats"
	fileSettings  = "settings.json"
	defaultUser   = "default-user"
)

// userFolderMarks are the entries that make a folder look like a user
// folder; two are needed, one of them a folder of content.
var userFolderMarks = []string{dirCharacters, dirChats, dirWorlds, dirAvatars, dirPresets, dirGroups, dirGroupChats, fileSettings}

// isUserFolder tells whether dir is a SillyTavern user folder: it has
// characters/, chats/ or worlds/, and at least one more of the entries
// SillyTavern makes in every user folder.
func isUserFolder(dir string) bool {
	content, marks := false, 0
	for _, name := range userFolderMarks {
		st, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			continue
		}
		if name == fileSettings {
			if st.Mode().IsRegular() {
				marks++
			}
			continue
		}
		if st.IsDir() {
			marks++
			content = content || name == dirCharacters || name == dirChats || name == dirWorlds
		}
	}
	return content && marks >= 2
}

// locate finds the user folder the import of path stands for; real is
// path with its symbolic links resolved. It is real itself; else, for an
// install (or its data/ folder), data/default-user or the only user under
// data/; else the pre-1.10 layout, whose folders sit under public/.
func locate(path, real string) (string, error) {
	if st, err := os.Stat(real); err != nil || !st.IsDir() {
		return "", apperr.New(CodeNotSillyTavern, "%s is not a folder: pass a SillyTavern user folder (data/<user>) or a SillyTavern install", path).
			WithDetails(map[string]any{"path": path})
	}
	if isUserFolder(real) {
		return real, nil
	}
	for _, dataDir := range []string{filepath.Join(real, "data"), real} {
		users := usersIn(dataDir)
		switch {
		case len(users) == 0:
			continue
		case contains(users, defaultUser):
			return filepath.Join(dataDir, defaultUser), nil
		case len(users) == 1:
			return filepath.Join(dataDir, users[0]), nil
		default:
			return "", apperr.New(CodeSeveralUsers, "%s holds several SillyTavern users (%s) and no default-user: pass one of them, e.g. %s",
				path, strings.Join(users, ", "), filepath.Join(dataDir, users[0])).
				WithDetails(map[string]any{"path": path, "users": users})
		}
	}
	if legacy := filepath.Join(real, "public"); isUserFolder(legacy) {
		return legacy, nil
	}
	return "", apperr.New(CodeNotSillyTavern, "%s is not a SillyTavern folder: pass a user folder (data/<user>, with characters/, chats/, worlds/, settings.json …) or a SillyTavern install", path).
		WithDetails(map[string]any{"path": path})
}

// usersIn lists the user folders directly under dir, sorted.
func usersIn(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var users []string
	for _, e := range entries {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") && e.Name() != "_storage" && e.Name() != "_uploads" && e.Name() != "_cache" && e.Name() != "_webpack" && isUserFolder(filepath.Join(dir, e.Name())) {
			users = append(users, e.Name())
		}
	}
	sort.Strings(users)
	return users
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// errIsNotExist reports a missing file or folder.
func errIsNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }
