package cards

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"sort"

	"hearth/backend/jsonx"
)

// dataOrder is the order card files list the data fields in: SillyTavern's
// for the V2 fields, then the V3 ones; extensions and the lorebook, the
// bulky ones, last. Fields not listed follow in name order.
var dataOrder = []string{
	"name", "description", "personality", "scenario", "first_mes", "mes_example",
	"creator_notes", "system_prompt", "post_history_instructions", "tags", "creator",
	"character_version", "alternate_greetings", "group_only_greetings",
	"nickname", "creator_notes_multilingual", "source", "creation_date", "modification_date",
	"assets", "extensions", "character_book",
}

// EncodeJSON writes data as a card file of version v (V2 or V3) the way
// SillyTavern's JSON export writes it: the V1 mirrors, spec and
// spec_version, then data, indented by four spaces. JSONExportVersion is
// the version SillyTavern's export uses. A card whose indentation alone
// would take it past MaxFileBytes (deeply nested data) is written compact,
// so that Decode still reads it.
func EncodeJSON(data jsonx.Object, v Version) ([]byte, error) {
	card, err := MarshalCard(data, v)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	out.Grow(len(card) + len(card)/8)
	if err := json.Indent(&out, card, "", "    "); err != nil {
		return nil, fmt.Errorf("indent card: %w", err)
	}
	if out.Len() > MaxFileBytes {
		return card, nil
	}
	return out.Bytes(), nil
}

// EncodePNG writes data into image as a PNG card: a `chara` chunk with the
// V2 card and a `ccv3` chunk with the V3 card, both base64 JSON, placed
// before IEND in place of any card chunks image had — what SillyTavern
// writes. image may be PNG, JPEG or GIF (converted to PNG), or empty for
// the card's DefaultAvatar (its initial on its colour, 400×600); the
// image's own chunks are copied untouched.
func EncodePNG(data jsonx.Object, image []byte) ([]byte, error) {
	chunks, err := avatarChunks(image, cardName(data))
	if err != nil {
		return nil, err
	}
	v2, err := MarshalCard(data, V2)
	if err != nil {
		return nil, err
	}
	v3, err := MarshalCard(data, V3)
	if err != nil {
		return nil, err
	}
	return writePNG(chunks, cardChunk(keywordV2, v2), cardChunk(keywordV3, v3)), nil
}

// cardChunk is a tEXt chunk holding card as base64 under keyword.
func cardChunk(keyword string, card []byte) []byte {
	text := make([]byte, base64.StdEncoding.EncodedLen(len(card)))
	base64.StdEncoding.Encode(text, card)
	return appendChunk(make([]byte, 0, len(text)+len(keyword)+13), "tEXt", []byte(keyword), []byte{0}, text)
}

// MarshalCard encodes data as a compact card object of version v (V2 or
// V3), as SillyTavern writes one: the V1 fields mirrored at the top level
// (with creatorcomment, avatar "none", talkativeness and fav, which its
// reader expects), spec and spec_version, and data with every V2 field
// present. Data keeps every other field, known or not, as it is.
func MarshalCard(data jsonx.Object, v Version) ([]byte, error) {
	var spec, specVersion string
	switch v {
	case V2:
		spec, specVersion = SpecV2, "2.0"
	case V3:
		spec, specVersion = SpecV3, "3.0"
	default:
		return nil, fmt.Errorf("cards: cannot write a version %d card", v)
	}
	d := withDefaults(data)
	var b bytes.Buffer
	b.WriteByte('{')
	w := objectWriter{buf: &b}
	for _, k := range coreFields {
		w.field(k, d[k])
	}
	w.field("creatorcomment", d["creator_notes"])
	w.field("avatar", json.RawMessage(`"none"`))
	w.field("talkativeness", talkativeness(d["extensions"]))
	w.field("fav", json.RawMessage("false"))
	w.field("tags", d["tags"])
	w.field("spec", rawJSON(spec))
	w.field("spec_version", rawJSON(specVersion))
	w.key("data")
	b.WriteByte('{')
	inner := objectWriter{buf: &b}
	for _, k := range orderedKeys(d) {
		inner.field(k, d[k])
	}
	b.WriteString("}}")
	var out bytes.Buffer
	out.Grow(b.Len())
	if err := json.Compact(&out, b.Bytes()); err != nil {
		return nil, fmt.Errorf("encode card: a data value is not JSON: %w", err)
	}
	return out.Bytes(), nil
}

// withDefaults is a copy of data with the fields every card has filled in
// where missing (what Decode fills in too, so a card exported and imported
// again comes back the same).
func withDefaults(data jsonx.Object) jsonx.Object {
	d := data.Clone()
	for _, k := range stringFields {
		if _, ok := d[k]; !ok {
			d[k] = json.RawMessage(`""`)
		}
	}
	for _, k := range []string{"alternate_greetings", "group_only_greetings", "tags"} {
		if _, ok := d[k]; !ok {
			d[k] = json.RawMessage("[]")
		}
	}
	if _, ok := d["extensions"]; !ok {
		d["extensions"] = json.RawMessage("{}")
	}
	return d
}

// talkativeness is extensions.talkativeness, or SillyTavern's default 0.5.
func talkativeness(ext json.RawMessage) json.RawMessage {
	var e struct {
		Talkativeness json.RawMessage `json:"talkativeness"`
	}
	if kindOf(ext) == '{' && json.Unmarshal(ext, &e) == nil && !jsonx.IsNull(e.Talkativeness) {
		return e.Talkativeness
	}
	return json.RawMessage("0.5")
}

// orderedKeys lists d's keys in dataOrder, then the rest by name.
func orderedKeys(d jsonx.Object) []string {
	keys := make([]string, 0, len(d))
	known := make(map[string]bool, len(dataOrder))
	for _, k := range dataOrder {
		known[k] = true
		if _, ok := d[k]; ok {
			keys = append(keys, k)
		}
	}
	rest := make([]string, 0, len(d)-len(keys))
	for k := range d {
		if !known[k] {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	return append(keys, rest...)
}

// objectWriter writes the members of one JSON object, commas between.
type objectWriter struct {
	buf *bytes.Buffer
	n   int
}

// key writes a member name and its colon.
func (w *objectWriter) key(k string) {
	if w.n > 0 {
		w.buf.WriteByte(',')
	}
	w.n++
	w.buf.Write(rawJSON(k))
	w.buf.WriteByte(':')
}

// field writes a member; an empty value is written as null.
func (w *objectWriter) field(k string, v json.RawMessage) {
	w.key(k)
	if v = bytes.TrimSpace(v); len(v) == 0 {
		v = json.RawMessage("null")
	}
	w.buf.Write(v)
}
