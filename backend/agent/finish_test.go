package agent_test

import (
	"strings"
	"testing"
)

// TestFinishNeedsRequiredArtifact: a foreground run that committed a
// scratch file but not output/main.md cannot finish; the model gets
// workspace.required_artifact_missing as the tool's result, commits the
// artifact and then finishes, and the chat reply is the artifact's text.
func TestFinishNeedsRequiredArtifact(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	r.model.Push(
		round("", call{"workspace_write_file", map[string]any{"path": "scratch/x.md", "content": "Scratch notes."}}),
		round("", call{"workspace_commit", map[string]any{"path": "scratch/x.md"}}, call{"workspace_finish", map[string]any{}}),
		round("", call{"workspace_write_file", map[string]any{"path": "output/main.md", "content": "The real reply."}}),
		round("", call{"workspace_commit", map[string]any{}}, call{"workspace_finish", map[string]any{}}),
	)
	h := r.start(map[string]any{"profileId": "default-writer"})
	r.waitStatus(h.RunID, "completed")
	res := r.toolResults(2)
	if len(res) != 3 || !strings.Contains(res[2], "workspace.required_artifact_missing") || !strings.Contains(res[2], "output/main.md") {
		t.Fatalf("the finish after committing scratch/x.md returned %q", res)
	}
	if last := r.lastMessage(); last["mes"] != "The real reply." {
		t.Fatalf("the chat reply is %q, not output/main.md", last["mes"])
	}
}
