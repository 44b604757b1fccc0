package prompt

import (
	"fmt"
	"strings"

	"hearth/backend/providers"
)

// Media defaults (Tomori's): the last 10 messages may show media, and at
// most 3 of them render their images.
const (
	defaultMediaWindow   = 10
	defaultImageMessages = 3
)

// history fills the budget left with history messages, newest first,
// reading no further back than what fits. The newest message must fit:
// a reply to a message the model never saw is not what the user asked for.
func (a *assembler) history(left int) (hist []Block, dropped, rest int, err error) {
	in := a.in
	media := newMediaState(in.Media, in.Vision)
	var rev []Block // newest first
	var group []Message
	flush := func() bool {
		if len(group) == 0 {
			return true
		}
		b := a.historyBlocks(group)
		cost := 0
		for i := range b {
			cost += a.cost(&b[i])
		}
		if cost > left {
			if len(rev) == 0 {
				err = tooLarge("the last message", cost, left, in)
			}
			return false
		}
		left -= cost
		for i := len(b) - 1; i >= 0; i-- {
			rev = append(rev, b[i])
		}
		group = group[:0]
		return true
	}
	i := a.histLen - 1
	for ; i >= 0; i-- {
		msg, rerr := in.History.At(i)
		if rerr != nil {
			return nil, 0, left, rerr
		}
		msg.Text = a.m.Expand(msg.Text)
		msg.Media = media.take(msg, a.histLen-1-i)
		if strings.TrimSpace(msg.Text) == "" && len(msg.Media) == 0 {
			continue
		}
		if len(group) > 0 && !(in.Preset.MergeConsecutive && mergeable(group[0], msg)) {
			if !flush() {
				// Not sent: the pending group and everything from i back.
				dropped = len(group) + i + 1
				break
			}
		}
		group = append([]Message{msg}, group...)
	}
	if i < 0 && !flush() {
		dropped = len(group)
	}
	if err != nil {
		return nil, 0, left, err
	}
	hist = make([]Block, len(rev))
	for j := range rev {
		hist[j] = rev[len(rev)-1-j]
	}
	return hist, dropped, left, nil
}

// mergeable says whether msg may join group head g (same speaker, text
// only).
func mergeable(g, msg Message) bool {
	return g.Role == msg.Role && g.Name == msg.Name && len(g.Media) == 0 && len(msg.Media) == 0
}

// historyBlocks turns a group of same-speaker messages into the blocks
// sent: one message, plus a user message carrying images that a
// non-user message attached (chat APIs take images from users only). In
// a group chat every member's message is prefixed with its name even
// without NamesInHistory, as SillyTavern's default names behavior does:
// the model must tell the members apart.
func (a *assembler) historyBlocks(group []Message) []Block {
	in := a.in
	texts := make([]string, 0, len(group))
	for _, m := range group {
		t := m.Text
		if m.Name != "" && (in.Preset.NamesInHistory || in.Group != nil && m.Role == "assistant") {
			t = m.Name + ": " + t
		}
		texts = append(texts, t)
	}
	head := group[0]
	role := roleOf(head.Role)
	text := strings.Join(texts, "\n\n")
	var images []providers.Part
	var notes []string
	for _, md := range head.Media {
		switch {
		case md.Kind == "image" && md.URL != "" && md.Name == renderMark:
			images = append(images, providers.Part{ImageURL: md.URL})
		default:
			notes = append(notes, md.Name)
		}
	}
	msg := providers.Message{Role: role, Content: joinNonEmpty("\n", append([]string{text}, notes...)...)}
	if len(images) == 0 {
		return []Block{{Source: IdentChatHistory, Message: msg}}
	}
	if role == providers.RoleUser {
		msg.Parts = append([]providers.Part{{Text: msg.Content}}, images...)
		msg.Content = ""
		return []Block{{Source: IdentChatHistory, Message: msg}}
	}
	carrier := providers.Message{Role: providers.RoleUser, Parts: append([]providers.Part{{Text: fmt.Sprintf("[System: image(s) attached to %s's message above]", nameOr(head.Name, "the previous"))}}, images...)}
	return []Block{{Source: IdentChatHistory, Message: msg}, {Source: IdentChatHistory, Message: carrier}}
}

func nameOr(name, fallback string) string {
	if name == "" {
		return fallback
	}
	return name
}

// renderMark marks, in Media.Name, an image that is sent as an image;
// every other entry left by mediaState.take is a note (its Name is the
// note's text).
const renderMark = "\x00render"

// mediaState applies the media rules while the history is read newest
// first: a window of recent messages, a limit on messages rendering
// images, duplicates dropped (the latest copy wins), and a notice for
// what is not shown.
type mediaState struct {
	window, limit int
	rendered      int
	seen          map[string]bool
	vision        bool
}

func newMediaState(p MediaPolicy, vision bool) *mediaState {
	s := &mediaState{window: p.Window, limit: p.ImageMessages, seen: map[string]bool{}, vision: vision}
	if s.window <= 0 {
		s.window = defaultMediaWindow
	}
	if s.limit <= 0 {
		s.limit = defaultImageMessages
	}
	return s
}

// take returns msg's media as the prompt will carry it: images to render
// (Name = renderMark) and notes (Name = the note). dist is how many
// messages come after msg.
func (s *mediaState) take(msg Message, dist int) []Media {
	if len(msg.Media) == 0 {
		return nil
	}
	var out []Media
	var images []Media
	for _, md := range msg.Media {
		label := mediaLabel(md)
		switch {
		case dist >= s.window:
			out = append(out, Media{Name: fmt.Sprintf("[System: %s is outside the current media context window and cannot be viewed]", label)})
		case md.Kind != "image":
			out = append(out, Media{Name: fmt.Sprintf("[System: %s attached]", label)})
		case s.seen[md.URL]:
			// A later message shows the same image.
		default:
			s.seen[md.URL] = true
			images = append(images, md)
		}
	}
	if len(images) > 0 {
		switch {
		case s.rendered >= s.limit:
			out = append(out, Media{Name: fmt.Sprintf("[System: %d image(s) omitted due to rendered-image limit]", len(images))})
		case !s.vision:
			s.rendered++
			for _, md := range images {
				out = append(out, Media{Name: fmt.Sprintf("[System: %s attached; this model cannot view images]", mediaLabel(md))})
			}
		default:
			s.rendered++
			for _, md := range images {
				out = append(out, Media{Kind: "image", URL: md.URL, Name: renderMark})
			}
		}
	}
	return out
}

func mediaLabel(md Media) string {
	kind := md.Kind
	if kind == "" {
		kind = "file"
	}
	label := kind
	if md.Name != "" {
		label += fmt.Sprintf(" %q", md.Name)
	}
	if md.MIME != "" {
		label += " (" + md.MIME + ")"
	}
	return label
}
