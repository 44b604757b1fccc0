package library

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/png"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// safePart tells whether one element of an export path is a plain file
// or folder name: names come from Hearth's data (chat file names, book
// and preset names, kept paths), and none may climb out of the folder.
func safePart(s string) bool {
	return s != "" && s != "." && s != ".." && !strings.ContainsAny(s, "/\\\x00")
}

// writeFile writes data to rel (a '/'-separated path under root) crash
// safely: a temporary file in the same folder, synced, then renamed over
// the name, and the folder synced, so a crash leaves the old state or the
// whole file, never a part. Files are the user's alone (0600), like the
// folders mkdirIn makes.
func writeFile(root, rel string, data []byte) error {
	parts := strings.Split(rel, "/")
	for _, part := range parts {
		if !safePart(part) {
			return fmt.Errorf("%q is not a file name Hearth writes", rel)
		}
	}
	p := filepath.Join(root, filepath.FromSlash(rel))
	dir := filepath.Dir(p)
	if err := mkdirIn(root, parts[:len(parts)-1]); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".hearth-export-*")
	if err != nil {
		return err
	}
	done := false
	defer func() {
		if !done {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o600); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), p); err != nil {
		return err
	}
	done = true
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync() // best effort: not every file system syncs folders
		d.Close()
	}
	return nil
}

// mkdirIn makes the folders parts under root, one level at a time, each
// 0700; one that exists must be a real folder, not a link: a link would
// lead the export's files out of the folder it was given.
func mkdirIn(root string, parts []string) error {
	dir := root
	for _, part := range parts {
		dir = filepath.Join(dir, part)
		st, err := os.Lstat(dir)
		switch {
		case errIsNotExist(err):
			if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
				return err
			}
			if st, err = os.Lstat(dir); err != nil {
				return err
			}
		case err != nil:
			return err
		}
		if !st.IsDir() {
			return fmt.Errorf("%s is not a folder", dir)
		}
	}
	return nil
}

// placeholderAvatar is the picture written for a persona without one:
// SillyTavern lists personas by the files in User Avatars/, so a persona
// needs a file to appear there.
var placeholderAvatar = func() []byte {
	var b bytes.Buffer
	_ = png.Encode(&b, image.NewGray(image.Rect(0, 0, 1, 1)))
	return b.Bytes()
}()
