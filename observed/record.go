package observed

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/fakemodel/fakeapi"
	"github.com/loopsim/loopsim/fakemodel/wire"
	"github.com/loopsim/loopsim/scenarios"
)

// Timeout bounds one recording.
const Timeout = 6 * time.Minute

// Record runs the agent command (split on white space) on case c, with a
// fake server answering from scenario s, and returns what it did.
func Record(ctx context.Context, command string, c Case, s *scenarios.Scenario) (*Observation, error) {
	argv := strings.Fields(command)
	if len(argv) == 0 {
		return nil, errors.New("observed: empty agent command")
	}
	if err := checkVersion(ctx, argv); err != nil {
		return nil, err
	}
	h, w := serveScenario(s)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("observed: listen: %w", err)
	}
	srv := &http.Server{Handler: w, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(l) }()
	defer srv.Close()

	tmp, err := os.MkdirTemp("", "loopsim-observed-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	w.setTemp(tmp)
	home, work, err := agentDirs(tmp, c)
	if err != nil {
		return nil, err
	}
	prompt := c.Prompt
	if prompt == "" && len(s.Conversation) > 0 {
		prompt = s.Conversation[0].Text
	}
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	out, exit, err := runAgent(ctx, argv, c, prompt, home, work, l.Addr().String())
	if err != nil {
		return nil, err
	}
	return observation(c, h, w, out, exit)
}

// serveScenario is the fake server's handler answering from scenario s,
// and the watcher in front of it that sees what each request carried.
func serveScenario(s *scenarios.Scenario) (*wire.Handler, *watcher) {
	model := &fakemodel.Model{Script: s.Script, Window: s.Model.ContextWindow}
	if s.Answers != nil {
		a := *s.Answers
		model.Answers, model.Script = &a, nil
	}
	h := fakeapi.NewHandler(model, wire.Options{})
	model.Cancel = h.Abort
	return h, &watcher{next: h}
}

// agentDirs makes the agent's home (with its config folder holding the
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

// runAgent runs the agent on prompt in work, pointed at the server at
// addr, and returns its standard output and exit status.
func runAgent(ctx context.Context, argv []string, c Case, prompt, home, work, addr string) ([]byte, int, error) {
	config := filepath.Join(home, ".claude")
	args := append(append(argv[1:len(argv):len(argv)], "-p", prompt, "--output-format", "stream-json", "--verbose"), c.Args...)
	cmd := exec.CommandContext(ctx, argv[0], args...)
	cmd.Dir = work
	cmd.Env = append([]string{"HOME=" + home, "CLAUDE_CONFIG_DIR=" + config, "PATH=" + os.Getenv("PATH"),
		"ANTHROPIC_BASE_URL=http://" + addr, "ANTHROPIC_API_KEY=dummy",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1"}, c.Env...)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = io.Discard
	runErr := cmd.Run()
	if ctx.Err() != nil {
		return nil, 0, fmt.Errorf("observed: case %s: the agent did not finish within %s", c.Name, Timeout)
	}
	exit := 0
	var ee *exec.ExitError
	switch {
	case errors.As(runErr, &ee):
		exit = ee.ExitCode()
	case runErr != nil:
		return nil, 0, fmt.Errorf("observed: case %s: %w", c.Name, runErr)
	}
	return out.Bytes(), exit, nil
}

// observation is what the agent did: the requests the server recorded,
// with what each carried, and the result it reported.
func observation(c Case, h *wire.Handler, w *watcher, out []byte, exit int) (*Observation, error) {
	o := &Observation{Agent: AgentVersion, Requests: []Request{}}
	recs := h.Requests()
	carried, sizes := w.carried()
	if len(carried) != len(recs) {
		return nil, fmt.Errorf("observed: case %s: %d requests seen, %d recorded", c.Name, len(carried), len(recs))
	}
	for i, r := range recs {
		o.Labels = append(o.Labels, r.Label())
		o.Requests = append(o.Requests, Request{Seq: r.Seq, Purpose: string(r.Purpose), Model: r.Model, MaxTokens: r.MaxTokens,
			Stream: r.Stream, Roles: r.Roles, Tools: r.Tools, Answer: r.Answer, Carried: carried[i], Sizes: sizes[i]})
	}
	res, err := lastResult(out)
	if err != nil {
		return nil, fmt.Errorf("observed: case %s: %w", c.Name, err)
	}
	res.Exit = exit
	o.Result = res
	return o, nil
}

// lastResult reads the last {"type":"result"} line of stream-json output.
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

// watcher stands in front of the fake server and notes, per request,
// which messages an earlier request carried. It keeps hashes, never
// content.
type watcher struct {
	next http.Handler

	mu    sync.Mutex
	tmp   string              // the agent's temporary folder, measured as tmpMark
	seen  map[[32]byte]string // message hash -> "R.I" of its first carrier
	reqs  [][]string
	sizes [][]int
}

// tmpMark stands for the agent's temporary folder in a message, whose
// name's length varies from run to run, so that sizes do not.
const tmpMark = "$TMP"

// setTemp names the agent's temporary folder.
func (w *watcher) setTemp(tmp string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.tmp = tmp
}

// carried is, per request, where each message was carried first and its
// size.
func (w *watcher) carried() ([][]string, [][]int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([][]string(nil), w.reqs...), append([][]int(nil), w.sizes...)
}

func (w *watcher) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/messages" {
		w.next.ServeHTTP(rw, r)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(rw, r.Body, wire.DefaultMaxBodyBytes))
	if err != nil {
		return
	}
	msgs := conversation(body)
	w.mu.Lock()
	if w.seen == nil {
		w.seen = map[[32]byte]string{}
	}
	seq := len(w.reqs) + 1
	var row []string
	var sizes []int
	for i, m := range msgs {
		c := canonical(m)
		if w.tmp != "" {
			c = bytes.ReplaceAll(c, []byte(w.tmp), []byte(tmpMark))
		}
		sizes = append(sizes, len(c))
		sum := sha256.Sum256(c)
		if at, ok := w.seen[sum]; ok {
			row = append(row, at)
			continue
		}
		w.seen[sum] = fmt.Sprintf("%d.%d", seq, i+1)
		row = append(row, "+"+shape(m))
	}
	w.reqs = append(w.reqs, row)
	w.sizes = append(w.sizes, sizes)
	w.mu.Unlock()
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	w.next.ServeHTTP(rw, r)
}

// wireMsg is a request message.
type wireMsg struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// conversation returns the request's messages but those with role
// "system" (which count with the system prompt). A body it cannot read
// gives none (the server answers it).
func conversation(body []byte) []wireMsg {
	var top struct {
		Messages []wireMsg `json:"messages"`
	}
	if json.Unmarshal(body, &top) != nil {
		return nil
	}
	var out []wireMsg
	for _, m := range top.Messages {
		if m.Role != "system" {
			out = append(out, m)
		}
	}
	return out
}

// canonical is a message with cache_control markers removed and keys
// sorted, so that the same message hashes the same in every request.
func canonical(m wireMsg) []byte {
	var v any
	if json.Unmarshal(m.Content, &v) != nil {
		return append([]byte(m.Role+":"), m.Content...)
	}
	out, _ := json.Marshal(map[string]any{"role": m.Role, "content": strip(v)})
	return out
}

func strip(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			if k != "cache_control" {
				out[k] = strip(e)
			}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = strip(e)
		}
		return out
	}
	return v
}

// shape is a message's role and block types: "user:text+tool_result",
// "user:string" for string content.
func shape(m wireMsg) string {
	var blocks []struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(m.Content, &blocks) != nil {
		return m.Role + ":string"
	}
	types := make([]string, len(blocks))
	for i, b := range blocks {
		types[i] = b.Type
	}
	return m.Role + ":" + strings.Join(types, "+")
}

// checkVersion runs the agent with --version and checks that it is the
// version the observations describe.
func checkVersion(ctx context.Context, argv []string) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, argv[0], append(argv[1:len(argv):len(argv)], "--version")...).Output()
	if err != nil {
		return fmt.Errorf("observed: %s --version: %w", argv[0], err)
	}
	if v := strings.TrimSpace(string(out)); !strings.HasPrefix(v, AgentVersion+" ") && v != AgentVersion {
		return fmt.Errorf("observed: the agent is %q; the observations are of %s", v, AgentVersion)
	}
	return nil
}
