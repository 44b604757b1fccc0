package workspace

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"hearth/backend/apperr"
)

// Blobs is the content-addressed store behind checkpoints
// (<data>/agent/blobs): each content is stored once, named by its SHA-256,
// so a checkpoint is only a manifest and an unchanged file costs nothing.
// Blobs are immutable once written; Put is safe for concurrent use.
type Blobs struct {
	dir string
}

// OpenBlobs returns the store in dir, creating the directory.
func OpenBlobs(dir string) (*Blobs, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("workspace: open blobs %s: %w", dir, err)
	}
	if err := os.MkdirAll(abs, 0o700); err != nil {
		return nil, fmt.Errorf("workspace: open blobs %s: %w", dir, err)
	}
	if err := makeFans(abs); err != nil {
		return nil, err
	}
	return &Blobs{dir: abs}, nil
}

// makeFans creates the 256 fan-out directories at once, with one fsync,
// so that a Put never pays for a new directory's (two fsyncs). The last
// one is made last: when it exists, all do.
func makeFans(dir string) error {
	if _, err := os.Stat(filepath.Join(dir, "ff")); err == nil {
		return nil
	}
	for i := 0; i < 256; i++ {
		if err := os.Mkdir(filepath.Join(dir, fmt.Sprintf("%02x", i)), 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("workspace: blob dir: %w", err)
		}
	}
	return syncPath(dir)
}

// Put stores data and returns its lowercase hex SHA-256. Storing a content
// that exists writes nothing; a new blob goes through a temp file, fsync
// and rename, so a blob that exists under its name is always complete.
func (b *Blobs) Put(data []byte) (string, error) {
	sum := sha256.Sum256(data)
	sha := hex.EncodeToString(sum[:])
	if b.reuse(sha) {
		return sha, nil
	}
	return sha, b.store(sha, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// store writes a new blob through a temp file in its fan-out directory.
func (b *Blobs) store(sha string, write func(io.Writer) error) error {
	fan := filepath.Join(b.dir, sha[:2])
	if err := b.mkFan(fan); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(fan, TmpPrefix)
	if err != nil {
		return fmt.Errorf("workspace: blob %s: %w", sha, err)
	}
	defer os.Remove(tmp.Name()) // a no-op once renamed
	err = write(tmp)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("workspace: blob %s: %w", sha, err)
	}
	return b.place(tmp.Name(), sha)
}

// place renames a complete, synced temp file to the blob's name and syncs
// the fan-out directory. Losing a race to a concurrent Put of the same
// content is success: the blob is there either way.
func (b *Blobs) place(tmp, sha string) error {
	fan := filepath.Join(b.dir, sha[:2])
	if err := b.mkFan(fan); err != nil {
		return err
	}
	if err := os.Rename(tmp, filepath.Join(fan, sha)); err != nil {
		if b.Has(sha) {
			return nil
		}
		return fmt.Errorf("workspace: blob %s: %w", sha, err)
	}
	return syncPath(fan)
}

// mkFan creates a fan-out directory and makes its entry durable.
func (b *Blobs) mkFan(fan string) error {
	err := os.Mkdir(fan, 0o700)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("workspace: blob dir: %w", err)
	}
	return syncPath(b.dir)
}

// Get returns the content stored under sha, checking that it still hashes
// to sha. A sha that is not 64 hex digits is refused before any path is
// built from it.
func (b *Blobs) Get(sha string) ([]byte, error) {
	f, sha, err := b.open(sha)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, fmt.Errorf("workspace: blob %s: %w", sha, err)
	}
	if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != sha {
		return nil, corrupt(sha)
	}
	return data, nil
}

// Has reports whether the store holds sha; an invalid sha is never held.
func (b *Blobs) Has(sha string) bool {
	p, ok := b.path(sha)
	if !ok {
		return false
	}
	fi, err := os.Lstat(p)
	return err == nil && fi.Mode().IsRegular()
}

// open opens a blob for streaming; the caller verifies the hash while
// reading (see verifyingReader).
func (b *Blobs) open(sha string) (*os.File, string, error) {
	p, ok := b.path(sha)
	if !ok {
		return nil, "", apperr.Invalid("%q is not a SHA-256 in hex", truncate(sha, 80)).
			WithDetails(map[string]any{"sha256": truncate(sha, 80)})
	}
	sha = strings.ToLower(sha)
	f, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, "", apperr.New(CodeBlobMissing, "blob %s is missing", sha).
			WithDetails(map[string]any{"sha256": sha})
	}
	if err != nil {
		return nil, "", fmt.Errorf("workspace: blob %s: %w", sha, err)
	}
	return f, sha, nil
}

// path maps a sha to its file, or reports it invalid. Upper-case hex is
// accepted and folded, so the name is the same on every file system.
func (b *Blobs) path(sha string) (string, bool) {
	if len(sha) != sha256.Size*2 {
		return "", false
	}
	if _, err := hex.DecodeString(sha); err != nil {
		return "", false
	}
	sha = strings.ToLower(sha)
	return filepath.Join(b.dir, sha[:2], sha), true
}

// verifyingReader hashes what passes through and reports corruption at EOF,
// so a restore streaming a blob never finishes a file with the wrong bytes.
type verifyingReader struct {
	r   io.Reader
	sha string
	h   interface {
		io.Writer
		Sum([]byte) []byte
	}
}

func newVerifyingReader(r io.Reader, sha string) *verifyingReader {
	return &verifyingReader{r: r, sha: sha, h: sha256.New()}
}

func (v *verifyingReader) Read(p []byte) (int, error) {
	n, err := v.r.Read(p)
	v.h.Write(p[:n])
	if err == io.EOF && hex.EncodeToString(v.h.Sum(nil)) != v.sha {
		return n, corrupt(v.sha)
	}
	return n, err
}

func corrupt(sha string) error {
	return apperr.New(CodeBlobCorrupt, "blob %s does not match its hash", sha).
		WithDetails(map[string]any{"sha256": sha})
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}
