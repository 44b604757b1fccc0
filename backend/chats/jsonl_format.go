package chats

import (
	"bytes"
	"context"
	"encoding/json"
	"iter"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"hearth/backend/apperr"
	"hearth/backend/jsonx"
	"hearth/backend/store"
)

// SillyTavern stores a chat as JSONL: a header line, then one message
// object per line, joined by "\n" with no newline after the last line. The
// header is {user_name, character_name, create_date, chat_metadata} (the
// order SillyTavern's saveChat writes); newer front ends write placeholders
// ("unused") for the two names. Hearth keeps chat_metadata as the chat's
// metadata and every other header key in chat_jsonl_headers, so an export
// writes back what an import read.

// JsonlFile is an exported chat: its file name (with ".jsonl") and text.
type JsonlFile struct {
	FileName string `json:"fileName"`
	Text     string `json:"text"`
}

// JsonlImport is a chat file to import: the name it is stored under
// (".jsonl" stripped, normalized like chat.create's) and its text.
//
// Quoted is the text as the JSON string literal a call carried it in
// (quotes included, already validated as JSON), for a router to hand over
// without unquoting it first: the import then unquotes it line by line on
// its decoding workers. Text wins when both are set.
//
// Within, when set, runs inside the import's transaction once the chat and
// its messages are written, with the summary the import will answer: a Go
// caller's own rows (the library's import ledger) then commit with the
// chat or not at all, so a crash between the two can leave neither a chat
// its ledger does not know (imported again next time) nor the reverse. Its
// error undoes the import.
//
// Metadata, when set, is the chat's metadata for a file without a header
// line: SillyTavern's legacy group chats keep theirs in the group file
// (its chat_metadata, past_metadata). A header line's chat_metadata wins.
type JsonlImport struct {
	FileName string                                                     `json:"fileName"`
	Text     *string                                                    `json:"text"`
	Quoted   string                                                     `json:"-"`
	Within   func(ctx context.Context, tx *store.Tx, sum Summary) error `json:"-"`
	Metadata jsonx.Object                                               `json:"-"`
}

// source is where the import reads the file's lines, how it makes a line's
// text of each (bytes of its own, which the decoded message shares), and
// the file's size in bytes (for a quoted file, its escaped size: never
// less).
func (in JsonlImport) source() (iter.Seq2[int, string], func(string) []byte, int, error) {
	switch {
	case in.Text != nil:
		return fileLines(*in.Text), func(line string) []byte { return []byte(line) }, len(*in.Text), nil
	case len(in.Quoted) >= 2:
		return quotedLines(in.Quoted), unquoteLine, len(in.Quoted) - 2, nil
	}
	return nil, nil, 0, apperr.Invalid("text is required: the chat file's contents")
}

// Bounds on what an import accepts. A request body is at most
// httpapi.MaxInvokeBody (64 MiB) on both transports, and the text travels
// inside it as a JSON string (each quote escaped), so about 55 MiB of
// typical JSONL is the real ceiling; MaxJsonlBytes is the same 64 MiB for
// Go callers. MaxJsonlMessages bounds the rows one import may write.
const (
	MaxJsonlBytes    = 64 << 20
	MaxJsonlMessages = 1_000_000
)

// jsonlMessageLimit is the cap in force: MaxJsonlMessages, lowered by a
// test to reach it without a million rows.
var jsonlMessageLimit = MaxJsonlMessages

// headerNameKeys are the header keys written first, in SillyTavern's order;
// chat_metadata follows them, then any other key, sorted.
var headerNameKeys = []string{"user_name", "character_name", "create_date"}

// jsonlHeader is a header line taken apart: chat_metadata, and the rest.
type jsonlHeader struct {
	metadata jsonx.Object
	rest     jsonx.Object
}

// parseHeader reads a header line's object. A missing or null
// chat_metadata is {}; any other non-object is an error.
func parseHeader(o jsonx.Object, line int) (*jsonlHeader, error) {
	h := &jsonlHeader{metadata: jsonx.Object{}, rest: maps.Clone(o)}
	delete(h.rest, "chat_metadata")
	if raw, ok := o["chat_metadata"]; ok && !jsonx.IsNull(raw) {
		meta, err := jsonx.DecodeObject(raw, "chat_metadata")
		if err != nil {
			return nil, atLine(line, err)
		}
		if err := jsonx.LimitDepth(jsonx.Depth(raw), 0, "chat_metadata"); err != nil {
			return nil, atLine(line, err)
		}
		h.metadata = meta
	}
	rest, _ := h.rest.MarshalJSON()
	if err := jsonx.LimitDepth(jsonx.Depth(rest), 0, "the header"); err != nil {
		return nil, atLine(line, err)
	}
	return h, nil
}

// isMessageLine tells a first line that is already a message (a file
// without a header) from a header: messages have mes or is_user.
func isMessageLine(o jsonx.Object) bool {
	_, mes := o["mes"]
	_, isUser := o["is_user"]
	return mes || isUser
}

// headerName is a header's user_name or character_name when it names
// someone: a non-empty string other than SillyTavern's "unused".
func headerName(rest jsonx.Object, key string) string {
	var s string
	if raw, ok := rest[key]; !ok || json.Unmarshal(raw, &s) != nil || s == "unused" {
		return ""
	}
	return s
}

// appendHeaderLine writes the header: the name keys (stored values first,
// defaults for the ones missing), chat_metadata, then the other stored
// keys in sorted order.
func appendHeaderLine(b []byte, rest jsonx.Object, defaults map[string]string, metadata []byte) []byte {
	b = append(b, '{')
	for _, k := range headerNameKeys {
		b = appendString(b, k)
		b = append(b, ':')
		if raw, ok := rest[k]; ok {
			b = append(b, bytes.TrimSpace(raw)...)
		} else {
			b = appendString(b, defaults[k])
		}
		b = append(b, ',')
	}
	b = append(b, `"chat_metadata":`...)
	b = append(b, metadata...)
	others := jsonx.Object{}
	for k, v := range rest {
		if !slices.Contains(headerNameKeys, k) {
			others[k] = v
		}
	}
	if inner := objectInner(mustObjectJSON(others)); len(inner) > 0 {
		b = append(b, ',')
		b = append(b, inner...)
	}
	return append(b, '}')
}

// groupHeaderNameKeys are the name keys of a group chat's header, which
// SillyTavern's saveGroupChat writes after chat_metadata, both "unused".
var groupHeaderNameKeys = []string{"user_name", "character_name"}

// appendGroupHeaderLine writes a group chat's header as SillyTavern's
// saveGroupChat does — {"chat_metadata":…,"user_name":"unused",
// "character_name":"unused"} — with the name keys an import kept in place
// of "unused", then any other key it kept, sorted.
func appendGroupHeaderLine(b []byte, rest jsonx.Object, metadata []byte) []byte {
	b = append(b, `{"chat_metadata":`...)
	b = append(b, metadata...)
	for _, k := range groupHeaderNameKeys {
		b = append(b, ',')
		b = appendString(b, k)
		b = append(b, ':')
		if raw, ok := rest[k]; ok {
			b = append(b, bytes.TrimSpace(raw)...)
		} else {
			b = appendString(b, "unused")
		}
	}
	others := jsonx.Object{}
	for k, v := range rest {
		if !slices.Contains(groupHeaderNameKeys, k) {
			others[k] = v
		}
	}
	if inner := objectInner(mustObjectJSON(others)); len(inner) > 0 {
		b = append(b, ',')
		b = append(b, inner...)
	}
	return append(b, '}')
}

func mustObjectJSON(o jsonx.Object) []byte {
	b, _ := o.MarshalJSON()
	return b
}

// oneLine makes sure a JSON text has no raw line break: stored raw values
// keep the whitespace their writer used (an API caller may have sent
// pretty-printed extra), and a break there would split the JSONL record.
// Inside JSON strings line breaks are always escaped, so any raw '\n' or
// '\r' is whitespace between tokens and compacting removes it.
func oneLine(b []byte) []byte {
	if bytes.IndexByte(b, '\n') < 0 && bytes.IndexByte(b, '\r') < 0 {
		return b
	}
	var out bytes.Buffer
	if err := json.Compact(&out, b); err != nil {
		// Stored JSON is valid; should it ever not be, strip the breaks
		// rather than split the record.
		return bytes.Map(func(r rune) rune {
			if r == '\n' || r == '\r' {
				return ' '
			}
			return r
		}, b)
	}
	return out.Bytes()
}

// nextLine splits the first line off text: up to "\n", a trailing "\r"
// dropped.
func nextLine(text string) (line, rest string) {
	line, rest, _ = strings.Cut(text, "\n")
	return strings.TrimSuffix(line, "\r"), rest
}

// fileLines yields every line of text, blank ones too, with its 1-based
// number, so numbers match what an editor shows.
func fileLines(text string) iter.Seq2[int, string] {
	return func(yield func(int, string) bool) {
		for n := 1; text != ""; n++ {
			var line string
			line, text = nextLine(text)
			if !yield(n, line) {
				return
			}
		}
	}
}

// checkLine refuses a line that is not UTF-8 text or that nests deeper
// than any storable message can, before anything decodes it: a message's
// exported line nests two levels below what the message itself counts
// (its swipe_info array and entries), see StMessage.depth.
func checkLine(n int, line []byte) error {
	if !utf8.Valid(line) {
		return lineInvalid(n, "line %d is not valid UTF-8 text", n)
	}
	if d := jsonx.Depth(line); d > jsonx.MaxDepth+2 {
		return atLine(n, jsonx.LimitDepth(d, 0, "the line"))
	}
	return nil
}

// decodeLine checks and parses one line as a JSON object.
func decodeLine(n int, line []byte) (jsonx.Object, error) {
	if err := checkLine(n, line); err != nil {
		return nil, err
	}
	t := bytes.TrimSpace(line)
	if !bytes.HasPrefix(t, []byte("{")) {
		return nil, lineInvalid(n, "line %d is not a JSON object", n)
	}
	var o jsonx.Object
	if err := json.Unmarshal(t, &o); err != nil {
		return nil, lineInvalid(n, "line %d is not valid JSON: %v", n, err)
	}
	if o == nil {
		o = jsonx.Object{}
	}
	return o, nil
}

// lineInvalid is a validation.invalid_argument error about line n.
func lineInvalid(n int, format string, args ...any) error {
	return apperr.Invalid(format, args...).WithDetails(map[string]any{"line": n})
}

// atLine names line n in a host error about one line's content: the
// message gains a "line n: " prefix and details.line. Every such error is
// validation.invalid_argument (a swipe_id out of range in a file is bad
// input, not a call on a stored message); the original code, when another,
// is kept as details.reason. Errors that are not host errors pass through.
func atLine(n int, err error) error {
	e := apperr.As(err)
	if e == nil {
		return err
	}
	details := map[string]any{}
	maps.Copy(details, e.Details)
	details["line"] = n
	if e.Code != apperr.CodeInvalidArgument {
		details["reason"] = e.Code
	}
	return apperr.Invalid("line %d: %s", n, e.Message).WithDetails(details)
}
