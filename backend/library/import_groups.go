package library

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"hearth/backend/apperr"
	"hearth/backend/chats"
	"hearth/backend/groups"
	"hearth/backend/jsonx"
	"hearth/backend/store"
)

// groupChat is a group chat file to import as a chat of a group.
type groupChat struct {
	file    entry
	groupID string
	// data is the group's object as Hearth stores it: a legacy chat's
	// metadata comes from its chat_metadata or past_metadata.
	data jsonx.Object
}

// groups imports groups/*.json as Hearth groups (groups.Import) and each
// file of group chats/ that a group's chats names as a chat of that group
// (chats.ImportJsonl), in both of SillyTavern's formats: a header line
// holding chat_metadata, or the legacy one without, whose metadata the
// group file keeps (chat_metadata for its chat_id, past_metadata[id] for
// the others). A file that cannot be imported so — a group file refused,
// a chat file no imported group names or that does not import — is kept
// as it is, byte for byte, and an export writes it back.
func (r *importRun) groups() error {
	defs, _, err := r.files(KindGroup, dirGroups, []string{".json"}, "not a group file (.json)")
	if err != nil {
		return err
	}
	chatFiles, _, err := r.files(KindGroup, dirGroupChats, []string{".jsonl"}, "not a group chat file (.jsonl)")
	if err != nil {
		return err
	}
	byID := map[string]entry{}
	for _, f := range chatFiles {
		byID[stem(f.name)] = f
	}
	claimed := map[string]string{} // chat file → the group that imports it
	var queue []groupChat
	var keep []entry
	err = r.each("groups", defs, func(e entry) error {
		g, kept, err := r.group(e)
		if kept {
			keep = append(keep, e)
		}
		if err != nil || g == nil {
			return err
		}
		var ids []string
		_ = json.Unmarshal(g.Data["chats"], &ids)
		for _, id := range ids {
			f, ok := byID[id]
			if !ok {
				continue
			}
			if other, ok := claimed[f.rel]; ok {
				r.skip(KindChat, f.rel, fmt.Sprintf("group %q names it too; imported as a chat of group %q only", g.ID(), other))
				continue
			}
			claimed[f.rel] = g.ID()
			queue = append(queue, groupChat{file: f, groupID: g.ID(), data: g.Data})
		}
		return nil
	})
	if err != nil {
		return err
	}
	queued := make(map[string]groupChat, len(queue))
	files := make([]entry, len(queue))
	for i, q := range queue {
		queued[q.file.rel], files[i] = q, q.file
	}
	err = r.each("group chats", files, func(e entry) error {
		imported, err := r.groupChat(queued[e.rel])
		if err == nil && !imported {
			keep = append(keep, e)
		}
		return err
	})
	if err != nil {
		return err
	}
	for _, f := range chatFiles {
		if _, ok := claimed[f.rel]; !ok {
			keep = append(keep, f)
		}
	}
	sort.Slice(keep, func(i, j int) bool { return keep[i].rel < keep[j].rel })
	return r.each("group files", keep, r.keepGroupFile)
}

// group imports one group file: the group it became (this run or an
// earlier one), or nil; keep when the file is to be kept as it is. A file
// that is no JSON object fails; the error is for the whole import only.
func (r *importRun) group(e entry) (g *groups.Group, keep bool, err error) {
	raw, err := read(e, maxGroupBytes)
	var data jsonx.Object
	if err == nil {
		data, err = jsonx.DecodeObject(raw, "the group file")
	}
	if err != nil {
		r.fail(KindGroup, e.rel, err)
		return nil, false, nil
	}
	sha := hashOf(raw)
	seen, id, err := r.known(KindGroup, e.rel, sha)
	if err != nil {
		return nil, false, err
	}
	if seen {
		// A group of an earlier import (its chats may be new); a file an
		// earlier import kept as it was is no group and is kept already.
		if g, err := r.s.d.Groups.Get(r.ctx, id); err == nil {
			return g, false, nil
		}
		return nil, false, nil
	}
	var ledgerErr error
	imp, err := r.s.d.Groups.Import(r.ctx, groups.ImportInput{
		Data: data,
		Member: func(avatar string) (string, bool) {
			a, ok := r.avatars[stem(avatar)]
			return a, ok
		},
		Within: func(ctx context.Context, tx *store.Tx, g *groups.Group) error {
			ledgerErr = r.s.rememberIn(ctx, tx, record{Library: r.f.root, Kind: KindGroup, Key: e.rel, SHA: sha, HearthID: g.ID()})
			return ledgerErr
		},
	})
	switch {
	case ledgerErr != nil:
		return nil, false, ledgerErr
	case apperr.CodeOf(err) == groups.CodeIDTaken:
		r.skip(KindGroup, e.rel, message(err)+"; Hearth's group kept")
		return nil, false, nil
	case apperr.As(err) != nil:
		r.skip(KindGroup, e.rel, "not imported as a group ("+message(err)+"); kept as it is, and an export writes it back")
		return nil, true, nil
	case err != nil:
		return nil, false, err
	}
	if len(imp.Pruned) > 0 {
		r.skip(KindGroup, e.rel+"#members", "dropped from the group, as SillyTavern drops them, since no character of the library has them: "+strings.Join(imp.Pruned, ", "))
	}
	r.sum.Imported.Groups++
	return imp.Group, false, nil
}

// groupChat imports one group chat file into its group. done is false
// when the file did not import and is to be kept as it is; the error is
// for the whole import only.
func (r *importRun) groupChat(q groupChat) (done bool, err error) {
	e := q.file
	raw, err := read(e, chats.MaxJsonlBytes)
	if err != nil {
		r.fail(KindChat, e.rel, err)
		return true, nil
	}
	sha := hashOf(raw)
	if seen, _, err := r.known(KindChat, e.rel, sha); err != nil || seen {
		return true, err
	}
	legacy := headerless(raw)
	chatID := stem(e.name)
	text := string(raw)
	in := chats.JsonlImport{FileName: e.name, Text: &text}
	if legacy {
		in.Metadata = groups.LegacyChatMetadata(q.data, chatID)
	}
	var ledgerErr error
	in.Within = func(ctx context.Context, tx *store.Tx, sum chats.Summary) error {
		ledgerErr = r.s.rememberIn(ctx, tx, record{Library: r.f.root, Kind: KindChat, Key: e.rel, SHA: sha, HearthID: sum.ChatID})
		if ledgerErr == nil && legacy {
			ledgerErr = r.s.d.Groups.TakeChatMetadataIn(ctx, tx, q.groupID, chatID)
		}
		return ledgerErr
	}
	sum, err := r.s.d.Chats.ImportJsonl(r.ctx, chats.Owner{GroupID: q.groupID}, in)
	switch {
	case ledgerErr != nil:
		return false, ledgerErr
	case apperr.CodeOf(err) == apperr.CodeChatNameTaken:
		r.skip(KindChat, e.rel, fmt.Sprintf("group %q has a chat named %q in Hearth already; Hearth's copy kept", q.groupID, chatID))
		return true, nil
	case apperr.As(err) != nil:
		r.skip(KindChat, e.rel, "not imported as a group chat ("+message(err)+"); kept as it is, and an export writes it back")
		return false, nil
	case err != nil:
		return false, err
	}
	r.sum.Imported.GroupChats++
	r.sum.Messages += sum.MessageCount
	return true, nil
}

// headerless tells a chat file whose first line is a message (SillyTavern's
// legacy group chats) from one that starts with a header line.
func headerless(raw []byte) bool {
	for len(raw) > 0 {
		line, rest, _ := bytes.Cut(raw, []byte("\n"))
		raw = rest
		line = bytes.TrimSpace(bytes.TrimPrefix(line, []byte("\uFEFF")))
		if len(line) == 0 {
			continue
		}
		var o map[string]json.RawMessage
		if json.Unmarshal(line, &o) != nil {
			return false
		}
		_, mes := o["mes"]
		_, isUser := o["is_user"]
		return mes || isUser
	}
	return false
}

// keepGroupFile keeps a group or group chat file Hearth did not import,
// byte for byte, for an export to write back.
func (r *importRun) keepGroupFile(e entry) error {
	kind, limit := keptGroup, maxGroupBytes
	if hasExt(e.name, []string{".jsonl"}) {
		kind, limit = keptGroupChat, chats.MaxJsonlBytes
	}
	raw, err := read(e, limit)
	if err == nil && kind == keptGroup && !json.Valid(raw) {
		err = errors.New("the group file is not valid JSON")
	}
	if err != nil {
		r.fail(KindGroup, e.rel, err)
		return nil
	}
	sha := hashOf(raw)
	if seen, _, err := r.known(KindGroup, e.rel, sha); err != nil || seen {
		return err
	}
	if old, err := r.s.keptSHA(r.ctx, e.rel); err != nil {
		return err
	} else if old != "" && old != sha {
		r.skip(KindGroup, e.rel, "Hearth keeps a different file of that name (from another library); that one kept")
		return nil
	}
	if kind == keptGroupChat && !r.reported(e.rel) {
		r.skip(KindGroup, e.rel, "no group of the library names this chat; kept as it is, and an export writes it back")
	}
	if err := r.rememberAndKeep(record{Library: r.f.root, Kind: KindGroup, Key: e.rel, SHA: sha, HearthID: e.rel},
		keptFile{Path: e.rel, Kind: kind, Body: raw}); err != nil {
		return err
	}
	r.sum.Imported.GroupFiles++
	return nil
}

// reported tells whether the summary says something of rel already.
func (r *importRun) reported(rel string) bool {
	for _, s := range r.sum.Skipped {
		if s.Path == rel {
			return true
		}
	}
	for _, f := range r.sum.Failed {
		if f.Path == rel {
			return true
		}
	}
	return false
}
