package prompt

import (
	"errors"
	"strings"
	"testing"

	"hearth/backend/apperr"
)

func TestMacrosExpand(t *testing.T) {
	t.Parallel()
	in := base()
	m := NewMacros(&in, "last", "lastU", "lastC")
	cases := []struct{ in, want string }{
		{"plain text", "plain text"},
		{"{{user}} and {{char}}", "Wren and Seraphina"},
		{"{{USER}} / {{ Char }}", "Wren / Seraphina"},
		{"<USER> meets <bot> and <Char>", "Wren meets Seraphina and Seraphina"},
		{"a{{// hidden note}}b", "ab"},
		{"{{unknown}} and {{user", "{{unknown}} and {{user"},
		{"{{lastMessage}}|{{lastUserMessage}}|{{lastCharMessage}}", "last|lastU|lastC"},
		{"x{{newline}}y{{noop}}", "x\ny"},
		{"  {{trim}}padded  ", "padded"},
		{"<b>bold</b> <", "<b>bold</b> <"},
		// No re-expansion: a value that looks like a macro stays as it is.
		{"{{persona}}", "{{user}} is a lost traveler."},
	}
	for _, c := range cases {
		if got := m.Expand(c.in); got != c.want {
			t.Errorf("Expand(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := m.With("original", "O").Expand("[{{original}}]"); got != "[O]" {
		t.Errorf("With(original) = %q", got)
	}
	if got := m.Expand("{{original}}"); got != "" {
		t.Errorf("With changed the receiver: %q", got)
	}
}

func TestSplitFold(t *testing.T) {
	t.Parallel()
	got := splitFold("a<START>b<start>c<Start>", "<START>")
	if strings.Join(got, "|") != "a|b|c|" {
		t.Fatalf("splitFold = %q", got)
	}
	// Non-ASCII text whose lower case is longer keeps its offsets.
	got = splitFold("İİ<START>x", "<START>")
	if strings.Join(got, "|") != "İİ|x" {
		t.Fatalf("splitFold non-ASCII = %q", got)
	}
}

func TestPlaceInjections(t *testing.T) {
	t.Parallel()
	hist := []Block{{Source: "h0"}, {Source: "h1"}, {Source: "h2"}}
	inj := []injection{{depth: 9, block: Block{Source: "d9"}}, {depth: 3, block: Block{Source: "d3"}}, {depth: 1, block: Block{Source: "d1"}}, {depth: 0, block: Block{Source: "d0"}}}
	var got []string
	for _, b := range placeInjections(hist, inj) {
		got = append(got, b.Source)
	}
	if want := "d9 d3 h0 h1 d1 h2 d0"; strings.Join(got, " ") != want {
		t.Fatalf("placed %v, want %s", got, want)
	}
}

func TestTokenizerCountsAndCaches(t *testing.T) {
	t.Parallel()
	tk := NewTokenizer()
	if err := tk.Warm(); err != nil {
		t.Fatal(err)
	}
	if n := tk.Count("hello world"); n != 2 {
		t.Fatalf("Count(hello world) = %d, want 2 (o200k_base)", n)
	}
	if n := tk.Count(""); n != 0 {
		t.Fatalf("Count(\"\") = %d", n)
	}
	long := strings.Repeat("lanterns sway ", 50)
	first := tk.Count(long)
	if first < 50 {
		t.Fatalf("Count(long) = %d, implausibly few", first)
	}
	if again := tk.Count(long); again != first {
		t.Fatalf("cached count %d != %d", again, first)
	}
}

func TestTokenizerCacheStaysBounded(t *testing.T) {
	t.Parallel()
	tk := NewTokenizer()
	for i := 0; i < cacheSize+10; i++ {
		tk.put(cacheKey{hash: uint64(i), n: i}, 1)
	}
	if len(tk.cur) > cacheSize || len(tk.old) > cacheSize {
		t.Fatalf("cache grew to %d + %d", len(tk.cur), len(tk.old))
	}
	if _, ok := tk.old[cacheKey{hash: uint64(cacheSize - 1), n: cacheSize - 1}]; !ok {
		t.Fatal("the previous generation was not kept")
	}
}

func TestAssembleErrors(t *testing.T) {
	t.Parallel()
	in := with(func(in *Input) {
		in.Type = TypeContinue
		in.History = Messages{}
	})
	_, err := Assemble(in, tokenizer)
	var ae *apperr.Error
	if !errors.As(err, &ae) || ae.Code != apperr.CodeInvalidArgument {
		t.Fatalf("continue with no history: %v", err)
	}
	in = with(func(in *Input) {
		in.Preset.MaxContext = 600
		in.Preset.Sampling.MaxTokens = 590
	})
	_, err = Assemble(in, tokenizer)
	if !errors.As(err, &ae) || ae.Code != CodeTooLarge || ae.Details["budget"] != 10 {
		t.Fatalf("too large: %v", err)
	}
}

// lazyHistory counts the messages Assemble reads.
type lazyHistory struct {
	Messages
	reads int
}

func (h *lazyHistory) At(i int) (Message, error) {
	h.reads++
	return h.Messages[i], nil
}

func TestAssembleReadsOnlyWhatFits(t *testing.T) {
	t.Parallel()
	h := &lazyHistory{Messages: longChat(10_000)}
	in := with(func(in *Input) {
		in.History = h
		in.Preset.MaxContext = 2000
	})
	p, err := Assemble(in, tokenizer)
	if err != nil {
		t.Fatal(err)
	}
	if p.Tokens.HistoryMessages+p.Tokens.HistoryDropped != 10_000 {
		t.Fatalf("sent %d + dropped %d != 10000", p.Tokens.HistoryMessages, p.Tokens.HistoryDropped)
	}
	if p.Tokens.Total > p.Tokens.Budget+tokensReply {
		t.Fatalf("total %d over budget %d", p.Tokens.Total, p.Tokens.Budget)
	}
	if h.reads > p.Tokens.HistoryMessages+200 {
		t.Fatalf("read %d messages to send %d", h.reads, p.Tokens.HistoryMessages)
	}
}
