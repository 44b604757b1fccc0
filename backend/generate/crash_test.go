package generate_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"hearth/backend/app"
	"hearth/backend/events"
	pt "hearth/backend/providers/providertest"
)

// Environment of the crash child (TestGenerationCrashChild).
const (
	genCrashChild = "HEARTH_GEN_CRASH_CHILD"
	genCrashDir   = "HEARTH_GEN_CRASH_DIR"
	genCrashChat  = "HEARTH_GEN_CRASH_CHAT"
)

// TestGenerationKilledMidStream kills a process with SIGKILL while a reply
// streams into it. After a restart the chat holds no part of the reply,
// and the generation is reported failed (generate.interrupted).
func TestGenerationKilledMidStream(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	srv := pt.NewOpenAI()
	t.Cleanup(srv.Close)
	srv.Push(pt.Script{Chunks: []pt.Chunk{pt.Text("Half a "), pt.Text("reply")}, Stall: true})

	ctx := context.Background()
	a, err := app.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	call := func(a *app.App, dst any, method string, args ...any) {
		t.Helper()
		raw, _ := json.Marshal(args)
		out, err := a.Router.Invoke(ctx, method, raw)
		if err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		if dst != nil {
			if err := json.Unmarshal(out, dst); err != nil {
				t.Fatal(err)
			}
		}
	}
	var card, chat, conn map[string]any
	call(a, &card, "characters.create", map[string]any{"name": "Seraphina", "first_mes": "Hello."})
	call(a, &chat, "chat.create", map[string]any{"avatar": card["avatar"]})
	chatID := chat["chatId"].(string)
	call(a, nil, "chat.addMessages", chatID, map[string]any{"is_user": true, "mes": "Tell me a story."})
	call(a, &conn, "connections.save", map[string]any{"name": "S", "provider": "openai-compatible", "baseUrl": srv.URL, "model": "m", "apiKey": "k"})
	call(a, nil, "connections.select", conn["id"])
	var before []map[string]any
	call(a, &before, "chat.getStMessages", chatID)
	a.Close()

	cmd := exec.Command(os.Args[0], "-test.run=^TestGenerationCrashChild$", "-test.v")
	cmd.Env = append(os.Environ(), genCrashChild+"=1", genCrashDir+"="+dir, genCrashChat+"="+chatID)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var genID string
	lines := bufio.NewScanner(out)
	deadline := time.AfterFunc(60*time.Second, func() { _ = cmd.Process.Kill() })
	defer deadline.Stop()
	for lines.Scan() {
		if id, ok := strings.CutPrefix(lines.Text(), "STREAMING "); ok {
			genID = id
			break
		}
	}
	if genID == "" {
		t.Fatal("the child never reported a streaming generation")
	}
	if err := cmd.Process.Kill(); err != nil { // SIGKILL: no deferred cleanup runs
		t.Fatal(err)
	}
	_ = cmd.Wait()

	a, err = app.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	var after []map[string]any
	call(a, &after, "chat.getStMessages", chatID)
	if len(after) != len(before) || after[len(after)-1]["mes"] != "Tell me a story." {
		t.Fatalf("the chat changed across the kill: %d → %d messages, last %v", len(before), len(after), after[len(after)-1]["mes"])
	}
	var rec map[string]any
	call(a, &rec, "generate.status", genID)
	errObj, _ := rec["error"].(map[string]any)
	if rec["status"] != "failed" || errObj["code"] != "generate.interrupted" {
		t.Fatalf("after restart: %v", rec)
	}
}

// TestGenerationCrashChild is the process TestGenerationKilledMidStream
// kills: it starts a generation and reports once text is streaming.
func TestGenerationCrashChild(t *testing.T) {
	if os.Getenv(genCrashChild) != "1" {
		t.Skip("run by TestGenerationKilledMidStream")
	}
	ctx := context.Background()
	a, err := app.Open(ctx, os.Getenv(genCrashDir))
	if err != nil {
		t.Fatal(err)
	}
	streaming := make(chan string, 1)
	a.Bus.Subscribe(func(e events.Event) {
		if e.Type == events.StreamTokenReceived {
			select {
			case streaming <- e.Payload.(*events.StreamTokenPayload).GenerationID:
			default:
			}
		}
	})
	raw, _ := json.Marshal([]any{map[string]any{"chatId": os.Getenv(genCrashChat), "type": "normal"}})
	if _, err := a.Router.Invoke(ctx, "generate.start", raw); err != nil {
		t.Fatal(err)
	}
	fmt.Printf("STREAMING %s\n", <-streaming)
	time.Sleep(time.Minute) // killed long before this ends
}
