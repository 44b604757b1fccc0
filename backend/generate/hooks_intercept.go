package generate

import (
	"fmt"

	"hearth/backend/chats"
	"hearth/backend/prompt"
)

// intercept turns the window's interception into the history the prompt
// (and the lorebook scan) is assembled from. It returns a nil history
// when there is nothing to use: no interceptor changed the chat, or the
// chat changed while they ran (a write between the window's read and this
// snapshot: the interception is ignored and the record says so, rather
// than failing the person's generation over it). Items that do not fit
// the chat they name are refused.
func intercept(ic *Interception, v *chats.PromptView) (prompt.History, *InterceptorRecord, error) {
	rec := &InterceptorRecord{Ms: ic.Ms, TimedOut: ic.TimedOut}
	c := ic.Chat
	if c == nil {
		return nil, rec, nil
	}
	if *c.Revision != v.Revision {
		rec.Ignored = fmt.Sprintf("the chat changed while the interceptors ran (they saw revision %d; it is at %d)", *c.Revision, v.Revision)
		return nil, rec, nil
	}
	if len(c.Items) > v.Count+maxHookExtra {
		return nil, nil, invalidField("hooks.interceptor.chat.items", "has %d messages: at most the chat's %d and %d more", len(c.Items), v.Count, maxHookExtra)
	}
	items := make([]InterceptedItem, 0, len(c.Items))
	for i, it := range c.Items {
		if it.Ref != nil && *it.Ref >= v.Count {
			return nil, nil, invalidField(fmt.Sprintf("hooks.interceptor.chat.items[%d].ref", i), "is %d, past the chat's last message (it has %d)", *it.Ref, v.Count)
		}
		if it.Mes != nil && it.IsSystem {
			continue // hidden from the prompt
		}
		items = append(items, it)
	}
	rec.Changed = true
	return &interceptedHistory{stored: &history{view: v, n: v.Count}, items: items}, rec, nil
}

// interceptedHistory is a prompt.History over an interception's items:
// references read from the stored chat's snapshot, the rest as given.
type interceptedHistory struct {
	stored *history
	items  []InterceptedItem
}

// Len implements prompt.History.
func (h *interceptedHistory) Len() int { return len(h.items) }

// At implements prompt.History.
func (h *interceptedHistory) At(i int) (prompt.Message, error) {
	it := h.items[i]
	if it.Mes == nil {
		return h.stored.At(*it.Ref)
	}
	m := prompt.Message{Name: it.Name, Text: *it.Mes, Role: "assistant"}
	switch {
	case it.IsUser:
		m.Role = "user"
	case it.Narrator:
		m.Role = "system"
	}
	if it.Ref != nil {
		orig, err := h.stored.At(*it.Ref)
		if err != nil {
			return prompt.Message{}, err
		}
		m.Media = orig.Media
	}
	return m, nil
}

var _ prompt.History = (*interceptedHistory)(nil)
