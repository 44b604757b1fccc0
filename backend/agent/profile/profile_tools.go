package profile

import "strings"

// The tools of AGENT.md §5, by their canonical (dotted) names.
const (
	ToolChatSearch             = "chat.search"
	ToolChatReadMessages       = "chat.read_messages"
	ToolWorldInfoReadActivated = "worldinfo.read_activated"
	ToolSkillList              = "skill.list"
	ToolSkillSearch            = "skill.search"
	ToolSkillRead              = "skill.read"
	ToolWorkspaceListFiles     = "workspace.list_files"
	ToolWorkspaceSearchFiles   = "workspace.search_files"
	ToolWorkspaceReadFile      = "workspace.read_file"
	ToolWorkspaceWriteFile     = "workspace.write_file"
	ToolWorkspaceApplyPatch    = "workspace.apply_patch"
	ToolWorkspaceCommit        = "workspace.commit"
	ToolWorkspaceFinish        = "workspace.finish"
)

// Tools returns the canonical tool names in the seed's order; the slice is
// the caller's.
func Tools() []string {
	return []string{
		ToolChatSearch, ToolChatReadMessages, ToolWorldInfoReadActivated,
		ToolSkillList, ToolSkillSearch, ToolSkillRead,
		ToolWorkspaceListFiles, ToolWorkspaceSearchFiles, ToolWorkspaceReadFile,
		ToolWorkspaceWriteFile, ToolWorkspaceApplyPatch, ToolWorkspaceCommit, ToolWorkspaceFinish,
	}
}

// toolCount is how many tools there are.
const toolCount = 13

// toolNamesForMessages lists the tools for an error message.
var toolNamesForMessages = strings.Join(Tools(), ", ") + " (or their underscore forms, like workspace_read_file)"

// canonical maps both forms of every tool name to the dotted one.
var canonical = func() map[string]string {
	m := make(map[string]string, 2*toolCount)
	for _, t := range Tools() {
		m[t] = t
		m[Alias(t)] = t
	}
	return m
}()

// Alias returns the underscore form of a dotted tool name
// ("workspace.read_file" → "workspace_read_file"), for providers that
// refuse dots in function names.
func Alias(name string) string { return strings.ReplaceAll(name, ".", "_") }

// Canonical returns the dotted name of a tool given in either form, and
// false for a name that is no tool.
func Canonical(name string) (string, bool) {
	c, ok := canonical[name]
	return c, ok
}
