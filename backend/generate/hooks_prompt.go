package generate

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"
	"unicode/utf8"

	"hearth/backend/apperr"
	"hearth/backend/events"
	"hearth/backend/prompt"
	"hearth/backend/providers"
)

// hookWait is one prompt-ready round trip waiting for its window's answer.
type hookWait struct {
	// images are the image URLs the prompt held: the only ones an answer
	// may carry (a hook must not make the backend read other media).
	images map[string]bool
	orig   []providers.Message // the prompt's messages
	answer chan hookAnswer
}

// hookAnswer is what a window's answer came to: msgs (nil: unchanged), or
// why it was refused, and the warnings it carried.
type hookAnswer struct {
	msgs     []providers.Message
	refused  *apperr.Error
	warnings []string
}

// HookReplyOptions is generate.promptHookReply's third argument.
type HookReplyOptions struct {
	// Warnings say which of the window's hooks it skipped, and why; they
	// are kept in the generation's record (PromptReadyRecord.Warnings).
	Warnings []string `json:"warnings"`
}

// HookReply is generate.promptHookReply's answer. Accepted is false when
// no generation waits for the token (any more): it went on without it.
type HookReply struct {
	Accepted bool `json:"accepted"`
	Changed  bool `json:"changed"`
}

// promptReady runs the CHAT_COMPLETION_PROMPT_READY round trip of a
// prompt assembled in b for the window whose token o carries: publishes
// PROMPT_HOOK_REQUEST with the prompt's messages and waits, at most
// s.hookTimeout, for generate.promptHookReply. What the listeners left
// becomes the prompt's messages (b.prompt), never the stored chat. A
// timeout, or an answer that is refused, leaves the prompt as it was and
// the record says so. It returns nil without a token.
func (s *Service) promptReady(ctx context.Context, o *Options, b *built, generationID, model string, dry bool) (*PromptReadyRecord, error) {
	if o.Hooks == nil || o.Hooks.PromptReady == "" {
		return nil, nil
	}
	token := o.Hooks.PromptReady
	msgs := b.prompt.Payload(model).Messages
	w := &hookWait{images: map[string]bool{}, orig: b.prompt.Messages(), answer: make(chan hookAnswer, 1)}
	for _, blk := range b.prompt.Blocks {
		for _, p := range blk.Message.Parts {
			if p.ImageURL != "" {
				w.images[p.ImageURL] = true
			}
		}
	}
	s.hookMu.Lock()
	if s.hookWaits[token] != nil {
		s.hookMu.Unlock()
		return nil, invalidField("hooks.promptReady", "is already waiting for its window's answer: use a new token for each generation")
	}
	s.hookWaits[token] = w
	s.hookMu.Unlock()

	t0 := time.Now()
	for i := range msgs {
		msgs[i].Source = "" // Hearth's own note; SillyTavern's listeners get role, content and name
	}
	s.publish(events.PromptHookRequest, &events.PromptHookRequestPayload{
		Token: token, ChatID: o.ChatID, GenerationID: generationID, DryRun: dry, Chat: msgs,
	})
	timer := time.NewTimer(s.hookTimeout)
	defer timer.Stop()
	rec := &PromptReadyRecord{}
	var a hookAnswer
	select {
	case a = <-w.answer:
	case <-timer.C:
		if !s.unwait(token, w) {
			a = <-w.answer // an answer claimed it as the time ran out
			break
		}
		rec.Ms, rec.TimedOut = hookMs(time.Since(t0)), true
		s.log.Warn("generate: the window's CHAT_COMPLETION_PROMPT_READY listeners did not answer in time; the prompt goes as it was",
			"chat", o.ChatID, "generation", generationID, "timeout", s.hookTimeout)
		return rec, nil
	case <-ctx.Done():
		if !s.unwait(token, w) {
			<-w.answer
		}
		return nil, ctx.Err()
	}
	rec.Ms = hookMs(time.Since(t0))
	rec.Warnings = a.warnings
	switch {
	case a.refused != nil:
		rec.Error = a.refused.Message
	case a.msgs != nil:
		b.prompt.Replace(a.msgs, s.tok)
		rec.Changed = true
	}
	return rec, nil
}

// unwait takes w out of the waits if it is still there, and reports
// whether it was: false means an answer claimed it and is on its way.
func (s *Service) unwait(token string, w *hookWait) bool {
	s.hookMu.Lock()
	defer s.hookMu.Unlock()
	if s.hookWaits[token] != w {
		return false
	}
	delete(s.hookWaits, token)
	return true
}

// PromptHookReply hands a window's answer to the round trip waiting for
// token: chat is what its CHAT_COMPLETION_PROMPT_READY listeners (and the
// hooks of its extension frames) left of the prompt's messages (null or
// absent: they left them alone), opts.Warnings what it had to skip. The
// first answer for a token counts; a later one, or one for a token nobody
// waits for (the generation went on after 5 s), is not accepted. An
// answer that is not a list of {role, content, name?} messages, or whose
// warnings are past their bounds, is refused with
// validation.invalid_argument naming the field, and the generation goes
// on with its prompt as assembled.
func (s *Service) PromptHookReply(token string, chat json.RawMessage, opts HookReplyOptions) (*HookReply, error) {
	s.hookMu.Lock()
	w := s.hookWaits[token]
	delete(s.hookWaits, token)
	s.hookMu.Unlock()
	if w == nil {
		return &HookReply{}, nil
	}
	if err := checkWarnings(opts.Warnings); err != nil {
		w.answer <- hookAnswer{refused: err}
		return nil, err
	}
	warnings := slices.Clone(opts.Warnings)
	if len(bytes.TrimSpace(chat)) == 0 || string(bytes.TrimSpace(chat)) == "null" {
		w.answer <- hookAnswer{warnings: warnings}
		return &HookReply{Accepted: true}, nil
	}
	msgs, err := w.parse(chat)
	if err != nil {
		w.answer <- hookAnswer{refused: err, warnings: warnings}
		return nil, err
	}
	if sameMessages(msgs, w.orig) {
		w.answer <- hookAnswer{warnings: warnings}
		return &HookReply{Accepted: true}, nil
	}
	w.answer <- hookAnswer{msgs: msgs, warnings: warnings}
	return &HookReply{Accepted: true, Changed: true}, nil
}

// checkWarnings bounds the warnings of a window's answer: at most
// maxHookWarnings, each text of 1 to maxHookWarning bytes.
func checkWarnings(warnings []string) *apperr.Error {
	if len(warnings) > maxHookWarnings {
		return invalidField("warnings", "has %d warnings: at most %d", len(warnings), maxHookWarnings)
	}
	for i, w := range warnings {
		if w == "" || len(w) > maxHookWarning || !utf8.ValidString(w) {
			return invalidField(fmt.Sprintf("warnings[%d]", i), "must be text of 1 to %d bytes", maxHookWarning)
		}
	}
	return nil
}

// hookMessage is one message of a window's answer: SillyTavern's
// chat-completion message. Other keys are ignored.
type hookMessage struct {
	Role    *string         `json:"role"`
	Content json.RawMessage `json:"content"`
	Name    *string         `json:"name"`
}

// hookPart is one part of a message whose content is a list.
type hookPart struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	ImageURL *struct {
		URL string `json:"url"`
	} `json:"image_url"`
}

var hookRoles = map[string]providers.Role{"system": providers.RoleSystem, "user": providers.RoleUser, "assistant": providers.RoleAssistant}

// parse checks a window's answer and turns it into provider messages:
// roles system, user or assistant; content a string, or a list of text
// parts and of image parts the prompt already held; at most the prompt's
// messages and maxHookExtra more, maxHookBytes of text in all.
func (w *hookWait) parse(chat json.RawMessage) ([]providers.Message, *apperr.Error) {
	var raw []json.RawMessage
	if err := json.Unmarshal(chat, &raw); err != nil {
		return nil, invalidField("chat", "must be a list of messages ({ role, content })")
	}
	if len(raw) > len(w.orig)+maxHookExtra {
		return nil, invalidField("chat", "has %d messages: at most the prompt's %d and %d more", len(raw), len(w.orig), maxHookExtra)
	}
	out := make([]providers.Message, len(raw))
	total := 0
	for i, r := range raw {
		field := fmt.Sprintf("chat[%d]", i)
		var m hookMessage
		if err := json.Unmarshal(r, &m); err != nil {
			return nil, invalidField(field, "must be a message ({ role, content })")
		}
		if m.Role == nil || hookRoles[*m.Role] == "" {
			return nil, invalidField(field+".role", "must be system, user or assistant")
		}
		msg := providers.Message{Role: hookRoles[*m.Role]}
		if m.Name != nil {
			if len(*m.Name) > maxHookName || !utf8.ValidString(*m.Name) {
				return nil, invalidField(field+".name", "must be text of at most %d bytes", maxHookName)
			}
			msg.Name = *m.Name
		}
		n, err := w.content(&msg, m.Content, field+".content")
		if err != nil {
			return nil, err
		}
		if total += n + len(msg.Name); total > maxHookBytes {
			return nil, invalidField(field+".content", "takes the prompt past %d bytes of text", maxHookBytes)
		}
		out[i] = msg
	}
	return out, nil
}

// content reads one message's content into msg and returns its text's size.
func (w *hookWait) content(msg *providers.Message, raw json.RawMessage, field string) (int, *apperr.Error) {
	var text string
	if json.Unmarshal(raw, &text) == nil {
		if !utf8.ValidString(text) {
			return 0, invalidField(field, "must be text")
		}
		msg.Content = text
		return len(text), nil
	}
	var parts []hookPart
	if err := json.Unmarshal(raw, &parts); err != nil || parts == nil {
		return 0, invalidField(field, "must be a string (or a list of text and image parts)")
	}
	n := 0
	for j, p := range parts {
		switch {
		case p.Type == "text" && utf8.ValidString(p.Text):
			msg.Parts = append(msg.Parts, providers.Part{Text: p.Text})
			n += len(p.Text)
		case p.Type == "image_url" && p.ImageURL != nil && w.images[p.ImageURL.URL]:
			msg.Parts = append(msg.Parts, providers.Part{ImageURL: p.ImageURL.URL})
		default:
			return 0, invalidField(fmt.Sprintf("%s[%d]", field, j), "must be a text part or an image part the prompt already held")
		}
	}
	return n, nil
}

// sameMessages says whether two prompts send the same messages.
func sameMessages(a, b []providers.Message) bool {
	return slices.EqualFunc(a, b, prompt.SameMessage)
}
