package main

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"hearth/backend/events"
)

// The markers around the generated table in docs/API.md; what lies
// between them is replaced, everything else is left as it is.
const (
	docsBegin = "<!-- eventgen:begin — generated from backend/events by `go run ./backend/tools/eventgen`; edit the registry, not this table -->"
	docsEnd   = "<!-- eventgen:end -->"
)

// generateDocs returns doc (docs/API.md) with the events table between its
// markers rebuilt from specs.
func generateDocs(doc []byte, specs []events.Spec) ([]byte, error) {
	start := bytes.Index(doc, []byte(docsBegin))
	end := bytes.Index(doc, []byte(docsEnd))
	if start < 0 || end < 0 || end < start {
		return nil, errors.New("docs/API.md: the eventgen markers are missing or out of order (want the line " + docsBegin + ", the table, then " + docsEnd + ")")
	}
	if bytes.Count(doc, []byte(docsBegin)) != 1 || bytes.Count(doc, []byte(docsEnd)) != 1 {
		return nil, errors.New("docs/API.md: the eventgen markers appear more than once")
	}
	var b bytes.Buffer
	b.Write(doc[:start])
	b.WriteString(docsBegin + "\n")
	b.WriteString(eventsTable(specs))
	b.Write(doc[end:])
	return b.Bytes(), nil
}

// eventsTable is the Markdown table of every event.
func eventsTable(specs []events.Spec) string {
	var b strings.Builder
	b.WriteString("| event (`types` key) | value | permission | payload |\n|---|---|---|---|\n")
	for _, s := range specs {
		doc := s.Doc
		if s.Window {
			doc += " (fired by each window)"
		}
		fmt.Fprintf(&b, "| `%s` | `%s` | `%s` | %s: %s |\n", s.Name, s.Type, s.Permission, payloadKeys(s), escapeCell(doc))
	}
	return b.String()
}

// payloadKeys lists a payload's keys in wire order; an optional one (left
// out when empty) ends in `?`, one with a fixed set of string values
// lists them.
func payloadKeys(s events.Spec) string {
	fields := events.Fields(s.Payload)
	if len(fields) == 0 {
		return "`{}`"
	}
	keys := make([]string, len(fields))
	for i, f := range fields {
		keys[i] = f.Key
		if f.Optional {
			keys[i] += "?"
		}
		if strings.HasPrefix(f.TS, "'") {
			keys[i] += ": " + f.TS
		}
	}
	return "`" + escapeCell(strings.Join(keys, ", ")) + "`"
}

func escapeCell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
