package apptest

import (
	"encoding/json"
	"sort"
	"strings"
	"testing"
)

// searchChat has English, Japanese and Chinese messages of every role.
func searchChat() []map[string]any {
	return []map[string]any{
		{"name": "User", "is_user": true, "mes": "Where did you hide the silver lantern?"},
		{"name": "Seraphina", "is_user": false, "mes": "東京の夜は静かです。猫が窓辺で眠っている。"},
		{"name": "Seraphina", "is_user": false, "mes": "我们在北京喝茶，猫也在。"},
		{"name": "System", "is_user": false, "mes": "The lantern dims.", "extra": map[string]any{"type": "narrator"}},
		{"name": "User", "is_user": true, "mes": "A secret: the lantern is in the well.", "extra": map[string]any{"hidden": true}},
	}
}

// searchHits decodes a chat.search result.
func searchHits(t *testing.T, out json.RawMessage) []map[string]any {
	t.Helper()
	return Decode[[]map[string]any](t, out)
}

// hitIndexes lists the hits' indexes, sorted.
func hitIndexes(t *testing.T, out json.RawMessage) []int {
	t.Helper()
	var idx []int
	for _, h := range searchHits(t, out) {
		idx = append(idx, int(h["index"].(float64)))
	}
	sort.Ints(idx)
	return idx
}

func searchArgs(query string, rest ...any) func(e *Env) []any {
	return func(e *Env) []any { return append([]any{e.ChatID, query}, rest...) }
}

// SearchScenarios cover chat.search (HOST-ABI 3.6): what it finds, its
// filters, a search of every chat, and its validation — a refused search
// changes nothing and emits nothing, like every call.
func SearchScenarios() []Scenario {
	invalid := "validation.invalid_argument"
	return []Scenario{
		{Name: "search finds an English word, hidden excluded", Messages: searchChat(), Method: "chat.search",
			Args: searchArgs("lantern"), NoOp: true,
			Check: func(t *testing.T, e *Env, out json.RawMessage) {
				Eq(t, "indexes", hitIndexes(t, out), []int{0, 3})
				for _, h := range searchHits(t, out) {
					if !strings.Contains(strings.ToLower(h["snippet"].(string)), "lantern") {
						t.Errorf("snippet %q lacks the hit", h["snippet"])
					}
					if h["score"].(float64) <= 0 {
						t.Errorf("score %v", h["score"])
					}
					if _, ok := h["chatId"]; ok {
						t.Errorf("a one-chat hit names its chat: %v", h)
					}
				}
			}},
		{Name: "search with includeHidden finds hidden messages", Messages: searchChat(), Method: "chat.search",
			Args: searchArgs("lantern", map[string]any{"includeHidden": true}), NoOp: true,
			Check: func(t *testing.T, e *Env, out json.RawMessage) {
				Eq(t, "indexes", hitIndexes(t, out), []int{0, 3, 4})
			}},
		{Name: "search finds 1- and 2-character CJK", Messages: searchChat(), Method: "chat.search",
			Args: searchArgs("猫"), NoOp: true,
			Check: func(t *testing.T, e *Env, out json.RawMessage) {
				Eq(t, "猫", hitIndexes(t, out), []int{1, 2})
				var two []map[string]any
				e.Must(&two, "chat.search", e.ChatID, "東京")
				Eq(t, "東京 hits", len(two), 1)
				Eq(t, "東京 hit", []any{two[0]["index"], two[0]["id"], two[0]["role"]}, []any{1, e.IDs[1], "assistant"})
			}},
		{Name: "search filters by role, range and limit", Messages: searchChat(), Method: "chat.search",
			Args: searchArgs("lantern", map[string]any{"role": "system"}), NoOp: true,
			Check: func(t *testing.T, e *Env, out json.RawMessage) {
				Eq(t, "system", hitIndexes(t, out), []int{3})
				var got []map[string]any
				e.Must(&got, "chat.search", e.ChatID, "lantern", map[string]any{"start": 1, "end": 4})
				Eq(t, "range", len(got), 1)
				e.Must(&got, "chat.search", e.ChatID, "lantern", map[string]any{"limit": 1})
				Eq(t, "limit", len(got), 1)
			}},
		{Name: "search follows skipChunkRebuild edits", Messages: searchChat(), Method: "chat.search",
			Prepare: func(e *Env) {
				e.Must(nil, "chat.updateMessage", e.ChatID, e.IDs[0], map[string]any{"content": "a streamed walrus", "skipChunkRebuild": true})
			},
			Args: searchArgs("walrus"), NoOp: true,
			Check: func(t *testing.T, e *Env, out json.RawMessage) {
				Eq(t, "indexes", hitIndexes(t, out), []int{0})
			}},
		{Name: "search of every chat names the chat", Messages: searchChat(), Method: "chat.search",
			Args: func(e *Env) []any { return []any{nil, "北京"} }, NoOp: true,
			Check: func(t *testing.T, e *Env, out json.RawMessage) {
				hits := searchHits(t, out)
				if len(hits) != 1 {
					t.Fatalf("hits = %v", hits)
				}
				Eq(t, "hit", []any{hits[0]["chatId"], hits[0]["index"], hits[0]["avatar"]}, []any{e.ChatID, 2, e.Avatar})
				if name, _ := hits[0]["fileName"].(string); name == "" {
					t.Errorf("no fileName: %v", hits[0])
				}
			}},
		{Name: "search operators are literal", Messages: searchChat(), Method: "chat.search",
			Args: searchArgs(`"lantern" OR NEAR(猫*`), NoOp: true,
			Check: func(t *testing.T, e *Env, out json.RawMessage) { Eq(t, "hits", hitIndexes(t, out), []int(nil)) }},
		{Name: "search empty query", Messages: searchChat(), Method: "chat.search", Args: searchArgs(""), WantErr: invalid},
		{Name: "search blank query", Messages: searchChat(), Method: "chat.search", Args: searchArgs(" \n\t "), WantErr: invalid},
		{Name: "search query too long", Messages: searchChat(), Method: "chat.search", Args: searchArgs(strings.Repeat("猫", 1001)), WantErr: invalid},
		{Name: "search query not a string", Messages: searchChat(), Method: "chat.search", RawArgs: raw(`42`), WantErr: invalid},
		{Name: "search query missing", Messages: searchChat(), Method: "chat.search", Args: chatArgs(), WantErr: invalid},
		{Name: "search chatId not a string", Messages: searchChat(), Method: "chat.search",
			Args: func(e *Env) []any { return []any{7, "lantern"} }, WantErr: invalid},
		{Name: "search unknown chat", Messages: searchChat(), Method: "chat.search",
			Args: func(e *Env) []any { return []any{"00000000-0000-4000-8000-000000000000", "lantern"} }, WantErr: "chat.not_found"},
		{Name: "search limit 0", Messages: searchChat(), Method: "chat.search", Args: searchArgs("lantern", map[string]any{"limit": 0}), WantErr: invalid},
		{Name: "search limit 201", Messages: searchChat(), Method: "chat.search", Args: searchArgs("lantern", map[string]any{"limit": 201}), WantErr: invalid},
		{Name: "search limit fraction", Messages: searchChat(), Method: "chat.search", RawArgs: raw(`"lantern", {"limit": 1.5}`), WantErr: invalid},
		{Name: "search limit NaN", Messages: searchChat(), Method: "chat.search", RawArgs: raw(`"lantern", {"limit": null}`), WantErr: invalid},
		{Name: "search limit string", Messages: searchChat(), Method: "chat.search", Args: searchArgs("lantern", map[string]any{"limit": "5"}), WantErr: invalid},
		{Name: "search unknown role", Messages: searchChat(), Method: "chat.search", Args: searchArgs("lantern", map[string]any{"role": "bot"}), WantErr: invalid},
		{Name: "search role not a string", Messages: searchChat(), Method: "chat.search", Args: searchArgs("lantern", map[string]any{"role": 1}), WantErr: invalid},
		{Name: "search unknown option", Messages: searchChat(), Method: "chat.search", Args: searchArgs("lantern", map[string]any{"hidden": true}), WantErr: invalid},
		{Name: "search options not an object", Messages: searchChat(), Method: "chat.search", Args: searchArgs("lantern", []int{1}), WantErr: invalid},
		{Name: "search start after end", Messages: searchChat(), Method: "chat.search", Args: searchArgs("lantern", map[string]any{"start": 3, "end": 1}), WantErr: invalid},
		{Name: "search negative start", Messages: searchChat(), Method: "chat.search", Args: searchArgs("lantern", map[string]any{"start": -1}), WantErr: invalid},
		{Name: "search includeHidden not a boolean", Messages: searchChat(), Method: "chat.search",
			Args: searchArgs("lantern", map[string]any{"includeHidden": "yes"}), WantErr: invalid},
		{Name: "search range without a chat", Messages: searchChat(), Method: "chat.search",
			Args: func(e *Env) []any { return []any{nil, "lantern", map[string]any{"start": 0}} }, WantErr: invalid},
	}
}
