package library

import (
	"bytes"
	"encoding/json"
	"errors"
	"path"
	"sort"
	"strings"

	"hearth/backend/chats"
	"hearth/backend/groups"
	"hearth/backend/jsonx"
)

// groups writes each Hearth group as groups/<id>.json and its chats as
// group chats/<file name>.jsonl (with a header line: SillyTavern's current
// format, whatever format they came in), then the group files an import
// kept as they were.
func (x *exportRun) groups() error {
	list, err := x.s.d.Groups.List(x.ctx)
	if err != nil {
		return err
	}
	files, err := x.s.kept(x.ctx, keptGroup, keptGroupChat)
	if err != nil {
		return err
	}
	total := len(list) + len(files)
	for i, g := range list {
		if err := x.ctx.Err(); err != nil {
			return err
		}
		x.rep.report(Progress{Phase: "groups", Done: i, Total: total, Current: dirGroups + "/" + g.ID() + ".json"})
		if err := x.group(g); err != nil {
			return err
		}
	}
	for i, f := range files {
		x.rep.report(Progress{Phase: "groups", Done: len(list) + i, Total: total, Current: f.Path})
		if x.taken[strings.ToLower(f.Path)] {
			x.fail(KindGroup, f.Path, errors.New("a group or group chat of Hearth's was written under that name; the file kept from the import is left out"))
			continue
		}
		dir, name := path.Split(f.Path)
		rel := x.claim(strings.TrimSuffix(dir, "/"), name)
		if err := writeFile(x.root, rel, f.Body); err != nil {
			x.fail(KindGroup, rel, err)
			continue
		}
		x.sum.Exported.GroupFiles++
	}
	x.rep.report(Progress{Phase: "groups", Done: total, Total: total})
	return nil
}

// group writes g's chats and then its file, which names them and its
// members as the export wrote them.
func (x *exportRun) group(g *groups.Group) error {
	list, err := x.s.d.Chats.List(x.ctx, chats.Owner{GroupID: g.ID()})
	if err != nil {
		return err
	}
	sort.Slice(list, func(i, j int) bool { return list[i].FileName < list[j].FileName })
	written := map[string]string{} // Hearth's file name → the chat id written
	for _, c := range list {
		f, err := x.s.d.Chats.ExportJsonl(x.ctx, c.ChatID)
		rel := x.claim(dirGroupChats, c.FileName+".jsonl")
		if err == nil {
			err = writeFile(x.root, rel, []byte(f.Text))
		}
		if err != nil {
			x.fail(KindChat, rel, err)
			continue
		}
		written[c.FileName] = stem(path.Base(rel))
		x.sum.Exported.GroupChats++
		x.sum.Messages += c.MessageCount
	}
	data := exportedGroup(g.Data, written, x.cards)
	raw, _ := data.MarshalJSON()
	var out bytes.Buffer
	if err := json.Indent(&out, raw, "", "    "); err != nil {
		x.fail(KindGroup, dirGroups+"/"+g.ID()+".json", err)
		return nil
	}
	rel := x.claim(dirGroups, g.ID()+".json")
	if err := writeFile(x.root, rel, out.Bytes()); err != nil {
		x.fail(KindGroup, rel, err)
		return nil
	}
	x.sum.Exported.Groups++
	return nil
}

// exportedGroup is a stored group object as SillyTavern reads it from
// groups/<id>.json: members, muted members and Hearth's overrides named
// by the card files the export wrote (cards, by avatar key; a key without
// one stays), chats keeping the ids it listed (renamed where a chat was
// written under another name) followed by the group's other chats in
// Hearth, and chat_id renamed likewise. Every other key, unknown and
// Hearth's `hearth` ones included, is written as stored.
func exportedGroup(stored jsonx.Object, written, cards map[string]string) jsonx.Object {
	data := stored.Clone()
	card := func(a string) string {
		if f, ok := cards[a]; ok {
			return f
		}
		return a
	}
	for _, key := range []string{"members", "disabled_members"} {
		var list []string
		if json.Unmarshal(data[key], &list) != nil || list == nil {
			continue
		}
		for i, a := range list {
			list[i] = card(a)
		}
		data.Set(key, list)
	}
	if h, err := jsonx.DecodeObject(data["hearth"], "hearth"); err == nil {
		if overrides, err := jsonx.DecodeObject(h["memberOverrides"], "memberOverrides"); err == nil {
			out := jsonx.Object{}
			for a, v := range overrides {
				out[card(a)] = v
			}
			h["memberOverrides"], _ = out.MarshalJSON()
			data["hearth"], _ = h.MarshalJSON()
		}
	}
	var ids []string
	_ = json.Unmarshal(data["chats"], &ids)
	listed := map[string]bool{}
	chatIDs := []string{}
	for _, id := range ids {
		listed[id] = true
		if w, ok := written[id]; ok {
			id = w
		}
		chatIDs = append(chatIDs, id)
	}
	var others []string
	for name, w := range written {
		if !listed[name] {
			others = append(others, w)
		}
	}
	sort.Strings(others)
	if _, ok := data["chats"]; ok || len(others) > 0 {
		data.Set("chats", append(chatIDs, others...))
	}
	var current string
	if json.Unmarshal(data["chat_id"], &current) == nil {
		if w, ok := written[current]; ok {
			data.Set("chat_id", w)
		}
	}
	return data
}
