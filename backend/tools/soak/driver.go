package main

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// writer drives one kind of write against the server and keeps its
// ledger. Writers share nothing on the server: each has its own
// characters and chats, so what one finds was written by itself.
type writer interface {
	// name is the writer's row in the report.
	name() string
	// ledger is the writer's book.
	ledger() *Ledger
	// setup makes what the writer writes into, before the first kill.
	setup(ctx context.Context, c *client) error
	// run writes until ctx ends, one call at a time; a call that gets no
	// answer (the server died) ends it.
	run(ctx context.Context, c *client, rng *rand.Rand)
	// verify checks the keys written since their last check (every key
	// when full) against a freshly started server. An error means the
	// check itself could not be made.
	verify(ctx context.Context, c *client, full bool) error
}

// config is what a soak does.
type config struct {
	bin            string
	workDir        string
	kills          int
	minRun, maxRun time.Duration
	chunkDelay     time.Duration
	seed           uint64
	verbose        bool
	out            io.Writer
}

// result is what a soak found.
type result struct {
	kills int
	// killsInFlight counts the kills that found calls waiting for their
	// answer.
	killsInFlight int
	duration      time.Duration
	rows          []row
	integrity     []string // PRAGMA integrity_check after the last kill, then after a clean stop
	foreignKey    []string
	modelCalls    int64
	err           error
}

// row is one writer's line of the report.
type row struct {
	name     string
	counts   Counts
	problems []string
	dropped  int
}

// soak runs the whole thing: setup, cfg.kills rounds of write and kill,
// a final full verification and the database checks.
func soak(ctx context.Context, cfg config) *result {
	began := time.Now()
	res := &result{}
	defer func() { res.duration = time.Since(began) }()

	dataDir := filepath.Join(cfg.workDir, "data")
	libRoot := filepath.Join(cfg.workDir, "library")
	logf, err := logFile(filepath.Join(cfg.workDir, "server.log"))
	if err != nil {
		res.err = err
		return res
	}
	defer logf.Close()

	if err := os.MkdirAll(libRoot, 0o700); err != nil {
		res.err = err
		return res
	}
	mdl, err := startModel(cfg.chunkDelay)
	if err != nil {
		res.err = fmt.Errorf("start the scripted model: %w", err)
		return res
	}
	defer mdl.close()

	writers := []writer{
		newMessagesWriter(),
		newStateWriter(),
		newBranchWriter(),
		newGenerateWriter(),
		newAgentWriter(),
		newLibraryWriter(libRoot),
	}
	defer func() {
		for _, w := range writers {
			p, d := w.ledger().Problems()
			res.rows = append(res.rows, row{name: w.name(), counts: w.ledger().Counts(), problems: p, dropped: d})
		}
		res.modelCalls = mdl.requests.Load()
	}()

	srv := &server{bin: cfg.bin, dataDir: dataDir, libRoot: libRoot, log: logf}
	defer srv.kill()
	c, err := srv.start()
	if err != nil {
		res.err = err
		return res
	}
	if err := setupAll(ctx, c, mdl, writers); err != nil {
		res.err = fmt.Errorf("setup: %w", err)
		return res
	}

	rng := rand.New(rand.NewPCG(cfg.seed, cfg.seed^0x5eed))
	for k := 1; k <= cfg.kills; k++ {
		if err := ctx.Err(); err != nil {
			res.err = err
			return res
		}
		runFor := cfg.minRun + time.Duration(rng.Int64N(int64(cfg.maxRun-cfg.minRun)+1))
		if writeThenKill(ctx, c, srv, writers, rng, runFor) > 0 {
			res.killsInFlight++
		}
		res.kills++
		if k == cfg.kills {
			res.integrity, res.foreignKey, err = checkDatabase(filepath.Join(dataDir, "hearth.db"))
			if err != nil {
				res.err = fmt.Errorf("integrity check after the last kill: %w", err)
				return res
			}
		}
		if c, err = srv.start(); err != nil {
			res.err = fmt.Errorf("restart after kill %d: %w", k, err)
			return res
		}
		if err := verifyAll(ctx, c, writers, false); err != nil {
			res.err = fmt.Errorf("verify after kill %d: %w", k, err)
			return res
		}
		if cfg.verbose || k%25 == 0 || k == cfg.kills {
			fmt.Fprintf(cfg.out, "soak: %d/%d kills, %s\n", k, cfg.kills, progress(writers))
		}
	}
	if err := verifyAll(ctx, c, writers, true); err != nil {
		res.err = fmt.Errorf("final verification: %w", err)
		return res
	}
	if err := srv.stop(); err != nil {
		res.err = err
		return res
	}
	again, fk, err := checkDatabase(filepath.Join(dataDir, "hearth.db"))
	if err != nil {
		res.err = fmt.Errorf("integrity check after the clean stop: %w", err)
		return res
	}
	res.integrity = append(res.integrity, again...)
	res.foreignKey = append(res.foreignKey, fk...)
	return res
}

// setupAll selects a connection to the scripted model and sets every
// writer up.
func setupAll(ctx context.Context, c *client, mdl *model, writers []writer) error {
	var conn struct {
		ID string `json:"id"`
	}
	if err := c.call(ctx, &conn, "connections.save", map[string]any{"name": "Scripted", "provider": "openai-compatible",
		"baseUrl": mdl.URL, "model": "scripted", "apiKey": "sk-soak"}); err != nil {
		return fmt.Errorf("save the connection: %w", err)
	}
	if err := c.call(ctx, nil, "connections.select", conn.ID); err != nil {
		return fmt.Errorf("select the connection: %w", err)
	}
	for _, w := range writers {
		if err := w.setup(ctx, c); err != nil {
			return fmt.Errorf("%s: %w", w.name(), err)
		}
	}
	return nil
}

// writeThenKill runs every writer for d, then kills the server with
// SIGKILL while their calls are in flight and waits for them to stop. It
// returns how many calls were waiting for an answer at the kill.
func writeThenKill(ctx context.Context, c *client, srv *server, writers []writer, rng *rand.Rand, d time.Duration) int64 {
	wctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for _, w := range writers {
		wrng := rand.New(rand.NewPCG(rng.Uint64(), rng.Uint64()))
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.run(wctx, c, wrng)
		}()
	}
	select {
	case <-time.After(d):
	case <-ctx.Done():
	}
	inFlight := c.inFlight.Load()
	srv.kill()
	cancel()
	wg.Wait()
	return inFlight
}

// verifyAll verifies every writer, one after the other.
func verifyAll(ctx context.Context, c *client, writers []writer, full bool) error {
	for _, w := range writers {
		if err := w.verify(ctx, c, full); err != nil {
			return fmt.Errorf("%s: %w", w.name(), err)
		}
	}
	return nil
}

// progress is a one-line tally of the ledgers.
func progress(writers []writer) string {
	var sum Counts
	for _, w := range writers {
		sum = sum.add(w.ledger().Counts())
	}
	return fmt.Sprintf("%d acknowledged, %d verified, %d in flight at kills (%d landed), %d lost, %d half",
		sum.Acked, sum.Verified, sum.Uncertain, sum.Landed, sum.Lost, sum.Half)
}

// workDir makes the soak's folder: dir when given (it must be empty or
// new), else a new temp folder.
func workDir(dir string) (string, error) {
	if dir == "" {
		return os.MkdirTemp("", "hearth-soak-")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	if len(entries) > 0 {
		return "", fmt.Errorf("%s is not empty: the soak needs a fresh data dir", dir)
	}
	return filepath.Abs(dir)
}
