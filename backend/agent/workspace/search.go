package workspace

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"strings"
	"unicode/utf8"

	"hearth/backend/apperr"
)

// Bounds of a search (AGENT.md §5 workspace.search_files), so a tool result
// stays small whatever the workspace holds.
const (
	DefaultSearchLimit = 20
	MaxSearchLimit     = 100
	MaxContextLines    = 5
	MaxSearchFiles     = 2000
	// MaxHitLineBytes bounds each line of a hit; a longer line (minified
	// JSON, say) is cut and marked with "…".
	MaxHitLineBytes = 1000
)

// Hit is one matching line with its neighbours. Line is 1-based.
type Hit struct {
	Path   string   `json:"path"`
	Line   int      `json:"line"`
	Text   string   `json:"text"`
	Before []string `json:"before"`
	After  []string `json:"after"`
}

// Search finds lines containing query, ignoring case, in the text files
// under rel (a directory or a file; "" means every visible root). limit
// defaults to DefaultSearchLimit and is capped at MaxSearchLimit;
// contextLines is capped at MaxContextLines. Binary files and files over
// MaxFileBytes are skipped, and the search gives up after MaxSearchFiles
// files. Hits come sorted by path, then line.
func (d *Dir) Search(query, rel string, visible []string, limit, contextLines int) ([]Hit, error) {
	if strings.TrimSpace(query) == "" {
		return nil, apperr.New(CodeInvalidQuery, "the search query is empty").
			WithDetails(map[string]any{"query": query})
	}
	if limit <= 0 {
		limit = DefaultSearchLimit
	}
	limit = min(limit, MaxSearchLimit)
	contextLines = min(max(contextLines, 0), MaxContextLines)
	clean, err := CleanDir(rel, visible)
	if err != nil {
		return nil, err
	}
	t, err := d.resolve(clean, true)
	if err != nil {
		return nil, err
	}
	if t.info == nil || t.blocker != "" {
		return nil, notFound(t.rel)
	}
	needle := strings.ToLower(query)
	hits := []Hit{}
	files := 0
	err = d.withRoot(func(r *os.Root) error {
		_, err := d.walk(r, bases(t.rel, visible), 0, func(p string, info fs.FileInfo) error {
			if files == MaxSearchFiles || len(hits) == limit {
				return fs.SkipAll
			}
			files++
			if info.Size() > MaxFileBytes {
				return nil
			}
			data, err := readBounded(r, p, info)
			if errors.Is(err, fs.ErrNotExist) || apperr.As(err) != nil {
				return nil // gone, or grown past the limit, since the walk saw it
			}
			if err != nil {
				return err
			}
			if isBinary(data) {
				return nil
			}
			hits = appendHits(hits, p, data, needle, limit, contextLines)
			return nil
		})
		return err
	})
	if err != nil {
		return nil, err
	}
	return hits, nil
}

// appendHits adds the matching lines of one file until limit hits.
func appendHits(hits []Hit, p string, data []byte, needle string, limit, ctx int) []Hit {
	if !bytes.Contains(bytes.ToLower(data), []byte(needle)) {
		return hits // most files do not match; skip the line split
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	for i, line := range lines {
		if len(hits) == limit {
			break
		}
		if !strings.Contains(strings.ToLower(line), needle) {
			continue
		}
		hits = append(hits, Hit{
			Path:   p,
			Line:   i + 1,
			Text:   clip(line),
			Before: clipAll(lines[max(i-ctx, 0):i]),
			After:  clipAll(lines[i+1 : min(i+1+ctx, len(lines))]),
		})
	}
	return hits
}

// clip drops a trailing CR and cuts a line to MaxHitLineBytes on a rune
// boundary.
func clip(line string) string {
	line = strings.TrimSuffix(line, "\r")
	if len(line) <= MaxHitLineBytes {
		return line
	}
	cut := MaxHitLineBytes
	for cut > 0 && !utf8.RuneStart(line[cut]) {
		cut--
	}
	return line[:cut] + "…"
}

func clipAll(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = clip(l)
	}
	return out
}
