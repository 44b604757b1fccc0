package host_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"hearth/backend/app"
	"hearth/backend/internal/benchdir"
	"hearth/backend/internal/chatgen"
	"hearth/backend/transport/httpapi"
)

// The benchmarks of DESIGN §8 for the host API: the common message
// operations on a generated 10,000-message chat (≈1.2 KB bodies, two
// swipes each, realistic assistant extras), called through the router in
// process and through POST /api/invoke on a real loopback server, plus
// the chat's storage footprint. Goals (make bench compares): update and
// add ≤ 2 ms, delete of a middle message ≤ 20 ms, tail 100 ≤ 10 ms, whole
// chat ≤ 400 ms. Benchmarks report; no test asserts a timing.

// benchChatSize is the message count of the benchmark chat, greeting included.
const benchChatSize = 10000

// benchDirPrefix names the temp dirs of this package's fixtures.
const benchDirPrefix = "hearth-bench"

// TestMain removes the benchmark fixtures' temp dirs (over a GB with the
// state fixture) once every test and benchmark has run, closing their
// apps first.
func TestMain(m *testing.M) {
	code := m.Run()
	if fixture != nil {
		_ = fixture.app.Close()
	}
	if stateFx != nil {
		_ = stateFx.app.Close()
	}
	if openFx != nil {
		_ = openFx.app.Close()
	}
	if err := benchdir.RemoveAll(); err != nil {
		fmt.Fprintln(os.Stderr, "remove benchmark fixtures:", err)
	}
	os.Exit(code)
}

// benchFixture is the generated chat, built once per process and shared by
// every benchmark here (they keep its size steady).
type benchFixture struct {
	dir    string
	app    *app.App
	chatID string
	// Footprint right after generation, with the WAL checkpointed away.
	dbBytes, walBytes, journalBytes int64
	jsonlBytes                      int64 // the chat's SillyTavern file (its message lines: chats.bytes)
	setup                           time.Duration

	httpOnce sync.Once
	client   *httpapi.Client
	httpErr  error
}

var (
	fixtureOnce sync.Once
	fixture     *benchFixture
	fixtureErr  error
)

// loadFixture returns the shared fixture, generating it on first use.
//
// It lives in a process-wide temp dir (benchdir.Make), since it outlives
// every single benchmark; TestMain removes it when the run ends, and dirs
// left by runs that ended early (their pid gone) are removed when the next
// run starts.
func loadFixture(b *testing.B) *benchFixture {
	b.Helper()
	fixtureOnce.Do(func() { fixture, fixtureErr = buildFixture() })
	if fixtureErr != nil {
		b.Fatal(fixtureErr)
	}
	return fixture
}

func buildFixture() (*benchFixture, error) {
	started := time.Now()
	dir, err := benchdir.Make(benchDirPrefix)
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	a, err := app.Open(ctx, dir)
	if err != nil {
		return nil, err
	}
	fx := &benchFixture{dir: dir, app: a}
	var card struct {
		Avatar string `json:"avatar"`
	}
	if err := benchInvokeInto(ctx, a.Router, &card, "characters.create", map[string]any{"name": "Seraphina", "first_mes": "Hello {{user}}"}); err != nil {
		return nil, err
	}
	var sum struct {
		ChatID       string `json:"chatId"`
		MessageCount int    `json:"messageCount"`
	}
	if err := benchInvokeInto(ctx, a.Router, &sum, "chat.create", map[string]any{"avatar": card.Avatar}); err != nil {
		return nil, err
	}
	fx.chatID = sum.ChatID
	msgs := chatgen.Messages(chatgen.Options{Seed: 1, Messages: benchChatSize - sum.MessageCount, UserName: "User", CharName: "Seraphina"})
	if err := chatgen.Append(ctx, a.Router, fx.chatID, msgs, 500); err != nil {
		return nil, err
	}
	var count int
	if err := benchInvokeInto(ctx, a.Router, &count, "chat.count", fx.chatID); err != nil {
		return nil, err
	}
	if count != benchChatSize {
		return nil, fmt.Errorf("benchmark chat has %d messages, want %d", count, benchChatSize)
	}
	if err := settleSearchIndex(ctx, a); err != nil {
		return nil, err
	}
	if err := fx.measureFootprint(ctx); err != nil {
		return nil, err
	}
	fx.setup = time.Since(started)
	return fx, nil
}

// settleSearchIndex brings the search index up to date with everything
// written so far (a search finishes the queued index work first), so the
// benchmarks time a chat at rest, not one still being indexed in the
// background after its 10,000 messages arrived.
func settleSearchIndex(ctx context.Context, a *app.App) error {
	var hits []any
	return benchInvokeInto(ctx, a.Router, &hits, "chat.search", nil, "settle")
}

// measureFootprint checkpoints the WAL into the database file (through
// the store, whose checkpointer may be running one already) and records
// the file sizes and how much of it is change journal.
func (fx *benchFixture) measureFootprint(ctx context.Context) error {
	path := filepath.Join(fx.dir, "hearth.db")
	if err := fx.app.Store.Checkpoint(ctx); err != nil {
		return err
	}
	db := fx.app.Store.Reader()
	if err := db.QueryRowContext(ctx, `SELECT COALESCE(SUM(LENGTH(ops) + LENGTH(inverse)), 0) FROM chat_journal`).Scan(&fx.journalBytes); err != nil {
		return fmt.Errorf("journal size: %w", err)
	}
	fx.dbBytes, fx.walBytes = benchFileSize(path), benchFileSize(path+"-wal")
	var sum struct {
		Bytes int64 `json:"bytes"`
	}
	if err := benchInvokeInto(ctx, fx.app.Router, &sum, "chat.get", fx.chatID); err != nil {
		return err
	}
	fx.jsonlBytes = sum.Bytes
	return nil
}

// httpClient starts a real loopback server over the fixture's router on
// first use and returns a client of it.
func (fx *benchFixture) httpClient(b *testing.B) *httpapi.Client {
	b.Helper()
	fx.httpOnce.Do(func() {
		srv, err := httpapi.New(httpapi.Config{Router: fx.app.Router, Bus: fx.app.Bus, Avatars: fx.app.Characters})
		if err != nil {
			fx.httpErr = err
			return
		}
		url, err := srv.Start(context.Background())
		if err != nil {
			fx.httpErr = err
			return
		}
		fx.client = httpapi.NewClient(url, srv.Token())
	})
	if fx.httpErr != nil {
		b.Fatal(fx.httpErr)
	}
	return fx.client
}

// BenchmarkRouter times the five common message operations on the 10k
// chat: in process (router.Invoke, JSON in and out) and over HTTP.
func BenchmarkRouter(b *testing.B) {
	fx := loadFixture(b)
	b.Run("inproc", func(b *testing.B) { benchOps(b, fx, fx.app.Router) })
	b.Run("http", func(b *testing.B) { benchOps(b, fx, fx.httpClient(b)) })
}

func benchOps(b *testing.B, fx *benchFixture, inv chatgen.Invoker) {
	ctx := context.Background()
	mid := benchChatSize / 2
	// Two ~1.2 KB texts to alternate between, so every update changes the message.
	texts := chatgen.Messages(chatgen.Options{Seed: 7, Messages: 2})
	reply := chatgen.Messages(chatgen.Options{Seed: 9, Messages: 2})[1] // an assistant message

	b.Run("updateMessages", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			benchInvoke(b, ctx, inv, "chat.updateMessages", fx.chatID, map[string]any{"index": mid, "patch": map[string]any{"mes": texts[i%2]["mes"]}})
		}
		reportMsPerOp(b)
	})
	b.Run("addMessages", func(b *testing.B) {
		var start int
		if err := benchInvokeInto(ctx, inv, &start, "chat.count", fx.chatID); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			benchInvoke(b, ctx, inv, "chat.addMessages", fx.chatID, reply)
		}
		reportMsPerOp(b)
		b.StopTimer()
		// Take the added messages off the tail again (cheap: nothing to renumber).
		tail := make([]int, b.N)
		for i := range tail {
			tail[i] = start + i
		}
		// Highest batch first, so the indexes of the batches before it stay valid.
		batches := benchChunks(tail, 500)
		for i := len(batches) - 1; i >= 0; i-- {
			benchInvoke(b, ctx, inv, "chat.deleteMessages", fx.chatID, batches[i])
		}
	})
	b.Run("deleteMessagesMiddle", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			deleted := benchInvoke(b, ctx, inv, "chat.deleteMessages", fx.chatID, mid)
			b.StopTimer()
			// Put the message back (at the end) so the chat keeps its size.
			benchInvoke(b, ctx, inv, "chat.addMessages", fx.chatID, deleted)
			b.StartTimer()
		}
		reportMsPerOp(b)
	})
	b.Run("getMessagesTail100", func(b *testing.B) {
		b.ReportAllocs()
		var size int
		for i := 0; i < b.N; i++ {
			size = len(benchInvoke(b, ctx, inv, "chat.getMessages", fx.chatID, map[string]int{"tail": 100}))
		}
		reportMsPerOp(b)
		b.ReportMetric(float64(size)/1e6, "respMB")
	})
	b.Run("getStMessagesWhole", func(b *testing.B) {
		b.ReportAllocs()
		var size int
		for i := 0; i < b.N; i++ {
			size = len(benchInvoke(b, ctx, inv, "chat.getStMessages", fx.chatID))
		}
		reportMsPerOp(b)
		b.ReportMetric(float64(size)/1e6, "respMB")
	})
}

// BenchmarkStorage reports the 10k chat's footprint: database size and
// process memory. Neither depends on b.N; ns/op means nothing here.
func BenchmarkStorage(b *testing.B) {
	fx := loadFixture(b)
	b.Run("dbSizePer10k", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			_ = fx.dbBytes
		}
		// hearth.db + hearth.db-wal right after generating the chat through
		// addMessages in batches of 500, with the WAL checkpointed
		// (TRUNCATE). journalMB is the part of it that is the change journal
		// (RFC 6902 ops + inverse of the last 1000 revisions: here, every
		// added message once more). xJsonl is the whole database over the
		// chat's SillyTavern file (its message lines, as chats.bytes counts
		// them: the header is a few hundred bytes more).
		b.ReportMetric(float64(fx.dbBytes+fx.walBytes)/1e6, "MB")
		// xJsonl: the database over the chat's SillyTavern file.
		b.ReportMetric(float64(fx.dbBytes+fx.walBytes)/float64(max(1, fx.jsonlBytes)), "xJsonl")
		b.ReportMetric(float64(fx.journalBytes)/1e6, "journalMB")
		b.ReportMetric(fx.setup.Seconds(), "setupSec")
	})
	b.Run("rssAfterLoad", func(b *testing.B) {
		m := loadRSS(b, fx)
		for i := 0; i < b.N; i++ {
			_ = m
		}
		// A rough figure: VmRSS of the whole benchmark process (Go runtime,
		// test binary, SQLite page caches, the shared fixture) with the
		// chat's getStMessages result held, once the app has released
		// memory as it does when idle after a large call (App.ReleaseMemory:
		// idle connections' page caches shrunk, free heap returned to the
		// OS). loadMB is what the load added to RSS; heapMB is the live Go
		// heap at that moment; peakMB is RSS right after the load, before
		// the release (after a GC only).
		b.ReportMetric(m.rss, "MB")
		b.ReportMetric(m.rss-m.before, "loadMB")
		b.ReportMetric(m.heap, "heapMB")
		b.ReportMetric(m.peak, "peakMB")
	})
}

type rssFigures struct{ before, rss, heap, peak float64 }

var (
	rssOnce sync.Once
	rss     rssFigures
	rssErr  error
)

// loadRSS measures once per process: release memory as the idle app does,
// read VmRSS, load the whole chat through the router, read VmRSS after a
// GC and again after the release, while holding the result.
func loadRSS(b *testing.B, fx *benchFixture) rssFigures {
	b.Helper()
	rssOnce.Do(func() {
		fx.app.ReleaseMemory(context.Background())
		if rss.before, rssErr = vmRSS(); rssErr != nil {
			return
		}
		out, err := fx.app.Router.Invoke(context.Background(), "chat.getStMessages", benchJSON([]any{fx.chatID}))
		if err != nil {
			rssErr = err
			return
		}
		runtime.GC()
		if rss.peak, rssErr = vmRSS(); rssErr != nil {
			return
		}
		fx.app.ReleaseMemory(context.Background())
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		rss.heap = float64(ms.HeapAlloc) / 1e6
		rss.rss, rssErr = vmRSS()
		runtime.KeepAlive(out)
	})
	if rssErr != nil {
		b.Skipf("RSS not measurable here: %v", rssErr)
	}
	return rss
}

// vmRSS reads the process's resident set size in MB from /proc/self/status.
func vmRSS() (float64, error) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			if err != nil {
				return 0, fmt.Errorf("parse VmRSS %q: %w", rest, err)
			}
			return kb * 1024 / 1e6, nil
		}
	}
	return 0, fmt.Errorf("no VmRSS in /proc/self/status")
}

// reportMs adds ms/op beside ns/op; make bench's goals are in ms.
func reportMsPerOp(b *testing.B) {
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/op")
}

func benchInvoke(b *testing.B, ctx context.Context, inv chatgen.Invoker, method string, args ...any) json.RawMessage {
	b.Helper()
	out, err := inv.Invoke(ctx, method, benchJSON(args))
	if err != nil {
		b.Fatalf("%s: %v", method, err)
	}
	return out
}

func benchInvokeInto(ctx context.Context, inv chatgen.Invoker, dst any, method string, args ...any) error {
	out, err := inv.Invoke(ctx, method, benchJSON(args))
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	if err := json.Unmarshal(out, dst); err != nil {
		return fmt.Errorf("%s: decode %s: %w", method, out, err)
	}
	return nil
}

func benchJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

func benchChunks(list []int, size int) [][]int {
	var out [][]int
	for len(list) > 0 {
		n := min(size, len(list))
		out = append(out, list[:n])
		list = list[n:]
	}
	return out
}

func benchFileSize(path string) int64 {
	st, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return st.Size()
}
