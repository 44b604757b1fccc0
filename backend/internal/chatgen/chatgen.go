// Package chatgen generates realistic SillyTavern chats for benchmarks and
// stress tests: alternating user and assistant messages with varied prose
// (narration, *actions*, "dialogue"), several swipes each, and the kind of
// per-swipe extra a real OpenAI-compatible backend leaves behind (model,
// reasoning, token counts, generation timings).
//
// Output is deterministic for a given Options (seeded math/rand/v2 PCG), so
// numbers from different runs and machines describe the same data. The
// package imports no domain package: it speaks plain JSON-ready maps and,
// to load a chat, anything with an Invoke method (the host router, the HTTP
// client).
package chatgen

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
)

// Options describe a chat to generate. Zero fields take the defaults noted.
type Options struct {
	// Seed selects the chat; equal options give byte-identical output.
	Seed uint64
	// Messages is how many messages to generate (default 100).
	Messages int
	// BodyChars is the mean body length in bytes (default 1200); each body
	// lands within about ±35% of it.
	BodyChars int
	// Swipes is how many swipes every message carries (default 2). The
	// active one is picked at random, so mes is not always swipes[0].
	Swipes int
	// UserName and CharName name the two speakers (defaults "User" and
	// "Seraphina").
	UserName, CharName string
	// Start is the send_date of the first message (default 2025-03-01
	// 18:00 UTC); later messages follow at realistic intervals.
	Start time.Time
	// API and Model go into assistant extras (defaults "openai", "gpt-4o").
	API, Model string
}

func (o Options) withDefaults() Options {
	if o.Messages <= 0 {
		o.Messages = 100
	}
	if o.BodyChars <= 0 {
		o.BodyChars = 1200
	}
	if o.Swipes <= 0 {
		o.Swipes = 2
	}
	if o.UserName == "" {
		o.UserName = "User"
	}
	if o.CharName == "" {
		o.CharName = "Seraphina"
	}
	if o.Start.IsZero() {
		o.Start = time.Date(2025, 3, 1, 18, 0, 0, 0, time.UTC)
	}
	if o.API == "" {
		o.API = "openai"
	}
	if o.Model == "" {
		o.Model = "gpt-4o"
	}
	return o
}

// Messages generates o.Messages SillyTavern message objects, alternating
// user (even positions) and assistant (odd positions). Each has name,
// is_user, is_system, send_date, mes, swipes, swipe_id, swipe_info and
// extra; assistant messages carry gen_started/gen_finished and an extra
// like {"api","model","reasoning","reasoning_duration","token_count"},
// with every swipe's own values in its swipe_info entry.
func Messages(o Options) []map[string]any {
	o = o.withDefaults()
	g := &gen{r: rand.New(rand.NewPCG(o.Seed, o.Seed^0x9e3779b97f4a7c15)), o: o}
	out := make([]map[string]any, o.Messages)
	at := o.Start
	for i := range out {
		at = at.Add(time.Duration(20+g.r.IntN(240)) * time.Second)
		out[i] = g.message(i%2 == 0, at)
	}
	return out
}

// Batches splits msgs into consecutive slices of at most size messages.
func Batches(msgs []map[string]any, size int) [][]map[string]any {
	if size <= 0 {
		size = len(msgs)
	}
	var out [][]map[string]any
	for len(msgs) > 0 {
		n := min(size, len(msgs))
		out = append(out, msgs[:n])
		msgs = msgs[n:]
	}
	return out
}

// Invoker runs one host method; the host router and the HTTP client both
// satisfy it.
type Invoker interface {
	Invoke(ctx context.Context, method string, rawArgs []byte) ([]byte, error)
}

// Append adds msgs to the end of chatID through chat.addMessages, batch
// messages per call (500 when batch <= 0), silently (no events).
func Append(ctx context.Context, inv Invoker, chatID string, msgs []map[string]any, batch int) error {
	if batch <= 0 {
		batch = 500
	}
	for _, b := range Batches(msgs, batch) {
		args, err := json.Marshal([]any{chatID, b, map[string]any{"silent": true}})
		if err != nil {
			return fmt.Errorf("chatgen: encode batch: %w", err)
		}
		if _, err := inv.Invoke(ctx, "chat.addMessages", args); err != nil {
			return fmt.Errorf("chatgen: add %d messages: %w", len(b), err)
		}
	}
	return nil
}

// JSONL renders a SillyTavern chat file: the header line
// {user_name, character_name, create_date, chat_metadata}, then one message
// per line.
func JSONL(o Options, metadata map[string]any, msgs []map[string]any) ([]byte, error) {
	o = o.withDefaults()
	if metadata == nil {
		metadata = map[string]any{}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	header := map[string]any{
		"user_name":      o.UserName,
		"character_name": o.CharName,
		"create_date":    o.Start.Format("2006-01-02@15h04m05s"),
		"chat_metadata":  metadata,
	}
	if err := enc.Encode(header); err != nil {
		return nil, fmt.Errorf("chatgen: encode header: %w", err)
	}
	for i, m := range msgs {
		if err := enc.Encode(m); err != nil {
			return nil, fmt.Errorf("chatgen: encode message %d: %w", i, err)
		}
	}
	return buf.Bytes(), nil
}

type gen struct {
	r *rand.Rand
	o Options
}

func isoTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

func (g *gen) message(isUser bool, at time.Time) map[string]any {
	name := g.o.CharName
	if isUser {
		name = g.o.UserName
	}
	swipes := make([]string, g.o.Swipes)
	infos := make([]map[string]any, g.o.Swipes)
	extras := make([]map[string]any, g.o.Swipes)
	for s := range swipes {
		swipes[s] = g.body(isUser)
		sent := at.Add(time.Duration(s*(30+g.r.IntN(90))) * time.Second)
		info := map[string]any{"send_date": isoTime(sent), "gen_started": nil, "gen_finished": nil}
		extra := map[string]any{}
		if !isUser {
			started := sent.Add(-time.Duration(2000+g.r.IntN(25000)) * time.Millisecond)
			info["gen_started"], info["gen_finished"] = isoTime(started), isoTime(sent)
			extra = g.assistantExtra(swipes[s])
		}
		info["extra"] = extra
		infos[s], extras[s] = info, extra
	}
	active := g.r.IntN(len(swipes))
	m := map[string]any{
		"name":       name,
		"is_user":    isUser,
		"is_system":  false,
		"send_date":  infos[active]["send_date"],
		"mes":        swipes[active],
		"swipes":     swipes,
		"swipe_id":   active,
		"swipe_info": infos,
		"extra":      extras[active],
	}
	if !isUser {
		m["gen_started"], m["gen_finished"] = infos[active]["gen_started"], infos[active]["gen_finished"]
		m["force_avatar"] = nil
	}
	return m
}

func (g *gen) assistantExtra(text string) map[string]any {
	return map[string]any{
		"api":                g.o.API,
		"model":              g.o.Model,
		"reasoning":          g.sizedProse(150+g.r.IntN(450), false),
		"reasoning_duration": 1500 + g.r.IntN(20000),
		"token_count":        len(text)/4 + g.r.IntN(12),
	}
}

// body is one message text around BodyChars long.
func (g *gen) body(isUser bool) string {
	spread := g.o.BodyChars * 35 / 100
	target := g.o.BodyChars - spread + g.r.IntN(2*spread+1)
	if isUser {
		// Users write a little shorter than the model, on average.
		target = target * (70 + g.r.IntN(30)) / 100
	}
	return g.sizedProse(target, true)
}

// sizedProse writes paragraphs of sentences until about n bytes.
func (g *gen) sizedProse(n int, paragraphs bool) string {
	var b strings.Builder
	b.Grow(n + 200)
	sentences := 0
	for b.Len() < n {
		if sentences > 0 {
			if paragraphs && sentences%(3+g.r.IntN(3)) == 0 {
				b.WriteString("\n\n")
			} else {
				b.WriteByte(' ')
			}
		}
		b.WriteString(g.sentence())
		sentences++
	}
	return b.String()
}

func (g *gen) pick(list []string) string { return list[g.r.IntN(len(list))] }

func (g *gen) sentence() string {
	switch g.r.IntN(10) {
	case 0, 1:
		return "*" + g.action() + "*"
	case 2, 3, 4:
		return `"` + g.speech() + `"`
	case 5:
		return g.narration() + " — " + g.pick(asides) + "."
	default:
		return g.narration() + "."
	}
}

func (g *gen) action() string {
	return capitalize(g.pick(subjects)) + " " + g.pick(verbs) + " " + g.pick(objects) + " " + g.pick(manners) + "."
}

func (g *gen) narration() string {
	s := capitalize(g.pick(openers)) + " " + g.pick(subjects) + " " + g.pick(verbs) + " " + g.pick(objects)
	if g.r.IntN(2) == 0 {
		s += ", " + g.pick(clauses)
	}
	return s
}

func (g *gen) speech() string {
	s := g.pick(lines)
	if g.r.IntN(3) == 0 {
		s += " " + g.pick(lines)
	}
	return s
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

var (
	openers = []string{
		"outside,", "for a long moment", "somewhere below,", "without a word", "as the rain eased,",
		"in the lantern light", "beyond the ridge,", "at last", "half-listening,", "despite the cold,",
		"by the hearth", "under the old oaks,", "just then", "quietly,", "across the courtyard,",
	}
	subjects = []string{
		"she", "he", "the innkeeper", "Seraphina", "the old ranger", "the wind", "a grey cat",
		"the guard captain", "the stranger in the green cloak", "the fire", "the river", "they",
		"the healer", "the boy from the stables", "the merchant",
	}
	verbs = []string{
		"brushed", "studied", "gathered", "traced", "lifted", "set down", "turned over", "folded",
		"considered", "reached for", "pushed aside", "weighed", "watched", "mended", "followed",
	}
	objects = []string{
		"the cracked map", "a cup of spiced tea", "the silver pendant", "the frayed bandage",
		"the letter with the broken seal", "a handful of dried lavender", "the heavy oak door",
		"the last of the bread", "her satchel of herbs", "the flickering candle", "the rusted key",
		"the hem of her cloak", "the tangled reins", "a worn leather journal", "the window latch",
	}
	manners = []string{
		"with careful fingers", "slowly", "without looking up", "as if it might shatter",
		"with a tired smile", "a little too quickly", "in silence", "thoughtfully",
		"with practiced ease", "while humming under her breath",
	}
	clauses = []string{
		"and the room seemed to hold its breath", "though nobody else noticed",
		"while the storm muttered against the shutters", "as the embers settled into a low glow",
		"and the forest answered with the call of an owl", "until the bells of the far chapel rang",
		"and for once the silence felt like shelter", "as footsteps faded down the corridor",
	}
	asides = []string{
		"not that anyone was counting", "or so the stories went", "which was unusual for this hour",
		"the way it always did before a storm", "a habit from the long winters in the north",
		"though the reason remained unspoken",
	}
	lines = []string{
		"You shouldn't be walking on that leg yet.", "Stay a while. The road will still be there tomorrow.",
		"Do you remember how we found this place?", "I've heard that name before, but never spoken aloud.",
		"Tell me what you saw at the crossing.", "It's only a scratch. I've had worse from brambles.",
		"The forest is quieter than it should be.", "Here, drink this. It tastes awful, but it works.",
		"If we leave before dawn, we can reach the pass by nightfall.", "Why did you come back?",
		"I'm not afraid of the dark. I'm afraid of what waits in it.", "Careful — the stairs are older than they look.",
		"We'll need rope, lamp oil, and a great deal of luck.", "That's the third time you've asked me that.",
		"Thank you. Truly.", "Hm. I suppose that could work.",
	}
)
