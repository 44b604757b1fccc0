package generate

import (
	"context"

	"hearth/backend/apperr"
	"hearth/backend/events"
	"hearth/backend/prompt"
	"hearth/backend/worldinfo"
)

// Snapshot is generate.dryRun's answer (HOST-ABI PromptSnapshot): the
// request the next generation would send, exactly, with its budget.
type Snapshot struct {
	ChatCompletionPayload prompt.Payload      `json:"chatCompletionPayload"`
	WorldInfoActivation   WorldInfoActivation `json:"worldInfoActivation"`
	TokenCounts           prompt.TokenCounts  `json:"tokenCounts"`
	// Hooks says what the window's prompt hooks did to this prompt.
	Hooks HooksRecord `json:"hooks"`
}

// WorldInfoActivation lists the lorebook entries a prompt used; the
// shape is the agent API's. Warnings and DisabledKeys say what the scan
// could not do (worldinfo.Activation), left out when there is nothing to
// say: the prompt inspector and the lorebook editor's check show them.
type WorldInfoActivation struct {
	TimestampMs  int64                   `json:"timestampMs"`
	Trigger      string                  `json:"trigger"`
	Entries      []WorldInfoEntry        `json:"entries"`
	Warnings     []string                `json:"warnings,omitempty"`
	DisabledKeys []worldinfo.DisabledKey `json:"disabledKeys,omitempty"`
}

// WorldInfoEntry is one activated lorebook entry.
type WorldInfoEntry struct {
	World       string `json:"world"`
	UID         any    `json:"uid"`
	DisplayName string `json:"displayName"`
	Constant    bool   `json:"constant"`
	Content     string `json:"content"`
	Position    string `json:"position,omitempty"`
}

// DryRun assembles the prompt the generation o would send, without
// sending it or writing anything. It works without a connection (the
// payload then names no model). Like SillyTavern's dry run it hands the
// prompt to the window's CHAT_COMPLETION_PROMPT_READY listeners with
// dryRun: true (the snapshot is what they left) and announces it, so
// extensions that inspect prompts see this one too.
//
// In a group chat it shows one member's prompt, with that member's
// connection and preset override: memberAvatar's, else the one a swipe,
// continue or regenerate acts on, else the first unmuted member's. It
// drafts nobody and sends no group event.
func (s *Service) DryRun(ctx context.Context, o Options) (*Snapshot, error) {
	if err := o.validate(); err != nil {
		return nil, err
	}
	plan, err := s.planTurn(ctx, &o, false)
	if err != nil {
		return nil, err
	}
	if plan != nil {
		if len(plan.speakers) == 0 {
			return nil, apperr.Invalid("the group has no unmuted member to show a prompt for; name one with memberAvatar")
		}
		o = plan.optionsFor(o, plan.speakers[0])
	}
	model, vis := "", false
	if o.ConnectionID != nil || s.hasActive(ctx) {
		_, conn, err := s.connection(ctx, &o)
		if err != nil {
			return nil, err
		}
		model, vis = conn.Model, vision(conn.Provider, conn.Model)
	}
	preset, err := s.preset(ctx, &o)
	if err != nil {
		return nil, err
	}
	b, err := s.build(ctx, &o, preset, model, vis, true)
	if err != nil {
		return nil, err
	}
	if b.hooks.PromptReady, err = s.promptReady(ctx, &o, b, "", model, true); err != nil {
		return nil, err
	}
	snap := &Snapshot{
		ChatCompletionPayload: b.prompt.Payload(model),
		WorldInfoActivation:   activationOf(b.activation, s.now().UnixMilli(), o.Type),
		TokenCounts:           b.prompt.Tokens,
		Hooks:                 b.hooks,
	}
	s.publish(events.ChatCompletionPromptReady, &events.PromptReadyPayload{ChatID: o.ChatID, Chat: snap.ChatCompletionPayload.Messages, DryRun: true,
		Hooked: b.hooks.PromptReady != nil})
	return snap, nil
}

// activationOf reports a build's lorebook activation in the snapshot's
// shape; none attached is an empty list.
func activationOf(a *worldinfo.Activation, now int64, trigger string) WorldInfoActivation {
	out := WorldInfoActivation{TimestampMs: now, Trigger: trigger, Entries: []WorldInfoEntry{}}
	if a == nil {
		return out
	}
	out.TimestampMs, out.Trigger = a.TimestampMs, a.Trigger
	out.Warnings, out.DisabledKeys = a.Warnings, a.DisabledKeys
	for _, e := range a.Entries {
		out.Entries = append(out.Entries, WorldInfoEntry{World: e.World, UID: e.UID, DisplayName: e.DisplayName,
			Constant: e.Constant, Content: e.Content, Position: e.Position})
	}
	return out
}

func (s *Service) hasActive(ctx context.Context) bool {
	c, err := s.src.Connections.Active(ctx)
	return err == nil && c != nil
}
