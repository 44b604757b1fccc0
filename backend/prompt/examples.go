package prompt

import (
	"strings"

	"hearth/backend/providers"
)

// examples turns the card's example dialogues into messages, as many
// whole dialogues (in the card's order) as the budget left allows: the
// chat history has the first claim on the budget, as in SillyTavern.
func (a *assembler) examples(left int) (out []Block, dropped int) {
	dialogues := parseExamples(a.m.Expand(a.in.Card.MesExample), a.m.values["user"], a.in.Card.Name)
	for i, d := range dialogues {
		var blocks []Block
		if sep := a.m.Expand(a.in.Preset.ExampleSeparator); strings.TrimSpace(sep) != "" {
			blocks = append(blocks, Block{Source: IdentDialogueExamples, Message: providers.Message{Role: providers.RoleSystem, Content: sep}})
		}
		for _, m := range d {
			blocks = append(blocks, Block{Source: IdentDialogueExamples, Message: m})
		}
		cost := 0
		for j := range blocks {
			cost += a.cost(&blocks[j])
		}
		if cost > left {
			return out, len(dialogues) - i
		}
		left -= cost
		out = append(out, blocks...)
	}
	return out, 0
}

// parseExamples splits mes_example into dialogues at each <START> and
// each dialogue into messages at each line that starts with a speaker's
// name and a colon; the name is removed. Lines before any speaker are a
// system message.
func parseExamples(text, user, char string) [][]providers.Message {
	var out [][]providers.Message
	for _, chunk := range splitFold(text, "<START>") {
		chunk = strings.TrimSpace(chunk)
		if chunk == "" {
			continue
		}
		var msgs []providers.Message
		var cur *providers.Message
		for _, line := range strings.Split(chunk, "\n") {
			role, rest, ok := speaker(line, user, char)
			if ok {
				msgs = append(msgs, providers.Message{Role: role, Content: rest})
				cur = &msgs[len(msgs)-1]
				continue
			}
			if cur == nil {
				msgs = append(msgs, providers.Message{Role: providers.RoleSystem, Content: line})
				cur = &msgs[len(msgs)-1]
				continue
			}
			cur.Content += "\n" + line
		}
		for i := range msgs {
			msgs[i].Content = strings.TrimSpace(msgs[i].Content)
		}
		out = append(out, msgs)
	}
	return out
}

func speaker(line, user, char string) (providers.Role, string, bool) {
	if user != "" && strings.HasPrefix(line, user+":") {
		return providers.RoleUser, line[len(user)+1:], true
	}
	if char != "" && strings.HasPrefix(line, char+":") {
		return providers.RoleAssistant, line[len(char)+1:], true
	}
	return "", "", false
}

// splitFold splits s at every ASCII-case-insensitive occurrence of sep
// (an ASCII separator: byte offsets in s stay valid, as they would not
// after lowering non-ASCII text).
func splitFold(s, sep string) []string {
	var out []string
	start := 0
	for i := 0; i+len(sep) <= len(s); i++ {
		if s[i] == sep[0] && strings.EqualFold(s[i:i+len(sep)], sep) {
			out = append(out, s[start:i])
			i += len(sep) - 1
			start = i + 1
		}
	}
	return append(out, s[start:])
}
