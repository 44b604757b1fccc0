package cards

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"hearth/backend/jsonx"
)

// stringFields are the V2 fields that hold a string, in the order
// SillyTavern writes them.
var stringFields = []string{
	"name", "description", "personality", "scenario", "first_mes", "mes_example",
	"creator_notes", "system_prompt", "post_history_instructions", "creator", "character_version",
}

// coreFields are the V1 fields, which a V2 or V3 card mirrors at its top
// level; a `data` missing one takes the top-level value, as SillyTavern does.
var coreFields = []string{"name", "description", "personality", "scenario", "first_mes", "mes_example"}

// v1Fields are the top-level keys a flat V1 card contributes as they are.
var v1Fields = []string{
	"name", "description", "personality", "scenario", "first_mes", "mes_example",
	"creator", "tags", "system_prompt", "post_history_instructions", "character_version", "alternate_greetings",
}

// notesPlaceholder is TavernAI's default creator note, which SillyTavern
// removes from V1 cards on import.
const notesPlaceholder = "Creator's notes go here."

// fromObject turns a parsed card of any version into an Imported holding
// the flat, normalized data.
func fromObject(top jsonx.Object, lim limits) (*Imported, error) {
	imp := &Imported{Warnings: []string{}}
	var data jsonx.Object
	var err error
	switch {
	case !jsonx.IsNull(top["spec"]):
		data, err = fromSpec(top, imp)
	case kindOf(top["data"]) == '{':
		imp.Version = V2
		imp.Warnings = append(imp.Warnings, "the card has no spec; it was read as "+SpecV2)
		data, err = decodeData(top)
	case !jsonx.IsNull(top["name"]):
		imp.Version = V1
		data = fromV1(top)
	case !jsonx.IsNull(top["char_name"]):
		imp.Version = V1
		imp.Warnings = append(imp.Warnings, "the card was read as a Pygmalion (char_name) card")
		data = fromV1(pygmalionToV1(top))
	default:
		return nil, invalid("spec", "the JSON is not a character card: it has no spec and no name")
	}
	if err != nil {
		return nil, err
	}
	if err := normalize(data, &imp.Warnings); err != nil {
		return nil, err
	}
	if name, _ := jsonx.String(data["name"], "name"); strings.TrimSpace(name) == "" {
		return nil, invalid("no_name", "the card has no name")
	}
	if d := jsonx.ObjectDepth(data); d > lim.maxDataDepth {
		return nil, tooDeep(d, lim.maxDataDepth)
	}
	if enc, _ := data.MarshalJSON(); len(enc) > lim.dataBytes {
		return nil, tooLarge("the card's data", len(enc), lim.dataBytes)
	}
	imp.Data = data
	return imp, nil
}

// fromSpec reads a card that names its spec: V2 or V3 with a data object.
func fromSpec(top jsonx.Object, imp *Imported) (jsonx.Object, error) {
	spec, err := jsonx.String(top["spec"], "spec")
	if err != nil {
		return nil, invalid("spec", "the card's spec must be a string, not %s", describe(bytes.TrimSpace(top["spec"])))
	}
	switch spec {
	case SpecV2:
		imp.Version = V2
	case SpecV3:
		imp.Version = V3
	default:
		if strings.HasPrefix(spec, "lorebook") {
			return nil, invalid("spec", "this is a lorebook (spec %q), not a character card", spec)
		}
		return nil, invalid("spec", "the card's spec %q is not one Hearth reads (%s or %s)", spec, SpecV2, SpecV3)
	}
	imp.SpecVersion = specVersion(top["spec_version"])
	if f, err := strconv.ParseFloat(imp.SpecVersion, 64); err == nil && imp.Version == V3 && f > 3.0 {
		imp.Warnings = append(imp.Warnings, fmt.Sprintf("the card follows spec_version %s, newer than the 3.0 Hearth knows; fields it does not know are kept as they are", imp.SpecVersion))
	}
	data, err := decodeData(top)
	if err != nil {
		return nil, err
	}
	for _, k := range coreFields {
		if _, ok := data[k]; !ok {
			if v, ok := top[k]; ok {
				data[k] = v
			}
		}
	}
	return data, nil
}

// decodeData returns the card's data object.
func decodeData(top jsonx.Object) (jsonx.Object, error) {
	raw, ok := top["data"]
	if !ok || jsonx.IsNull(raw) {
		return nil, invalid("no_data", "the card names a spec but has no data object")
	}
	if kindOf(raw) != '{' {
		return nil, invalid("no_data", "the card's data must be an object, not %s", describe(bytes.TrimSpace(raw)))
	}
	return members(raw), nil
}

// specVersion is the text of a spec_version, "" unless a string or number.
func specVersion(raw json.RawMessage) string {
	switch kindOf(raw) {
	case '"':
		s, _ := jsonx.String(raw, "spec_version")
		return s
	case '0':
		return string(bytes.TrimSpace(raw))
	}
	return ""
}

// fromV1 converts a flat V1 card to V2 data as SillyTavern does: the V1
// fields, creatorcomment (or creator_notes) as creator_notes, and the
// SillyTavern extension defaults it writes for every converted card.
func fromV1(top jsonx.Object) jsonx.Object {
	data := jsonx.Object{}
	for _, k := range v1Fields {
		if v, ok := top[k]; ok {
			data[k] = v
		}
	}
	if v := top["creatorcomment"]; !jsonx.IsNull(v) {
		data["creator_notes"] = v
	} else if v, ok := top["creator_notes"]; ok {
		if s, err := jsonx.String(v, "creator_notes"); err == nil {
			v = rawJSON(strings.Replace(s, notesPlaceholder, "", 1))
		}
		data["creator_notes"] = v
	}
	talk := top["talkativeness"]
	if jsonx.IsNull(talk) {
		talk = json.RawMessage("0.5")
	}
	ext := jsonx.Object{
		"talkativeness": talk,
		"fav":           json.RawMessage("false"),
		"world":         json.RawMessage(`""`),
		"depth_prompt":  json.RawMessage(`{"prompt":"","depth":4,"role":"system"}`),
	}
	data["extensions"], _ = ext.MarshalJSON()
	return data
}

// pygmalionToV1 renames the fields of a Pygmalion / text-generation-webui
// card (char_name, char_persona, …) to V1's.
func pygmalionToV1(top jsonx.Object) jsonx.Object {
	v1 := jsonx.Object{"personality": json.RawMessage(`""`)}
	for from, to := range map[string]string{
		"char_name": "name", "char_persona": "description", "char_greeting": "first_mes",
		"example_dialogue": "mes_example", "world_scenario": "scenario",
		"creatorcomment": "creatorcomment", "creator_notes": "creator_notes",
		"talkativeness": "talkativeness", "creator": "creator", "tags": "tags",
	} {
		if v, ok := top[from]; ok {
			v1[to] = v
		}
	}
	return v1
}

// normalize makes data what Hearth stores: every value compact JSON, the
// V2 string fields strings, the greeting and tag lists lists of strings,
// extensions an object, character_book an object or absent. What it
// repairs it notes in warnings; what it cannot is a field_type error.
// Applied to its own output it changes nothing.
func normalize(data jsonx.Object, warnings *[]string) error {
	for k, v := range data {
		data[k] = compact(v)
	}
	for _, k := range stringFields {
		if err := normString(data, k, warnings); err != nil {
			return err
		}
	}
	for _, k := range []string{"alternate_greetings", "group_only_greetings", "tags"} {
		if err := normList(data, k, warnings); err != nil {
			return err
		}
	}
	switch v, ok := data["extensions"]; {
	case !ok || jsonx.IsNull(v):
		data["extensions"] = json.RawMessage("{}")
	case kindOf(v) != '{':
		data["extensions"] = json.RawMessage("{}")
		*warnings = append(*warnings, fmt.Sprintf("data.extensions was %s, not an object; it was replaced with {}", describe(v)))
	}
	switch v, ok := data["character_book"]; {
	case ok && jsonx.IsNull(v):
		delete(data, "character_book")
	case ok && kindOf(v) != '{':
		delete(data, "character_book")
		*warnings = append(*warnings, fmt.Sprintf("data.character_book was %s, not a lorebook object; it was left out", describe(v)))
	}
	return nil
}

// normString makes data[k] a string: absent or null is "", a number or
// boolean becomes its text; an object or array is an error.
func normString(data jsonx.Object, k string, warnings *[]string) error {
	v, ok := data[k]
	if !ok || jsonx.IsNull(v) {
		data[k] = json.RawMessage(`""`)
		return nil
	}
	switch kindOf(v) {
	case '"':
		return nil
	case 't', '0':
		data[k] = rawJSON(string(v))
		*warnings = append(*warnings, fmt.Sprintf("data.%s was %s; it is now the string %q", k, describe(v), v))
		return nil
	}
	return fieldType(k, "a string", v)
}

// normList makes data[k] a list of strings: absent or null is [], a
// string becomes a list (tags split at commas, as SillyTavern does),
// numbers and booleans in a list become strings and nulls drop out; an
// object, or a list holding objects or lists, is an error.
func normList(data jsonx.Object, k string, warnings *[]string) error {
	v, ok := data[k]
	if !ok || jsonx.IsNull(v) {
		data[k] = json.RawMessage("[]")
		return nil
	}
	switch kindOf(v) {
	case '[':
		var items []json.RawMessage
		if err := json.Unmarshal(v, &items); err != nil {
			return fieldType(k, "a list of strings", v)
		}
		out := make([]string, 0, len(items))
		changed := false
		for _, it := range items {
			switch kindOf(it) {
			case '"':
				s, _ := jsonx.String(it, k)
				out = append(out, s)
			case 'n':
				changed = true
			case 't', '0':
				out = append(out, string(it))
				changed = true
			default:
				return fieldType(k, "a list of strings", it)
			}
		}
		if changed {
			data[k] = rawJSON(out)
			*warnings = append(*warnings, fmt.Sprintf("data.%s held values that are not strings; they were converted or left out", k))
		}
		return nil
	case '"':
		s, _ := jsonx.String(v, k)
		out := []string{}
		if k == "tags" {
			for _, t := range strings.Split(s, ",") {
				if t = strings.TrimSpace(t); t != "" {
					out = append(out, t)
				}
			}
		} else if s != "" {
			out = append(out, s)
		}
		data[k] = rawJSON(out)
		*warnings = append(*warnings, fmt.Sprintf("data.%s was a string; it is now a list", k))
		return nil
	}
	return fieldType(k, "a list of strings", v)
}

// fieldType is the error for a field of the wrong type.
func fieldType(field, want string, got json.RawMessage) error {
	e := invalid("field_type", "data.%s must be %s, not %s", field, want, describe(bytes.TrimSpace(got)))
	e.Details["field"] = field
	return e
}

// kindOf is the first byte of raw's JSON value, with every number as '0'
// and both booleans as 't'; 0 for empty input.
func kindOf(raw json.RawMessage) byte {
	t := bytes.TrimLeft(raw, " \t\r\n")
	if len(t) == 0 {
		return 0
	}
	switch c := t[0]; c {
	case '{', '[', '"', 'n':
		return c
	case 't', 'f':
		return 't'
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return '0'
	}
	return 0
}

// compact returns raw without insignificant whitespace (raw itself when
// it has none, or when it is not valid JSON).
func compact(raw json.RawMessage) json.RawMessage {
	if len(raw) > 0 && !spaceOutsideStrings(raw) {
		return raw
	}
	var buf bytes.Buffer
	buf.Grow(len(raw))
	if err := json.Compact(&buf, raw); err != nil {
		return raw
	}
	return buf.Bytes()
}

// rawJSON encodes v without HTML escaping (SillyTavern's JSON.stringify
// writes <, > and & as they are). It is only called with plain values.
func rawJSON(v any) json.RawMessage {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err) // strings and string slices always encode
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// spaceOutsideStrings reports whether raw has JSON whitespace outside its
// strings, the only thing compact would remove.
func spaceOutsideStrings(raw []byte) bool {
	inString, escaped := false, false
	for _, c := range raw {
		switch {
		case escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		case !inString && (c == ' ' || c == '\t' || c == '\r' || c == '\n'):
			return true
		}
	}
	return false
}
