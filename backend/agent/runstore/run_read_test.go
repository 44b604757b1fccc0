package runstore

import (
	"strings"
	"testing"

	"hearth/backend/apperr"
)

func TestEventsPaging(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	r := f.newRun(t, "chat-1")
	for range 29 { // seq 2..30
		if _, _, err := f.s.Append(f.ctx, r.ID, EventInput{Type: "model_delta"}, Change{}); err != nil {
			t.Fatal(err)
		}
	}
	empty := f.newRun(t, "chat-2") // only its run_created
	for _, tc := range []struct {
		name           string
		runID          string
		after          int64
		before         *int64
		limit          int
		first, last, n int64
		hasMore        bool
	}{
		{name: "all", runID: r.ID, first: 1, last: 30, n: 30},
		{name: "limit", runID: r.ID, limit: 10, first: 1, last: 10, n: 10, hasMore: true},
		{name: "limit exactly the rest", runID: r.ID, after: 20, limit: 10, first: 21, last: 30, n: 10},
		{name: "after", runID: r.ID, after: 25, first: 26, last: 30, n: 5},
		{name: "after the last", runID: r.ID, after: 30},
		{name: "far after the last", runID: r.ID, after: 1 << 40},
		{name: "before", runID: r.ID, before: ptr[int64](4), first: 1, last: 3, n: 3},
		{name: "before 1", runID: r.ID, before: ptr[int64](1)},
		// A given 0 is a bound below every seq, not a missing one.
		{name: "before 0", runID: r.ID, before: ptr[int64](0)},
		{name: "before 0, limited", runID: r.ID, before: ptr[int64](0), limit: 5},
		{name: "between", runID: r.ID, after: 5, before: ptr[int64](9), first: 6, last: 8, n: 3},
		{name: "between, limited", runID: r.ID, after: 5, before: ptr[int64](9), limit: 2, first: 6, last: 7, n: 2, hasMore: true},
		{name: "between, limit reaches before", runID: r.ID, after: 5, before: ptr[int64](9), limit: 3, first: 6, last: 8, n: 3},
		{name: "adjacent bounds", runID: r.ID, after: 5, before: ptr[int64](6)},
		{name: "crossed bounds", runID: r.ID, after: 9, before: ptr[int64](5)},
		{name: "limit at the max", runID: r.ID, limit: MaxEventsLimit, first: 1, last: 30, n: 30},
		{name: "run with one event", runID: empty.ID, first: 1, last: 1, n: 1},
		{name: "run with one event, after it", runID: empty.ID, after: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			events, hasMore, err := f.s.Events(f.ctx, tc.runID, tc.after, tc.before, tc.limit)
			if err != nil {
				t.Fatal(err)
			}
			if events == nil || int64(len(events)) != tc.n || hasMore != tc.hasMore {
				t.Fatalf("%d events (nil %v), hasMore %v; want %d, %v", len(events), events == nil, hasMore, tc.n, tc.hasMore)
			}
			if tc.n > 0 && (events[0].Seq != tc.first || events[len(events)-1].Seq != tc.last) {
				t.Fatalf("seq %d..%d, want %d..%d", events[0].Seq, events[len(events)-1].Seq, tc.first, tc.last)
			}
		})
	}
	for _, tc := range []struct {
		name   string
		runID  string
		after  int64
		before *int64
		limit  int
		code   string
	}{
		{name: "unknown run", runID: "run_unknown", code: CodeRunNotFound},
		{name: "unknown run, empty window", runID: "run_unknown", after: 3, before: ptr[int64](4), code: CodeRunNotFound},
		{name: "empty run id", runID: "", code: apperr.CodeInvalidArgument},
		{name: "control chars", runID: "run_\x1b[2J", code: apperr.CodeInvalidArgument},
		{name: "huge run id", runID: strings.Repeat("r", 10_000), code: apperr.CodeInvalidArgument},
		{name: "negative after", runID: r.ID, after: -1, code: apperr.CodeInvalidArgument},
		{name: "negative before", runID: r.ID, before: ptr[int64](-1), code: apperr.CodeInvalidArgument},
		{name: "negative limit", runID: r.ID, limit: -1, code: apperr.CodeInvalidArgument},
		{name: "limit above the max", runID: r.ID, limit: MaxEventsLimit + 1, code: apperr.CodeInvalidArgument},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			events, _, err := f.s.Events(f.ctx, tc.runID, tc.after, tc.before, tc.limit)
			wantCode(t, err, tc.code)
			if events != nil {
				t.Fatalf("events with an error: %v", events)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

func TestEventsDefaultLimit(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	r := f.newRun(t, "chat-1")
	for range DefaultEventsLimit {
		if _, _, err := f.s.Append(f.ctx, r.ID, EventInput{Type: "model_delta"}, Change{}); err != nil {
			t.Fatal(err)
		}
	}
	events, hasMore, err := f.s.Events(f.ctx, r.ID, 0, nil, 0)
	if err != nil || len(events) != DefaultEventsLimit || !hasMore {
		t.Fatalf("%d events, hasMore %v, %v", len(events), hasMore, err)
	}
}

func TestList(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	// Six runs at ms 10..14 over two chats; the last two share ms 14 to
	// test the tie break.
	var ids []string
	for i, chat := range []string{"a", "b", "a", "b", "a", "a"} {
		f.clock.set(10 + int64(min(i, 4)))
		ids = append(ids, f.newRun(t, chat).ID)
	}
	f.setStatus(t, ids[0], StatusCompleted)
	f.setStatus(t, ids[2], StatusFailed)
	f.setStatus(t, ids[3], StatusCompleted)
	tieHigh, tieLow := ids[4], ids[5]
	if tieHigh < tieLow {
		tieHigh, tieLow = tieLow, tieHigh
	}
	for _, tc := range []struct {
		name   string
		filter ListFilter
		want   []string
	}{
		{"all newest first, ties by id", ListFilter{}, []string{tieHigh, tieLow, ids[3], ids[2], ids[1], ids[0]}},
		{"chat", ListFilter{ChatID: "b"}, []string{ids[3], ids[1]}},
		{"status", ListFilter{Status: StatusCompleted}, []string{ids[3], ids[0]}},
		{"chat and status", ListFilter{ChatID: "a", Status: StatusCreated}, []string{tieHigh, tieLow}},
		{"limit", ListFilter{Limit: 2}, []string{tieHigh, tieLow}},
		{"before", ListFilter{BeforeCreatedMs: ptr(int64(13))}, []string{ids[2], ids[1], ids[0]}},
		{"before, chat, limit", ListFilter{BeforeCreatedMs: ptr(int64(14)), ChatID: "a", Limit: 1}, []string{ids[2]}},
		{"before the first", ListFilter{BeforeCreatedMs: ptr(int64(10))}, []string{}},
		// A given 0 is a bound no run was created before, not a missing one.
		{"before 0", ListFilter{BeforeCreatedMs: ptr(int64(0))}, []string{}},
		{"unknown chat", ListFilter{ChatID: "zzz"}, []string{}},
		{"limit at the max", ListFilter{Limit: MaxListLimit, Status: StatusFailed}, []string{ids[2]}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			runs, err := f.s.List(f.ctx, tc.filter)
			if err != nil {
				t.Fatal(err)
			}
			got := []string{}
			for _, r := range runs {
				got = append(got, r.ID)
				if r.Snapshot != nil || r.Profile != nil {
					t.Errorf("List carries snapshot or profile")
				}
			}
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Fatalf("got  %v\nwant %v", got, tc.want)
			}
		})
	}
	for name, filter := range map[string]ListFilter{
		"unknown status":  {Status: "running"},
		"control in chat": {ChatID: "a\nb"},
		"huge chat":       {ChatID: strings.Repeat("c", 1000)},
		"negative limit":  {Limit: -1},
		"limit above max": {Limit: MaxListLimit + 1},
		"negative before": {BeforeCreatedMs: ptr(int64(-5))},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := f.s.List(f.ctx, filter)
			wantCode(t, err, apperr.CodeInvalidArgument)
		})
	}
}

func TestGetUnknownRun(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	_, err := f.s.Get(f.ctx, "run_00000000-0000-0000-0000-000000000000")
	wantCode(t, err, CodeRunNotFound)
	_, err = f.s.Get(f.ctx, "run\x7f")
	wantCode(t, err, apperr.CodeInvalidArgument)
}
