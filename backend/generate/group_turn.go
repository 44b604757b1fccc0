package generate

import (
	"context"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"hearth/backend/apperr"
	"hearth/backend/characters"
	"hearth/backend/chats"
	"hearth/backend/events"
	"hearth/backend/groups"
	"hearth/backend/prompt"
)

// A generation in a group chat is a group turn (HOST-ABI §5.1), as
// SillyTavern's generateGroupWrapper runs it: who speaks is drafted from
// the group and the chat's tail (groups.Draft), GROUP_WRAPPER_STARTED,
// then each drafted member in order — GROUP_MEMBER_DRAFTED and one
// ordinary generation with that member's prompt, committed as that
// member's message — and GROUP_WRAPPER_FINISHED. The turn holds the chat
// from start to end, so no other generation slips in between two members;
// generate.stop ends the whole turn.

// maxTurnTail bounds how far back a turn reads the chat to draft: to the
// last user message (the pooled strategy looks that far), at most this many.
const maxTurnTail = 1000

// maxQuietLookback bounds how many characters' messages a quiet
// generation reads back to find the member who spoke last.
const maxQuietLookback = 200

// member is one member's generation of a group turn, as build reads it.
type member struct {
	turn   *turnPlan
	avatar string
}

// turnPlan is what a group turn decided before it started.
type turnPlan struct {
	groupID string
	group   *groups.Group
	// members are the group's members whose cards exist, in its order;
	// cards has each one's card.
	members []groups.Member
	cards   map[string]*characters.Card
	// speakers are the drafted members, in speaking order; genType the
	// type each one's generation runs with.
	speakers []string
	genType  string
	// spoken, for a quiet generation, are the newest messages characters
	// wrote, newest first (chats.PromptView.LastSpoken).
	spoken []chats.TurnMessage
}

// turn is one group turn in flight.
type turn struct {
	chatID string
	typ    string
	opts   Options
	plan   *turnPlan

	mu      sync.Mutex
	stopped bool
	cur     *run

	done    chan struct{}
	replies []*Result
	err     error

	// streamTime is how long the members' provider streams took, together
	// (benchmarks subtract it to measure Hearth's own work).
	streamTime time.Duration
}

// stop ends the turn: the member replying now stops, no other follows.
func (t *turn) stop() {
	t.mu.Lock()
	t.stopped = true
	cur := t.cur
	t.mu.Unlock()
	if cur != nil {
		cur.stop()
	}
}

func (t *turn) wasStopped() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.stopped
}

// result is the turn's answer: the last reply's fields and every reply.
func (t *turn) result() *Result {
	out := &Result{Replies: t.replies}
	if n := len(t.replies); n > 0 {
		last := *t.replies[n-1]
		last.Replies = t.replies
		out = &last
	}
	return out
}

// planTurn reads who speaks in o's chat when it is a group chat (nil for
// a character's chat). Everything a caller can get wrong is refused here,
// before the turn holds the chat or sends an event.
func (s *Service) planTurn(ctx context.Context, o *Options, draft bool) (*turnPlan, error) {
	var groupID string
	var tail, spoken []chats.TurnMessage
	err := s.src.Chats.ReadForPrompt(ctx, o.ChatID, func(v *chats.PromptView) error {
		groupID = v.GroupID
		if groupID == "" {
			return nil
		}
		var err error
		if tail, err = v.TurnTail(maxTurnTail); err != nil {
			return err
		}
		if o.Type == prompt.TypeQuiet && o.MemberAvatar == nil {
			spoken, err = v.LastSpoken(maxQuietLookback)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if groupID == "" {
		if o.MemberAvatar != nil {
			return nil, apperr.Invalid("memberAvatar is for group chats; chat %s is a character's", o.ChatID).
				WithDetails(map[string]any{"chatId": o.ChatID})
		}
		return nil, nil
	}
	if s.src.Groups == nil {
		return nil, apperr.New(apperr.CodeGroupNotFound, "no group with id %q", groupID).WithDetails(map[string]any{"groupId": groupID})
	}
	g, err := s.src.Groups.Get(ctx, groupID)
	if err != nil {
		return nil, err
	}
	p := &turnPlan{groupID: groupID, group: g, cards: map[string]*characters.Card{}, genType: o.Type, spoken: spoken}
	muted := g.DisabledMembers()
	for _, avatar := range g.Members() {
		card, err := s.src.Characters.Get(ctx, avatar)
		if apperr.CodeOf(err) == apperr.CodeCharacterNotFound {
			continue // SillyTavern skips a member it cannot find
		}
		if err != nil {
			return nil, err
		}
		if _, seen := p.cards[avatar]; seen {
			continue
		}
		p.cards[avatar] = card
		p.members = append(p.members, groups.Member{Avatar: avatar, Name: card.Name(),
			Talkativeness: groups.Talkativeness(card.Data["extensions"]), Muted: slices.Contains(muted, avatar)})
	}
	force := ""
	if o.MemberAvatar != nil {
		force = *o.MemberAvatar
		if p.cards[force] == nil {
			return nil, apperr.Invalid("%q is not a member of the group", force).WithDetails(map[string]any{"avatar": force, "groupId": groupID})
		}
	}
	if err := p.pick(o.Type, force, tail, draft); err != nil {
		return nil, err
	}
	return p, nil
}

// pick decides the speakers of a turn of type typ (draft false: a dry
// run, which shows one member's prompt and draws no lots). tail is the
// chat's newest messages, newest first.
//
//   - normal: the strategy drafts (groups.Draft), or force speaks.
//   - regenerate, swipe: the last message's speaker, whose message is
//     replaced or swiped; a regenerate after a user's message (nothing
//     to replace) is a normal turn, as SillyTavern's regenerateGroup
//     deletes the last replies and drafts again.
//   - continue: the last message's speaker; a user's message is
//     continued as force, or the first unmuted member.
//   - impersonate, quiet: one generation that writes nothing, with force
//     as {{char}}, else (impersonate) a member at random or (quiet) the
//     member who spoke last, before the user's messages too (SillyTavern's
//     activateImpersonate and activateSwipe); a quiet generation where no
//     member has spoken takes an unmuted member at random (SillyTavern: any
//     member), the first one in a dry run.
//
// A dry run of a normal turn shows force's prompt, else the first
// unmuted member's (SillyTavern's dry run takes that one).
func (p *turnPlan) pick(typ, force string, tail []chats.TurnMessage, draft bool) error {
	var last *chats.TurnMessage
	if len(tail) > 0 {
		last = &tail[0]
	}
	lastSpeaker := ""
	if last != nil && !last.IsUser && !last.IsSystem && !last.Narrator {
		lastSpeaker = p.speakerOf(*last)
	}
	one := func(avatar string) error {
		p.speakers = []string{avatar}
		return nil
	}
	switch typ {
	case prompt.TypeSwipe, prompt.TypeContinue, prompt.TypeRegenerate:
		switch {
		case last == nil && typ != prompt.TypeRegenerate:
			return apperr.Invalid("the chat has no message to %s", typ)
		case last != nil && typ == prompt.TypeContinue && (last.IsUser || last.IsSystem || last.Narrator):
			if force == "" {
				force = p.firstUnmuted()
			}
			if force == "" {
				return apperr.Invalid("every member is muted: name the member to continue as with memberAvatar")
			}
			return one(force)
		case last == nil || last.IsUser || last.IsSystem || last.Narrator:
			if typ == prompt.TypeRegenerate {
				p.genType = prompt.TypeNormal
				return p.draft(force, tail, draft)
			}
			return apperr.Invalid("the last message is not a member's: there is no reply to %s", typ)
		}
		if lastSpeaker == "" {
			return apperr.Invalid("the last message is by %q, who is not a member of the group any more: add them back to %s it", last.Name, typ).
				WithDetails(map[string]any{"name": last.Name})
		}
		if force != "" && force != lastSpeaker && typ != prompt.TypeRegenerate {
			return apperr.Invalid("a %s acts on the last message's speaker %q; memberAvatar %q is someone else", typ, lastSpeaker, force).
				WithDetails(map[string]any{"avatar": force, "speaker": lastSpeaker})
		}
		if force != "" {
			return one(force)
		}
		return one(lastSpeaker)
	case prompt.TypeImpersonate, prompt.TypeQuiet:
		switch {
		case force != "":
			return one(force)
		case len(p.members) == 0:
			return nil
		case typ == prompt.TypeImpersonate && draft:
			return one(p.members[rand.IntN(len(p.members))].Avatar)
		case typ == prompt.TypeImpersonate:
			return one(p.members[0].Avatar)
		}
		for _, m := range p.spoken {
			if avatar := p.speakerOf(m); avatar != "" {
				return one(avatar)
			}
		}
		pool := p.unmuted()
		if len(pool) == 0 {
			pool = p.members
		}
		if draft {
			return one(pool[rand.IntN(len(pool))].Avatar)
		}
		return one(pool[0].Avatar)
	}
	return p.draft(force, tail, draft)
}

// draft runs the group's strategy (a dry run takes force or the first
// unmuted member instead).
func (p *turnPlan) draft(force string, tail []chats.TurnMessage, draft bool) error {
	if !draft {
		if force == "" {
			force = p.firstUnmuted()
		}
		if force != "" {
			p.speakers = []string{force}
		}
		return nil
	}
	chat := make([]groups.Message, len(tail))
	for i, m := range tail {
		chat[len(tail)-1-i] = groups.Message{IsUser: m.IsUser, IsSystem: m.IsSystem, Narrator: m.Narrator,
			Name: m.Name, Avatar: m.Avatar, Text: m.Mes}
	}
	out, err := groups.Draft(groups.Turn{Strategy: p.group.ActivationStrategy(), Members: p.members,
		AllowSelfResponses: p.group.AllowSelfResponses(), Chat: chat, Force: force})
	p.speakers = out
	return err
}

// speakerOf is the member who wrote m: its original_avatar when that is a
// member, else the first member of its name (a message written before
// SillyTavern kept original_avatar); "" when no member did.
func (p *turnPlan) speakerOf(m chats.TurnMessage) string {
	if m.Avatar != "" {
		if p.cards[m.Avatar] != nil {
			return m.Avatar
		}
		return ""
	}
	for _, mem := range p.members {
		if mem.Name == m.Name {
			return mem.Avatar
		}
	}
	return ""
}

// unmuted are the members who are not muted, in the group's order.
func (p *turnPlan) unmuted() []groups.Member {
	var out []groups.Member
	for _, m := range p.members {
		if !m.Muted {
			out = append(out, m)
		}
	}
	return out
}

func (p *turnPlan) firstUnmuted() string {
	for _, m := range p.members {
		if !m.Muted {
			return m.Avatar
		}
	}
	return ""
}

// memberOptions are the options of avatar's generation in turn t.
func (t *turn) memberOptions(avatar string) Options {
	return t.plan.optionsFor(t.opts, avatar)
}

// optionsFor are the options of avatar's generation: o, with the turn's
// type and the member's connection and preset override where o names
// none (the caller's choice is for every member of the turn).
func (p *turnPlan) optionsFor(o Options, avatar string) Options {
	o.Type = p.genType
	o.MemberAvatar = &avatar
	o.member = &member{turn: p, avatar: avatar}
	ov := p.group.MemberOverrides()[avatar]
	if o.ConnectionID == nil && ov.ConnectionID != "" {
		id := ov.ConnectionID
		o.ConnectionID = &id
	}
	if o.PresetID == nil && ov.PresetID != "" {
		id := ov.PresetID
		o.PresetID = &id
	}
	return o
}

// startTurn holds the chat for turn t, announces it and prepares its
// first member's generation (returned, not launched; nil when nobody was
// drafted). A first member that cannot start ends the turn at once.
func (s *Service) startTurn(ctx context.Context, t *turn) (*run, error) {
	// No connection selected refuses the turn before it starts, as
	// SillyTavern's wrapper does offline; a member's own override is
	// that member's failure, recorded (prepareMember).
	if len(t.plan.speakers) > 0 {
		if o := t.memberOptions(t.plan.speakers[0]); o.ConnectionID == nil {
			if _, _, err := s.connection(ctx, &o); err != nil {
				return nil, err
			}
		}
	}
	if err := s.claimTurn(t); err != nil {
		return nil, err
	}
	s.publish(events.GroupWrapperStarted, &events.GroupWrapperPayload{ChatID: t.chatID, SelectedGroup: t.plan.groupID, Type: t.typ})
	if len(t.plan.speakers) == 0 {
		s.finishTurn(t)
		return nil, nil
	}
	r, err := s.prepareMember(ctx, t, t.plan.speakers[0])
	if err != nil {
		t.err = err
		s.finishTurn(t)
		return nil, err
	}
	return r, nil
}

// prepareMember announces avatar's generation and prepares it. A member
// whose generation cannot start (its override names a connection or
// preset that is gone, its prompt does not fit) has a failed record.
func (s *Service) prepareMember(ctx context.Context, t *turn, avatar string) (*run, error) {
	s.publish(events.GroupMemberDrafted, &events.GroupMemberDraftedPayload{ChatID: t.chatID, GroupID: t.plan.groupID, Avatar: avatar, Type: t.typ})
	o := t.memberOptions(avatar)
	r, err := s.prepare(ctx, &o, t)
	if err != nil {
		id := s.recordFailed(ctx, t.chatID, o.Type, err)
		return nil, memberError(err, avatar, id, t.replies)
	}
	t.mu.Lock()
	t.cur = r
	t.mu.Unlock()
	return r, nil
}

// memberError is err with the member, its generation's record and the
// replies before it in details: a turn that fails keeps what it wrote.
func memberError(err error, avatar, generationID string, replies []*Result) error {
	e := apperr.Shape(err)
	details := map[string]any{}
	for k, v := range e.Details {
		details[k] = v
	}
	details["memberAvatar"] = avatar
	if generationID != "" {
		details["generationId"] = generationID
	}
	details["replies"] = append([]*Result{}, replies...)
	return &apperr.Error{Code: e.Code, Message: e.Message, Details: details}
}

// runTurn runs turn t from its first member's prepared generation first
// (nil: nobody) to its end; it closes t.done.
func (s *Service) runTurn(t *turn, first *run) {
	defer close(t.done)
	if first == nil {
		return
	}
	defer s.finishTurn(t)
	r := first
	for i := 0; ; i++ {
		s.launch(r)
		<-r.done
		t.streamTime += r.streamTime
		if r.err != nil {
			t.err = memberError(r.err, t.plan.speakers[i], r.id, t.replies)
			return
		}
		t.replies = append(t.replies, r.result)
		if r.result.Stopped || t.wasStopped() || i+1 == len(t.plan.speakers) {
			return
		}
		var err error
		if r, err = s.prepareMember(s.base, t, t.plan.speakers[i+1]); err != nil {
			t.err = err
			return
		}
	}
}

// finishTurn announces the turn's end and lets the chat go.
func (s *Service) finishTurn(t *turn) {
	s.publish(events.GroupWrapperEnded, &events.GroupWrapperPayload{ChatID: t.chatID, SelectedGroup: t.plan.groupID, Type: t.typ})
	s.mu.Lock()
	if s.turns[t.chatID] == t {
		delete(s.turns, t.chatID)
	}
	s.mu.Unlock()
}

// claimTurn holds t's chat for the turn, refusing a chat that is busy.
func (s *Service) claimTurn(t *turn) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return apperr.New(CodeBusy, "Hearth is shutting down")
	}
	if s.byChat[t.chatID] != nil || s.turns[t.chatID] != nil {
		return apperr.New(CodeBusy, "a reply is already being generated in this chat; stop it first").
			WithDetails(map[string]any{"chatId": t.chatID})
	}
	s.turns[t.chatID] = t
	return nil
}

// Speaker is the member a generation of o in a group chat is by, as a dry
// run of o builds its prompt (no lots drawn): o.MemberAvatar, else the
// speaker a swipe or regenerate acts on, else the first unmuted member.
// An agent run, whose prompt is that dry run's, commits its reply as that
// member. Both are "" in a character's chat, or when nobody would speak.
func (s *Service) Speaker(ctx context.Context, o Options) (avatar, name string, err error) {
	if err := o.validate(); err != nil {
		return "", "", err
	}
	p, err := s.planTurn(ctx, &o, false)
	if err != nil || p == nil || len(p.speakers) == 0 {
		return "", "", err
	}
	avatar = p.speakers[0]
	return avatar, p.cards[avatar].Name(), nil
}
