package main

import (
	"errors"
	"strings"
	"testing"
)

func TestParseLaunchURL(t *testing.T) {
	t.Parallel()
	base, token, err := parseLaunchURL("http://127.0.0.1:39977/?token=bwwAE7-x_y\n")
	if err != nil || base != "http://127.0.0.1:39977" || token != "bwwAE7-x_y" {
		t.Errorf("parseLaunchURL = %q, %q, %v", base, token, err)
	}
	for _, bad := range []string{"http://127.0.0.1:8000/", "no address", "/?token=x"} {
		if _, _, err := parseLaunchURL(bad); err == nil {
			t.Errorf("parseLaunchURL(%q) took it", bad)
		}
	}
}

func TestReportVerdict(t *testing.T) {
	t.Parallel()
	clean := Counts{Calls: 10, Acked: 12, Verified: 12, Uncertain: 3, Landed: 1}
	tests := []struct {
		name   string
		res    result
		passes bool
	}{
		{"clean", result{kills: 200, rows: []row{{name: "w", counts: clean}}, integrity: []string{"ok", "ok"}}, true},
		{"a documented double import passes", result{rows: []row{{name: "w", counts: Counts{Acked: 1, Verified: 1, Twice: 1}}}, integrity: []string{"ok"}}, true},
		{"lost", result{rows: []row{{name: "w", counts: Counts{Acked: 2, Verified: 1, Lost: 1}}}, integrity: []string{"ok"}}, false},
		{"half", result{rows: []row{{name: "w", counts: Counts{Half: 1}}}, integrity: []string{"ok"}}, false},
		{"unexpected", result{rows: []row{{name: "w", counts: Counts{Unexpected: 1}}}, integrity: []string{"ok"}}, false},
		{"refused", result{rows: []row{{name: "w", counts: Counts{Refused: 1}}}, integrity: []string{"ok"}}, false},
		{"odd", result{rows: []row{{name: "w", counts: Counts{Odd: 1}}}, integrity: []string{"ok"}}, false},
		{"unchecked", result{rows: []row{{name: "w", counts: Counts{Acked: 2, Verified: 1}}}, integrity: []string{"ok"}}, false},
		{"damaged", result{rows: []row{{name: "w", counts: clean}}, integrity: []string{"ok", "*** in database main ***"}}, false},
		{"no integrity check", result{rows: []row{{name: "w", counts: clean}}}, false},
		{"foreign keys", result{rows: []row{{name: "w", counts: clean}}, integrity: []string{"ok"}, foreignKey: []string{"x row 1 → y"}}, false},
		{"stopped early", result{rows: []row{{name: "w", counts: clean}}, integrity: []string{"ok"}, err: errors.New("restart failed")}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var out strings.Builder
			if got := report(&out, &tt.res); got != tt.passes {
				t.Errorf("report = %v, want %v\n%s", got, tt.passes, out.String())
			}
			if tt.passes != strings.Contains(out.String(), "soak: PASS") {
				t.Errorf("PASS line does not match the verdict:\n%s", out.String())
			}
		})
	}
}
