package observed

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
)

// runClaude runs Claude Code on prompt in a temporary home and working
// folder, pointed at the server at baseURL: -p PROMPT --output-format
// stream-json --verbose, then the case's arguments, in a clean
// environment (PATH, the home, the server's address, a dummy key, no
// non-essential traffic) plus the case's entries.
func runClaude(ctx context.Context, argv []string, c Case, prompt, baseURL string, setTemp func(string)) (runOutput, error) {
	tmp, err := os.MkdirTemp("", "loopsim-observed-")
	if err != nil {
		return runOutput{}, fmt.Errorf("observed: case %s: %w", c.Name, err)
	}
	defer os.RemoveAll(tmp)
	setTemp(tmp)
	home, work, err := agentDirs(tmp, c)
	if err != nil {
		return runOutput{}, fmt.Errorf("observed: case %s: %w", c.Name, err)
	}
	config := filepath.Join(home, ".claude")
	args := append(append(argv[1:len(argv):len(argv)], "-p", prompt, "--output-format", "stream-json", "--verbose"), c.Args...)
	cmd := exec.CommandContext(ctx, argv[0], args...)
	cmd.Dir = work
	cmd.Env = append([]string{"HOME=" + home, "CLAUDE_CONFIG_DIR=" + config, "PATH=" + os.Getenv("PATH"),
		"ANTHROPIC_BASE_URL=" + baseURL, "ANTHROPIC_API_KEY=dummy",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1"}, c.Env...)
	return runCommand(ctx, cmd, c)
}

// runCommand runs cmd to its end and returns its standard output and exit
// status; its standard error is discarded.
func runCommand(ctx context.Context, cmd *exec.Cmd, c Case) (runOutput, error) {
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = io.Discard
	runErr := cmd.Run()
	if ctx.Err() != nil {
		return runOutput{}, fmt.Errorf("observed: case %s: the agent did not finish within %s", c.Name, Timeout)
	}
	exit := 0
	var ee *exec.ExitError
	switch {
	case errors.As(runErr, &ee):
		exit = ee.ExitCode()
	case runErr != nil:
		return runOutput{}, fmt.Errorf("observed: case %s: %w", c.Name, runErr)
	}
	return runOutput{out: out.Bytes(), exit: exit}, nil
}

// agentDirs makes Claude Code's home (with its config folder holding the
// case's settings) and working folder (with one file) under tmp.
func agentDirs(tmp string, c Case) (home, work string, err error) {
	home, work = filepath.Join(tmp, "home"), filepath.Join(tmp, "work")
	config := filepath.Join(home, ".claude")
	for _, d := range []string{config, work} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return "", "", err
		}
	}
	if err := os.WriteFile(filepath.Join(work, "notes.txt"), []byte("hello\n"), 0o644); err != nil {
		return "", "", err
	}
	if len(c.Settings) > 0 {
		if err := os.WriteFile(filepath.Join(config, "settings.json"), c.Settings, 0o644); err != nil {
			return "", "", err
		}
	}
	return home, work, nil
}

// lastResult reads the last {"type":"result"} line of Claude Code's
// stream-json output.
func lastResult(out []byte) (Result, error) {
	var res Result
	found := false
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		var line struct {
			Type           string  `json:"type"`
			Subtype        string  `json:"subtype"`
			TerminalReason string  `json:"terminal_reason"`
			IsError        bool    `json:"is_error"`
			NumTurns       int     `json:"num_turns"`
			Result         *string `json:"result"`
		}
		if json.Unmarshal(sc.Bytes(), &line) != nil || line.Type != "result" {
			continue
		}
		found = true
		res = Result{Subtype: line.Subtype, TerminalReason: line.TerminalReason, IsError: line.IsError,
			NumTurns: line.NumTurns, Empty: line.Result == nil || *line.Result == ""}
	}
	if !found {
		return res, errors.New("the agent wrote no result line")
	}
	return res, nil
}
