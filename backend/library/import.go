package library

import (
	"context"
	"encoding/json"
	"path"
	"strings"

	"hearth/backend/apperr"
	"hearth/backend/store"
)

// importRun is one import in progress.
type importRun struct {
	s   *Service
	ctx context.Context
	f   folder
	sum *Summary
	rep *reporter
	// avatars maps the file stem of a card in characters/ to the Hearth
	// character it became (this run or an earlier one): chats/<stem>/
	// belongs to it.
	avatars map[string]string
	// personas maps a persona's SillyTavern avatar file to its Hearth id.
	personas map[string]string
	// install is the SillyTavern install the import was pointed at (real
	// path), whose global extensions come in too; zero for a user folder
	// alone.
	install folder
	// extSettings is settings.json's extension_settings, by key; the
	// extensions phase hands each extension its own.
	extSettings map[string]json.RawMessage
	// extIDs maps the extension ids this run installed (lower case) to
	// the folder each came from.
	extIDs map[string]string
}

// Import reads the SillyTavern library at path (an absolute path Access
// allows: a user folder data/<user>, or an install, which names one) into
// Hearth: lorebooks, characters,
// their chats, groups and their group chats (files that cannot be
// imported so kept as they are), personas and the
// global World Info selection from settings.json, chat-completion
// presets, and third-party extensions — the user's, and an install's
// global ones — installed turned off. Each item is stored in its own transaction by the service that
// imports its format; one that fails is listed with the service's message
// and the others go on. Items the ledger knows from an earlier import are
// skipped, so importing the same folder twice duplicates nothing.
//
// The error is for the whole import only: a path that is no SillyTavern
// folder (nothing is stored), another import running, the context ending.
func (s *Service) Import(ctx context.Context, path string, progress func(Progress)) (Summary, error) {
	if err := s.lock(); err != nil {
		return Summary{}, err
	}
	defer s.running.Unlock()
	real, err := s.d.Access.importRoot(path)
	if err != nil {
		return Summary{}, err
	}
	found, err := locate(path, real)
	if err != nil {
		return Summary{}, err
	}
	root, err := s.d.Access.located(path, found)
	if err != nil {
		return Summary{}, err
	}
	sum := Summary{Folder: root, Skipped: []Skipped{}, Failed: []Failed{}}
	r := &importRun{s: s, ctx: ctx, f: folder{root: root}, sum: &sum,
		rep:     &reporter{op: "import", bus: s.d.Bus, progress: progress},
		avatars: map[string]string{}, personas: map[string]string{}, extIDs: map[string]string{}}
	// A path that is not the user folder itself is an install (or its
	// data folder): the extensions it keeps for all users come along.
	if real != root {
		r.install, sum.Install = folder{root: real}, real
	}
	for _, phase := range []func() error{r.lorebooks, r.characters, r.chats, r.groups, r.settings, r.presets, r.installExtensions} {
		if err := phase(); err != nil {
			return sum, err
		}
	}
	return sum, nil
}

func (r *importRun) skip(kind, rel, reason string) {
	r.sum.Skipped = append(r.sum.Skipped, Skipped{Kind: kind, Path: rel, Reason: reason})
}

func (r *importRun) fail(kind, rel string, err error) {
	r.sum.Failed = append(r.sum.Failed, Failed{Kind: kind, Path: rel, Error: message(err)})
}

// message is err as a person reads it: a service's message without its
// code, else the error's text.
func message(err error) string {
	if e := apperr.As(err); e != nil {
		return e.Message
	}
	return err.Error()
}

// files lists the files of dir with one of exts (lower case, with the
// dot). Links leading out of the user folder are skipped; so are other
// files, and folders, with notOurs as the reason ("" to pass them over
// silently).
func (r *importRun) files(kind, dir string, exts []string, notOurs string) ([]entry, []entry, error) {
	entries, outside, err := r.f.list(dir)
	if err != nil {
		return nil, nil, err
	}
	for _, rel := range outside {
		r.skip(kind, rel, "a symbolic link to outside the folder (or past the entry limit); not followed")
	}
	var files, dirs []entry
	for _, e := range entries {
		switch {
		case e.isDir:
			dirs = append(dirs, e)
		case hasExt(e.name, exts):
			files = append(files, e)
		case notOurs != "" && !strings.HasPrefix(e.name, "."):
			r.skip(kind, e.rel, notOurs)
		}
	}
	return files, dirs, nil
}

func hasExt(name string, exts []string) bool {
	ext := strings.ToLower(path.Ext(name))
	for _, x := range exts {
		if ext == x {
			return true
		}
	}
	return false
}

// each runs fn on the items of a phase, reporting progress; fn's error
// stops the import (per-item failures are recorded by fn, not returned).
func (r *importRun) each(phase string, items []entry, fn func(e entry) error) error {
	for i, e := range items {
		if err := r.ctx.Err(); err != nil {
			return err
		}
		r.rep.report(Progress{Phase: phase, Done: i, Total: len(items), Current: e.rel})
		if err := fn(e); err != nil {
			return err
		}
	}
	r.rep.report(Progress{Phase: phase, Done: len(items), Total: len(items)})
	return nil
}

// known checks the ledger for an item: when it was imported before it is
// recorded as skipped and known returns true, with the Hearth id it
// became.
func (r *importRun) known(kind, rel, sha string) (bool, string, error) {
	return r.knownIn(r.f.root, kind, rel, sha)
}

// knownIn is known for an item of the folder library, which is not the
// user folder for an install's global extensions.
func (r *importRun) knownIn(library, kind, rel, sha string) (bool, string, error) {
	prev, err := r.s.lookup(r.ctx, library, kind, rel, sha)
	if err != nil || !prev.found {
		return false, "", err
	}
	r.skip(kind, rel, prev.reason(library))
	return true, prev.hearthID, nil
}

// rememberAndKeep writes a ledger row (when rec has a kind) and a kept
// file (when f has a path), in one transaction.
func (r *importRun) rememberAndKeep(rec record, f keptFile) error {
	return r.s.d.DB.InTx(r.ctx, func(tx *store.Tx) error {
		if f.Path != "" {
			if err := r.s.keepIn(r.ctx, tx, f); err != nil {
				return err
			}
		}
		if rec.Kind == "" {
			return nil
		}
		return r.s.rememberIn(r.ctx, tx, rec)
	})
}
