package skills

import (
	"sync"
	"unicode/utf8"

	"hearth/backend/apperr"
)

// Budget is what one run may still read of skills: at most perCall
// characters per read and perRun in all (a profile's
// skills.maxReadCharsPerCall and maxReadCharsPerRun). It is safe for
// concurrent use.
type Budget struct {
	mu      sync.Mutex
	perCall int
	perRun  int
	used    int
}

// NewBudget returns a fresh budget; a non-positive limit takes the
// seed's default (DefaultReadChars per call, DefaultRunChars per run).
func NewBudget(perCall, perRun int) *Budget {
	if perCall <= 0 {
		perCall = DefaultReadChars
	}
	if perRun <= 0 {
		perRun = DefaultRunChars
	}
	return &Budget{perCall: perCall, perRun: perRun}
}

// Take grants and charges up to n characters (n ≤ 0 asks for a whole
// call's worth): the least of n, the per-call limit and what the run has
// left. 0 means the run's budget is spent; report skill.budget_exhausted
// (ReadWithin does).
func (b *Budget) Take(n int) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	if n <= 0 {
		n = b.perCall
	}
	n = min(n, b.perCall, b.perRun-b.used)
	b.used += n
	return n
}

// Refund gives back characters taken but not read (the text ended first).
func (b *Budget) Refund(n int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.used = max(0, b.used-max(0, n))
}

// Remaining is how many characters the run may still read.
func (b *Budget) Remaining() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.perRun - b.used
}

func (b *Budget) exhausted() error {
	return apperr.New(CodeBudgetExhausted, "this run has read its %d characters of skills; work with what it has read", b.perRun).
		WithDetails(map[string]any{"maxReadCharsPerRun": b.perRun})
}

// ReadWithin is Read charged to b: the window is clamped to what b grants
// and only the characters returned are charged. The skill's name and the
// filter are checked first, so a hidden skill is tool.policy_denied even
// once the budget is spent.
func (l *Library) ReadWithin(b *Budget, name string, f Filter, startChar, maxChars int) (Text, error) {
	if !ValidName(name) {
		return Text{}, notFound(name)
	}
	if !f.Allows(name) {
		return l.Read(name, f, startChar, maxChars)
	}
	grant := b.Take(maxChars)
	if grant == 0 {
		return Text{}, b.exhausted()
	}
	t, err := l.Read(name, f, startChar, grant)
	if err != nil {
		b.Refund(grant)
		return Text{}, err
	}
	b.Refund(grant - utf8.RuneCountInString(t.Text))
	return t, nil
}
