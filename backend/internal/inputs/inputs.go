// Package inputs holds the small checks every service runs on text a
// caller sent: names without control characters, and quoting a bounded
// piece of hostile input back in an error message.
package inputs

import "unicode/utf8"

// HasControl reports whether s holds a C0 control character or DEL (a
// name with a newline or a NUL in it is a mistake or an attack).
func HasControl(s string) bool {
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return true
		}
	}
	return false
}

// quoteLimit bounds how much caller input an error message repeats.
const quoteLimit = 80

// Short returns at most 80 bytes of s for an error message, cut at a rune
// boundary and marked with "…" when cut.
func Short(s string) string {
	if len(s) <= quoteLimit {
		return s
	}
	cut := quoteLimit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
