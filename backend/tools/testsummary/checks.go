package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
)

// checksReport is a self-test's report: one entry per check. The desktop
// smoke test (hearth --self-test) writes it.
type checksReport struct {
	OK     bool `json:"ok"`
	Checks []struct {
		Name   string `json:"name"`
		OK     bool   `json:"ok"`
		Detail string `json:"detail"`
	} `json:"checks"`
}

// readChecks scores a checks report, printing the failing checks. A report
// whose overall ok is false while every check passed (a phase that never
// ran, a timeout) counts one more failure.
func readChecks(w io.Writer, path string) (counts, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return counts{}, err
	}
	var rep checksReport
	if err := json.Unmarshal(data, &rep); err != nil {
		return counts{}, fmt.Errorf("decode: %w", err)
	}
	var c counts
	for _, ch := range rep.Checks {
		if ch.OK {
			c.passed++
			continue
		}
		c.failed++
		fmt.Fprintf(w, "--- FAIL: %s\n    %s\n", ch.Name, strings.ReplaceAll(ch.Detail, "\n", "\n    "))
	}
	if !rep.OK && c.failed == 0 {
		fmt.Fprintf(w, "--- FAIL: %s says ok: false without a failing check\n", path)
		c.failed++
	}
	if len(rep.Checks) == 0 && rep.OK {
		return c, fmt.Errorf("%s holds no checks", path)
	}
	return c, nil
}
