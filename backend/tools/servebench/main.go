// Command servebench starts the real `hearth serve` on a fresh data dir and
// measures, from outside, what a browser's use of the 10k chat costs it,
// printed as `go test -bench` result lines for benchreport:
//
//   - importJsonl: the 10k chat's SillyTavern file (about 45 MB) through
//     chat.importJsonl over HTTP, from sending the encoded request to
//     the answer;
//   - rssAtRest: its RSS 10 s after the import, once it gave back what the
//     import took;
//   - rssAfterTenReads: its RSS after ten whole-chat reads
//     (chat.getStMessages) over HTTP, one after the other;
//   - rssIdle30s: its RSS 30 s after the last read, with nothing else
//     running.
//
// RSS is the process's VmRSS, not its heap: what the machine gives it.
//
//	go run ./backend/tools/servebench -runs 3 | go run ./backend/tools/benchreport
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"

	"hearth/backend/internal/chatgen"
	"hearth/backend/transport/httpapi"
)

// idleWait is how long the server is left alone after the reads; settle,
// after the import (longer than the app's idle release, app.idleRelease).
const (
	idleWait = 30 * time.Second
	settle   = 10 * time.Second
)

func main() {
	bin := flag.String("bin", "build/bin/hearth-headless", "the headless build to run")
	runs := flag.Int("runs", 3, "how many servers to measure")
	flag.Parse()
	opts := chatgen.Options{Seed: 5, Messages: 10_000}
	text, err := chatgen.JSONL(opts, map[string]any{"integrity": "bench"}, chatgen.Messages(opts))
	if err != nil {
		fmt.Printf("FAIL servebench: %v\n", err)
		os.Exit(1)
	}
	failed := false
	for i := 1; i <= *runs; i++ {
		fig, err := measure(*bin, string(text))
		if err != nil {
			fmt.Printf("FAIL servebench: run %d: %v\n", i, err)
			failed = true
			continue
		}
		fmt.Printf("BenchmarkServe10k/importJsonl\t1\t%.1f ms\n", fig.importMs)
		fmt.Printf("BenchmarkServe10k/rssAtRest\t1\t%.1f MB\n", fig.settledMB)
		fmt.Printf("BenchmarkServe10k/rssAfterTenReads\t1\t%.1f MB\n", fig.readsMB)
		fmt.Printf("BenchmarkServe10k/rssIdle30s\t1\t%.1f MB\n", fig.idleMB)
	}
	if failed {
		os.Exit(1)
	}
}

type figures struct{ importMs, settledMB, readsMB, idleMB float64 }

// servingLine is what `hearth serve` prints once it listens.
var servingLine = regexp.MustCompile(`Hearth is serving at (http://127\.0\.0\.1:\d+/)\?token=([A-Za-z0-9_-]+)`)

// measure runs one server through the import, the reads and the idle wait.
func measure(bin, text string) (figures, error) {
	var fig figures
	dir, err := os.MkdirTemp("", "hearth-servebench-")
	if err != nil {
		return fig, err
	}
	defer os.RemoveAll(dir)
	cmd := exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--data-dir", dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return fig, err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return fig, err
	}
	defer func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}()
	base, token, err := waitServing(out)
	if err != nil {
		return fig, err
	}
	ctx := context.Background()
	c := httpapi.NewClient(base, token)
	var card struct {
		Avatar string `json:"avatar"`
	}
	if err := invoke(ctx, c, &card, "characters.create", map[string]any{"name": "Seraphina", "first_mes": "Hello {{user}}"}); err != nil {
		return fig, err
	}
	var sum struct {
		ChatID       string `json:"chatId"`
		MessageCount int    `json:"messageCount"`
	}
	// The request is encoded before the clock starts, as a browser's
	// JSON.stringify would have it ready: the figure is the server's.
	body, err := json.Marshal(map[string]any{"method": "chat.importJsonl",
		"args": []any{map[string]any{"avatar": card.Avatar}, map[string]any{"fileName": "bench", "text": text}}})
	if err != nil {
		return fig, err
	}
	t0 := time.Now()
	if err := post(ctx, base, token, body, &sum); err != nil {
		return fig, err
	}
	fig.importMs = float64(time.Since(t0).Microseconds()) / 1000
	if sum.MessageCount != 10_000 {
		return fig, fmt.Errorf("imported %d messages, want 10000", sum.MessageCount)
	}
	// The reads start from a server at rest, as they would in a session
	// that opens a chat imported earlier, not while the import's memory
	// is still on its way back.
	time.Sleep(settle)
	if fig.settledMB, err = rss(cmd.Process.Pid); err != nil {
		return fig, err
	}
	for range 10 {
		var msgs []json.RawMessage
		if err := invoke(ctx, c, &msgs, "chat.getStMessages", sum.ChatID); err != nil {
			return fig, err
		}
		if len(msgs) != 10_000 {
			return fig, fmt.Errorf("read %d messages, want 10000", len(msgs))
		}
	}
	if fig.readsMB, err = rss(cmd.Process.Pid); err != nil {
		return fig, err
	}
	time.Sleep(idleWait)
	fig.idleMB, err = rss(cmd.Process.Pid)
	return fig, err
}

// waitServing reads the server's output up to its address and token, and
// drains the rest in the background.
func waitServing(out io.Reader) (base, token string, err error) {
	sc := bufio.NewScanner(out)
	found := make(chan [2]string, 1)
	go func() {
		for sc.Scan() {
			if m := servingLine.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case found <- [2]string{m[1], m[2]}:
				default:
				}
			}
		}
		close(found)
	}()
	select {
	case m, ok := <-found:
		if !ok {
			return "", "", fmt.Errorf("the server ended without serving")
		}
		return m[0], m[1], nil
	case <-time.After(30 * time.Second):
		return "", "", fmt.Errorf("the server did not start within 30 s")
	}
}

func invoke(ctx context.Context, c *httpapi.Client, dst any, method string, args ...any) error {
	raw, err := json.Marshal(args)
	if err != nil {
		return err
	}
	out, err := c.Invoke(ctx, method, raw)
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	return json.Unmarshal(out, dst)
}

// post sends a ready {method, args} body to /api/invoke and decodes the
// result into dst.
func post(ctx context.Context, base, token string, body []byte, dst any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"api/invoke", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		return err
	}
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("status %d: %.300s", res.StatusCode, data)
	}
	var out struct{ Result json.RawMessage }
	if err := json.Unmarshal(data, &out); err != nil {
		return err
	}
	return json.Unmarshal(out.Result, dst)
}

// rss reads a process's resident set size in MB from /proc.
func rss(pid int) (float64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			if err != nil {
				return 0, fmt.Errorf("parse VmRSS %q: %w", rest, err)
			}
			return kb * 1024 / 1e6, nil
		}
	}
	return 0, fmt.Errorf("no VmRSS for pid %d", pid)
}
