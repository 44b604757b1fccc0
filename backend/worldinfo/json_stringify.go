package worldinfo

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"
)

// SillyTavern writes its files with JavaScript's JSON.stringify and keys
// timed effects by a hash of JSON.stringify(entry). The helpers here
// produce the same bytes from Go, so a value Hearth changes is written the
// way SillyTavern would write it and a hash Hearth computes matches the one
// SillyTavern stored in a chat.

// appendJSString appends s as JSON.stringify quotes it: only the quote,
// the backslash and control characters are escaped; <, > and & stay
// literal (encoding/json would escape them).
func appendJSString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"':
			b = append(b, '\\', '"')
		case '\\':
			b = append(b, '\\', '\\')
		case '\b':
			b = append(b, '\\', 'b')
		case '\f':
			b = append(b, '\\', 'f')
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			const hex = "0123456789abcdef"
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		}
		start = i + 1
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// appendJSNumber appends f as JavaScript's Number#toString writes it
// (shortest round-trip digits, exponent only below 1e-6 or from 1e21 on);
// NaN and the infinities become null, as JSON.stringify makes them.
func appendJSNumber(b []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(b, "null"...)
	}
	if f == 0 {
		return append(b, '0')
	}
	abs := math.Abs(f)
	if abs >= 1e-6 && abs < 1e21 {
		return strconv.AppendFloat(b, f, 'f', -1, 64)
	}
	s := strconv.FormatFloat(f, 'e', -1, 64)
	mant, exp, _ := strings.Cut(s, "e")
	sign := exp[0]
	exp = strings.TrimLeft(exp[1:], "0")
	b = append(b, mant...)
	b = append(b, 'e', sign)
	return append(b, exp...)
}

// jsMember is one member of a JavaScript object, its value as JSON text.
type jsMember struct {
	key   string
	value []byte
}

// arrayIndex reports whether k is a canonical array index ("0", "17"):
// JavaScript orders such keys first, ascending, in every object.
func arrayIndex(k string) (uint64, bool) {
	if k == "" || len(k) > 10 || (len(k) > 1 && k[0] == '0') {
		return 0, false
	}
	n, err := strconv.ParseUint(k, 10, 64)
	if err != nil || n >= math.MaxUint32 {
		return 0, false
	}
	return n, true
}

// jsOrder sorts members into the order JavaScript enumerates them: array
// indexes ascending, then the other keys in insertion order.
func jsOrder(ms []jsMember) {
	sort.SliceStable(ms, func(i, j int) bool {
		a, aok := arrayIndex(ms[i].key)
		b, bok := arrayIndex(ms[j].key)
		switch {
		case aok && bok:
			return a < b
		default:
			return aok && !bok
		}
	})
}

// jsKeysInOrder returns keys in JavaScript's enumeration order.
func jsKeysInOrder(keys []string) []string {
	ms := make([]jsMember, len(keys))
	for i, k := range keys {
		ms[i].key = k
	}
	jsOrder(ms)
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.key
	}
	return out
}

// appendJSObject appends members as JSON.stringify writes an object built
// from them: duplicate keys keep their first place and last value, array
// indexes come first.
func appendJSObject(b []byte, ms []jsMember) []byte {
	ms = dedupeMembers(ms)
	jsOrder(ms)
	b = append(b, '{')
	for i, m := range ms {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSString(b, m.key)
		b = append(b, ':')
		b = append(b, m.value...)
	}
	return append(b, '}')
}

// dedupeMembers merges repeated keys the way JSON.parse and object
// spreads do: the first occurrence keeps its place, the last value wins.
func dedupeMembers(ms []jsMember) []jsMember {
	seen := make(map[string]int, len(ms))
	out := ms[:0:0]
	for _, m := range ms {
		if i, ok := seen[m.key]; ok {
			out[i].value = m.value
			continue
		}
		seen[m.key] = len(out)
		out = append(out, m)
	}
	return out
}

// errTrailing reports JSON text with something after its value.
var errTrailing = errors.New("unexpected data after the JSON value")

// jsCanonical re-encodes the JSON text raw as JSON.stringify(JSON.parse(raw))
// would: compact, JavaScript's string escapes and number format, object
// members in JavaScript's order.
func jsCanonical(raw []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	out, err := jsCanonicalValue(nil, dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errTrailing
	}
	return out, nil
}

func jsCanonicalValue(b []byte, dec *json.Decoder) ([]byte, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		if t == '[' {
			b = append(b, '[')
			for i := 0; dec.More(); i++ {
				if i > 0 {
					b = append(b, ',')
				}
				if b, err = jsCanonicalValue(b, dec); err != nil {
					return nil, err
				}
			}
			_, err = dec.Token()
			return append(b, ']'), err
		}
		var ms []jsMember
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return nil, err
			}
			v, err := jsCanonicalValue(nil, dec)
			if err != nil {
				return nil, err
			}
			ms = append(ms, jsMember{key: kt.(string), value: v})
		}
		if _, err := dec.Token(); err != nil {
			return nil, err
		}
		return appendJSObject(b, ms), nil
	case string:
		return appendJSString(b, t), nil
	case json.Number:
		f, err := strconv.ParseFloat(string(t), 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return nil, err
		}
		return appendJSNumber(b, f), nil
	case bool:
		return strconv.AppendBool(b, t), nil
	default:
		return append(b, "null"...), nil
	}
}

// stringHash is SillyTavern's getStringHash (the public-domain cyrb53
// hash) over the UTF-16 code units of s, as JavaScript sees a string.
func stringHash(s string) int64 {
	h1 := uint32(0xdeadbeef)
	h2 := uint32(0x41c6ce57)
	mix := func(ch uint32) {
		h1 = (h1 ^ ch) * 2654435761
		h2 = (h2 ^ ch) * 1597334677
	}
	for _, r := range s {
		if r >= 0x10000 {
			hi, lo := utf16.EncodeRune(r)
			mix(uint32(hi))
			mix(uint32(lo))
			continue
		}
		mix(uint32(r))
	}
	h1 = (h1^(h1>>16))*2246822507 ^ (h2^(h2>>13))*3266489909
	h2 = (h2^(h2>>16))*2246822507 ^ (h1^(h1>>13))*3266489909
	return int64(h2&0x1fffff)<<32 + int64(h1)
}
