package host

import (
	"context"
	"encoding/json"

	"hearth/backend/agent"
	"hearth/backend/agent/profile"
	"hearth/backend/agent/runstore"
	"hearth/backend/agent/skills"
	"hearth/backend/agent/workspace"
	"hearth/backend/apperr"
	"hearth/backend/events"
)

// registerAgent adds api.agent (AGENT.md §3). Every method takes one
// object, as the seed's do, except those keyed by a run id alone.
func registerAgent(r *Router, svc *agent.Service, profiles *profile.Store, lib *skills.Library, bus *events.Bus) {
	start := func(fn func(context.Context, agent.StartInput) (runstore.Handle, error)) Handler {
		return func(ctx context.Context, a Args) (any, error) {
			var in agent.StartInput
			if a.Has(0) {
				if err := a.Object(0, "input", &in); err != nil {
					return nil, err
				}
			}
			return fn(ctx, in)
		}
	}
	r.Register("agent.startRunFromLegacyGenerate", start(svc.StartFromLegacyGenerate))
	r.Register("agent.startRunWithPromptSnapshot", start(svc.StartWithSnapshot))
	withRun := func(fn func(ctx context.Context, runID string) (any, error)) Handler {
		return func(ctx context.Context, a Args) (any, error) {
			id, err := a.String(0, "runId")
			if err != nil {
				return nil, err
			}
			return fn(ctx, id)
		}
	}
	r.Register("agent.cancel", withRun(func(ctx context.Context, id string) (any, error) { return svc.Cancel(ctx, id) }))
	r.Register("agent.getRun", withRun(func(ctx context.Context, id string) (any, error) { return svc.Run(ctx, id) }))
	r.Register("agent.listCheckpoints", withRun(func(ctx context.Context, id string) (any, error) {
		cps, err := svc.Checkpoints(ctx, id)
		if err != nil {
			return nil, err
		}
		return map[string]any{"checkpoints": cps}, nil
	}))
	r.Register("agent.readEvents", func(ctx context.Context, a Args) (any, error) {
		var in struct {
			RunID     string `json:"runId"`
			AfterSeq  int64  `json:"afterSeq"`
			BeforeSeq *int64 `json:"beforeSeq"`
			Limit     *int   `json:"limit"`
		}
		if err := a.Object(0, "input", &in, "afterSeq", "beforeSeq", "limit"); err != nil {
			return nil, err
		}
		limit, err := givenBound(in.Limit, runstore.CheckEventsLimit)
		if err != nil {
			return nil, err
		}
		evs, more, err := svc.ReadEvents(ctx, in.RunID, in.AfterSeq, in.BeforeSeq, limit)
		if err != nil {
			return nil, err
		}
		if evs == nil {
			evs = []runstore.Event{}
		}
		return map[string]any{"events": evs, "hasMore": more}, nil
	})
	r.Register("agent.readWorkspaceFile", func(ctx context.Context, a Args) (any, error) {
		var in struct {
			RunID        string `json:"runId"`
			Path         string `json:"path"`
			CheckpointID string `json:"checkpointId"`
		}
		if err := a.Object(0, "input", &in); err != nil {
			return nil, err
		}
		return svc.ReadWorkspaceFile(ctx, in.RunID, in.Path, in.CheckpointID)
	})
	r.Register("agent.listWorkspaceFiles", func(ctx context.Context, a Args) (any, error) {
		var in struct {
			RunID string `json:"runId"`
			Path  string `json:"path"`
			Depth *int   `json:"depth"`
		}
		if err := a.Object(0, "input", &in, "depth"); err != nil {
			return nil, err
		}
		depth, err := givenBound(in.Depth, workspace.CheckListDepth)
		if err != nil {
			return nil, err
		}
		files, truncated, err := svc.ListWorkspaceFiles(ctx, in.RunID, in.Path, depth)
		if err != nil {
			return nil, err
		}
		return map[string]any{"files": files, "truncated": truncated}, nil
	})
	r.Register("agent.listRuns", func(ctx context.Context, a Args) (any, error) {
		var in struct {
			ChatID          string `json:"chatId"`
			Status          string `json:"status"`
			Limit           *int   `json:"limit"`
			BeforeCreatedMs *int64 `json:"beforeCreatedMs"`
		}
		if a.Has(0) {
			if err := a.Object(0, "input", &in, "limit", "beforeCreatedMs"); err != nil {
				return nil, err
			}
		}
		limit, err := givenBound(in.Limit, runstore.CheckListLimit)
		if err != nil {
			return nil, err
		}
		runs, err := svc.Runs(ctx, runstore.ListFilter{ChatID: in.ChatID, Status: in.Status, Limit: limit, BeforeCreatedMs: in.BeforeCreatedMs})
		if err != nil {
			return nil, err
		}
		return map[string]any{"runs": runs}, nil
	})
	r.Register("agent.readDiff", func(ctx context.Context, a Args) (any, error) {
		var in struct {
			RunID            string `json:"runId"`
			FromCheckpointID string `json:"fromCheckpointId"`
			ToCheckpointID   string `json:"toCheckpointId"`
			Path             string `json:"path"`
		}
		if err := a.Object(0, "input", &in); err != nil {
			return nil, err
		}
		files, err := svc.ReadDiff(ctx, in.RunID, in.FromCheckpointID, in.ToCheckpointID, in.Path)
		if err != nil {
			return nil, err
		}
		return map[string]any{"files": files}, nil
	})
	r.Register("agent.rollback", func(ctx context.Context, a Args) (any, error) {
		var in struct {
			RunID        string `json:"runId"`
			CheckpointID string `json:"checkpointId"`
			IncludeChat  bool   `json:"includeChat"`
		}
		if err := a.Object(0, "input", &in); err != nil {
			return nil, err
		}
		if in.CheckpointID == "" {
			return nil, invalid("checkpointId is required")
		}
		return svc.Rollback(ctx, in.RunID, in.CheckpointID, in.IncludeChat)
	})
	r.Register("agent.approveToolCall", func(ctx context.Context, a Args) (any, error) {
		var in struct {
			RunID    string `json:"runId"`
			CallID   string `json:"callId"`
			Decision string `json:"decision"`
			Reason   string `json:"reason"`
		}
		if err := a.Object(0, "input", &in); err != nil {
			return nil, err
		}
		return nil, svc.Approve(ctx, in.RunID, in.CallID, in.Decision, in.Reason)
	})
	registerAgentProfiles(r, profiles, bus)
	registerSkills(r, lib)
}

// registerSkills adds api.agent.skills: the library runs read skills from.
func registerSkills(r *Router, lib *skills.Library) {
	r.Register("agent.skills.list", func(ctx context.Context, _ Args) (any, error) {
		list, problems, err := lib.List(skills.All())
		if err != nil {
			return nil, err
		}
		if list == nil {
			list = []skills.Skill{}
		}
		if problems == nil {
			problems = []skills.Problem{}
		}
		return map[string]any{"skills": list, "problems": problems}, nil
	})
	r.Register("agent.skills.read", func(ctx context.Context, a Args) (any, error) {
		name, err := a.String(0, "name")
		if err != nil {
			return nil, err
		}
		return lib.Read(name, skills.All(), 0, 0)
	})
	r.Register("agent.skills.install", func(ctx context.Context, a Args) (any, error) {
		var in struct {
			Files   []skills.UploadFile `json:"files"`
			Replace bool                `json:"replace"`
		}
		if err := a.Object(0, "input", &in); err != nil {
			return nil, err
		}
		return lib.InstallFiles(in.Files, skills.InstallOptions{Replace: in.Replace})
	})
}

// registerAgentProfiles adds api.agent.profiles. Ids come as a string or
// {profileId}, profiles as themselves or {profile}, as in the seed.
func registerAgentProfiles(r *Router, profiles *profile.Store, bus *events.Bus) {
	changed := func() {
		bus.Publish(events.Event{Type: events.AgentProfilesChanged, Payload: &events.AgentProfilesChangedPayload{}})
	}
	profileID := func(a Args) (string, error) {
		if !a.Has(0) {
			return "", invalid("profileId is required")
		}
		var id string
		if json.Unmarshal(a.Raw(0), &id) == nil {
			return id, nil
		}
		var in struct {
			ProfileID string `json:"profileId"`
		}
		if err := json.Unmarshal(a.Raw(0), &in); err != nil || in.ProfileID == "" {
			return "", invalid("profileId must be a string or {profileId}")
		}
		return in.ProfileID, nil
	}
	r.Register("agent.profiles.list", func(ctx context.Context, _ Args) (any, error) {
		return profiles.List(ctx)
	})
	r.Register("agent.profiles.load", func(ctx context.Context, a Args) (any, error) {
		id, err := profileID(a)
		if err != nil {
			return nil, err
		}
		p, err := profiles.Load(ctx, id)
		if apperr.CodeOf(err) == profile.CodeNotFound {
			return map[string]any{"profile": nil}, nil
		}
		if err != nil {
			return nil, err
		}
		return map[string]any{"profile": p}, nil
	})
	r.Register("agent.profiles.save", func(ctx context.Context, a Args) (any, error) {
		if !a.Has(0) {
			return nil, invalid("profile is required")
		}
		raw := a.Raw(0)
		var wrapped struct {
			Profile json.RawMessage `json:"profile"`
		}
		if json.Unmarshal(raw, &wrapped) == nil && len(wrapped.Profile) > 0 && !isNull(wrapped.Profile) {
			raw = wrapped.Profile
		}
		if _, err := profiles.Save(ctx, raw); err != nil {
			return nil, err
		}
		changed()
		return nil, nil
	})
	r.Register("agent.profiles.delete", func(ctx context.Context, a Args) (any, error) {
		id, err := profileID(a)
		if err != nil {
			return nil, err
		}
		if err := profiles.Delete(ctx, id); err != nil {
			return nil, err
		}
		changed()
		return nil, nil
	})
	r.Register("agent.profiles.diagnose", func(ctx context.Context, a Args) (any, error) {
		id, err := profileID(a)
		if err != nil {
			return nil, err
		}
		ok, issues, err := profiles.Diagnose(ctx, id)
		if err != nil {
			return nil, err
		}
		if issues == nil {
			issues = []profile.Issue{}
		}
		return map[string]any{"ok": ok, "issues": issues}, nil
	})
}

// givenBound checks a bound a caller gave (a page limit, a listing depth)
// with check, and answers 0, the domain's "not given", for one left out:
// the domain cannot tell a given 0 from a missing one, so a given 0 is
// refused here.
func givenBound(limit *int, check func(int) error) (int, error) {
	if limit == nil {
		return 0, nil
	}
	if err := check(*limit); err != nil {
		return 0, err
	}
	return *limit, nil
}
