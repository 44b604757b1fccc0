package generate

import (
	"context"
	"sync"
	"time"

	"hearth/backend/apperr"
	"hearth/backend/events"
	"hearth/backend/groups"
	"hearth/backend/prompt"
)

// A group chat's auto mode (groups.setAutoMode, HOST-ABI §5.1) is
// SillyTavern's: while it is on, the members keep replying by themselves —
// every auto_mode_delay seconds one group turn, exactly what generate.start
// on the chat runs (type normal, nobody forced). It goes off when turned
// off, when a user's message is added to the chat (MESSAGE_SENT: the user
// typed), when a turn fails (a failure would only repeat), when the chat
// or its group is deleted, and with Hearth. Each change is announced with
// GROUP_AUTO_MODE_CHANGED, so every window's toggle follows.
//
// "While a window shows the chat": the backend does not know which chat a
// window shows (api.chat.select is the window's own), so the window that
// turned auto mode on turns it off when it leaves the chat. Auto mode is
// not kept across restarts.

// AutoMode is groups.setAutoMode's and groups.autoMode's answer.
type AutoMode struct {
	ChatID string `json:"chatId"`
	On     bool   `json:"on"`
	// DelaySeconds is the group's auto_mode_delay, the wait before each
	// turn (1 to groups.MaxAutoModeDelay).
	DelaySeconds int `json:"delaySeconds"`
}

// Why auto mode changed (GroupAutoModePayload.Reason).
const (
	autoSet         = "set"
	autoUserMessage = "user_message"
	autoFailed      = "failed"
	autoDeleted     = "deleted"
)

// autoLoop is one chat's auto mode while it is on.
type autoLoop struct {
	chatID  string
	groupID string
	off     chan struct{} // closed when it goes off
	once    sync.Once
	done    chan struct{} // closed when its goroutine has returned
}

// autoMode is the service's auto mode state: the loops by chat, and the
// wait between turns (tests shorten it).
type autoMode struct {
	mu     sync.Mutex
	loops  map[string]*autoLoop
	unsub  func()
	closed bool
	// delay turns auto_mode_delay into the wait before a turn.
	delay func(seconds int) time.Duration
}

func newAutoMode() autoMode {
	return autoMode{loops: map[string]*autoLoop{}, delay: func(sec int) time.Duration { return time.Duration(sec) * time.Second }}
}

// autoGroup is the group of group chat chatID and its delay; a
// character's chat is refused, as is an unknown chat (chat.not_found).
func (s *Service) autoGroup(ctx context.Context, chatID string) (string, int, error) {
	d, err := s.src.Chats.Get(ctx, chatID)
	if err != nil {
		return "", 0, err
	}
	if d.GroupID == nil {
		return "", 0, apperr.Invalid("auto mode is for group chats; chat %s is a character's", chatID).
			WithDetails(map[string]any{"chatId": chatID})
	}
	if s.src.Groups == nil {
		return "", 0, apperr.New(apperr.CodeGroupNotFound, "no group with id %q", *d.GroupID).WithDetails(map[string]any{"groupId": *d.GroupID})
	}
	g, err := s.src.Groups.Get(ctx, *d.GroupID)
	if err != nil {
		return "", 0, err
	}
	return *d.GroupID, autoDelay(g), nil
}

// autoDelay is g's auto_mode_delay, within 1 to groups.MaxAutoModeDelay
// (a group file written by hand may hold anything).
func autoDelay(g *groups.Group) int {
	sec := g.AutoModeDelay()
	return min(max(sec, 1), groups.MaxAutoModeDelay)
}

// AutoModeOf reports chatID's auto mode (groups.autoMode).
func (s *Service) AutoModeOf(ctx context.Context, chatID string) (*AutoMode, error) {
	_, delay, err := s.autoGroup(ctx, chatID)
	if err != nil {
		return nil, err
	}
	s.auto.mu.Lock()
	on := s.auto.loops[chatID] != nil
	s.auto.mu.Unlock()
	return &AutoMode{ChatID: chatID, On: on, DelaySeconds: delay}, nil
}

// SetAutoMode turns chatID's auto mode on or off (groups.setAutoMode). Only
// a change is announced; the first turn comes after the delay.
func (s *Service) SetAutoMode(ctx context.Context, chatID string, on bool) (*AutoMode, error) {
	groupID, delay, err := s.autoGroup(ctx, chatID)
	if err != nil {
		return nil, err
	}
	out := &AutoMode{ChatID: chatID, On: on, DelaySeconds: delay}
	if !on {
		s.autoOff(func(l *autoLoop) bool { return l.chatID == chatID }, autoSet, nil)
		return out, nil
	}
	s.auto.mu.Lock()
	if s.auto.closed {
		s.auto.mu.Unlock()
		return nil, apperr.New(CodeBusy, "Hearth is shutting down")
	}
	if s.auto.loops[chatID] != nil {
		s.auto.mu.Unlock()
		return out, nil
	}
	if s.auto.unsub == nil {
		s.auto.unsub = s.bus.Subscribe(s.autoWatch)
	}
	l := &autoLoop{chatID: chatID, groupID: groupID, off: make(chan struct{}), done: make(chan struct{})}
	s.auto.loops[chatID] = l
	s.wg.Add(1)
	s.auto.mu.Unlock()
	s.publishAuto(l, true, delay, autoSet, nil)
	go func() {
		defer s.wg.Done()
		defer close(l.done)
		s.autoRun(l)
	}()
	return out, nil
}

// autoOff ends the auto mode of the loops that match, announcing why.
func (s *Service) autoOff(match func(*autoLoop) bool, reason string, cause error) {
	s.auto.mu.Lock()
	var ended []*autoLoop
	for id, l := range s.auto.loops {
		if match(l) {
			delete(s.auto.loops, id)
			ended = append(ended, l)
		}
	}
	s.auto.mu.Unlock()
	for _, l := range ended {
		l.once.Do(func() { close(l.off) })
		delay := 0
		if reason != autoDeleted {
			if _, d, err := s.autoGroup(s.base, l.chatID); err == nil {
				delay = d
			}
		}
		var e *apperr.Error
		if cause != nil {
			e = apperr.Shape(cause)
		}
		s.publishAuto(l, false, delay, reason, e)
	}
}

func (s *Service) publishAuto(l *autoLoop, on bool, delay int, reason string, e *apperr.Error) {
	s.publish(events.GroupAutoModeChanged, &events.GroupAutoModePayload{ChatID: l.chatID, GroupID: l.groupID, On: on,
		DelaySeconds: delay, Reason: reason, Error: e})
}

// autoWatch ends auto mode on the bus's word: a user's message in the
// chat, the chat's or the group's deletion.
func (s *Service) autoWatch(e events.Event) {
	switch p := e.Payload.(type) {
	case *events.MessagePayload:
		if e.Type == events.MessageSent {
			s.autoOff(func(l *autoLoop) bool { return l.chatID == p.ChatID }, autoUserMessage, nil)
		}
	case *events.ChatDeletedPayload:
		s.autoOff(func(l *autoLoop) bool { return l.chatID == p.ChatID }, autoDeleted, nil)
	case *events.GroupDeletedPayload:
		s.autoOff(func(l *autoLoop) bool { return l.groupID == p.GroupID }, autoDeleted, nil)
	}
}

// autoRun is l's loop: wait the group's delay, run a turn, again, until
// auto mode goes off or Hearth closes. A chat busy with a generation
// skips that turn, as does one stopped (generate.stop ends the turn, not
// auto mode); a failed turn ends auto mode.
func (s *Service) autoRun(l *autoLoop) {
	for {
		_, delay, err := s.autoGroup(s.base, l.chatID)
		if err != nil {
			s.autoEnd(l, err)
			return
		}
		timer := time.NewTimer(s.auto.delay(delay))
		select {
		case <-l.off:
			timer.Stop()
			return
		case <-s.base.Done():
			timer.Stop()
			return
		case <-timer.C:
		}
		t, err := s.autoTurn(l)
		switch apperr.CodeOf(err) {
		case CodeBusy, CodeInterrupted: // another generation, or a stop: not this turn
			continue
		}
		if err != nil {
			s.autoEnd(l, err)
			return
		}
		if t == nil {
			return
		}
		<-t.done
		if t.err != nil && !t.wasStopped() {
			s.autoEnd(l, t.err)
			return
		}
	}
}

// autoTurn starts one group turn in l's chat, as generate.start does (nil
// when auto mode went off before it started).
func (s *Service) autoTurn(l *autoLoop) (*turn, error) {
	select {
	case <-l.off:
		return nil, nil
	case <-s.base.Done():
		return nil, nil
	default:
	}
	o := Options{ChatID: l.chatID, Type: prompt.TypeNormal}
	plan, err := s.planTurn(s.base, &o, true)
	if err != nil {
		return nil, err
	}
	if plan == nil {
		return nil, apperr.Invalid("chat %s is not a group chat any more", l.chatID)
	}
	t, _, err := s.beginTurn(s.base, o, plan)
	return t, err
}

// autoEnd ends l's auto mode after err: its chat or group went (deleted),
// or its turn failed (failed, with the error). Hearth closing ends it
// quietly. Only l ends: auto mode turned off and on again meanwhile is a
// new loop.
func (s *Service) autoEnd(l *autoLoop, err error) {
	if s.base.Err() != nil {
		return
	}
	same := func(o *autoLoop) bool { return o == l }
	switch apperr.CodeOf(err) {
	case apperr.CodeChatNotFound, apperr.CodeGroupNotFound:
		s.autoOff(same, autoDeleted, nil)
	default:
		s.autoOff(same, autoFailed, err)
	}
}

// closeAuto forgets every loop (they end with s.base), stops watching
// the bus and refuses auto mode from now on.
func (s *Service) closeAuto() {
	s.auto.mu.Lock()
	s.auto.closed = true
	unsub := s.auto.unsub
	s.auto.unsub = nil
	for id, l := range s.auto.loops {
		delete(s.auto.loops, id)
		l.once.Do(func() { close(l.off) })
	}
	s.auto.mu.Unlock()
	if unsub != nil {
		unsub()
	}
}
