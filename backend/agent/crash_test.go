package agent_test

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"hearth/backend/app"
	pt "hearth/backend/providers/providertest"
)

// Environment of the crash child (TestAgentCrashChild).
const (
	agentCrashChild = "HEARTH_AGENT_CRASH_CHILD"
	agentCrashDir   = "HEARTH_AGENT_CRASH_DIR"
	agentCrashChat  = "HEARTH_AGENT_CRASH_CHAT"
)

// TestAgentKilledMidRun kills a process with SIGKILL while its run waits
// on the model, after the run wrote a file. After a restart the run is
// interrupted (with its run_interrupted event after the ones it had), its
// workspace and checkpoints are intact, and a new run can start.
func TestAgentKilledMidRun(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	r.model.Push(
		round("", call{"workspace_write_file", map[string]any{"path": "scratch/plan.md", "content": "Step one: the lantern."}}),
		pt.Script{Chunks: []pt.Chunk{pt.Text("Halfway")}, Stall: true},
	)
	_ = r.app.Close()

	cmd := exec.Command(os.Args[0], "-test.run=^TestAgentCrashChild$", "-test.v")
	cmd.Env = append(os.Environ(), agentCrashChild+"=1", agentCrashDir+"="+r.dir, agentCrashChat+"="+r.chatID)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.AfterFunc(60*time.Second, func() { _ = cmd.Process.Kill() })
	defer deadline.Stop()
	var runID string
	stallBy := time.Now().Add(30 * time.Second)
	lines := bufio.NewScanner(out)
	for lines.Scan() {
		if id, ok := strings.CutPrefix(lines.Text(), "WAITING "); ok {
			runID = id
			break
		}
	}
	if runID == "" {
		_ = cmd.Wait()
		t.Fatal("the child never reached the stalled model call")
	}
	// model_request_created is stored before the request is sent: kill
	// only once the stalled request has reached the server, or the stall
	// script would be left for the run after the restart.
	for ; posts(r.model.Requests()) < 2; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(stallBy) {
			t.Fatal("the child's second model request never reached the server")
		}
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()

	r.open()
	var run struct {
		Status string `json:"status"`
		Error  struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	r.call(&run, "agent.getRun", runID)
	if run.Status != "interrupted" || run.Error.Code != "agent.interrupted" {
		t.Fatalf("after the restart the run is %+v", run)
	}
	evs := r.events(runID)
	got := types(evs)
	if got[len(got)-1] != "run_interrupted" || !slices.Contains(got, "workspace_file_written") || !slices.Contains(got, "model_request_created") {
		t.Fatalf("events after the restart: %v", got)
	}
	for i, e := range evs {
		if e.Seq != int64(i+1) {
			t.Fatalf("seq %d at position %d", e.Seq, i)
		}
	}
	var file struct {
		Text string `json:"text"`
	}
	r.call(&file, "agent.readWorkspaceFile", map[string]any{"runId": runID, "path": "scratch/plan.md"})
	if file.Text != "Step one: the lantern." {
		t.Fatalf("the workspace file reads %q", file.Text)
	}
	if _, err := os.Stat(filepath.Join(r.dir, "agent", "blobs")); err != nil {
		t.Fatal(err)
	}
	r.model.Push(pt.Script{Status: 400, Body: `{"error":{"message":"no"}}`})
	h := r.start(nil)
	r.waitStatus(h.RunID, "failed")
}

// posts counts the model calls among reqs.
func posts(reqs []pt.Request) int {
	n := 0
	for _, q := range reqs {
		if q.Method == "POST" {
			n++
		}
	}
	return n
}

// TestAgentCrashChild is the process TestAgentKilledMidRun kills: it
// starts a run and reports when the run waits on the stalled model.
func TestAgentCrashChild(t *testing.T) {
	if os.Getenv(agentCrashChild) != "1" {
		t.Skip("the child of TestAgentKilledMidRun")
	}
	a, err := app.Open(t.Context(), os.Getenv(agentCrashDir))
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal([]any{map[string]any{"chatId": os.Getenv(agentCrashChat)}})
	res, err := a.Router.Invoke(t.Context(), "agent.startRunFromLegacyGenerate", raw)
	if err != nil {
		t.Fatal(err)
	}
	var h struct {
		RunID string `json:"runId"`
	}
	_ = json.Unmarshal(res, &h)
	for {
		raw, _ := json.Marshal([]any{map[string]any{"runId": h.RunID, "limit": 1000}})
		res, err := a.Router.Invoke(t.Context(), "agent.readEvents", raw)
		if err != nil {
			t.Fatal(err)
		}
		var page struct {
			Events []event `json:"events"`
		}
		_ = json.Unmarshal(res, &page)
		n := 0
		for _, e := range page.Events {
			if e.Type == "model_request_created" {
				n++
			}
		}
		if n == 2 {
			// The second request is the stalled one.
			os.Stdout.WriteString("WAITING " + h.RunID + "\n")
			select {}
		}
		time.Sleep(5 * time.Millisecond)
	}
}
