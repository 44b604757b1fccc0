package workspace

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"hearth/backend/apperr"
)

func TestSearch(t *testing.T) {
	t.Parallel()
	d, _ := newWorkspace(t)
	mustWrite(t, d, "output/story.md", "l1\nl2\nThe Dragon sleeps\nl4\nl5\nl6\nl7\nthe dragon wakes\n")
	mustWrite(t, d, "plan/outline.md", "chapter one: DRAGON\r\nchapter two\r\n")
	mustWrite(t, d, "scratch/hidden.md", "dragon in a hidden root\n")
	mustWrite(t, d, "output/bin.dat", "dragon\x00binary")
	mustWrite(t, d, "output/sub/deep.md", "no match here\n")
	visible := []string{"output", "plan"}

	tests := []struct {
		name      string
		query     string
		rel       string
		limit     int
		ctx       int
		want      []string // path:line
		wantFirst *Hit
		code      string
	}{
		{
			name: "all visible roots, case-insensitive", query: "dragon",
			want: []string{"output/story.md:3", "output/story.md:8", "plan/outline.md:1"},
		},
		{
			name: "context lines", query: "DRAGON SLEEPS", ctx: 2,
			want:      []string{"output/story.md:3"},
			wantFirst: &Hit{Path: "output/story.md", Line: 3, Text: "The Dragon sleeps", Before: []string{"l1", "l2"}, After: []string{"l4", "l5"}},
		},
		{
			name: "context capped at 5 and at the file's end", query: "wakes", ctx: 50,
			want:      []string{"output/story.md:8"},
			wantFirst: &Hit{Path: "output/story.md", Line: 8, Text: "the dragon wakes", Before: []string{"The Dragon sleeps", "l4", "l5", "l6", "l7"}, After: []string{}},
		},
		{
			name: "crlf stripped", query: "chapter one", rel: "plan",
			want:      []string{"plan/outline.md:1"},
			wantFirst: &Hit{Path: "plan/outline.md", Line: 1, Text: "chapter one: DRAGON", Before: []string{}, After: []string{}},
		},
		{name: "rel directory", query: "dragon", rel: "plan", want: []string{"plan/outline.md:1"}},
		{name: "rel file", query: "dragon", rel: "output/story.md", limit: 1, want: []string{"output/story.md:3"}},
		{name: "no hits", query: "unicorn", want: nil},
		{name: "empty query", query: "  ", code: CodeInvalidQuery},
		{name: "hidden root", query: "dragon", rel: "scratch", code: CodePathDenied},
		{name: "escape", query: "dragon", rel: "output/../scratch", code: CodePathDenied},
		{name: "missing rel", query: "dragon", rel: "output/none", code: CodeFileNotFound},
	}
	if hits, err := d.Search("dragon", "", nil, 0, 0); err != nil || len(hits) != 0 {
		t.Errorf("no visible roots: %v, %v", hits, err)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			hits, err := d.Search(tc.query, tc.rel, visible, tc.limit, tc.ctx)
			if apperr.CodeOf(err) != tc.code {
				t.Fatalf("err = %v, want %q", err, tc.code)
			}
			var got []string
			for _, h := range hits {
				got = append(got, fmt.Sprintf("%s:%d", h.Path, h.Line))
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("hits = %v, want %v", got, tc.want)
			}
			if tc.wantFirst != nil {
				h := hits[0]
				w := tc.wantFirst
				if h.Path != w.Path || h.Line != w.Line || h.Text != w.Text || !slices.Equal(h.Before, w.Before) || !slices.Equal(h.After, w.After) {
					t.Errorf("hit = %+v\nwant  %+v", h, *w)
				}
			}
		})
	}
}

func TestSearchLimits(t *testing.T) {
	t.Parallel()
	d, _ := newWorkspace(t)
	mustWrite(t, d, "output/many.md", strings.Repeat("match\n", 300))
	mustWrite(t, d, "output/long.md", strings.Repeat("é", 2000)+"needle")
	tests := []struct {
		limit, want int
	}{
		{limit: 0, want: DefaultSearchLimit},
		{limit: -3, want: DefaultSearchLimit},
		{limit: 7, want: 7},
		{limit: 1000, want: MaxSearchLimit},
	}
	for _, tc := range tests {
		hits, err := d.Search("match", "", Roots, tc.limit, 0)
		if err != nil || len(hits) != tc.want {
			t.Errorf("limit %d: %d hits, %v; want %d", tc.limit, len(hits), err, tc.want)
		}
	}
	hits, err := d.Search("needle", "", Roots, 0, 0)
	if err != nil || len(hits) != 1 {
		t.Fatalf("long line: %v, %v", hits, err)
	}
	if txt := hits[0].Text; len(txt) > MaxHitLineBytes+len("…") || !strings.HasSuffix(txt, "…") || !strings.HasPrefix(txt, "é") {
		t.Errorf("long line not clipped on a rune boundary: %d bytes", len(txt))
	}
}
