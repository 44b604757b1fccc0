package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
)

// vitestReport is the part of Vitest's JSON reporter output (Jest's shape)
// that is scored.
type vitestReport struct {
	NumPassedTests int `json:"numPassedTests"`
	NumFailedTests int `json:"numFailedTests"`
	TestResults    []struct {
		Name             string `json:"name"`
		Status           string `json:"status"`
		Message          string `json:"message"`
		AssertionResults []struct {
			FullName        string   `json:"fullName"`
			Status          string   `json:"status"`
			FailureMessages []string `json:"failureMessages"`
		} `json:"assertionResults"`
	} `json:"testResults"`
}

// readVitest scores a Vitest JSON report and prints its failures. A test
// file that failed to load has no assertions; it counts as one failure.
func readVitest(w io.Writer, path string) (counts, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return counts{}, err
	}
	var rep vitestReport
	if err := json.Unmarshal(data, &rep); err != nil {
		return counts{}, fmt.Errorf("decode: %w", err)
	}
	c := counts{passed: rep.NumPassedTests, failed: rep.NumFailedTests}
	for _, file := range rep.TestResults {
		if file.Status == "failed" && len(file.AssertionResults) == 0 {
			c.failed++
			fmt.Fprintf(w, "--- FAIL: %s\n    %s\n", file.Name, strings.ReplaceAll(file.Message, "\n", "\n    "))
		}
		for _, a := range file.AssertionResults {
			if a.Status == "failed" {
				fmt.Fprintf(w, "--- FAIL: %s > %s\n    %s\n", file.Name, a.FullName,
					strings.ReplaceAll(strings.Join(a.FailureMessages, "\n"), "\n", "\n    "))
			}
		}
	}
	return c, nil
}
