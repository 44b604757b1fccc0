package skills

import (
	"bytes"
	"errors"
	"fmt"
	"hearth/backend/internal/inputs"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// parsed is a SKILL.md split into what the library uses.
type parsed struct {
	Name        string
	Description string
	Body        string
}

// problemError is a rule a skill folder breaks: a Problem in a listing,
// skill.invalid from Read and Install.
type problemError struct{ msg string }

func (e *problemError) Error() string { return e.msg }

func problem(format string, args ...any) error {
	return &problemError{msg: fmt.Sprintf(format, args...)}
}

// parseSkill splits a SKILL.md into front matter and body. The front
// matter sits between a first line "---" and the next line "---" (or
// "..."), is at most MaxFrontMatterBytes and must be a YAML mapping with a
// string name; description is optional. Other keys (license, metadata,
// allowed-tools) are ignored. It is parsed into a yaml.Node, which expands
// no aliases, so anchors cannot multiply it.
func parseSkill(data []byte) (parsed, error) {
	if len(data) > MaxFileBytes {
		return parsed{}, problem("%s is larger than %d MiB", FileName, MaxFileBytes>>20)
	}
	if !utf8.Valid(data) {
		return parsed{}, problem("%s is not UTF-8 text", FileName)
	}
	data = bytes.TrimPrefix(data, []byte("\uFEFF"))
	first, rest, found := cutLine(data)
	if !found || strings.TrimRight(string(first), " \t") != "---" {
		return parsed{}, problem("%s must start with a line --- that opens its YAML front matter (name, description)", FileName)
	}
	var front []byte
	closed := false
	for off := 0; off <= len(rest) && off <= MaxFrontMatterBytes; {
		line, tail, more := cutLine(rest[off:])
		if l := strings.TrimRight(string(line), " \t"); l == "---" || l == "..." {
			front, rest, closed = rest[:off], tail, true
			break
		}
		if !more {
			break
		}
		off = len(rest) - len(tail)
	}
	if !closed {
		return parsed{}, problem("the front matter of %s is not closed by a line --- within %d KiB", FileName, MaxFrontMatterBytes>>10)
	}
	if len(front) > MaxFrontMatterBytes {
		return parsed{}, problem("the front matter of %s is larger than %d KiB", FileName, MaxFrontMatterBytes>>10)
	}
	p, err := frontMatter(front)
	if err != nil {
		return parsed{}, err
	}
	p.Body = strings.TrimLeft(string(rest), "\r\n")
	return p, nil
}

// cutLine returns the first line of b without its "\n" or "\r\n", the rest
// after it, and whether a newline ended the line.
func cutLine(b []byte) (line, rest []byte, found bool) {
	line, rest, found = bytes.Cut(b, []byte("\n"))
	return bytes.TrimSuffix(line, []byte("\r")), rest, found
}

// frontMatter reads name and description from the YAML text.
func frontMatter(text []byte) (p parsed, err error) {
	defer func() {
		// The YAML parser is not ours; a panic on hostile input is a bad
		// file, not a crash.
		if r := recover(); r != nil {
			p, err = parsed{}, problem("the front matter of %s is not valid YAML", FileName)
		}
	}()
	var doc yaml.Node
	if err := yaml.Unmarshal(text, &doc); err != nil {
		return parsed{}, problem("the front matter of %s is not valid YAML: %s", FileName, cleanYAMLError(err))
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return parsed{}, problem("the front matter of %s must be a YAML mapping with name and description", FileName)
	}
	m := doc.Content[0]
	seen := map[string]bool{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if k.Kind != yaml.ScalarNode || (k.Value != "name" && k.Value != "description") {
			continue
		}
		if seen[k.Value] {
			return parsed{}, problem("the front matter of %s has %s twice", FileName, k.Value)
		}
		seen[k.Value] = true
		if v.Kind != yaml.ScalarNode || (v.Tag != "!!str" && v.Tag != "!!int" && v.Tag != "!!float" && v.Tag != "!!bool") {
			return parsed{}, problem("%s in the front matter of %s must be a string", k.Value, FileName)
		}
		if k.Value == "name" {
			p.Name = strings.TrimSpace(v.Value)
		} else {
			p.Description = strings.TrimSpace(v.Value)
		}
	}
	switch {
	case p.Name == "":
		return parsed{}, problem("the front matter of %s has no name", FileName)
	case !ValidName(p.Name):
		return parsed{}, problem("name %q in %s is not a skill name: 1 to 64 characters of a-z, 0-9, ., _ and -, starting with a letter or digit", short(p.Name), FileName)
	case utf8.RuneCountInString(p.Description) > MaxDescription:
		return parsed{}, problem("the description in %s is longer than %d characters", FileName, MaxDescription)
	case strings.ContainsFunc(p.Description, func(r rune) bool { return r < 0x20 && r != '\n' && r != '\t' || r == 0x7f }):
		return parsed{}, problem("the description in %s contains control characters", FileName)
	}
	return p, nil
}

// cleanYAMLError drops the library's "yaml: " prefix and keeps the message
// short.
func cleanYAMLError(err error) string {
	var te *yaml.TypeError
	msg := err.Error()
	if errors.As(err, &te) && len(te.Errors) > 0 {
		msg = te.Errors[0]
	}
	return short(strings.TrimPrefix(msg, "yaml: "))
}

// short quotes a bounded piece of input in a message.
func short(s string) string { return inputs.Short(s) }
