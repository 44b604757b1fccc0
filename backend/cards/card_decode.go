package cards

import (
	"bytes"
	"encoding/json"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/tidwall/gjson"

	"hearth/backend/jsonx"
)

// utf8BOM is the byte-order mark some editors put before JSON text.
var utf8BOM = []byte("\xEF\xBB\xBF")

// Decode reads a card file of any supported format. The format comes from
// the content (a PNG signature, a zip header) and then from fileName's
// extension, so a renamed file still imports; fileName otherwise only
// names the file in errors.
func Decode(fileName string, raw []byte) (*Imported, error) {
	imp, err := decode(fileName, raw, defaultLimits)
	if err != nil {
		return nil, withFile(err, fileName)
	}
	return imp, nil
}

func decode(fileName string, raw []byte, lim limits) (*Imported, error) {
	if len(raw) > lim.fileBytes {
		return nil, tooLarge("the file", len(raw), lim.fileBytes)
	}
	switch sniff(fileName, raw) {
	case FormatPNG:
		return decodePNG(raw, lim)
	case FormatCHARX:
		return decodeCHARX(raw, lim)
	case FormatJSON:
		return decodeJSON(raw, lim)
	}
	return nil, invalid("format", "Hearth reads character cards from PNG, JSON and CHARX files, and this is none of them")
}

// sniff tells the format of raw, "" when it is none Hearth reads.
func sniff(fileName string, raw []byte) Format {
	switch {
	case bytes.HasPrefix(raw, pngSignature):
		return FormatPNG
	case bytes.HasPrefix(raw, []byte("PK\x03\x04")), bytes.HasPrefix(raw, []byte("PK\x05\x06")):
		return FormatCHARX
	}
	switch strings.ToLower(path.Ext(strings.ReplaceAll(fileName, `\`, "/"))) {
	case ".png":
		return FormatPNG
	case ".charx":
		return FormatCHARX
	case ".json":
		return FormatJSON
	}
	if t := bytes.TrimLeft(bytes.TrimPrefix(raw, utf8BOM), " \t\r\n"); len(t) > 0 && (t[0] == '{' || t[0] == '[') {
		return FormatJSON
	}
	return ""
}

// DecodeJSON reads a JSON card: V1 (flat), V2 or V3.
func DecodeJSON(raw []byte) (*Imported, error) {
	return decodeJSON(raw, defaultLimits)
}

func decodeJSON(raw []byte, lim limits) (*Imported, error) {
	imp, err := parseCard(raw, lim)
	if err != nil {
		return nil, err
	}
	imp.Format = FormatJSON
	return imp, nil
}

// parseCard reads the JSON text of a card of any version into an
// Imported with its flat data, version and warnings.
func parseCard(raw []byte, lim limits) (*Imported, error) {
	if len(raw) > lim.fileBytes {
		return nil, tooLarge("the card", len(raw), lim.fileBytes)
	}
	raw = bytes.TrimPrefix(raw, utf8BOM)
	if !utf8.Valid(raw) {
		// Node.js, which SillyTavern reads cards with, decodes invalid
		// UTF-8 to U+FFFD; doing the same keeps such cards importable and
		// keeps invalid bytes out of storage.
		raw = bytes.ToValidUTF8(raw, []byte("\uFFFD"))
	}
	t := bytes.Trim(raw, " \t\r\n")
	if len(t) == 0 {
		return nil, invalid("json", "the card is empty")
	}
	if t[0] != '{' {
		return nil, invalid("not_object", "the card must be a JSON object, not %s", describe(t))
	}
	// The card wraps the stored data in one level (`data`), so it may be
	// one deeper than what is stored.
	if d := jsonx.Depth(t); d > lim.maxDataDepth+1 {
		return nil, tooDeep(d, lim.maxDataDepth+1)
	}
	// Compacting first checks the syntax, sizes the card by its content
	// rather than its layout, and leaves every value compact.
	var c bytes.Buffer
	c.Grow(len(t))
	if err := json.Compact(&c, t); err != nil {
		return nil, invalid("json", "the card is not valid JSON: %v", err)
	}
	if c.Len() > lim.cardBytes {
		return nil, tooLarge("the card", c.Len(), lim.cardBytes)
	}
	return fromObject(members(c.Bytes()), lim)
}

// members splits a valid JSON object into its members without decoding
// their values: gjson walks the text once, where encoding/json would scan
// it twice for the card and twice more for its data.
func members(obj []byte) jsonx.Object {
	out := jsonx.Object{}
	gjson.ParseBytes(obj).ForEach(func(k, v gjson.Result) bool {
		out[k.Str] = json.RawMessage(v.Raw)
		return true
	})
	return out
}

// describe names the kind of the JSON value t (trimmed) for errors.
func describe(t []byte) string {
	if len(t) == 0 {
		return "nothing"
	}
	switch t[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return "a number"
	}
	return "something that is not JSON"
}
