package profile

import (
	"encoding/json"
	"errors"
	"fmt"
	"hearth/backend/internal/inputs"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Issue is one broken rule of a profile document. Field is the JSON path
// of the field ("tools.maxRounds", "output.artifacts[0].path"); "" means
// the document as a whole.
type Issue struct {
	Field   string `json:"field"`
	Code    string `json:"code"`
	Message string `json:"message"`
}

// Issue codes: what kind of rule an Issue breaks.
const (
	IssueSyntax    = "syntax"        // not JSON, or not an object
	IssueTooLarge  = "too_large"     // document too big or too deep
	IssueRequired  = "required"      // a required field is missing
	IssueType      = "type"          // wrong JSON type
	IssueRange     = "range"         // a number or length out of bounds
	IssueValue     = "value"         // a value that is not one of the allowed ones
	IssueUnknown   = "unknown_field" // a key this section does not have
	IssueTool      = "unknown_tool"  // a tool name that is no tool
	IssueDuplicate = "duplicate"     // an id or path given twice
	IssuePolicy    = "policy"        // a value that contradicts another field
	IssueReserved  = "reserved"      // the built-in profile's id
)

// checker walks a document and collects issues instead of stopping at the
// first, so Diagnose can report them all. strict refuses null where a
// number or a section is expected: null is what JSON makes of NaN, so a
// document coming in must not have it read as "left out" (HOST-ABI §0).
// Stored bodies are read leniently, so a profile stored before the rule
// keeps loading.
type checker struct {
	issues []Issue
	strict bool
}

func (c *checker) add(field, code, format string, args ...any) {
	c.issues = append(c.issues, Issue{Field: field, Code: code, Message: fmt.Sprintf(format, args...)})
}

// absent reports whether a field was left out; null counts as left out.
func absent(raw json.RawMessage) bool { return raw == nil || string(raw) == "null" }

// given reports whether a number or section field has a value to read.
// Left out it has not; null has not either, and in a strict checker it is
// an issue naming the field rather than a silent default.
func (c *checker) given(field string, raw json.RawMessage) bool {
	if raw == nil {
		return false
	}
	if string(raw) == "null" {
		if c.strict {
			c.add(field, IssueType, "must not be null (what JSON makes of NaN); leave it out to keep the default")
		}
		return false
	}
	return true
}

func join(field, key string) string {
	if field == "" {
		return key
	}
	return field + "." + key
}

func index(field string, i int) string { return field + "[" + strconv.Itoa(i) + "]" }

// bounds checks size, nesting and syntax before anything is decoded.
func (c *checker) bounds(raw []byte) bool {
	if len(raw) > MaxBytes {
		c.add("", IssueTooLarge, "profile is %d bytes; at most %d KiB are allowed", len(raw), MaxBytes>>10)
		return false
	}
	if depth(raw) > MaxDepth {
		c.add("", IssueTooLarge, "profile nests objects and arrays more than %d deep", MaxDepth)
		return false
	}
	var v json.RawMessage
	if err := json.Unmarshal(raw, &v); err != nil {
		var syn *json.SyntaxError
		if errors.As(err, &syn) {
			c.add("", IssueSyntax, "profile is not valid JSON (at byte %d: %s)", syn.Offset, syn.Error())
		} else {
			c.add("", IssueSyntax, "profile is not valid JSON")
		}
		return false
	}
	return true
}

// depth returns how deeply raw nests brackets outside strings, stopping
// once past MaxDepth.
func depth(raw []byte) int {
	d, deepest, inString, escaped := 0, 0, false, false
	for _, b := range raw {
		switch {
		case inString && escaped:
			escaped = false
		case inString && b == '\\':
			escaped = true
		case inString && b == '"':
			inString = false
		case inString:
		case b == '"':
			inString = true
		case b == '{' || b == '[':
			d++
			if d > deepest {
				deepest = d
				if deepest > MaxDepth {
					return deepest
				}
			}
		case b == '}' || b == ']':
			d--
		}
	}
	return deepest
}

// object decodes an object field and reports keys outside allowed.
func (c *checker) object(field string, raw json.RawMessage, allowed ...string) (map[string]json.RawMessage, bool) {
	if len(raw) == 0 || raw[0] != '{' {
		c.add(field, IssueType, "must be an object")
		return nil, false
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		c.add(field, IssueType, "must be an object")
		return nil, false
	}
	var unknown []string
	for k := range m {
		if !slices.Contains(allowed, k) {
			unknown = append(unknown, k)
		}
	}
	sort.Strings(unknown)
	for _, k := range unknown {
		c.add(join(field, quoteKey(k)), IssueUnknown, "unknown field; %s has only %s", sectionName(field), strings.Join(allowed, ", "))
	}
	return m, true
}

// quoteKey keeps a hostile key from forging a path: odd keys are quoted.
func quoteKey(k string) string {
	for _, r := range k {
		if !(r == '_' || r == '$' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return strconv.Quote(short(k))
		}
	}
	return short(k)
}

func sectionName(field string) string {
	if field == "" {
		return "a profile"
	}
	return field
}

// short quotes a bounded piece of input in a message.
func short(s string) string { return inputs.Short(s) }

// str decodes a string field.
func (c *checker) str(field string, raw json.RawMessage) (string, bool) {
	var s string
	if len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
		c.add(field, IssueType, "must be a string")
		return "", false
	}
	return s, true
}

// text decodes a string of 1..maxRunes runes without control characters
// (newlines and tabs allowed when multiline).
func (c *checker) text(field string, raw json.RawMessage, maxRunes int, multiline bool) (string, bool) {
	s, ok := c.str(field, raw)
	if !ok {
		return "", false
	}
	if strings.TrimSpace(s) == "" {
		c.add(field, IssueRequired, "must not be empty")
		return "", false
	}
	if n := utf8.RuneCountInString(s); n > maxRunes {
		c.add(field, IssueRange, "is %d characters long; at most %d are allowed", n, maxRunes)
		return "", false
	}
	for _, r := range s {
		if (r < 0x20 && !(multiline && (r == '\n' || r == '\r' || r == '\t'))) || r == 0x7f {
			c.add(field, IssueValue, "must not contain control characters")
			return "", false
		}
	}
	return s, true
}

// oneOf decodes a string that must be one of allowed.
func (c *checker) oneOf(field string, raw json.RawMessage, allowed ...string) (string, bool) {
	s, ok := c.str(field, raw)
	if !ok {
		return "", false
	}
	if !slices.Contains(allowed, s) {
		c.add(field, IssueValue, "is %q; allowed: %s", short(s), strings.Join(allowed, ", "))
		return "", false
	}
	return s, true
}

// integer decodes an integer in [lo, hi]; "3.0" and "3e0" are not integers.
func (c *checker) integer(field string, raw json.RawMessage, lo, hi int) (int, bool) {
	s := string(raw)
	if s == "" || !(s[0] == '-' || s[0] >= '0' && s[0] <= '9') {
		c.add(field, IssueType, "must be an integer from %d to %d", lo, hi)
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		if errors.Is(err, strconv.ErrRange) {
			c.add(field, IssueRange, "must be an integer from %d to %d, got %s", lo, hi, short(s))
		} else {
			c.add(field, IssueType, "must be an integer from %d to %d, got %s", lo, hi, short(s))
		}
		return 0, false
	}
	if n < int64(lo) || n > int64(hi) {
		c.add(field, IssueRange, "must be an integer from %d to %d, got %d", lo, hi, n)
		return 0, false
	}
	return int(n), true
}

// number decodes a number in [lo, hi].
func (c *checker) number(field string, raw json.RawMessage, lo, hi float64) (float64, bool) {
	s := string(raw)
	f, err := strconv.ParseFloat(s, 64)
	if s == "" || !(s[0] == '-' || s[0] >= '0' && s[0] <= '9') || err != nil {
		c.add(field, IssueType, "must be a number from %g to %g", lo, hi)
		return 0, false
	}
	if f < lo || f > hi {
		c.add(field, IssueRange, "must be a number from %g to %g, got %s", lo, hi, short(s))
		return 0, false
	}
	return f, true
}

// boolean decodes true or false.
func (c *checker) boolean(field string, raw json.RawMessage) (bool, bool) {
	switch string(raw) {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	c.add(field, IssueType, "must be true or false")
	return false, false
}

// array decodes an array of at most maxItems raw elements.
func (c *checker) array(field string, raw json.RawMessage, maxItems int) ([]json.RawMessage, bool) {
	var items []json.RawMessage
	if len(raw) == 0 || raw[0] != '[' || json.Unmarshal(raw, &items) != nil {
		c.add(field, IssueType, "must be an array")
		return nil, false
	}
	if len(items) > maxItems {
		c.add(field, IssueRange, "has %d items; at most %d are allowed", len(items), maxItems)
		return nil, false
	}
	return items, true
}

// names decodes an array of strings, mapping each through norm (which
// reports its own issue and returns false to drop an item) and dropping
// repeats, so ["a", "a"] is ["a"].
func (c *checker) names(field string, raw json.RawMessage, maxItems int, norm func(field, s string) (string, bool)) ([]string, bool) {
	items, ok := c.array(field, raw, maxItems)
	if !ok {
		return nil, false
	}
	out := make([]string, 0, len(items))
	good := true
	for i, item := range items {
		s, ok := c.str(index(field, i), item)
		if ok {
			s, ok = norm(index(field, i), s)
		}
		if !ok {
			good = false
			continue
		}
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out, good
}
