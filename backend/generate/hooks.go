package generate

import (
	"fmt"
	"math"
	"regexp"
	"time"
	"unicode/utf8"

	"hearth/backend/apperr"
)

// SillyTavern's prompt hooks (EXTENSIONS.md §6): page extensions rewrite
// prompts in the window that starts a generation, before and after the
// backend assembles it, never the stored chat. The window runs the
// generate_interceptor functions first and sends what they made of the
// chat with the start call (Hooks.Interceptor); the backend assembles the
// prompt from it, then hands the messages to the window's
// CHAT_COMPLETION_PROMPT_READY listeners (PROMPT_HOOK_REQUEST, answered
// by generate.promptHookReply) and sends what they left. Both are
// bounded, and what they did is kept in the generation's record.

// Limits on what a window's prompt hooks may send.
const (
	// defaultHookTimeout bounds the prompt-ready round trip.
	defaultHookTimeout = 5 * time.Second
	// maxHookExtra is how many messages a hook may add to what it was given.
	maxHookExtra = 1000
	// maxHookBytes bounds the text of one interception, or of one reply.
	maxHookBytes = 16 << 20
	// maxHookName bounds a message's name.
	maxHookName = 1024
	// maxHookMs bounds the time a window may report for its interceptors.
	maxHookMs = 3_600_000
	// maxHookWarnings bounds the warnings a window's answer may carry (one
	// per extension frame whose hook it had to skip), maxHookWarning the
	// bytes of one.
	maxHookWarnings = 32
	maxHookWarning  = 1000
)

// hookTokenPattern is what a window's prompt-hook token looks like.
var hookTokenPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{16,128}$`)

// Hooks is the `hooks` option of generate.start, run and dryRun: what
// the window starting the generation brings of the prompt hooks. A window
// always sends it (api.generate does), so a generation without it was
// started by no window (an agent run, a script over HTTP) and its record
// says the hooks were skipped.
type Hooks struct {
	// PromptReady is the window's token for the CHAT_COMPLETION_PROMPT_READY
	// round trip, set when the window has listeners for it.
	PromptReady string `json:"promptReady"`
	// Interceptor reports the window's generate_interceptor run, when it
	// has interceptors.
	Interceptor *Interception `json:"interceptor"`
}

// Interception is what the window's generate_interceptor functions did.
type Interception struct {
	// Ms is how long they took, in the window.
	Ms float64 `json:"ms"`
	// TimedOut: they took over 5 s and the window went on without them.
	TimedOut bool `json:"timedOut"`
	// Chat is what they made of the chat; nil when they left it alone.
	Chat *InterceptedChat `json:"chat"`
}

// InterceptedChat is the chat a prompt is to be assembled from instead of
// the stored one, at Revision of the stored chat: its originals by index
// (Ref), its new or edited messages whole (Mes). The stored chat never
// changes.
type InterceptedChat struct {
	Revision *int64            `json:"revision"`
	Items    []InterceptedItem `json:"items"`
}

// InterceptedItem is one message of an InterceptedChat: {ref} alone is the
// stored message at that index, as it is; with mes it is a message of its
// own, whose media (images, files) are those of message ref when given.
// IsSystem (SillyTavern's "hidden from the prompt") leaves it out; Narrator
// makes a character's message a system one, as extra.type "narrator" does.
type InterceptedItem struct {
	Ref      *int    `json:"ref"`
	Mes      *string `json:"mes"`
	Name     string  `json:"name"`
	IsUser   bool    `json:"is_user"`
	IsSystem bool    `json:"is_system"`
	Narrator bool    `json:"narrator"`
}

// HooksRecord is what a generation's record (and a dry run's snapshot)
// says of its prompt hooks.
type HooksRecord struct {
	Interceptor *InterceptorRecord `json:"interceptor,omitempty"`
	PromptReady *PromptReadyRecord `json:"promptReady,omitempty"`
	// Skipped says why no hook ran: "no window".
	Skipped string `json:"skipped,omitempty"`
}

// SkippedNoWindow is HooksRecord.Skipped of a generation no window started.
const SkippedNoWindow = "no window"

// InterceptorRecord is what the window's interceptors did to a prompt.
type InterceptorRecord struct {
	Ms       float64 `json:"ms"`
	Changed  bool    `json:"changed"`
	TimedOut bool    `json:"timedOut,omitempty"`
	// Ignored says why their chat was not used (the chat changed meanwhile).
	Ignored string `json:"ignored,omitempty"`
}

// PromptReadyRecord is what the window's prompt-ready listeners did.
type PromptReadyRecord struct {
	Ms       float64 `json:"ms"`
	Changed  bool    `json:"changed"`
	TimedOut bool    `json:"timedOut,omitempty"`
	// Error is why their answer was refused (the prompt went unmodified).
	Error string `json:"error,omitempty"`
	// Warnings are what the window said it skipped: a sandboxed
	// extension's hook that did not answer in time, threw, or answered
	// something that is not a prompt. The others' changes still went.
	Warnings []string `json:"warnings,omitempty"`
}

// invalidField is a validation error naming the field it is about.
func invalidField(field, format string, args ...any) *apperr.Error {
	return apperr.Invalid("%s %s", field, fmt.Sprintf(format, args...)).WithDetails(map[string]any{"field": field})
}

// validate checks h without the store; what needs the chat (refs, the
// count of items) is checked when the prompt is assembled.
func (h *Hooks) validate() error {
	if h == nil {
		return nil
	}
	if h.PromptReady != "" && !hookTokenPattern.MatchString(h.PromptReady) {
		return invalidField("hooks.promptReady", "must be 16 to 128 letters, digits, - or _")
	}
	ic := h.Interceptor
	if ic == nil {
		return nil
	}
	if math.IsNaN(ic.Ms) || ic.Ms < 0 || ic.Ms > maxHookMs {
		return invalidField("hooks.interceptor.ms", "must be 0 to %d", maxHookMs)
	}
	c := ic.Chat
	if c == nil {
		return nil
	}
	if ic.TimedOut {
		return invalidField("hooks.interceptor.chat", "must be left out when the interceptors timed out")
	}
	if c.Revision == nil || *c.Revision < 0 {
		return invalidField("hooks.interceptor.chat.revision", "must be the chat's revision the interceptors saw")
	}
	bytes := 0
	for i, it := range c.Items {
		field := fmt.Sprintf("hooks.interceptor.chat.items[%d]", i)
		if it.Ref != nil && *it.Ref < 0 {
			return invalidField(field+".ref", "must be a message index, 0 or more")
		}
		if it.Mes == nil {
			if it.Ref == nil {
				return invalidField(field, "needs ref (a message of the chat) or mes (a message's text)")
			}
			continue
		}
		if !utf8.ValidString(*it.Mes) {
			return invalidField(field+".mes", "must be text")
		}
		if len(it.Name) > maxHookName || !utf8.ValidString(it.Name) {
			return invalidField(field+".name", "must be text of at most %d bytes", maxHookName)
		}
		if bytes += len(*it.Mes) + len(it.Name); bytes > maxHookBytes {
			return invalidField(field+".mes", "takes the interception past %d bytes of text", maxHookBytes)
		}
	}
	return nil
}

// hookMs rounds a duration to hundredths of a millisecond.
func hookMs(d time.Duration) float64 {
	return math.Round(float64(d)/1e4) / 100
}
