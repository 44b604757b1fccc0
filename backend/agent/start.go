package agent

import (
	"bytes"
	"context"
	"encoding/json"

	"hearth/backend/agent/profile"
	"hearth/backend/agent/runstore"
	"hearth/backend/apperr"
	"hearth/backend/chats"
	"hearth/backend/connections"
	"hearth/backend/generate"
	"hearth/backend/internal/inputs"
	"hearth/backend/prompt"
	"hearth/backend/providers"
)

// StartInput is the argument of both start methods: the seed's shape
// (AGENT.md §3), plus chatId.
type StartInput struct {
	ChatID           string          `json:"chatId"`
	ChatRef          json.RawMessage `json:"chatRef"`
	StableChatID     string          `json:"stableChatId"`
	GenerationType   string          `json:"generationType"`
	GenerateOptions  json.RawMessage `json:"generateOptions"`
	ProfileID        *string         `json:"profileId"`
	GenerationIntent json.RawMessage `json:"generationIntent"`
	Presentation     string          `json:"presentation"`
	Options          *StartOptions   `json:"options"`
	PromptSnapshot   *Snapshot       `json:"promptSnapshot"`
}

// StartOptions are a start's options.
type StartOptions struct {
	Presentation string `json:"presentation"`
	// Stream publishes the model's text as model_delta events.
	Stream *bool `json:"stream"`
}

// Generation types a run may take: a new reply, another swipe of the
// last reply, or a reply replacing the last one.
var runTypes = map[string]bool{prompt.TypeNormal: true, prompt.TypeSwipe: true, prompt.TypeRegenerate: true}

// StartFromLegacyGenerate starts a run whose prompt is generate.dryRun's
// snapshot of the chat (the seed's startRunFromLegacyGenerate).
func (s *Service) StartFromLegacyGenerate(ctx context.Context, in StartInput) (runstore.Handle, error) {
	chatID, err := s.resolveChat(ctx, in)
	if err != nil {
		return runstore.Handle{}, err
	}
	typ, err := runType(in.GenerationType)
	if err != nil {
		return runstore.Handle{}, err
	}
	var opts generate.Options
	if present(in.GenerateOptions) {
		if err := json.Unmarshal(in.GenerateOptions, &opts); err != nil {
			if e := apperr.As(err); e != nil {
				return runstore.Handle{}, apperr.Invalid("generateOptions.%s", e.Message)
			}
			return runstore.Handle{}, apperr.Invalid("generateOptions: %v", err)
		}
	}
	// A run has no window: SillyTavern's prompt hooks never shape its prompt.
	opts.ChatID, opts.Type, opts.Hooks = chatID, typ, nil
	snap, err := s.d.Generate.DryRun(ctx, opts)
	if err != nil {
		return runstore.Handle{}, err
	}
	raw, err := json.Marshal(snap.ChatCompletionPayload)
	if err != nil {
		return runstore.Handle{}, err
	}
	act := snap.WorldInfoActivation
	in.PromptSnapshot = &Snapshot{ChatCompletionPayload: raw, WorldInfoActivation: &act}
	in.ChatID, in.ChatRef, in.StableChatID, in.GenerationType = chatID, nil, "", typ
	return s.StartWithSnapshot(ctx, in)
}

// StartWithSnapshot starts a run from a prompt snapshot the caller holds.
// Everything that can be refused is checked before the run exists: a bad
// input leaves no run and no event behind.
func (s *Service) StartWithSnapshot(ctx context.Context, in StartInput) (runstore.Handle, error) {
	chatID, err := s.resolveChat(ctx, in)
	if err != nil {
		return runstore.Handle{}, err
	}
	typ, err := runType(in.GenerationType)
	if err != nil {
		return runstore.Handle{}, err
	}
	if in.PromptSnapshot == nil {
		return runstore.Handle{}, apperr.New(CodeChatCompletionRequired, "promptSnapshot is required")
	}
	msgs, model, sampling, err := parsePayload(in.PromptSnapshot.ChatCompletionPayload)
	if err != nil {
		return runstore.Handle{}, err
	}
	profileID := ""
	if in.ProfileID != nil {
		profileID = *in.ProfileID
	}
	prof, err := s.d.Profiles.Resolve(ctx, profileID)
	if err != nil {
		return runstore.Handle{}, err
	}
	presentation, err := pickPresentation(in, prof)
	if err != nil {
		return runstore.Handle{}, err
	}
	provider, conn, err := s.connection(ctx, prof)
	if err != nil {
		return runstore.Handle{}, err
	}
	if prof.Model.Mode == profile.ModelConnection && prof.Model.Model != "" {
		model = prof.Model.Model
	}
	if model == "" {
		model = conn.Model
	}
	applyOverrides(&sampling, prof)
	member, err := memberAvatar(in.GenerateOptions)
	if err != nil {
		return runstore.Handle{}, err
	}
	target, name, speaker, err := s.replyTarget(ctx, chatID, typ, member)
	if err != nil {
		return runstore.Handle{}, err
	}
	snapRaw, err := json.Marshal(in.PromptSnapshot)
	if err != nil {
		return runstore.Handle{}, err
	}
	stream := in.Options != nil && in.Options.Stream != nil && *in.Options.Stream

	r := &run{svc: s, chatID: chatID, workspaceID: WorkspaceID(chatID), prof: prof, typ: typ, presentation: presentation,
		stream: stream, snapshot: *in.PromptSnapshot, messages: msgs, model: model, sampling: sampling,
		provider: provider, apiName: conn.Provider, target: target, charName: name, speaker: speaker}
	if err := s.admit(r); err != nil {
		return runstore.Handle{}, err
	}
	var profID *string
	if prof.ID != "" {
		profID = &prof.ID
	}
	row, ev, err := s.d.Runs.Create(ctx, runstore.Run{
		ID: runstore.NewRunID(), ChatID: chatID, WorkspaceID: r.workspaceID, ProfileID: profID,
		GenerationType: typ, Presentation: presentation, Snapshot: snapRaw, Profile: prof.JSON(),
	}, runstore.EventInput{Type: "run_created", Payload: map[string]any{
		"chatId": chatID, "workspaceId": r.workspaceID, "profileId": prof.ID, "generationType": typ,
		"presentation": presentation, "stream": stream, "model": model,
	}})
	if err != nil {
		s.release(r)
		return runstore.Handle{}, err
	}
	r.id = row.ID
	s.mu.Lock()
	s.active[r.id] = r
	s.mu.Unlock()
	s.publish(ev)
	r.start()
	return row.Handle(), nil
}

// admit reserves the chat for r: one run per chat at a time, since two
// runs' commits would interleave in one reply.
func (s *Service) admit(r *run) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return apperr.New(CodeRunNotActive, "the app is closing")
	}
	if other := s.byChat[r.chatID]; other != nil {
		return apperr.New(CodeBusy, "chat %s already has an agent run going (%s); cancel it or wait for it", r.chatID, other.id).
			WithDetails(map[string]any{"chatId": r.chatID, "runId": other.id})
	}
	s.byChat[r.chatID] = r
	return nil
}

// release frees r's chat and forgets it as active.
func (s *Service) release(r *run) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.byChat[r.chatID] == r {
		delete(s.byChat, r.chatID)
	}
	if r.id != "" {
		delete(s.active, r.id)
	}
}

// resolveChat reads the chat of a start from chatId, stableChatId or
// chatRef (a chat id, or {chatId}); given several, they must agree.
func (s *Service) resolveChat(ctx context.Context, in StartInput) (string, error) {
	ids := map[string]bool{}
	for _, id := range []string{in.ChatID, in.StableChatID} {
		if id != "" {
			ids[id] = true
		}
	}
	if present(in.ChatRef) {
		var ref string
		if json.Unmarshal(in.ChatRef, &ref) != nil {
			var obj struct {
				ChatID string `json:"chatId"`
			}
			if err := json.Unmarshal(in.ChatRef, &obj); err != nil || obj.ChatID == "" {
				return "", apperr.Invalid("chatRef must be a chat id or {chatId}")
			}
			ref = obj.ChatID
		}
		ids[ref] = true
	}
	if len(ids) == 0 {
		return "", apperr.Invalid("name the chat: chatId, stableChatId or chatRef")
	}
	if len(ids) > 1 {
		return "", apperr.Invalid("chatId, stableChatId and chatRef name different chats")
	}
	var id string
	for k := range ids {
		id = k
	}
	if len(id) > 200 || inputs.HasControl(id) {
		return "", apperr.Invalid("the chat id %q is not a chat id", inputs.Short(id))
	}
	if _, err := s.d.Chats.Get(ctx, id); err != nil {
		return "", err
	}
	return id, nil
}

func runType(t string) (string, error) {
	if t == "" {
		return prompt.TypeNormal, nil
	}
	if !runTypes[t] {
		return "", apperr.Invalid("generationType must be normal, swipe or regenerate for an agent run; got %q", inputs.Short(t))
	}
	return t, nil
}

// pickPresentation takes the start's presentation (top level, else
// options), else the profile's.
func pickPresentation(in StartInput, p profile.Profile) (string, error) {
	v := in.Presentation
	if v == "" && in.Options != nil {
		v = in.Options.Presentation
	}
	if v == "" {
		return p.Run.Presentation, nil
	}
	if v != profile.Foreground && v != profile.Background {
		return "", apperr.New(CodePresentationInvalid, "presentation must be foreground or background; got %q", inputs.Short(v))
	}
	return v, nil
}

// connection returns where the run's model requests go: the profile's
// connection, or the active one.
func (s *Service) connection(ctx context.Context, p profile.Profile) (providers.Provider, *connections.Connection, error) {
	id := p.Model.ConnectionID
	if p.Model.Mode != profile.ModelConnection || id == "" {
		active, err := s.d.Connections.Active(ctx)
		if err != nil {
			return nil, nil, err
		}
		if active == nil {
			return nil, nil, apperr.New(CodeNoConnection, "no connection is active: add one in Connections, or name one in the profile (model.mode \"connection\")")
		}
		id = active.ID
	}
	return s.d.Connections.Provider(ctx, id)
}

// applyOverrides gives the run the profile's sampling overrides and room
// for tool calls: a reply written through write_file is the call's
// argument, so a snapshot's small max_tokens would cut it.
func applyOverrides(s *providers.Sampling, p profile.Profile) {
	if p.Model.Temperature != nil {
		s.Temperature = p.Model.Temperature
	}
	if p.Model.MaxTokens != nil {
		s.MaxTokens = p.Model.MaxTokens
		return
	}
	if s.MaxTokens != nil && *s.MaxTokens < minRunMaxTokens {
		n := minRunMaxTokens
		s.MaxTokens = &n
	}
}

// minRunMaxTokens is the least max_tokens of a run's model requests.
const minRunMaxTokens = 4096

// replyTarget returns the message a swipe or regenerate run writes to (by
// id), the name its reply carries and, in a group chat, the member it is
// by (avatar key): the member generate.dryRun builds the prompt for —
// member (generateOptions.memberAvatar), else the speaker of the message
// a swipe or regenerate acts on, else the first unmuted member — so the
// reply carries original_avatar and force_avatar as a group turn's do.
func (s *Service) replyTarget(ctx context.Context, chatID, typ string, member *string) (string, string, string, error) {
	name, speaker := "Assistant", ""
	det, err := s.d.Chats.Get(ctx, chatID)
	if err != nil {
		return "", "", "", err
	}
	if det.Avatar != nil && s.d.Characters != nil {
		if card, err := s.d.Characters.Get(ctx, *det.Avatar); err == nil && card != nil {
			var n string
			if json.Unmarshal(card.Data["name"], &n) == nil && n != "" {
				name = n
			}
		}
	}
	if det.GroupID != nil && s.d.Generate != nil {
		avatar, n, err := s.d.Generate.Speaker(ctx, generate.Options{ChatID: chatID, Type: typ, MemberAvatar: member})
		if err != nil {
			return "", "", "", err
		}
		if avatar != "" {
			name, speaker = n, avatar
		}
	} else if member != nil {
		return "", "", "", apperr.Invalid("generateOptions.memberAvatar is for group chats; chat %s is a character's", chatID)
	}
	if typ == prompt.TypeNormal {
		return "", name, speaker, nil
	}
	tail := 1
	msgs, err := s.d.Chats.Messages(ctx, chatID, &chats.Range{Tail: &tail})
	if err != nil {
		return "", "", "", err
	}
	if len(msgs) == 0 || msgs[0].Role == "user" {
		return "", "", "", apperr.Invalid("a %s run needs a reply to work on: the chat's last message is not the character's", typ)
	}
	return msgs[0].ID, name, speaker, nil
}

// memberAvatar is generateOptions.memberAvatar, the group member a run
// replies as (nil when not given).
func memberAvatar(raw json.RawMessage) (*string, error) {
	if !present(raw) {
		return nil, nil
	}
	var o struct {
		MemberAvatar *string `json:"memberAvatar"`
	}
	if err := json.Unmarshal(raw, &o); err != nil {
		return nil, apperr.Invalid("generateOptions must be an object with a string memberAvatar: %v", err)
	}
	return o.MemberAvatar, nil
}

// isJSONObject reports whether raw is a JSON object.
func isJSONObject(raw []byte) bool {
	t := bytes.TrimSpace(raw)
	return len(t) > 0 && t[0] == '{'
}
