package chats

import (
	"fmt"
	"iter"
	"runtime"
	"runtime/debug"
	"sync"
)

// jsonlBatchLines is how many lines a decoding worker takes at a time:
// enough to make the hand-off cheap, few enough that an error early in a
// file stops the work soon.
const jsonlBatchLines = 64

// decodedLine is one line and, once decoded, what it made.
type decodedLine struct {
	n    int
	text string
	p    *preparedMessage
	err  error
}

// jsonlBatch is consecutive lines; done closes once they are decoded (the
// slice then ends at the first error).
type jsonlBatch struct {
	lines []decodedLine
	done  chan struct{}
}

// decodeInOrder runs decode over lines on one worker per CPU and hands
// the results to use in line order, on the calling goroutine (the import's
// transaction), skipping lines decode made nothing of (blank ones),
// stopping at the first error — a line's, or use's. Decoding JSON costs
// more than storing the rows, so an import of a large file spreads it over
// the machine while the transaction writes. Every goroutine it starts has
// ended when it returns.
func decodeInOrder(lines iter.Seq2[int, string], decode func(n int, line string) (*preparedMessage, error), use func(n int, p *preparedMessage) error) error {
	workers := max(1, runtime.GOMAXPROCS(0))
	stop := make(chan struct{})
	work := make(chan *jsonlBatch, workers)
	order := make(chan *jsonlBatch, 2*workers)

	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range work {
				b.decode(decode, stop)
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(work)
		defer close(order)
		// Each batch goes to order (the consumer's queue) before work, so
		// the consumer always waits on batches a worker will get.
		send := func(b *jsonlBatch) bool {
			for _, ch := range []chan *jsonlBatch{order, work} {
				select {
				case ch <- b:
				case <-stop:
					return false
				}
			}
			return true
		}
		b := newBatch()
		for n, line := range lines {
			b.lines = append(b.lines, decodedLine{n: n, text: line})
			if len(b.lines) == jsonlBatchLines {
				if !send(b) {
					return
				}
				b = newBatch()
			}
		}
		if len(b.lines) > 0 {
			send(b)
		}
	}()

	defer func() { // also when use panics: no goroutine is left waiting
		close(stop)
		for range order { // let the producer see stop and finish
		}
		wg.Wait()
	}()
	for b := range order {
		<-b.done
		for _, d := range b.lines {
			if d.err != nil {
				return d.err
			}
			if d.p == nil { // a blank line
				continue
			}
			if err := use(d.n, d.p); err != nil {
				return err
			}
		}
	}
	return nil
}

func newBatch() *jsonlBatch {
	return &jsonlBatch{lines: make([]decodedLine, 0, jsonlBatchLines), done: make(chan struct{})}
}

// decode fills in the batch's lines, ending it at the first error or when
// stop closes.
func (b *jsonlBatch) decode(decode func(n int, line string) (*preparedMessage, error), stop <-chan struct{}) {
	defer close(b.done)
	for i := range b.lines {
		select {
		case <-stop:
			b.lines = b.lines[:i]
			return
		default:
		}
		d := &b.lines[i]
		if d.p, d.err = safely(decode, d.n, d.text); d.err != nil {
			b.lines = b.lines[:i+1]
			return
		}
	}
}

// safely runs decode, turning a panic into an error: a worker is a
// goroutine of its own, outside the router's recover, and must not take
// the process down.
func safely(decode func(n int, line string) (*preparedMessage, error), n int, line string) (p *preparedMessage, err error) {
	defer func() {
		if r := recover(); r != nil {
			p, err = nil, fmt.Errorf("panic decoding line %d: %v\n%s", n, r, debug.Stack())
		}
	}()
	return decode(n, line)
}
