package worldinfo

import (
	"context"
	"sync"
)

// bookCache keeps parsed books between activations: parsing a large book
// costs far more than scanning it (a 1,000-entry book, about 50 ms against
// 1 ms), and books change rarely. Any committed write to the lorebooks
// table moves gen, which empties the cache; a book read under an older
// gen is not stored, so a read that raced a write can never stay behind
// it. Cached books are shared: only activations, which never change a
// book, get them.
type bookCache struct {
	mu    sync.Mutex
	gen   uint64
	books map[string]*Book
}

// invalidate forgets every parsed book; writes call it after they commit.
func (c *bookCache) invalidate() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	c.books = nil
}

// activationBook returns the book name for an activation, parsed once per
// version of the library.
func (s *Service) activationBook(ctx context.Context, name string) (*Book, error) {
	c := &s.cache
	c.mu.Lock()
	gen, book := c.gen, c.books[name]
	c.mu.Unlock()
	if book != nil {
		return book, nil
	}
	book, err := s.Get(ctx, name)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen == gen {
		if c.books == nil {
			c.books = map[string]*Book{}
		}
		c.books[name] = book
	}
	return book, nil
}
