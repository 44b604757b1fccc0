package agent

import (
	"encoding/json"

	"hearth/backend/agent/profile"
	"hearth/backend/providers"
)

// toolSpec is what the model is told about one tool: a description and a
// JSON Schema of its arguments (AGENT.md §5).
type toolSpec struct {
	description string
	parameters  string
}

// specs are the tools' descriptions, by canonical name. The limits in the
// texts are the ones the tools enforce.
var specs = map[string]toolSpec{
	profile.ToolChatSearch: {
		"Search this chat's messages (full text; CJK substrings work). Returns up to `limit` hits (≤ 50) with the message index, role and a snippet.",
		`{"type":"object","properties":{"query":{"type":"string"},"limit":{"type":"integer","minimum":1,"maximum":50},"role":{"type":"string","enum":["user","assistant","system"]},"start_message":{"type":"integer","minimum":0},"end_message":{"type":"integer","minimum":0}},"required":["query"]}`,
	},
	profile.ToolChatReadMessages: {
		"Read messages of this chat by index (0 is the first). At most 20 messages, 8,000 characters each and 20,000 in all; use start_char to read on.",
		`{"type":"object","properties":{"messages":{"type":"array","maxItems":20,"items":{"type":"object","properties":{"index":{"type":"integer","minimum":0},"start_char":{"type":"integer","minimum":0},"max_chars":{"type":"integer","minimum":1,"maximum":8000}},"required":["index"]}}},"required":["messages"]}`,
	},
	profile.ToolWorldInfoReadActivated: {
		"Read the lorebook (World Info) entries activated for this turn. Without entries, lists them; with entries, reads each by ref: at most 20 entries, 8,000 characters each and 20,000 in all; use start_char to read on.",
		`{"type":"object","properties":{"entries":{"type":"array","maxItems":20,"items":{"type":"object","properties":{"ref":{"type":"string"},"start_char":{"type":"integer","minimum":0},"max_chars":{"type":"integer","minimum":1}},"required":["ref"]}}}}`,
	},
	profile.ToolSkillList: {
		"List the skills you may read: name and description.",
		`{"type":"object","properties":{}}`,
	},
	profile.ToolSkillSearch: {
		"Search the skills' names, descriptions and texts.",
		`{"type":"object","properties":{"query":{"type":"string"},"limit":{"type":"integer","minimum":1,"maximum":50}},"required":["query"]}`,
	},
	profile.ToolSkillRead: {
		"Read a skill's SKILL.md; use start_char to read on. Reads count against a per-run budget.",
		`{"type":"object","properties":{"name":{"type":"string"},"start_char":{"type":"integer","minimum":0},"max_chars":{"type":"integer","minimum":1}},"required":["name"]}`,
	},
	profile.ToolWorkspaceListFiles: {
		"List the files of your workspace (or of one folder of it), with sizes.",
		`{"type":"object","properties":{"path":{"type":"string"},"depth":{"type":"integer","minimum":1,"maximum":4}}}`,
	},
	profile.ToolWorkspaceSearchFiles: {
		"Search the text of your workspace's files (case-insensitive); hits come with line numbers and context lines.",
		`{"type":"object","properties":{"query":{"type":"string"},"path":{"type":"string"},"limit":{"type":"integer","minimum":1,"maximum":100},"context_lines":{"type":"integer","minimum":0,"maximum":5}},"required":["query"]}`,
	},
	profile.ToolWorkspaceReadFile: {
		"Read a workspace file, with line numbers: line_count lines (default 400) from start_line (default 1), up to 40,000 characters. Read the lines you will patch first.",
		`{"type":"object","properties":{"path":{"type":"string"},"start_line":{"type":"integer","minimum":1},"line_count":{"type":"integer","minimum":1}},"required":["path"]}`,
	},
	profile.ToolWorkspaceWriteFile: {
		"Write a workspace file: replace its content, or append to it. Paths are relative, like output/main.md.",
		`{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"},"mode":{"type":"string","enum":["replace","append"]}},"required":["path","content"]}`,
	},
	profile.ToolWorkspaceApplyPatch: {
		"Replace old_string with new_string in a file. old_string must lie in lines you have read since the file last changed (text you wrote or patched counts as read), and occur exactly once unless replace_all is true.",
		`{"type":"object","properties":{"path":{"type":"string"},"old_string":{"type":"string"},"new_string":{"type":"string"},"replace_all":{"type":"boolean"}},"required":["path","old_string","new_string"]}`,
	},
	profile.ToolWorkspaceCommit: {
		"Commit a workspace file to the chat as your reply (default output/main.md). The first commit creates the reply; later ones replace its text, or append to it with mode append.",
		`{"type":"object","properties":{"path":{"type":"string"},"mode":{"type":"string","enum":["replace","append"]},"reason":{"type":"string"}}}`,
	},
	profile.ToolWorkspaceFinish: {
		"End the run once your reply is committed.",
		`{"type":"object","properties":{"reason":{"type":"string"}}}`,
	},
}

// providerTools lists the tools p allows, under their underscore names:
// OpenAI and Anthropic refuse dots in function names.
func providerTools(p profile.Profile) []providers.Tool {
	var out []providers.Tool
	for _, name := range profile.Tools() {
		if !p.Allowed(name) {
			continue
		}
		s := specs[name]
		out = append(out, providers.Tool{Name: profile.Alias(name), Description: s.description, Parameters: json.RawMessage(s.parameters)})
	}
	return out
}
