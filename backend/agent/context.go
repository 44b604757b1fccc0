package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"hearth/backend/agent/profile"
	"hearth/backend/agent/runstore"
	"hearth/backend/agent/workspace"
	"hearth/backend/providers"
)

// defaultInstructions is the system prompt of a profile that brings none.
// It tells the model how a run works; the roleplay prompt follows it.
const defaultInstructions = `You are writing the next reply of a roleplay chat. You work in a private workspace of files, with tools; nobody sees your work until you commit it.

How to work:
1. The conversation below is the chat's prompt as the app would send it. If you need more of the story than it shows, use chat_search and chat_read_messages.
2. Write the reply into %[1]s with workspace_write_file: only the reply itself, in the chat's language and style, with no preamble and no notes to the user.
3. Call workspace_commit to put it into the chat. You may revise the file (workspace_read_file, then workspace_apply_patch) and commit again.
4. Call workspace_finish when the reply is committed.

Folders: output/ holds what you commit; scratch/ and plan/ are for notes; summaries/ for summaries; persist/ is kept for the next runs in this chat.`

// closingInstruction follows the roleplay prompt, where models look last.
const closingInstruction = "[Hearth] Write the next reply into %s, commit it with workspace_commit, then call workspace_finish."

// conversation is the first request's messages: the run's instructions,
// the snapshot's prompt, and a closing reminder.
func (r *run) conversation() []providers.Message {
	artifact, _ := r.prof.MessageBody()
	system := fmt.Sprintf(defaultInstructions, artifact.Path)
	if p := r.prof.Instructions.AgentSystemPrompt; p != nil && strings.TrimSpace(*p) != "" {
		system = *p
	}
	out := make([]providers.Message, 0, len(r.messages)+2)
	out = append(out, providers.Message{Role: providers.RoleSystem, Content: system})
	out = append(out, r.messages...)
	out = append(out, providers.Message{Role: providers.RoleSystem, Content: fmt.Sprintf(closingInstruction, artifact.Path)})
	return out
}

// initWorkspace makes the run's folders, brings in the chat's persist/
// from its last successful run, records the first checkpoint and starts
// watching the folder.
func (r *run) initWorkspace() error {
	r.emit("profile_resolved", map[string]any{"profileId": r.prof.ID, "displayName": r.prof.DisplayName},
		runstore.Change{Status: runstore.StatusInitializingWorkspace})
	dir, err := workspace.OpenWorkingCopy(r.svc.runDir(r.workspaceID, r.id))
	if err != nil {
		return err
	}
	r.dir = dir
	raw, from, err := r.svc.d.Runs.ChatPersist(r.ctx, r.chatID)
	if err != nil {
		return err
	}
	var carried workspace.Manifest
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &carried); err != nil {
			return fmt.Errorf("read the chat's persist/ manifest: %w", err)
		}
		if _, err := workspace.Restore(dir, r.svc.blobs, carried); err != nil {
			return err
		}
	}
	var skipped workspace.Skipped
	r.manifest, skipped, err = workspace.Scan(dir, r.svc.blobs)
	if err != nil {
		return err
	}
	r.reportSkipped(skipped)
	if err := r.checkpointNow(context.Background(), "initial", r.manifest.Paths(), "workspace_initialized", map[string]any{
		"workspaceId": r.workspaceID, "files": len(r.manifest), "persistFrom": from,
	}); err != nil {
		return err
	}
	r.svc.watch.add(r)
	return nil
}

// visible and writable are the profile's roots.
func (r *run) visible() []string  { return r.prof.Workspace.VisibleRoots }
func (r *run) writable() []string { return r.prof.Workspace.WritableRoots }

// isPersist reports whether a workspace path is under persist/.
func isPersist(p string) bool { return strings.HasPrefix(p, profile.RootPersist+"/") }
