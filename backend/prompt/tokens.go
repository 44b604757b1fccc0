package prompt

import (
	"fmt"
	"hash/maphash"
	"sync"

	"github.com/pkoukk/tiktoken-go"
	loader "github.com/pkoukk/tiktoken-go-loader"
)

// Counter counts the tokens of a text.
type Counter interface {
	Count(text string) int
}

// Token costs around the texts, after OpenAI's published accounting: each
// message costs its content plus a few tokens of framing, the reply is
// primed with a few more, and an image is estimated at a 512×512 tile.
const (
	tokensPerMessage = 3
	tokensPerName    = 1
	tokensReply      = 3
	tokensPerImage   = 255
)

// Encoding is the tokenizer Hearth budgets with: GPT-4o's. Other model
// families tokenize differently; the budget is an estimate for them, and
// the reply reserve absorbs the difference.
const Encoding = "o200k_base"

// Tokenizer is a Counter over a real BPE tokenizer, loaded from the
// vocabulary compiled into the binary (no download), with a cache of
// counts by text: a chat's messages are counted once, not on every
// generation. Safe for concurrent use.
type Tokenizer struct {
	seed maphash.Seed
	mu   sync.Mutex
	// Two generations of counts: when cur fills, it becomes old and a new
	// cur starts, so the cache stays bounded and recent texts stay in it.
	cur, old map[cacheKey]int32
}

type cacheKey struct {
	hash uint64
	n    int
}

// cacheSize is how many counts one generation of the cache holds.
const cacheSize = 200_000

// The vocabulary is immutable and large (a map of 200,000 entries), so
// one copy serves every Tokenizer of the process.
var (
	encOnce sync.Once
	encoder *tiktoken.Tiktoken
	encErr  error
)

func loadEncoding() (*tiktoken.Tiktoken, error) {
	encOnce.Do(func() {
		tiktoken.SetBpeLoader(loader.NewOfflineLoader())
		encoder, encErr = tiktoken.GetEncoding(Encoding)
		if encErr != nil {
			encErr = fmt.Errorf("load tokenizer %s: %w", Encoding, encErr)
		}
	})
	return encoder, encErr
}

// NewTokenizer returns a tokenizer; the vocabulary loads on first use (or
// on Warm).
func NewTokenizer() *Tokenizer {
	return &Tokenizer{seed: maphash.MakeSeed(), cur: map[cacheKey]int32{}}
}

// Warm loads the vocabulary now (it takes a few hundred milliseconds), so
// the first generation does not pay for it.
func (t *Tokenizer) Warm() error {
	_, err := loadEncoding()
	return err
}

// Count implements Counter. If the vocabulary failed to load, it falls
// back to an estimate of one token per three bytes rather than failing a
// generation over a budget.
func (t *Tokenizer) Count(text string) int {
	if text == "" {
		return 0
	}
	k := cacheKey{hash: maphash.String(t.seed, text), n: len(text)}
	t.mu.Lock()
	n, ok := t.cur[k]
	if !ok {
		if n, ok = t.old[k]; ok {
			t.put(k, n)
		}
	}
	t.mu.Unlock()
	if ok {
		return int(n)
	}
	var count int
	if enc, err := loadEncoding(); err != nil {
		count = (len(text) + 2) / 3
	} else {
		count = len(enc.EncodeOrdinary(text))
	}
	t.mu.Lock()
	t.put(k, int32(count))
	t.mu.Unlock()
	return count
}

func (t *Tokenizer) put(k cacheKey, n int32) {
	if len(t.cur) >= cacheSize {
		t.old, t.cur = t.cur, make(map[cacheKey]int32, cacheSize/4)
	}
	t.cur[k] = n
}
