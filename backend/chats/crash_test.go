package chats_test

import (
	"bufio"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"hearth/backend/app"
)

// Environment of the crash child (TestCrashChild run by TestCrashSafety).
const (
	crashEnvChild = "HEARTH_CRASH_CHILD"
	crashEnvDir   = "HEARTH_CRASH_DIR"
	crashEnvChat  = "HEARTH_CRASH_CHAT"
	crashEnvSeed  = "HEARTH_CRASH_SEED"
)

// TestCrashSafety kills a writing process with SIGKILL at random moments,
// over and over on one data dir, and then checks that the database is
// intact and every write the child acknowledged is there.
//
// The child (this test binary re-executed as TestCrashChild) adds, updates
// and deletes messages in a loop. Before each write it prints an intent
// line (TRY …); only after the call returned success does it print the
// acknowledgement (ACK …). A write that was in flight at the kill may or
// may not have landed, so the parent accepts either outcome for it — but
// only for it.
func TestCrashSafety(t *testing.T) {
	if testing.Short() {
		t.Skip("crash-safety test re-executes the test binary ~20 times; skipped with -short")
	}
	t.Parallel()
	dir := t.TempDir()
	chatID := func() string {
		ctx := context.Background()
		a, err := app.Open(ctx, dir)
		if err != nil {
			t.Fatalf("open app: %v", err)
		}
		defer a.Close()
		r := &rig{tb: t, app: a}
		var card struct {
			Avatar string `json:"avatar"`
		}
		r.decode(r.call("characters.create", map[string]any{"name": "Seraphina", "first_mes": "Hello {{user}}"}), &card)
		r.avatar = card.Avatar
		return r.newChat("crash")
	}()

	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	ledger := newCrashLedger()
	const rounds = 20
	deadline := time.Now().Add(15 * time.Second)
	for round := 0; round < rounds && time.Now().Before(deadline); round++ {
		killAfter := 1 + rng.IntN(120)
		runCrashRound(t, dir, chatID, seed+uint64(round)*7919, killAfter, rng.IntN(3), ledger)
	}
	if ledger.acks+ledger.stateAcks == 0 {
		t.Fatal("no write was ever acknowledged")
	}
	t.Logf("%d rounds, %d acknowledged writes, %d writes in flight at a kill", ledger.rounds, ledger.acks, ledger.inFlight)

	dbPath := filepath.Join(dir, "hearth.db")
	checkIntegrity(t, dbPath)

	r := openRig(t, dir)
	msgs := r.stMessages(chatID)
	if n := r.count(chatID); n != len(msgs) {
		t.Errorf("chat.count = %d but getStMessages returned %d", n, len(msgs))
	}
	checkPositions(t, r.app.Store.Reader(), chatID, len(msgs))
	stored := map[string]string{}
	for i, m := range msgs {
		if _, dup := stored[m.ID]; dup {
			t.Errorf("message id %s stored twice", m.ID)
		}
		stored[m.ID] = hashText(m.Mes)
		if len(m.Swipes) == 0 || m.SwipeID < 0 || m.SwipeID >= len(m.Swipes) || m.Swipes[m.SwipeID] != m.Mes {
			t.Errorf("message %d breaks the swipe invariants: swipe_id %d of %d swipes", i, m.SwipeID, len(m.Swipes))
		}
	}
	for _, id := range sortedIDs(ledger.want) {
		want := ledger.want[id]
		got, present := stored[id]
		ok := want.matches(got, present)
		if alt, has := ledger.alt[id]; has && !ok {
			ok = alt.matches(got, present)
		}
		if !ok {
			t.Errorf("acknowledged message %s: want %s, stored %s", id, want, describe(got, present))
		}
	}
	t.Logf("verified %d acknowledged message ids against %d stored messages", len(ledger.want), len(msgs))
	checkCrashState(t, r, chatID, ledger)
}

// crashState is what the ledger expects of one message id.
type crashState struct {
	deleted bool
	hash    string
}

func (s crashState) matches(hash string, present bool) bool {
	if s.deleted {
		return !present
	}
	return present && hash == s.hash
}

func (s crashState) String() string {
	if s.deleted {
		return "deleted"
	}
	return "content " + s.hash[:12]
}

func describe(hash string, present bool) string {
	if !present {
		return "nothing"
	}
	return "content " + hash[:12]
}

// crashLedger tracks the latest acknowledged state of every message id,
// plus, for writes in flight when a child was killed, the state they would
// have produced (either outcome is acceptable until a later ack settles it).
type crashLedger struct {
	want      map[string]crashState
	alt       map[string]crashState
	counter   int            // highest acknowledged value of the counter namespace
	stateAcks int            // acknowledged state writes (they do not bump the chat revision)
	branches  map[string]int // acknowledged branches and their message counts
	acks      int
	rounds    int
	inFlight  int
}

func newCrashLedger() *crashLedger {
	return &crashLedger{want: map[string]crashState{}, alt: map[string]crashState{}, branches: map[string]int{}}
}

// runCrashRound starts a child, lets it acknowledge killAfter writes, kills
// it with SIGKILL (after a delay of 0–2 ms) and records what it reported.
func runCrashRound(t *testing.T, dir, chatID string, seed uint64, killAfter, delayMs int, ledger *crashLedger) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestCrashChild$", "-test.count=1", "-test.timeout=60s")
	cmd.Env = append(os.Environ(),
		crashEnvChild+"=1", crashEnvDir+"="+dir, crashEnvChat+"="+chatID, crashEnvSeed+"="+strconv.FormatUint(seed, 10))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start child: %v", err)
	}
	var pending []string // the last TRY line not yet acknowledged
	acks, killed := 0, false
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		switch f[0] {
		case "TRY":
			pending = f[1:]
		case "ACK":
			pending = nil
			if err := ledger.ack(f[1:]); err != nil {
				t.Fatalf("child: %v", err)
			}
			acks++
			if acks == killAfter && !killed {
				if delayMs > 0 {
					time.Sleep(time.Duration(delayMs) * time.Millisecond)
				}
				_ = cmd.Process.Kill() // SIGKILL
				killed = true
			}
		case "FAIL":
			t.Fatalf("child failed: %s\nstderr:\n%s", sc.Text(), stderr.String())
		}
	}
	err = cmd.Wait()
	if !killed {
		t.Fatalf("child exited on its own after %d of %d acks (%v)\nstderr:\n%s", acks, killAfter, err, stderr.String())
	}
	ledger.rounds++
	if pending != nil {
		ledger.inFlight++
		ledger.maybe(pending)
	}
}

// ack applies one acknowledgement: "ADDS" (an add call returned), then
// "ADD <id> <hash>" per message it added; "UPD <id> <hash>"; "DEL <id>";
// "STATE <n>" (the counter namespace reached n); "FLOOR" (a floor-state
// commit); "BRANCH <chatId> <messages>". acks counts acknowledged write calls.
func (l *crashLedger) ack(f []string) error {
	switch {
	case len(f) == 2 && f[0] == "STATE":
		n, err := strconv.Atoi(f[1])
		if err != nil {
			return err
		}
		l.counter = max(l.counter, n)
		l.stateAcks++
		return nil
	case len(f) == 1 && f[0] == "FLOOR":
		l.stateAcks++
		return nil
	case len(f) == 3 && f[0] == "BRANCH":
		n, err := strconv.Atoi(f[2])
		if err != nil {
			return err
		}
		l.branches[f[1]] = n
		l.acks++
		return nil
	case len(f) == 3 && (f[0] == "ADD" || f[0] == "UPD"):
		l.want[f[1]] = crashState{hash: f[2]}
	case len(f) == 2 && f[0] == "DEL":
		l.want[f[1]] = crashState{deleted: true}
	case len(f) == 1 && f[0] == "ADDS": // one acknowledged add call; its messages follow as ADD lines
		l.acks++
		return nil
	default:
		return fmt.Errorf("bad ack %q", strings.Join(f, " "))
	}
	delete(l.alt, f[1])
	if f[0] != "ADD" {
		l.acks++
	}
	return nil
}

// maybe records a write that was in flight at a kill: it may have landed.
func (l *crashLedger) maybe(f []string) {
	switch {
	case len(f) == 3 && f[0] == "UPD":
		l.alt[f[1]] = crashState{hash: f[2]}
	case len(f) == 2 && f[0] == "DEL":
		l.alt[f[1]] = crashState{deleted: true}
	}
	// An add in flight created messages nobody was told about: nothing to check.
}

// checkIntegrity opens the database file directly (no migrations, no app)
// and runs SQLite's own consistency checks.
func checkIntegrity(t *testing.T, path string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	defer db.Close()
	rows, err := db.Query(`PRAGMA integrity_check`)
	if err != nil {
		t.Fatalf("integrity_check: %v", err)
	}
	var report []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			t.Fatal(err)
		}
		report = append(report, line)
	}
	rows.Close()
	if len(report) != 1 || report[0] != "ok" {
		t.Fatalf("integrity_check: %s", strings.Join(report, "\n"))
	}
	fk, err := db.Query(`PRAGMA foreign_key_check`)
	if err != nil {
		t.Fatalf("foreign_key_check: %v", err)
	}
	defer fk.Close()
	if fk.Next() {
		t.Fatal("foreign_key_check reports dangling rows")
	}
	// Floor commits refer to their message and namespace without declared
	// foreign keys (migration 0023): check both by hand.
	var dangling int
	if err := db.QueryRow(`SELECT count(*) FROM floor_commits fc
		WHERE NOT EXISTS (SELECT 1 FROM messages m WHERE m.id = fc.message_id AND m.chat_id = fc.chat_id)
		OR NOT EXISTS (SELECT 1 FROM floor_states fs WHERE fs.chat_id = fc.chat_id AND fs.ns = fc.ns)`).Scan(&dangling); err != nil {
		t.Fatalf("check floor commits: %v", err)
	}
	if dangling > 0 {
		t.Fatalf("%d floor commits point at a missing message or namespace", dangling)
	}
}

func hashText(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// TestCrashChild is the writer TestCrashSafety kills. It does nothing
// unless HEARTH_CRASH_CHILD is set.
func TestCrashChild(t *testing.T) {
	if os.Getenv(crashEnvChild) != "1" {
		t.Skip("helper process for TestCrashSafety")
	}
	if err := crashChild(os.Getenv(crashEnvDir), os.Getenv(crashEnvChat), os.Getenv(crashEnvSeed)); err != nil {
		fmt.Printf("FAIL %v\n", err)
		os.Exit(3)
	}
	os.Exit(0)
}

// crashChild opens the data dir, reads the chat back (the ids, in order,
// mirror the chat: this process is its only writer) and writes until
// killed. Each stdout line is one write(2) — os.Stdout is unbuffered — so
// a line the parent reads was complete before the kill.
func crashChild(dir, chatID, seedText string) error {
	seed, err := strconv.ParseUint(seedText, 10, 64)
	if err != nil {
		return fmt.Errorf("seed: %w", err)
	}
	ctx := context.Background()
	a, err := app.Open(ctx, dir)
	if err != nil {
		return fmt.Errorf("open app: %w", err)
	}
	invoke := func(method string, args ...any) (json.RawMessage, error) {
		raw, _ := json.Marshal(args)
		return a.Router.Invoke(ctx, method, raw)
	}
	out, err := invoke("chat.getStMessages", chatID)
	if err != nil {
		return fmt.Errorf("read chat: %w", err)
	}
	var msgs []rigMessage
	if err := json.Unmarshal(out, &msgs); err != nil {
		return err
	}
	ids := make([]string, len(msgs))
	for i, m := range msgs {
		ids[i] = m.ID
	}
	rng := rand.New(rand.NewPCG(seed, 2))
	text := func(op int) string {
		n := 50 + rng.IntN(12000)
		var b strings.Builder
		fmt.Fprintf(&b, "seed %d op %d: ", seed, op)
		for b.Len() < n {
			b.WriteString(crashWords[rng.IntN(len(crashWords))])
			b.WriteByte(' ')
		}
		return b.String()
	}
	counter, err := readCounter(invoke, chatID)
	if err != nil {
		return err
	}
	stop := time.Now().Add(30 * time.Second)
	for op := 0; time.Now().Before(stop); op++ {
		k := rng.IntN(14)
		if k >= 10 {
			if err := crashStateOp(invoke, chatID, k, op, len(ids), &counter, rng); err != nil {
				return err
			}
			continue
		}
		switch {
		case k < 6 || len(ids) < 3: // add one message, or now and then a batch
			n := 1
			if rng.IntN(8) == 0 {
				n = 2 + rng.IntN(20)
			}
			batch := make([]map[string]any, n)
			hashes := make([]string, n)
			for i := range batch {
				mes := text(op)
				batch[i] = map[string]any{"name": "Crash", "is_user": rng.IntN(2) == 0, "mes": mes}
				hashes[i] = hashText(mes)
			}
			fmt.Printf("TRY ADD %d\n", n)
			out, err := invoke("chat.addMessages", chatID, batch)
			if err != nil {
				return fmt.Errorf("op %d: addMessages: %w", op, err)
			}
			var indexes []int
			if err := json.Unmarshal(out, &indexes); err != nil || len(indexes) != n || indexes[0] != len(ids) {
				return fmt.Errorf("op %d: addMessages returned %s for %d messages after %d", op, out, n, len(ids))
			}
			out, err = invoke("chat.getStMessages", chatID, map[string]int{"start": len(ids), "end": len(ids) + n})
			if err != nil {
				return fmt.Errorf("op %d: read back: %w", op, err)
			}
			var added []rigMessage
			if err := json.Unmarshal(out, &added); err != nil || len(added) != n {
				return fmt.Errorf("op %d: read back %d messages: %s", op, n, out)
			}
			fmt.Printf("ACK ADDS\n")
			for i, m := range added {
				if hashText(m.Mes) != hashes[i] {
					return fmt.Errorf("op %d: message %s read back with other content", op, m.ID)
				}
				ids = append(ids, m.ID)
				fmt.Printf("ACK ADD %s %s\n", m.ID, hashes[i])
			}
		case k < 9: // rewrite a message's text
			index := rng.IntN(len(ids))
			mes := text(op)
			h := hashText(mes)
			fmt.Printf("TRY UPD %s %s\n", ids[index], h)
			if _, err := invoke("chat.updateMessages", chatID, map[string]any{"index": index, "patch": map[string]any{"mes": mes}}); err != nil {
				return fmt.Errorf("op %d: updateMessages: %w", op, err)
			}
			fmt.Printf("ACK UPD %s %s\n", ids[index], h)
		default: // delete a message other than the greeting
			index := 1 + rng.IntN(len(ids)-1)
			id := ids[index]
			fmt.Printf("TRY DEL %s\n", id)
			out, err := invoke("chat.deleteMessages", chatID, index)
			if err != nil {
				return fmt.Errorf("op %d: deleteMessages: %w", op, err)
			}
			var gone rigMessage
			if err := json.Unmarshal(out, &gone); err != nil || gone.ID != id {
				return fmt.Errorf("op %d: deleteMessages(%d) returned %s, want message %s", op, index, out, id)
			}
			ids = append(ids[:index], ids[index+1:]...)
			fmt.Printf("ACK DEL %s\n", id)
		}
	}
	return errors.Join(errors.New("ran out of time without being killed"), a.Close())
}

var crashWords = strings.Fields(`ember lantern harbor willow thistle cinder meadow quartz
	river hollow saffron tether bramble falcon juniper marrow velvet copper drift
	— «ключ» 灯笼 ünïcödé "quoted" tab	separated`)
