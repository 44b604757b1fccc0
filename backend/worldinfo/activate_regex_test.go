package worldinfo

import (
	"regexp"
	"testing"
)

func TestParseRegexKey(t *testing.T) {
	t.Parallel()
	tests := []struct {
		key, pattern, flags string
		ok                  bool
	}{
		{`/dragon/`, "dragon", "", true},
		{`/dragon/gi`, "dragon", "gi", true},
		{`/a\/b/`, "a/b", "", true},
		{`/a\/b\/c/`, `a/b\/c`, "", true}, // only the first \/ is unescaped, as in SillyTavern
		{`/a/b/`, "", "", false},          // unescaped slash inside
		{`/a/gg`, "", "", false},          // a flag twice
		{`/a/x`, "", "", false},           // not a flag
		{`//`, "", "", false},             // empty pattern
		{`dragon`, "", "", false},
		{`/a,b/i`, "a,b", "i", true},
		{"/line\nbreak/", "line\nbreak", "", true},
	}
	for _, tt := range tests {
		p, f, ok := parseRegexKey(tt.key)
		if ok != tt.ok || p != tt.pattern || f != tt.flags {
			t.Errorf("parseRegexKey(%q) = %q, %q, %v; want %q, %q, %v", tt.key, p, f, ok, tt.pattern, tt.flags, tt.ok)
		}
	}
}

// TestTranslateJSRegex runs translated patterns against texts whose
// outcome JavaScript decides as written here.
func TestTranslateJSRegex(t *testing.T) {
	t.Parallel()
	tests := []struct {
		pattern, flags, text string
		match                bool
	}{
		{`dragon`, "i", "DRAGON", true},
		{`^a.c$`, "", "a\nc", false},
		{`^a.c$`, "s", "a\nc", true},
		{`a.c`, "", "a\u2028c", false},
		{`^b`, "m", "a\nb", true},
		{`^b`, "", "a\nb", false},
		{`\s`, "", "\u00a0", true},
		{`\S`, "", "\ufeff", false},
		{`[\s\S]`, "", "\n", true},
		{`[^]`, "", "\n", true},
		{`[]`, "", "anything", false},
		{`\u0041\x42`, "", "AB", true},
		{`\ud83d\ude00`, "", "😀", true},
		{`\u{1F600}`, "u", "😀", true},
		{`\p{Lu}`, "u", "É", true},
		{`\p{Script=Greek}`, "u", "α", true},
		{`\p{Letter}+`, "u", "abc", true},
		{`\cJ`, "", "\n", true},
		{`\e\q`, "", "eq", true},
		{`[\b]`, "", "\b", true},
		{`a{2}`, "", "aa", true},
		{`a{,2}`, "", "a{,2}", true},
		{`(?<name>x)`, "", "x", true},
		{`b`, "y", "ab", false},
		{`a`, "y", "ab", true},
		{`[[]`, "", "[", true},
		{`\d+\.\d`, "", "3.5", true},
		{`\bcat\b`, "i", "A Cat!", true},
	}
	for _, tt := range tests {
		goPattern, unsupported, ok := translateJSRegex(tt.pattern, tt.flags)
		if !ok || unsupported != "" {
			t.Errorf("/%s/%s: ok=%v unsupported=%q", tt.pattern, tt.flags, ok, unsupported)
			continue
		}
		re, err := regexp.Compile(goPattern)
		if err != nil {
			t.Errorf("/%s/%s → %s: %v", tt.pattern, tt.flags, goPattern, err)
			continue
		}
		if got := re.MatchString(tt.text); got != tt.match {
			t.Errorf("/%s/%s (%s) on %q = %v, want %v", tt.pattern, tt.flags, goPattern, tt.text, got, tt.match)
		}
	}
}

func TestTranslateJSRegexLimits(t *testing.T) {
	t.Parallel()
	tests := []struct {
		pattern, flags string
		ok, supported  bool
	}{
		{`(?=a)`, "", true, false},
		{`(?!a)`, "", true, false},
		{`(?<=a)b`, "", true, false},
		{`(?<!a)b`, "", true, false},
		{`(a)\1`, "", true, false},
		{`(?<n>a)\k<n>`, "", true, false},
		{`a{1001}`, "", true, false},
		{`\ud800`, "", true, false},
		{`\p{Foo}`, "u", true, false},
		{`[a`, "", false, true},
		{`a\`, "", false, true},
		{`\q`, "u", false, true},
		{`(?x)`, "", false, true},
	}
	for _, tt := range tests {
		_, unsupported, ok := translateJSRegex(tt.pattern, tt.flags)
		if ok != tt.ok || (unsupported == "") != tt.supported {
			t.Errorf("/%s/%s: ok=%v unsupported=%q; want ok=%v supported=%v", tt.pattern, tt.flags, ok, unsupported, tt.ok, tt.supported)
		}
	}
}

// TestPrefilterNeverRefusesAMatch: whenever a regex matches, its prefilter
// lets the text through (it may let more through; never less).
func TestPrefilterNeverRefusesAMatch(t *testing.T) {
	t.Parallel()
	patterns := []struct{ pattern, flags string }{
		{`\bdragons?\b`, "i"}, {`king(dom)?`, ""}, {`(elf|elves|elven)`, "i"}, {`sword|blade`, ""},
		{`ma+gic`, "i"}, {`x*`, ""}, {`[a-z]+ville`, ""}, {`Mask`, "i"}, {`cost`, "i"}, {`(ab){2,3}c`, ""},
	}
	texts := []string{
		"A DRAGON appears", "the kingdom", "ELVEN blades", "a sword", "MAAAGIC", "", "Smallville",
		"MAſK", "KOſT", "maſk", "Mask", "ababc", "abababc", "dragons", "nothing here",
	}
	for _, p := range patterns {
		goPattern, _, _ := translateJSRegex(p.pattern, p.flags)
		re := regexp.MustCompile(goPattern)
		pre := newPrefilter(goPattern)
		for _, text := range texts {
			h := &haystack{raw: text}
			if re.MatchString(text) && !pre.mayMatch(h) {
				t.Errorf("/%s/%s matches %q but its prefilter %+v refuses it", p.pattern, p.flags, text, pre)
			}
		}
	}
	if pre := newPrefilter(`(?i)[^\n\r\x{2028}\x{2029}]*dragon`); len(pre.lits) != 1 || pre.lits[0] != (prefilterLit{text: "dragon", fold: true}) {
		t.Errorf("prefilter = %+v, want the literal dragon", pre)
	}
}
