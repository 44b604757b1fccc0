package main

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"

	"hearth/backend/extensions/stcompat"
)

// docsPath is the ABI reference whose page-tier table stcompatgen keeps.
const docsPath = "docs/API.md"

// The markers around the generated table; what lies between is replaced.
const (
	docsBegin = "<!-- stcompatgen:begin — generated from backend/extensions/stcompat by `go run ./backend/tools/stcompatgen`; edit stcompat, not this table -->"
	docsEnd   = "<!-- stcompatgen:end -->"
)

// generateDocs returns doc with the table of backed names between its
// markers rebuilt.
func generateDocs(doc []byte, st stcompat.Exports) ([]byte, error) {
	start, end := bytes.Index(doc, []byte(docsBegin)), bytes.Index(doc, []byte(docsEnd))
	if start < 0 || end < start || bytes.Count(doc, []byte(docsBegin)) != 1 || bytes.Count(doc, []byte(docsEnd)) != 1 {
		return nil, errors.New(docsPath + ": the stcompatgen markers are missing, repeated or out of order")
	}
	var b bytes.Buffer
	b.Write(doc[:start])
	b.WriteString(docsBegin + "\n")
	b.WriteString(backedTable(st))
	b.Write(doc[end:])
	return b.Bytes(), nil
}

// backedTable lists, per compat module, the names Hearth backs and how
// many of SillyTavern's others it exports unbacked.
func backedTable(st stcompat.Exports) string {
	var b strings.Builder
	fmt.Fprintf(&b, "| module | backed (as in SillyTavern %s) | exported, `ext.unsupported` when called |\n|---|---|---|\n", st.STVersion)
	for _, p := range stcompat.ModulePaths() {
		backed := slices.Clone(stcompat.Backed[p])
		names := make([]string, len(backed))
		for i, n := range backed {
			names[i] = "`" + n + "`"
		}
		list := strings.Join(names, ", ")
		if list == "" {
			list = "—"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %d |\n", p, list, len(st.Modules[p])-len(backed))
	}
	fmt.Fprintf(&b, "\n`getContext()` members: %d (every member of HOST-ABI §9's context and the page members above).\n", len(stcompat.ContextMembers))
	return b.String()
}
