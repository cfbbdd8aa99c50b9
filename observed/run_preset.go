package observed

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/loopsim/loopsim/agents"
	"github.com/loopsim/loopsim/fakemodel/fakeapi"
)

// hooksFiles are where an agent run through its preset reads hooks from,
// relative to its home: a case's settings are written there.
var hooksFiles = map[string]string{Codex: filepath.Join(".codex", "hooks.json")}

// presetRunner runs an agent through its preset: a fresh temporary home
// with the preset's config files for the server (and the case's settings
// as the agent's hooks file, hooksFiles), the preset's arguments with the
// case's inserted before the prompt (for Codex, -c key=value overrides of
// its config and -m MODEL), and a clean environment (PATH, the preset's
// variables, every API's base URL and dummy key) plus the case's entries.
func presetRunner(p agents.Preset) func(context.Context, []string, Case, string, string, func(string)) (runOutput, error) {
	return func(ctx context.Context, argv []string, c Case, prompt, baseURL string, setTemp func(string)) (runOutput, error) {
		hooks, ok := hooksFiles[p.Name]
		if len(c.Settings) > 0 && !ok {
			return runOutput{}, fmt.Errorf("observed: case %s: %s reads no hooks file; give its config with args", c.Name, p.Name)
		}
		ws, err := p.Workspace(baseURL)
		if err != nil {
			return runOutput{}, fmt.Errorf("observed: case %s: %w", c.Name, err)
		}
		defer ws.Cleanup()
		tmp := filepath.Dir(ws.Dir)
		setTemp(tmp)
		if len(c.Settings) > 0 {
			if err := os.WriteFile(filepath.Join(tmp, "home", hooks), c.Settings, 0o600); err != nil {
				return runOutput{}, fmt.Errorf("observed: case %s: %w", c.Name, err)
			}
		}
		args := argv[1:len(argv):len(argv)]
		for _, a := range p.Args {
			if a == agents.PromptVar {
				args = append(append(args, c.Args...), prompt)
				continue
			}
			args = append(args, a)
		}
		cmd := exec.CommandContext(ctx, argv[0], args...)
		cmd.Dir = ws.Dir
		cmd.Env = append(append(append([]string{"PATH=" + os.Getenv("PATH")}, ws.Env...), fakeapi.ClientEnv(baseURL)...), c.Env...)
		return runCommand(ctx, cmd, c)
	}
}

// codexResult reads Codex's `exec --json` output, one event a line: the
// last event's type (turn.completed or turn.failed) is the subtype, a
// turn.failed or error last is an error, turns counts turn.started,
// notices counts the top-level error events (its retry notices,
// "Reconnecting... n/m"), and the result is empty when no agent_message
// item with text completed.
func codexResult(out []byte) (Result, error) {
	var res Result
	res.Empty = true
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		var ev struct {
			Type string `json:"type"`
			Item struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"item"`
		}
		if json.Unmarshal(sc.Bytes(), &ev) != nil || ev.Type == "" {
			continue
		}
		res.Subtype = ev.Type
		switch ev.Type {
		case "turn.started":
			res.NumTurns++
		case "error":
			res.Notices++
		case "item.completed":
			if ev.Item.Type == "agent_message" && ev.Item.Text != "" {
				res.Empty = false
			}
		}
	}
	if res.Subtype == "" {
		return res, errors.New("the agent wrote no event")
	}
	res.IsError = res.Subtype == "turn.failed" || res.Subtype == "error"
	return res, nil
}
