package events

import (
	"encoding/json"
	"testing"

	"hearth/backend/apperr"
)

// TestPayloadJSON pins the wire form of the payloads whose keys depend on
// the values: a key the publishers always sent stays (null, false, "" or
// 0 included), a key they sent only sometimes is left out exactly when
// they left it out, and embedded structs flatten into one object.
func TestPayloadJSON(t *testing.T) {
	t.Parallel()
	empty, one, seven := "", 1, int64(7)
	cases := map[string]struct {
		payload any
		want    string
	}{
		"message received": {
			&MessageReceivedPayload{MessagePayload: MessagePayload{ChatRevision: ChatRevision{ChatID: "c", Revision: 3}, Index: 0, ID: "m", Message: map[string]any{}, StMessage: nil}, Type: "normal"},
			`{"chatId":"c","revision":3,"index":0,"id":"m","message":{},"stMessage":null,"type":"normal"}`,
		},
		"message deleted": {
			&MessageDeletedPayload{Length: 0, Deleted: []DeletedMessage{{Index: 2, ID: "m"}}},
			`{"chatId":"","revision":0,"length":0,"deleted":[{"index":2,"id":"m"}]}`,
		},
		"chat deleted, owner with an empty name": {
			&ChatDeletedPayload{ChatRevision: ChatRevision{ChatID: "c", Revision: 1}, FileName: "f", Avatar: &empty},
			`{"chatId":"c","revision":1,"fileName":"f","avatar":""}`,
		},
		"chat patched": {
			&ChatPatchedPayload{Ops: []any{}, Length: 2},
			`{"chatId":"","revision":0,"ops":[],"length":2}`,
		},
		"chat patched by undo": {
			&ChatPatchedPayload{Ops: nil, Length: 2, Method: "addMessages", UndoneRevision: &seven},
			`{"chatId":"","revision":0,"ops":null,"length":2,"method":"addMessages","undoneRevision":7}`,
		},
		"chat patched by revert": {
			&ChatPatchedPayload{Ops: []any{}, Method: "revert", RevertedRevisions: []int64{4, 5}},
			`{"chatId":"","revision":0,"ops":[],"length":0,"method":"revert","revertedRevisions":[4,5]}`,
		},
		"chat state": {
			&ChatStateChangedPayload{ChatID: "c", Namespace: "n", Revision: 2},
			`{"chatId":"c","namespace":"n","revision":2}`,
		},
		"chat state deleted": {
			&ChatStateChangedPayload{ChatID: "c", Namespace: "n", Revision: 2, Deleted: true},
			`{"chatId":"c","namespace":"n","revision":2,"deleted":true}`,
		},
		"stream token without reasoning": {
			&StreamTokenPayload{ChatID: "c", GenerationID: "g", Text: ""},
			`{"chatId":"c","generationId":"g","text":""}`,
		},
		"generation ended": {
			&GenerationEndedPayload{ChatID: "c", GenerationID: "g", Index: &one, SwipeID: &one},
			`{"chatId":"c","generationId":"g","index":1,"swipeId":1}`,
		},
		"generation failed": {
			&GenerationEndedPayload{ChatID: "c", GenerationID: "g", Error: apperr.New("model.rate_limited", "slow down"), Text: "partial"},
			`{"chatId":"c","generationId":"g","index":null,"swipeId":null,"error":{"code":"model.rate_limited","message":"slow down"},"text":"partial"}`,
		},
		"generation stopped with nothing": {
			&GenerationStoppedPayload{ChatID: "c", GenerationID: "g"},
			`{"chatId":"c","generationId":"g","index":null}`,
		},
		"dry-run prompt": {
			&PromptReadyPayload{ChatID: "c", Chat: []any{}, DryRun: true},
			`{"chatId":"c","chat":[],"dryRun":true}`,
		},
		"generation prompt": {
			&PromptReadyPayload{ChatID: "c", GenerationID: "g", Chat: []any{}},
			`{"chatId":"c","generationId":"g","chat":[],"dryRun":false}`,
		},
		"hooked prompt": {
			&PromptReadyPayload{ChatID: "c", GenerationID: "g", Chat: []any{}, Hooked: true},
			`{"chatId":"c","generationId":"g","chat":[],"dryRun":false,"hooked":true}`,
		},
		"prompt hook request": {
			&PromptHookRequestPayload{Token: "t", ChatID: "c", DryRun: true, Chat: []any{}},
			`{"token":"t","chatId":"c","dryRun":true,"chat":[]}`,
		},
		"persona to none": {
			&PersonaChangedPayload{Change: "active"},
			`{"personaId":null,"change":"active","activeId":null,"defaultId":null}`,
		},
		"lorebook saved": {
			&WorldInfoUpdatedPayload{Name: "b", Op: "save"},
			`{"name":"b","op":"save"}`,
		},
		"workspace write": {
			&WorkspaceFileChangedPayload{RunID: "r", WorkspaceID: "w", Path: "p", Op: "write", Sha256: "s"},
			`{"runId":"r","workspaceId":"w","path":"p","op":"write","sha256":"s"}`,
		},
		"workspace file too large": {
			&WorkspaceFileChangedPayload{RunID: "r", WorkspaceID: "w", Path: "p", Op: "too_large", Bytes: &seven},
			`{"runId":"r","workspaceId":"w","path":"p","op":"too_large","sha256":"","bytes":7}`,
		},
		"agent run event": {
			&AgentRunEventPayload{Seq: 1, ID: "r:1", RunID: "r", Timestamp: "t", Level: "info", Type: "run_created", Payload: json.RawMessage(`{"z":1,"a":2}`)},
			`{"seq":1,"id":"r:1","runId":"r","timestamp":"t","level":"info","type":"run_created","payload":{"z":1,"a":2}}`,
		},
		"agent profiles changed": {&AgentProfilesChangedPayload{}, `{}`},
	}
	for name, c := range cases {
		got, err := json.Marshal(c.payload)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if string(got) != c.want {
			t.Errorf("%s:\n got %s\nwant %s", name, got, c.want)
		}
	}
}
