package skills

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// billionLaughs is the classic alias bomb, small enough to pass the size
// bound: decoded into a yaml.Node it expands nothing.
const billionLaughs = `---
a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
name: bomb
description: *i
---
body`

func TestAliasBombIsRefusedQuickly(t *testing.T) {
	t.Parallel()
	start := time.Now()
	if _, err := parseSkill([]byte(billionLaughs)); err == nil || !strings.Contains(err.Error(), "must be a string") {
		t.Errorf("err = %v", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("took %v", d)
	}
}

// FuzzFrontMatter: any SKILL.md parses or is refused, without panicking
// and quickly; a parsed one has a valid name and bounded description, and
// its body is a suffix of the input.
func FuzzFrontMatter(f *testing.F) {
	f.Add([]byte(skillMD("alpha", "Writes openings.", "# Alpha\n")))
	f.Add([]byte(betaMD))
	f.Add([]byte(billionLaughs))
	f.Add([]byte("---\nname: a\n...\n"))
	f.Add([]byte("---\n---\n"))
	f.Add([]byte("---\n- a\n- b\n---\n"))
	f.Add([]byte("---\nname: &x a\nname: *x\n---\n"))
	f.Add([]byte("---\nname: !!binary aGk=\n---\n"))
	f.Add([]byte("---\n? [a, b]\n: c\nname: a\n---\n"))
	f.Add([]byte("---\r\nname: \"a\\u0000\"\r\n---"))
	f.Fuzz(func(t *testing.T, data []byte) {
		start := time.Now()
		p, err := parseSkill(data)
		if d := time.Since(start); d > 2*time.Second {
			t.Fatalf("parse took %v", d)
		}
		if err != nil {
			if _, ok := err.(*problemError); !ok {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		if !ValidName(p.Name) {
			t.Fatalf("invalid name %q accepted", p.Name)
		}
		if utf8.RuneCountInString(p.Description) > MaxDescription {
			t.Fatal("description too long")
		}
		if !strings.HasSuffix(string(data), p.Body) {
			t.Fatal("body is not the end of the file")
		}
	})
}
