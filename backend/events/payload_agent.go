package events

import "encoding/json"

// The payloads of agent events (backend/agent).

// AgentRunEventPayload is AGENT_RUN_EVENT's: one stored run event, as
// readEvents returns it. Payload is the stored JSON object as it is.
type AgentRunEventPayload struct {
	Seq       int64           `json:"seq"`
	ID        string          `json:"id"`
	RunID     string          `json:"runId"`
	Timestamp string          `json:"timestamp"`
	Level     string          `json:"level" ts:"'debug' | 'info' | 'warn' | 'error'"`
	Type      string          `json:"type"`
	Payload   json.RawMessage `json:"payload"`
}

// WorkspaceFileChangedPayload is WORKSPACE_FILE_CHANGED's: Sha256 is the
// new content's (empty for remove, symlink, too_large), Bytes the size of a
// file too large to read, left out otherwise.
type WorkspaceFileChangedPayload struct {
	RunID       string `json:"runId"`
	WorkspaceID string `json:"workspaceId"`
	Path        string `json:"path"`
	Op          string `json:"op" ts:"'write' | 'remove' | 'symlink' | 'too_large'"`
	Sha256      string `json:"sha256"`
	Bytes       *int64 `json:"bytes,omitempty"`
}

// AgentProfilesChangedPayload is AGENT_PROFILES_CHANGED's: empty, list the
// profiles again.
type AgentProfilesChangedPayload struct{}
