package runstore

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"

	"hearth/backend/apperr"
	"hearth/backend/store"
)

func TestCreateStoresRunAndFirstEvent(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	pid := "default-writer"
	r, ev, err := f.s.Create(f.ctx, Run{ChatID: "chat-1", WorkspaceID: "ws_1", ProfileID: &pid, GenerationType: "swipe", Presentation: "background",
		Snapshot: json.RawMessage(`{"a":1}`)}, EventInput{Type: "run_created", Payload: map[string]any{"html": "<b>&</b>"}})
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^run_[0-9a-f-]{36}$`).MatchString(r.ID) {
		t.Errorf("run id = %q", r.ID)
	}
	if r.Status != StatusCreated || r.LastSeq != 1 || r.CreatedMs != 1_700_000_000_000 || r.EndedMs != nil || string(r.Commits) != "[]" {
		t.Errorf("run = %+v", r)
	}
	want := Event{Seq: 1, ID: r.ID + ":1", RunID: r.ID, Timestamp: "2023-11-14T22:13:20.000Z", Level: LevelInfo, Type: "run_created",
		Payload: json.RawMessage(`{"html":"<b>&</b>"}`)}
	if fmt.Sprint(ev) != fmt.Sprint(want) {
		t.Errorf("event = %+v\nwant    %+v", ev, want)
	}
	got, err := f.s.Get(f.ctx, r.ID)
	if err != nil {
		t.Fatal(err)
	}
	if string(got.Snapshot) != `{"a":1}` || string(got.Profile) != `{}` || *got.ProfileID != pid || got.Presentation != "background" {
		t.Errorf("Get = %+v", got)
	}
	events, _, err := f.s.Events(f.ctx, r.ID, 0, nil, 0)
	if err != nil || len(events) != 1 || fmt.Sprint(events[0]) != fmt.Sprint(want) {
		t.Fatalf("Events = %+v, %v", events, err)
	}
	b, _ := json.Marshal(r.Summary())
	for _, key := range []string{`"runId":`, `"stableChatId":"chat-1"`, `"usage":{"inputTokens":0,"outputTokens":0}`, `"lastSeq":1`, `"endedMs":null`} {
		if !strings.Contains(string(b), key) {
			t.Errorf("summary %s lacks %s", b, key)
		}
	}
}

func TestCreateRefusesBadInput(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	taken := f.newRun(t, "chat-1")
	good := func() Run {
		return Run{ChatID: "chat-1", WorkspaceID: "ws_1", GenerationType: "normal", Presentation: "foreground"}
	}
	long := strings.Repeat("x", 300)
	for name, tc := range map[string]struct {
		edit  func(r *Run, ev *EventInput)
		field string
	}{
		"no chat":             {func(r *Run, _ *EventInput) { r.ChatID = "" }, "chatId"},
		"chat too long":       {func(r *Run, _ *EventInput) { r.ChatID = long }, "chatId"},
		"control in id":       {func(r *Run, _ *EventInput) { r.ID = "run_\n" }, "runId"},
		"taken id":            {func(r *Run, _ *EventInput) { r.ID = taken.ID }, "runId"},
		"no workspace":        {func(r *Run, _ *EventInput) { r.WorkspaceID = "" }, "workspaceId"},
		"empty profile id":    {func(r *Run, _ *EventInput) { e := ""; r.ProfileID = &e }, "profileId"},
		"unknown status":      {func(r *Run, _ *EventInput) { r.Status = "running" }, "status"},
		"terminal status":     {func(r *Run, _ *EventInput) { r.Status = StatusCompleted }, "status"},
		"snapshot not object": {func(r *Run, _ *EventInput) { r.Snapshot = json.RawMessage(`[1]`) }, "snapshot"},
		"profile not json":    {func(r *Run, _ *EventInput) { r.Profile = json.RawMessage(`{`) }, "profile"},
		"no event type":       {func(_ *Run, ev *EventInput) { ev.Type = "" }, "type"},
		"event type upper":    {func(_ *Run, ev *EventInput) { ev.Type = "RunCreated" }, "type"},
		"unknown level":       {func(_ *Run, ev *EventInput) { ev.Level = "fatal" }, "level"},
		"payload not object":  {func(_ *Run, ev *EventInput) { ev.Payload = []int{1} }, "payload"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r, ev := good(), EventInput{Type: "run_created"}
			tc.edit(&r, &ev)
			_, _, err := f.s.Create(f.ctx, r, ev)
			wantCode(t, err, apperr.CodeInvalidArgument)
			if got := apperr.As(err).Details["field"]; got != tc.field {
				t.Errorf("details.field = %v, want %s", got, tc.field)
			}
		})
	}
	runs, err := f.s.List(f.ctx, ListFilter{})
	if err != nil || len(runs) != 1 {
		t.Fatalf("List after refusals = %d runs, %v", len(runs), err)
	}
}

func TestAppendSeqHasNoGapsUnderConcurrentAppenders(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	r := f.newRun(t, "chat-1")
	const writers, each = 8, 200
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				ev, _, err := f.s.Append(f.ctx, r.ID, EventInput{Type: "model_delta", Payload: map[string]any{"w": w, "i": i}}, Change{})
				if err != nil {
					errs <- err
					return
				}
				if ev.ID != fmt.Sprintf("%s:%d", r.ID, ev.Seq) {
					errs <- fmt.Errorf("event id %q for seq %d", ev.ID, ev.Seq)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	events, hasMore, err := f.s.Events(f.ctx, r.ID, 0, nil, MaxEventsLimit)
	if err != nil {
		t.Fatal(err)
	}
	more, hasMore2, err := f.s.Events(f.ctx, r.ID, events[len(events)-1].Seq, nil, MaxEventsLimit)
	if err != nil || !hasMore || hasMore2 {
		t.Fatalf("paging: hasMore %v then %v, %v", hasMore, hasMore2, err)
	}
	events = append(events, more...)
	if len(events) != 1+writers*each {
		t.Fatalf("%d events, want %d", len(events), 1+writers*each)
	}
	seen := map[string]bool{}
	for i, ev := range events {
		if ev.Seq != int64(i+1) {
			t.Fatalf("event %d has seq %d", i, ev.Seq)
		}
		if i > 0 {
			seen[string(ev.Payload)] = true
		}
	}
	if len(seen) != writers*each {
		t.Fatalf("%d distinct appended payloads, want %d", len(seen), writers*each)
	}
	got, err := f.s.Get(f.ctx, r.ID)
	if err != nil || got.LastSeq != 1+writers*each {
		t.Fatalf("last_seq = %d, %v", got.LastSeq, err)
	}
}

func TestAppendRefusals(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	live := f.newRun(t, "chat-1")
	ended := map[string]Run{}
	for _, st := range []string{StatusCompleted, StatusCancelled, StatusFailed, StatusInterrupted} {
		r := f.newRun(t, "chat-1")
		ended[st] = f.setStatus(t, r.ID, st)
	}
	bad := "{"
	type appendCase struct {
		name  string
		runID string
		ch    Change
		ev    EventInput
		code  string
	}
	cases := []appendCase{
		{name: "unknown run", runID: "run_nope", code: CodeRunNotFound},
		{name: "control in run id", runID: "run_\x00", code: apperr.CodeInvalidArgument},
		{name: "run id too long", runID: "run_" + strings.Repeat("a", 200), code: apperr.CodeInvalidArgument},
		{name: "unknown status", runID: live.ID, ch: Change{Status: "paused"}, code: apperr.CodeInvalidArgument},
		{name: "bad pending", runID: live.ID, ch: Change{Pending: json.RawMessage(bad)}, code: apperr.CodeInvalidArgument},
		{name: "commits not array", runID: live.ID, ch: Change{Commits: json.RawMessage(`{}`)}, code: apperr.CodeInvalidArgument},
		{name: "negative usage", runID: live.ID, ch: Change{AddUsage: &Usage{InputTokens: -1}}, code: apperr.CodeInvalidArgument},
		{name: "negative rounds", runID: live.ID, ch: Change{AddRounds: -1}, code: apperr.CodeInvalidArgument},
		{name: "payload not json", runID: live.ID, ev: EventInput{Payload: json.RawMessage(`{"a":`)}, code: apperr.CodeInvalidArgument},
		{name: "payload a string", runID: live.ID, ev: EventInput{Payload: "text"}, code: apperr.CodeInvalidArgument},
	}
	for st, r := range ended {
		cases = append(cases,
			appendCase{name: "ended " + st, runID: r.ID, code: CodeRunNotActive},
			appendCase{name: "ended " + st + " reopened", runID: r.ID, ch: Change{AllowTerminal: true, Status: StatusCallingModel}, code: CodeRunNotActive},
		)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if tc.ev.Type == "" {
				tc.ev.Type = "tool_call_requested"
			}
			_, _, err := f.s.Append(f.ctx, tc.runID, tc.ev, tc.ch)
			wantCode(t, err, tc.code)
		})
	}
	t.Run("nothing written", func(t *testing.T) {
		t.Parallel()
		got, err := f.s.Get(f.ctx, live.ID)
		if err != nil || got.LastSeq != 1 || got.Status != StatusCreated {
			t.Fatalf("live run after refusals: %+v, %v", got, err)
		}
	})
}

func TestAppendAllowTerminalRecordsOnEndedRun(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	r := f.newRun(t, "chat-1")
	f.clock.set(1_700_000_000_500)
	done := f.setStatus(t, r.ID, StatusCompleted)
	if done.EndedMs == nil || *done.EndedMs != 1_700_000_000_500 {
		t.Fatalf("ended_ms = %v", done.EndedMs)
	}
	f.clock.set(1_700_000_009_000)
	ev, after, err := f.s.Append(f.ctx, r.ID, EventInput{Type: "rollback_completed"}, Change{AllowTerminal: true})
	if err != nil {
		t.Fatal(err)
	}
	if ev.Seq != 3 || after.Status != StatusCompleted || *after.EndedMs != 1_700_000_000_500 || after.UpdatedMs != 1_700_000_009_000 {
		t.Fatalf("event %+v, run %+v", ev, after)
	}
	// Restating the status the run has is no change; another status is.
	if _, _, err = f.s.Append(f.ctx, r.ID, EventInput{Type: "x"}, Change{AllowTerminal: true, Status: StatusCompleted}); err != nil {
		t.Fatal(err)
	}
	_, _, err = f.s.Append(f.ctx, r.ID, EventInput{Type: "x"}, Change{AllowTerminal: true, Status: StatusFailed})
	wantCode(t, err, CodeRunNotActive)
}

func TestAppendAppliesChange(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	msgID := "msg-uuid"
	steps := []struct {
		name  string
		ch    Change
		check func(r Run) bool
	}{
		{"status", Change{Status: StatusCallingModel}, func(r Run) bool { return r.Status == StatusCallingModel && r.EndedMs == nil }},
		{"usage and rounds", Change{AddUsage: &Usage{InputTokens: 100, OutputTokens: 20}, AddRounds: 1},
			func(r Run) bool { return r.InputTokens == 100 && r.OutputTokens == 20 && r.Rounds == 1 }},
		{"usage adds up", Change{AddUsage: &Usage{InputTokens: 5, OutputTokens: 1}, AddRounds: 1, AddCalls: 2},
			func(r Run) bool { return r.InputTokens == 105 && r.OutputTokens == 21 && r.Rounds == 2 && r.Calls == 2 }},
		{"pending", Change{Status: StatusAwaitingApproval, Pending: json.RawMessage(`{"callId":"c1","tool":"workspace.write_file","args":{}}`)},
			func(r Run) bool {
				return r.Status == StatusAwaitingApproval && strings.Contains(string(r.Pending), `"c1"`)
			}},
		{"unrelated change keeps pending", Change{AddCalls: 1}, func(r Run) bool { return r.Pending != nil && r.Calls == 3 }},
		{"clear pending wins", Change{Status: StatusDispatchingTool, ClearPending: true, Pending: json.RawMessage(`{"x":1}`)},
			func(r Run) bool { return r.Pending == nil && r.Status == StatusDispatchingTool }},
		{"commit", Change{Commits: json.RawMessage(`[{"commitId":"k1"}]`), CommitMessageID: &msgID},
			func(r Run) bool { return string(r.Commits) == `[{"commitId":"k1"}]` && *r.CommitMessageID == msgID }},
		{"fail", Change{Status: StatusFailed, Error: apperr.New("model.request_failed", "boom")},
			func(r Run) bool {
				return r.Status == StatusFailed && r.Error.Code == "model.request_failed" && r.EndedMs != nil && r.Rounds == 2
			}},
	}
	r := f.newRun(t, "chat-1")
	for i, st := range steps {
		ev, run, err := f.s.Append(f.ctx, r.ID, EventInput{Type: "step"}, st.ch)
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if ev.Seq != int64(i+2) || run.LastSeq != ev.Seq || !st.check(run) {
			t.Fatalf("%s: event seq %d, run %+v", st.name, ev.Seq, run)
		}
		got, err := f.s.Get(f.ctx, r.ID)
		if err != nil || !st.check(got) || got.LastSeq != run.LastSeq {
			t.Fatalf("%s: Get = %+v, %v", st.name, got, err)
		}
	}
}

func TestAppendTxRollsBackWithTheCaller(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	r := f.newRun(t, "chat-1")
	boom := errors.New("chat commit failed")
	published := false
	err := f.db.InTx(f.ctx, func(tx *store.Tx) error {
		ev, _, err := f.s.AppendTx(f.ctx, tx, r.ID, EventInput{Type: "chat_commit_completed"}, Change{Status: StatusCommitting})
		if err != nil {
			return err
		}
		tx.AfterCommit(func() { published = ev.Seq > 0 })
		return boom
	})
	if !errors.Is(err, boom) || published {
		t.Fatalf("InTx = %v, published %v", err, published)
	}
	got, err := f.s.Get(f.ctx, r.ID)
	if err != nil || got.LastSeq != 1 || got.Status != StatusCreated {
		t.Fatalf("after rollback: %+v, %v", got, err)
	}
	ev, _, err := f.s.Append(f.ctx, r.ID, EventInput{Type: "next"}, Change{})
	if err != nil || ev.Seq != 2 {
		t.Fatalf("next append: seq %d, %v", ev.Seq, err)
	}
}

func TestPayloadIsBounded(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	r := f.newRun(t, "chat-1")
	// {"t":"…"} is 8 bytes around the text.
	atLimit := map[string]string{"t": strings.Repeat("a", MaxPayloadBytes-8)}
	over := map[string]string{"t": strings.Repeat("a", MaxPayloadBytes-7)}
	ev, _, err := f.s.Append(f.ctx, r.ID, EventInput{Type: "model_completed", Payload: atLimit}, Change{})
	if err != nil || len(ev.Payload) != MaxPayloadBytes {
		t.Fatalf("payload at the limit: %d bytes, %v", len(ev.Payload), err)
	}
	_, _, err = f.s.Append(f.ctx, r.ID, EventInput{Type: "model_completed", Payload: over}, Change{})
	wantCode(t, err, apperr.CodeInvalidArgument)
	if d := apperr.As(err).Details; d["bytes"] != MaxPayloadBytes+1 || d["maxBytes"] != MaxPayloadBytes || d["field"] != "payload" {
		t.Fatalf("details = %v", d)
	}
	ev, _, err = f.s.Append(f.ctx, r.ID, EventInput{Type: "empty"}, Change{})
	if err != nil || string(ev.Payload) != "{}" {
		t.Fatalf("nil payload = %s, %v", ev.Payload, err)
	}
	ev, _, err = f.s.Append(f.ctx, r.ID, EventInput{Type: "raw", Payload: json.RawMessage(" { \"a\" : 1 } ")}, Change{})
	if err != nil || string(ev.Payload) != `{"a":1}` {
		t.Fatalf("raw payload = %s, %v", ev.Payload, err)
	}
	got, err := f.s.Get(f.ctx, r.ID)
	if err != nil || got.LastSeq != 4 {
		t.Fatalf("last_seq = %d, %v (the refused payload must take no seq)", got.LastSeq, err)
	}
}

func TestInterruptEndsUnfinishedRuns(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	statuses := []string{StatusCreated, StatusCallingModel, StatusAwaitingApproval, StatusCompleted, StatusFailed, StatusCancelled, StatusInterrupted}
	runs := map[string]Run{}
	for i, st := range statuses {
		f.clock.set(1_700_000_000_000 + int64(i))
		r := f.newRun(t, "chat-1")
		if st != StatusCreated {
			ch := Change{Status: st}
			if st == StatusAwaitingApproval {
				ch.Pending = json.RawMessage(`{"callId":"c1","tool":"workspace.write_file","args":{}}`)
			}
			if _, _, err := f.s.Append(f.ctx, r.ID, EventInput{Type: "status"}, ch); err != nil {
				t.Fatal(err)
			}
		}
		runs[st] = r
	}
	f.clock.set(1_700_000_100_000)
	events, err := f.s.Interrupt(f.ctx)
	if err != nil {
		t.Fatal(err)
	}
	var prev []string
	for _, ev := range events {
		var p struct{ PreviousStatus string }
		if err := json.Unmarshal(ev.Payload, &p); err != nil || ev.Type != "run_interrupted" || ev.Level != LevelWarn {
			t.Fatalf("event %+v", ev)
		}
		prev = append(prev, p.PreviousStatus)
	}
	if strings.Join(prev, ",") != "created,calling_model,awaiting_approval" {
		t.Fatalf("interrupted runs were %v", prev)
	}
	for st, r := range runs {
		got, err := f.s.Get(f.ctx, r.ID)
		if err != nil {
			t.Fatal(err)
		}
		if Terminal(st) {
			if got.Status != st || got.UpdatedMs == 1_700_000_100_000 {
				t.Errorf("%s run was touched: %+v", st, got)
			}
			continue
		}
		if got.Status != StatusInterrupted || got.Error == nil || got.Error.Code != CodeInterrupted ||
			got.EndedMs == nil || *got.EndedMs != 1_700_000_100_000 {
			t.Errorf("%s run after Interrupt: %+v", st, got)
		}
		if st == StatusAwaitingApproval && got.Pending == nil {
			t.Errorf("interrupted approval lost its pending call")
		}
	}
	again, err := f.s.Interrupt(f.ctx)
	if err != nil || len(again) != 0 {
		t.Fatalf("second Interrupt = %d events, %v", len(again), err)
	}
}
