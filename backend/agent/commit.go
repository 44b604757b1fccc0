package agent

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"hearth/backend/agent/runstore"
	"hearth/backend/agent/workspace"
	"hearth/backend/apperr"
	"hearth/backend/chats"
	"hearth/backend/jsonx"
	"hearth/backend/prompt"
)

// commitRecord is one commit of a run: the seed's AgentMessageExtra
// commit, plus where it landed and the chat revision it made (which a
// rollback with includeChat reverts).
type commitRecord struct {
	Seq          int    `json:"seq"`
	CommitID     string `json:"commitId"`
	CheckpointID string `json:"checkpointId"`
	Path         string `json:"path"`
	Mode         string `json:"mode"`
	Reason       string `json:"reason,omitempty"`
	Bytes        int64  `json:"bytes"`
	SHA256       string `json:"sha256"`
	MessageID    string `json:"messageId"`
	SwipeID      int    `json:"swipeId"`
	Revision     int64  `json:"revision"`
}

// commit is workspace.commit: the file's text becomes the run's reply
// through the chat's message pipeline, in one chat transaction.
func (r *run) commit(args json.RawMessage) (any, error) {
	var a struct {
		Path   string `json:"path"`
		Mode   string `json:"mode"`
		Reason string `json:"reason"`
	}
	if err := decode(args, &a); err != nil {
		return nil, err
	}
	artifact, _ := r.prof.MessageBody()
	if a.Path == "" {
		a.Path = artifact.Path
	}
	if a.Mode == "" {
		a.Mode = "replace"
	}
	if a.Mode != "replace" && a.Mode != "append" {
		return nil, apperr.Invalid("mode must be replace or append; got %q", cut(a.Mode, 40))
	}
	path, err := workspace.Clean(a.Path, r.visible())
	if err != nil {
		return nil, err
	}
	data, err := r.dir.Read(path)
	if err != nil {
		return nil, err
	}
	text := strings.TrimSpace(string(data))
	if text == "" {
		return nil, apperr.New(CodeArtifactMissing, "%s is empty: write the reply into it first", path).WithDetails(map[string]any{"path": path})
	}
	// Files changed from outside since the last checkpoint are in the one
	// this commit points at.
	files, err := r.takeIn()
	if err != nil {
		return nil, err
	}
	if len(files) > 0 {
		if err := r.checkpointNow(r.ctx, "before commit", files, "", nil); err != nil {
			return nil, err
		}
	}
	rec := commitRecord{Seq: len(r.commits) + 1, CommitID: "commit_" + uuid.NewString(), CheckpointID: r.checkpoint,
		Path: path, Mode: a.Mode, Reason: cut(a.Reason, 500), Bytes: int64(len(data)), SHA256: hashOf(data)}
	r.emit("chat_commit_requested", map[string]any{"commitId": rec.CommitID, "checkpointId": rec.CheckpointID, "path": path, "mode": a.Mode},
		runstore.Change{Status: runstore.StatusCommitting})

	reply := chats.Reply{Name: r.charName, Speaker: r.speaker, Text: text, Started: time.Now(), Finished: time.Now(), Type: r.typ}
	switch {
	case r.reply == nil && r.typ == prompt.TypeSwipe:
		reply.Kind, reply.Target = chats.ReplySwipe, r.target
	case r.reply == nil && r.typ == prompt.TypeRegenerate:
		reply.Kind, reply.Target = chats.ReplyReplace, r.target
	case r.reply == nil:
		reply.Kind = chats.ReplyNew
	case a.Mode == "append":
		reply.Kind, reply.Target, reply.Swipe = chats.ReplyContinue, r.reply.MessageID, &r.reply.SwipeID
		reply.Text = "\n\n" + text
	default:
		reply.Kind, reply.Target, reply.Swipe = chats.ReplyRewrite, r.reply.MessageID, &r.reply.SwipeID
	}
	commits := append(append([]commitRecord{}, r.commits...), rec)
	reply.Extra = jsonx.Object{}
	reply.Extra.Set("hearth", map[string]any{"agent": r.messageExtra(commits, rec)})
	reply.Extra.Set("api", r.apiName)
	reply.Extra.Set("model", r.model)
	at, err := r.svc.d.Chats.CommitReply(r.ctx, r.chatID, reply)
	if err != nil {
		if ae := apperr.As(err); ae != nil && ae.Code == apperr.CodeMessageNotFound {
			return nil, apperr.New(CodeCommitFailed, "the reply this run writes to was deleted from the chat: %s", ae.Message)
		}
		return nil, apperr.New(CodeCommitFailed, "could not save the reply to the chat: %v", err)
	}
	rec.MessageID, rec.SwipeID, rec.Revision = at.ID, at.SwipeID, at.Revision
	r.reply = &replyAt{MessageID: at.ID, SwipeID: at.SwipeID}
	r.commits = append(r.commits, rec)
	raw, _ := json.Marshal(r.commits)
	r.emit("chat_commit_completed", map[string]any{
		"commitId": rec.CommitID, "checkpointId": rec.CheckpointID, "index": at.Index, "swipeId": at.SwipeID,
		"messageId": at.ID, "path": path, "mode": a.Mode, "revision": at.Revision,
	}, runstore.Change{Status: runstore.StatusDispatchingTool, Commits: raw, CommitMessageID: &at.ID})
	return map[string]any{"committed": true, "commitId": rec.CommitID, "index": at.Index, "swipeId": at.SwipeID}, nil
}

// messageExtra is the reply's extra.hearth.agent: the seed's
// AgentMessageExtra.
func (r *run) messageExtra(commits []commitRecord, last commitRecord) map[string]any {
	list := make([]map[string]any, len(commits))
	for i, c := range commits {
		list[i] = map[string]any{"seq": c.Seq, "commitId": c.CommitID, "checkpointId": c.CheckpointID, "path": c.Path,
			"mode": c.Mode, "reason": c.Reason, "bytes": c.Bytes, "sha256": c.SHA256}
	}
	var profileID any
	if r.prof.ID != "" {
		profileID = r.prof.ID
	}
	return map[string]any{
		"version": 1, "runId": r.id, "workspaceId": r.workspaceID, "stableChatId": r.chatID, "profileId": profileID,
		"checkpointId": last.CheckpointID, "commitId": last.CommitID, "commitSeq": last.Seq, "commits": list,
		"artifacts": []map[string]any{{"path": last.Path, "target": "message_body", "bytes": last.Bytes, "sha256": last.SHA256}},
	}
}

// commitsOf reads a run row's commit records.
func commitsOf(raw json.RawMessage) ([]commitRecord, error) {
	var out []commitRecord
	if len(raw) == 0 {
		return nil, nil
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, fmt.Errorf("read the run's commits: %w", err)
	}
	return out, nil
}
