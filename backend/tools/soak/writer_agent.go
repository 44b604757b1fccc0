package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
)

// agentWriter starts agent runs (agent.startRunFromLegacyGenerate, in
// the foreground) after a user message naming a task, and follows each
// (agent.getRun) until it ends. The scripted model writes
// output/main.md, then commits it to the chat and finishes. A run's key
// holds "ended" once started (after a restart no run may be left going)
// and "completed" once it was seen completed; a completed run's reply
// must hold agentText of its task, whole.
type agentWriter struct {
	l      *Ledger
	avatar string
	chats  []*msgChat
	runs   map[string]int // chat id → runs started there
	// task is each run's task; inFlight is the key of a start that got
	// no answer, per chat.
	task     map[string]string
	inFlight map[string]string
	seq      int
}

// agentRunsPerChat bounds the runs of one chat, below the 200 ended runs
// a chat keeps, so no run the soak checks is pruned.
const agentRunsPerChat = 120

// terminal are the statuses of a run that has ended.
var terminal = map[string]bool{"completed": true, "cancelled": true, "failed": true, "interrupted": true}

func newAgentWriter() *agentWriter {
	return &agentWriter{l: NewLedger(), runs: map[string]int{}, task: map[string]string{}, inFlight: map[string]string{}}
}

func (w *agentWriter) name() string    { return "agent runs" }
func (w *agentWriter) ledger() *Ledger { return w.l }

func agentRepliesOf(chat string) string { return "agent replies in " + chat }

const runsGroup = "runs"

func (w *agentWriter) setup(ctx context.Context, c *client) error {
	avatar, err := createCharacter(ctx, c, "Soak Agent")
	if err != nil {
		return err
	}
	w.avatar = avatar
	return w.newChat(ctx, c)
}

// newChat starts a chat for the next runs.
func (w *agentWriter) newChat(ctx context.Context, c *client) error {
	id, err := createChat(ctx, c, w.avatar)
	if err != nil {
		return err
	}
	w.chats = append(w.chats, &msgChat{id: id, index: map[string]int{}, low: 1})
	return nil
}

func (w *agentWriter) run(ctx context.Context, c *client, rng *rand.Rand) {
	for ctx.Err() == nil {
		ch := w.chats[len(w.chats)-1]
		if w.runs[ch.id] >= agentRunsPerChat {
			if err := w.newChat(ctx, c); err != nil {
				return
			}
			continue
		}
		if err := w.once(ctx, c, ch, rng); isNoAnswer(err) {
			return
		}
	}
}

// once asks for a task, starts a run for it and follows it to its end.
func (w *agentWriter) once(ctx context.Context, c *client, ch *msgChat, rng *rand.Rand) error {
	w.seq++
	key := fmt.Sprintf("ask-%d", w.seq)
	task := fmt.Sprintf("agent-task-%d", w.seq)
	text := fmt.Sprintf("%s: %s.", task, words(rng, 4+rng.IntN(10)))
	op := w.l.Begin(key, ch.id, Has(text))
	var idx []int
	err := c.call(ctx, &idx, "chat.addMessages", ch.id, []any{map[string]any{"is_user": true, "name": "User", "mes": text, "extra": map[string]any{"soak": key}}})
	if !outcome(w.l, err, []*Op{op}) {
		return err
	}
	if len(idx) == 1 {
		ch.index[key] = idx[0]
		ch.keys = append(ch.keys, key)
	}

	flight := fmt.Sprintf("start-call-%d", w.seq)
	fop := w.l.Begin(flight, "calls", Has("landed"))
	w.runs[ch.id]++
	var h struct {
		RunID string `json:"runId"`
	}
	err = c.call(ctx, &h, "agent.startRunFromLegacyGenerate", map[string]any{
		"chatId": ch.id, "generationType": "normal", "presentation": "foreground"})
	if err != nil {
		if !outcome(w.l, err, []*Op{fop}) && isNoAnswer(err) {
			w.inFlight[ch.id] = flight
			w.task[flight] = task
		}
		return err
	}
	fop.Fail() // settled: recorded under the run's own key
	runKey := "run/" + h.RunID
	w.task[runKey] = task
	outcome(w.l, nil, []*Op{w.l.Begin(runKey, runsGroup, Has("ended"))})

	// The run goes on by itself: its completion is a write in flight
	// until the soak sees it.
	done := w.l.Begin(runKey, runsGroup, Has("completed"))
	reply := w.l.Begin("reply/"+h.RunID, agentRepliesOf(ch.id), Has(agentText(task)))
	status, err := w.follow(ctx, c, h.RunID)
	switch {
	case status == "completed":
		outcome(w.l, nil, []*Op{done, reply})
	case status != "":
		w.l.Refused("run %s for %s ended %s", h.RunID, task, status)
		done.Fail()
		reply.Fail()
	default:
		done.Abandon()
		reply.Abandon()
	}
	return err
}

// follow polls a run until it ends and returns its status (with its
// error, if it has one), "" when it did not end within a minute.
func (w *agentWriter) follow(ctx context.Context, c *client, runID string) (string, error) {
	deadline := time.Now().Add(time.Minute)
	for {
		var r struct {
			Status string `json:"status"`
			Error  *struct {
				Code    string `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := c.call(ctx, &r, "agent.getRun", runID); err != nil {
			return "", err
		}
		if terminal[r.Status] {
			if r.Error != nil && r.Status != "completed" {
				return r.Status + " (" + r.Error.Code + ": " + clip(r.Error.Message, 200) + ")", nil
			}
			return r.Status, nil
		}
		if time.Now().After(deadline) {
			w.l.Note("run %s still %s after a minute", runID, r.Status)
			return "", nil
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(25 * time.Millisecond):
		}
	}
}

func (w *agentWriter) verify(ctx context.Context, c *client, full bool) error {
	for _, ch := range w.chats {
		start := ch.low
		if full {
			start = 0
		}
		if err := w.checkChat(ctx, c, ch, start, full); err != nil {
			return err
		}
	}
	for _, key := range w.l.Keys(runsGroup, !full) {
		got, err := w.runHolds(ctx, c, strings.TrimPrefix(key, "run/"))
		if err != nil {
			return err
		}
		w.l.Check(key, got)
	}
	return nil
}

// runHolds reads what a run's key holds: "completed", "ended" (another
// end), or nothing when the run is gone. A run still going after a
// restart is half ended.
func (w *agentWriter) runHolds(ctx context.Context, c *client, runID string) (Value, error) {
	var r struct {
		Status string `json:"status"`
	}
	err := c.call(ctx, &r, "agent.getRun", runID)
	switch {
	case codeOf(err) == "agent.run_not_found":
		return None, nil
	case err != nil:
		return None, fmt.Errorf("read run %s: %w", runID, err)
	case r.Status == "completed":
		return Has("completed"), nil
	case !terminal[r.Status]:
		w.l.Half("run %s is still %s after a restart", runID, r.Status)
	}
	return Has("ended"), nil
}

// checkChat checks ch's asks and the replies runs committed, from start,
// and settles the start call in flight at the last kill, if any.
func (w *agentWriter) checkChat(ctx context.Context, c *client, ch *msgChat, start int, full bool) error {
	msgs, err := checkAsks(ctx, c, w.l, ch, start, full)
	if err != nil {
		return err
	}
	found := map[string]string{}
	for i, m := range msgs {
		index := start + i
		if m.IsUser || index == 0 {
			continue
		}
		for s, text := range m.Swipes {
			runID := ""
			if s < len(m.SwipeInfo) {
				runID = m.SwipeInfo[s].Extra.Hearth.Agent.RunID
			}
			if runID == "" {
				w.l.Half("chat %s message %d swipe %d is a reply of no run", ch.id, index, s)
				continue
			}
			task := agentTask.FindString(text)
			if task == "" || text != agentText(task) {
				w.l.Half("chat %s message %d swipe %d is not a whole agent reply: %q", ch.id, index, s, clip(text, 80))
			}
			key := "reply/" + runID
			found[key] = text
			if !w.l.Known(key) {
				// The run committed, and the kill came before the soak
				// saw it complete: the reply stays from now on, and its
				// run must know it made it (a rollback reverts the
				// commits its run recorded).
				w.l.Adopt(key, agentRepliesOf(ch.id), Has(text))
				if err := w.checkCommitRecorded(ctx, c, runID, m.SwipeInfo[s].Extra.Hearth.Agent.CommitID); err != nil {
					return err
				}
			}
		}
	}
	for _, key := range w.l.Keys(agentRepliesOf(ch.id), !full) {
		got := None
		if text, ok := found[key]; ok {
			got = Has(text)
		}
		w.l.Check(key, got)
	}
	ch.low = start + len(msgs)
	if flight, ok := w.inFlight[ch.id]; ok {
		delete(w.inFlight, ch.id)
		return w.settleStart(ctx, c, ch, flight)
	}
	return nil
}

// settleStart looks for the run a start call in flight at a kill may
// have made: the newest run of the chat the soak does not know.
func (w *agentWriter) settleStart(ctx context.Context, c *client, ch *msgChat, flight string) error {
	var page struct {
		Runs []struct {
			RunID string `json:"runId"`
		} `json:"runs"`
	}
	if err := c.call(ctx, &page, "agent.listRuns", map[string]any{"chatId": ch.id, "limit": 5}); err != nil {
		return fmt.Errorf("list the runs of %s: %w", ch.id, err)
	}
	for _, r := range page.Runs {
		key := "run/" + r.RunID
		if w.l.Known(key) {
			continue
		}
		w.l.Check(flight, Has("landed"))
		got, err := w.runHolds(ctx, c, r.RunID)
		if err != nil {
			return err
		}
		w.task[key] = w.task[flight]
		w.l.Adopt(key, runsGroup, got)
		return nil
	}
	w.l.Check(flight, None)
	return nil
}

// checkCommitRecorded checks that run runID recorded commit commitID,
// whose reply is in the chat: its chat_commit_completed event.
func (w *agentWriter) checkCommitRecorded(ctx context.Context, c *client, runID, commitID string) error {
	after := int64(0)
	for {
		var page struct {
			Events []struct {
				Seq     int64  `json:"seq"`
				Type    string `json:"type"`
				Payload struct {
					CommitID string `json:"commitId"`
				} `json:"payload"`
			} `json:"events"`
			HasMore bool `json:"hasMore"`
		}
		err := c.call(ctx, &page, "agent.readEvents", map[string]any{"runId": runID, "afterSeq": after, "limit": 1000})
		if codeOf(err) == "agent.run_not_found" {
			w.l.Half("run %s committed a reply (commit %s) and is gone", runID, commitID)
			return nil
		}
		if err != nil {
			return fmt.Errorf("read the events of run %s: %w", runID, err)
		}
		for _, e := range page.Events {
			if e.Type == "chat_commit_completed" && e.Payload.CommitID == commitID {
				return nil
			}
			after = e.Seq
		}
		if !page.HasMore || len(page.Events) == 0 {
			w.l.Half("run %s: its reply (commit %s) is in the chat, but the run has no chat_commit_completed for it", runID, commitID)
			return nil
		}
	}
}
