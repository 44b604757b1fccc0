package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// server runs `hearth serve` on 127.0.0.1 with one data dir, again and
// again: started, killed with SIGKILL, started on the same data dir.
type server struct {
	bin     string
	dataDir string
	libRoot string
	log     io.Writer // the server's stderr (and stdout after its address)

	cmd    *exec.Cmd
	exited chan struct{}
	starts int
}

// readyTimeout bounds a start: open the database (migrations, the
// interrupted runs' cleanup) and listen.
const readyTimeout = 60 * time.Second

// servingPrefix starts the line `hearth serve` prints once it listens.
const servingPrefix = "Hearth is serving at "

// start runs the server and returns a client for it once it listens.
func (s *server) start() (*client, error) {
	if s.cmd != nil {
		return nil, errors.New("the server is already running")
	}
	cmd := exec.Command(s.bin, "serve", "--data-dir", s.dataDir, "--addr", "127.0.0.1:0", "--library-root", s.libRoot)
	cmd.Stderr = s.log
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", s.bin, err)
	}
	s.starts++
	s.cmd = cmd
	s.exited = make(chan struct{})
	addr := make(chan string, 1)
	go func() {
		lines := bufio.NewScanner(out)
		sent := false
		for lines.Scan() {
			line := lines.Text()
			if u, ok := strings.CutPrefix(line, servingPrefix); ok && !sent {
				addr <- u
				sent = true
				continue
			}
			fmt.Fprintln(s.log, line)
		}
		if !sent {
			close(addr)
		}
	}()
	go func() {
		_ = cmd.Wait()
		close(s.exited)
	}()
	select {
	case u, ok := <-addr:
		if !ok {
			<-s.exited
			s.cmd = nil
			return nil, fmt.Errorf("start %d: the server exited before it listened (%v); see its log", s.starts, cmd.ProcessState)
		}
		base, token, err := parseLaunchURL(u)
		if err != nil {
			s.kill()
			return nil, err
		}
		return newClient(base, token), nil
	case <-time.After(readyTimeout):
		s.kill()
		return nil, fmt.Errorf("start %d: the server did not listen within %s", s.starts, readyTimeout)
	}
}

// parseLaunchURL splits the address `hearth serve` prints,
// http://HOST:PORT/?token=TOKEN, into its base and its token.
func parseLaunchURL(s string) (base, token string, err error) {
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil {
		return "", "", fmt.Errorf("the server printed an address that does not parse: %q: %w", s, err)
	}
	token = u.Query().Get("token")
	if token == "" || u.Host == "" {
		return "", "", fmt.Errorf("the server printed no address with a launch token: %q", s)
	}
	return u.Scheme + "://" + u.Host, token, nil
}

// kill ends the server with SIGKILL and waits until it is gone.
func (s *server) kill() {
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGKILL)
	<-s.exited
	s.cmd = nil
}

// stop ends the server with SIGTERM (a clean shutdown) and waits, killing
// it if it takes longer than a while.
func (s *server) stop() error {
	if s.cmd == nil {
		return nil
	}
	defer func() { s.cmd = nil }()
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
		if st := s.cmd.ProcessState; st != nil && !st.Success() {
			return fmt.Errorf("the server stopped with %v", st)
		}
		return nil
	case <-time.After(30 * time.Second):
		_ = s.cmd.Process.Signal(syscall.SIGKILL)
		<-s.exited
		return errors.New("the server did not stop within 30s of SIGTERM; killed")
	}
}

// logFile opens the file the server's output is appended to.
func logFile(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
}
