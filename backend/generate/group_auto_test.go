package generate

import (
	"context"
	"testing"
	"time"

	"hearth/backend/apperr"
	"hearth/backend/characters"
	"hearth/backend/chats"
	"hearth/backend/events"
	"hearth/backend/groups"
	"hearth/backend/jsonx"
	pt "hearth/backend/providers/providertest"
)

// newAutoRig is a group rig where only Ann speaks (list, Bob and Cid
// muted, Ann may answer herself), so each auto turn is one reply of hers,
// and auto mode waits wait between turns instead of seconds.
func newAutoRig(t *testing.T, wait time.Duration) *groupRig {
	t.Helper()
	g := newGroupRig(t, map[string]any{"activation_strategy": groups.List, "allow_self_responses": true})
	if _, err := g.groups.Update(context.Background(), g.groupID, jsonObject(map[string]any{"disabled_members": []string{g.bob, g.cid}})); err != nil {
		t.Fatal(err)
	}
	g.gen.auto.delay = func(int) time.Duration { return wait }
	return g
}

// autoOn turns auto mode on and returns its loop.
func (g *groupRig) autoOn() *autoLoop {
	g.t.Helper()
	got, err := g.gen.SetAutoMode(context.Background(), g.chatID, true)
	if err != nil {
		g.t.Fatal(err)
	}
	if *got != (AutoMode{ChatID: g.chatID, On: true, DelaySeconds: groups.DefaultAutoModeDelay}) {
		g.t.Fatalf("setAutoMode answered %+v", got)
	}
	g.gen.auto.mu.Lock()
	defer g.gen.auto.mu.Unlock()
	return g.gen.auto.loops[g.chatID]
}

// count counts the events of typ so far.
func (g *groupRig) count(typ string) int {
	n := 0
	for _, e := range g.rec.all() {
		if e.Type == typ {
			n++
		}
	}
	return n
}

// waitCount waits until n events of typ have arrived.
func (g *groupRig) waitCount(typ string, n int) {
	g.t.Helper()
	deadline := time.After(20 * time.Second)
	for g.count(typ) < n {
		select {
		case <-g.rec.ch:
		case <-deadline:
			g.t.Fatalf("%d %s events, want %d; got %v", g.count(typ), typ, n, g.rec.types())
		}
	}
}

// autoChanges lists the GROUP_AUTO_MODE_CHANGED payloads so far.
func (g *groupRig) autoChanges() []events.GroupAutoModePayload {
	var out []events.GroupAutoModePayload
	for _, e := range g.rec.all() {
		if e.Type == events.GroupAutoModeChanged {
			out = append(out, *e.Payload.(*events.GroupAutoModePayload))
		}
	}
	return out
}

// waitChanges waits for n GROUP_AUTO_MODE_CHANGED events and lists them.
func (g *groupRig) waitChanges(n int) []events.GroupAutoModePayload {
	g.t.Helper()
	g.waitCount(events.GroupAutoModeChanged, n)
	return g.autoChanges()
}

// waitDone waits for l's goroutine to return, and for the recorder to
// have every event published until then.
func (g *groupRig) waitDone(l *autoLoop) {
	g.t.Helper()
	select {
	case <-l.done:
	case <-time.After(20 * time.Second):
		g.t.Fatal("the auto mode loop did not end")
	}
	g.flush()
}

// TestAutoModeRepeatsUntilOff: turns come one after another while auto
// mode is on, each a group turn written as Ann's reply; turning it off
// ends the loop, after which no turn starts.
func TestAutoModeRepeatsUntilOff(t *testing.T) {
	t.Parallel()
	g := newAutoRig(t, time.Millisecond)
	for i := 0; i < 50; i++ {
		g.push("Again.")
	}
	before := len(g.messages())
	l := g.autoOn()
	g.waitCount(events.GroupWrapperEnded, 3)
	got, err := g.gen.SetAutoMode(context.Background(), g.chatID, false)
	if err != nil || got.On {
		t.Fatalf("off: %+v, %v", got, err)
	}
	g.waitDone(l)
	turns := g.count(events.GroupWrapperStarted)
	if ended := g.count(events.GroupWrapperEnded); ended != turns {
		t.Fatalf("%d turns started, %d ended after the loop ended", turns, ended)
	}
	msgs := g.messages()
	if len(msgs)-before != turns || turns < 3 {
		t.Fatalf("%d turns wrote %d messages", turns, len(msgs)-before)
	}
	for _, m := range msgs[before:] {
		if _, avatar, _ := speakerOf(t, m); avatar != g.ann || m.Mes() != "Again." {
			t.Fatalf("an auto reply by %q: %q", avatar, m.Mes())
		}
	}
	ch := g.waitChanges(2)
	if len(ch) != 2 || !ch[0].On || ch[1].On || ch[0].Reason != "set" || ch[1].Reason != "set" ||
		ch[0].GroupID != g.groupID || ch[1].DelaySeconds != groups.DefaultAutoModeDelay {
		t.Fatalf("auto mode changes: %+v", ch)
	}
	if st, _ := g.gen.AutoModeOf(context.Background(), g.chatID); st.On {
		t.Fatal("autoMode says on after off")
	}
	// Off again, and on twice: only changes are announced.
	if _, err := g.gen.SetAutoMode(context.Background(), g.chatID, false); err != nil {
		t.Fatal(err)
	}
	g.gen.auto.delay = func(int) time.Duration { return time.Hour }
	g.autoOn()
	g.autoOn()
	if st, _ := g.gen.AutoModeOf(context.Background(), g.chatID); !st.On {
		t.Fatal("autoMode says off after on")
	}
	g.waitCount(events.GroupAutoModeChanged, 3)
	if n := len(g.autoChanges()); n != 3 {
		t.Fatalf("%d auto mode changes, want 3", n)
	}
}

// TestAutoModeStopsOnUserMessage: a user's message ends auto mode
// (user_message); the turn under way may finish, no other starts.
func TestAutoModeStopsOnUserMessage(t *testing.T) {
	t.Parallel()
	g := newAutoRig(t, time.Millisecond)
	for i := 0; i < 50; i++ {
		g.push("More.")
	}
	l := g.autoOn()
	g.waitCount(events.GroupWrapperEnded, 2)
	g.say("Enough, thank you.")
	g.waitDone(l)
	turns := g.count(events.GroupWrapperStarted)
	if g.count(events.GroupWrapperEnded) != turns {
		t.Fatal("a turn is still running after the loop ended")
	}
	ch := g.waitChanges(2)
	if len(ch) != 2 || ch[1].On || ch[1].Reason != "user_message" || ch[1].ChatID != g.chatID {
		t.Fatalf("auto mode changes: %+v", ch)
	}
	// A member's message does not stop it.
	g.gen.auto.delay = func(int) time.Duration { return time.Hour }
	l = g.autoOn()
	g.speak(g.bob, "Bob", "I am here too.")
	g.say("Hi.")
	g.waitDone(l)
	if ch := g.waitChanges(4); len(ch) != 4 || ch[3].Reason != "user_message" {
		t.Fatalf("auto mode changes: %+v", ch)
	}
}

// TestAutoModeStopsOnFailure: a turn that fails ends auto mode with its
// error, after the failed generation's own GENERATION_ENDED, and is not
// tried again.
func TestAutoModeStopsOnFailure(t *testing.T) {
	t.Parallel()
	g := newAutoRig(t, time.Millisecond)
	g.push("One.")
	g.server.Push(pt.Script{Status: 401, Body: pt.ErrorBody("bad key")})
	l := g.autoOn()
	g.waitDone(l)
	ch := g.waitChanges(2)
	if len(ch) != 2 || ch[1].On || ch[1].Reason != "failed" || ch[1].Error == nil || ch[1].Error.Code != "model.auth_failed" {
		t.Fatalf("auto mode changes: %+v", ch)
	}
	if n := len(g.server.Requests()); n != 2 {
		t.Fatalf("%d requests, want 2: the failure is not retried", n)
	}
	var failed, changed int
	for i, e := range g.rec.all() {
		if p, ok := e.Payload.(*events.GenerationEndedPayload); ok && p.Error != nil {
			failed = i
		}
		if e.Type == events.GroupAutoModeChanged {
			changed = i
		}
	}
	if failed == 0 || changed < failed {
		t.Fatalf("the failure's GENERATION_ENDED (%d) does not come before auto mode's end (%d)", failed, changed)
	}
	if st, _ := g.gen.AutoModeOf(context.Background(), g.chatID); st.On {
		t.Fatal("autoMode says on after a failure")
	}
}

// TestAutoModeStopsOnDelete: deleting the chat, or the group, ends auto
// mode (deleted).
func TestAutoModeStopsOnDelete(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	g := newAutoRig(t, time.Hour)
	l := g.autoOn()
	if err := g.chats.Delete(ctx, g.chatID); err != nil {
		t.Fatal(err)
	}
	g.waitDone(l)
	if ch := g.waitChanges(2); len(ch) != 2 || ch[1].Reason != "deleted" || ch[1].On {
		t.Fatalf("auto mode changes: %+v", ch)
	}

	sum, err := g.chats.Create(ctx, chats.Owner{GroupID: g.groupID}, chats.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	g.chatID = sum.ChatID
	l = g.autoOn()
	if err := g.groups.Delete(ctx, g.groupID, groups.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	g.waitDone(l)
	if ch := g.waitChanges(4); len(ch) != 4 || ch[3].Reason != "deleted" || ch[3].ChatID != g.chatID {
		t.Fatalf("auto mode changes: %+v", ch)
	}
}

// TestAutoModeSkipsABusyChat: a turn due while another generation runs in
// the chat is skipped, not a failure: auto mode waits again, and its turn
// comes once the chat is free.
func TestAutoModeSkipsABusyChat(t *testing.T) {
	t.Parallel()
	g := newAutoRig(t, time.Hour)
	waits := make(chan struct{}, 100)
	g.gen.auto.delay = func(int) time.Duration {
		waits <- struct{}{}
		return time.Millisecond
	}
	hold := make(chan struct{})
	g.server.Push(pt.Script{Wait: hold, Chunks: []pt.Chunk{pt.Text("Held.")}, Done: true})
	for i := 0; i < 20; i++ {
		g.push("Auto.")
	}
	ann := g.ann
	if _, err := g.gen.Start(context.Background(), Options{ChatID: g.chatID, Type: "normal", MemberAvatar: &ann}); err != nil {
		t.Fatal(err)
	}
	l := g.autoOn()
	for i := 0; i < 3; i++ { // the first wait, then two skipped turns' waits
		select {
		case <-waits:
		case <-time.After(20 * time.Second):
			t.Fatal("auto mode did not try again")
		}
	}
	if n := g.count(events.GroupWrapperStarted); n != 1 {
		t.Fatalf("%d turns started while the chat was busy", n)
	}
	close(hold)
	g.waitCount(events.GroupWrapperEnded, 3)
	if _, err := g.gen.SetAutoMode(context.Background(), g.chatID, false); err != nil {
		t.Fatal(err)
	}
	g.waitDone(l)
	if ch := g.waitChanges(2); len(ch) != 2 || ch[1].Reason != "set" {
		t.Fatalf("auto mode changes: %+v", ch)
	}
}

// TestAutoModeEndsWithTheService: Close ends every loop — one waiting for
// its delay, one in a turn whose stream stalls — with no goroutine left
// and no event; auto mode cannot go on after.
func TestAutoModeEndsWithTheService(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	g := newAutoRig(t, time.Millisecond)
	// Dee's group waits 7 s between turns, which here is an hour.
	g.gen.auto.delay = func(sec int) time.Duration {
		if sec == 7 {
			return time.Hour
		}
		return time.Millisecond
	}
	g.server.Push(pt.Script{Chunks: []pt.Chunk{pt.Text("Half")}, Stall: true})
	waiting := g.autoOn()
	g.rec.waitFor(t, events.StreamTokenReceived)

	card, err := g.chars.Create(ctx, jsonx.Object{"name": jsonx.Raw("Dee")}, characters.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	grp, err := g.groups.Create(ctx, jsonx.Object{"members": jsonx.Raw([]string{card.Avatar}), "auto_mode_delay": jsonx.Raw(7)})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := g.chats.Create(ctx, chats.Owner{GroupID: grp.ID()}, chats.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.gen.SetAutoMode(ctx, sum.ChatID, true); err != nil {
		t.Fatal(err)
	}
	g.gen.auto.mu.Lock()
	idle := g.gen.auto.loops[sum.ChatID]
	g.gen.auto.mu.Unlock()

	changes := len(g.waitChanges(2))
	closed := make(chan struct{})
	go func() { g.gen.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(20 * time.Second):
		t.Fatal("Close did not return: an auto mode loop is left")
	}
	for _, l := range []*autoLoop{waiting, idle} {
		select {
		case <-l.done:
		default:
			t.Fatal("a loop outlived Close")
		}
	}
	g.flush()
	if n := len(g.autoChanges()); n != changes {
		t.Fatalf("closing announced %d auto mode changes", n-changes)
	}
	if _, err := g.gen.SetAutoMode(ctx, g.chatID, true); apperr.CodeOf(err) != CodeBusy {
		t.Fatalf("auto mode after Close: %v", err)
	}
	g.gen.auto.mu.Lock()
	defer g.gen.auto.mu.Unlock()
	if n := len(g.gen.auto.loops); n != 0 || g.gen.auto.unsub != nil {
		t.Fatalf("%d loops and a bus subscription left", n)
	}
}

// TestAutoModeRefusesBadInput: an unknown chat, a character's chat: an
// error, nothing on, no event.
func TestAutoModeRefusesBadInput(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	g := newAutoRig(t, time.Hour)
	sum, err := g.chats.Create(ctx, chats.Owner{Avatar: g.ann}, chats.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ chatID, code string }{
		{"no-such-chat", apperr.CodeChatNotFound},
		{sum.ChatID, apperr.CodeInvalidArgument},
	} {
		for _, on := range []bool{true, false} {
			if _, err := g.gen.SetAutoMode(ctx, c.chatID, on); apperr.CodeOf(err) != c.code {
				t.Fatalf("setAutoMode(%s, %v): %v, want %s", c.chatID, on, err, c.code)
			}
		}
		if _, err := g.gen.AutoModeOf(ctx, c.chatID); apperr.CodeOf(err) != c.code {
			t.Fatalf("autoMode(%s): %v, want %s", c.chatID, err, c.code)
		}
	}
	if n := len(g.autoChanges()); n != 0 || len(g.gen.auto.loops) != 0 {
		t.Fatalf("bad input announced %d changes", n)
	}
}

// TestAutoModeOutlivesAStop: generate.stop ends the turn under way, not
// auto mode: the next turn comes after the delay.
func TestAutoModeOutlivesAStop(t *testing.T) {
	t.Parallel()
	g := newAutoRig(t, time.Millisecond)
	g.server.Push(pt.Script{Chunks: []pt.Chunk{pt.Text("Half")}, Stall: true})
	for i := 0; i < 20; i++ {
		g.push("Next.")
	}
	l := g.autoOn()
	g.rec.waitFor(t, events.StreamTokenReceived)
	if !g.gen.Stop("") {
		t.Fatal("nothing was running to stop")
	}
	g.rec.waitFor(t, events.GenerationStopped)
	g.waitCount(events.GroupWrapperEnded, 3)
	if _, err := g.gen.SetAutoMode(context.Background(), g.chatID, false); err != nil {
		t.Fatal(err)
	}
	g.waitDone(l)
	if ch := g.waitChanges(2); len(ch) != 2 || ch[1].Reason != "set" {
		t.Fatalf("auto mode changes: %+v", ch)
	}
}
