package observed

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"slices"
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
// fake server answering from scenario s, and returns what it did. The
// case's agent says how the command is run: Claude Code's own way, or
// through its preset (package agents) for Codex.
func Record(ctx context.Context, command string, c Case, s *scenarios.Scenario) (*Observation, error) {
	argv := strings.Fields(command)
	if len(argv) == 0 {
		return nil, errors.New("observed: empty agent command")
	}
	ag, err := agentOf(c)
	if err != nil {
		return nil, err
	}
	if err := CheckVersion(ctx, command, ag.version); err != nil {
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

	prompt := c.Prompt
	if prompt == "" && len(s.Conversation) > 0 {
		prompt = s.Conversation[0].Text
	}
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	run, err := ag.run(ctx, argv, c, prompt, "http://"+l.Addr().String(), w.setTemp)
	if err != nil {
		return nil, err
	}
	res, err := ag.result(run.out)
	if err != nil {
		return nil, fmt.Errorf("observed: case %s: %w", c.Name, err)
	}
	res.Exit = run.exit
	return observation(c, ag.version, h, w, res)
}

// serveScenario is the fake server's handler answering from scenario s,
// and the watcher in front of it that sees what each request carried.
func serveScenario(s *scenarios.Scenario) (*wire.Handler, *watcher) {
	model := &fakemodel.Model{Script: s.Script, Window: s.Model.ContextWindow}
	if s.Answers != nil {
		a := *s.Answers
		model.Answers, model.Script = &a, nil
	}
	h := fakeapi.NewHandler(model, wire.Options{EventDelay: time.Duration(s.EventDelayMS) * time.Millisecond})
	model.Cancel = h.Abort
	return h, &watcher{next: h}
}

// observation is what the agent did: the requests the server recorded,
// with what each carried, and the result it reported.
func observation(c Case, version string, h *wire.Handler, w *watcher, res Result) (*Observation, error) {
	o := &Observation{Agent: version, Requests: []Request{}, Result: res}
	recs := h.Requests()
	carried, sizes := w.carried()
	if len(carried) != len(recs) {
		return nil, fmt.Errorf("observed: case %s: %d requests seen, %d recorded", c.Name, len(carried), len(recs))
	}
	for i, r := range recs {
		o.Labels = append(o.Labels, r.Label())
		req := Request{Seq: r.Seq, Purpose: string(r.Purpose), Model: r.Model, MaxTokens: r.MaxTokens,
			Stream: r.Stream, Roles: r.Roles, Tools: r.Tools, Answer: r.Answer, Carried: carried[i], Sizes: sizes[i]}
		if i > 0 && c.AgentName() != ClaudeCode {
			req.DelayMS = delayMS(r.Arrival - recs[i-1].Arrival)
		}
		o.Requests = append(o.Requests, req)
	}
	return o, nil
}

// delayMS is a gap between two requests' arrivals in milliseconds,
// rounded to the nearest [DelayStepMS].
func delayMS(d time.Duration) int {
	step := time.Duration(DelayStepMS) * time.Millisecond
	return int((d+step/2)/step) * DelayStepMS
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
	read, ok := messageReader(r)
	if !ok {
		w.next.ServeHTTP(rw, r)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(rw, r.Body, wire.DefaultMaxBodyBytes))
	if err != nil {
		return
	}
	msgs := read(body)
	w.mu.Lock()
	if w.seen == nil {
		w.seen = map[[32]byte]string{}
	}
	seq := len(w.reqs) + 1
	var row []string
	var sizes []int
	for i, m := range msgs {
		c := m.canonical
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
		row = append(row, "+"+m.shape)
	}
	w.reqs = append(w.reqs, row)
	w.sizes = append(w.sizes, sizes)
	w.mu.Unlock()
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	w.next.ServeHTTP(rw, r)
}

// CheckVersion runs the agent command with --version and checks that it
// prints version (alone, or as one of its words: "codex-cli 0.169.0").
func CheckVersion(ctx context.Context, command, version string) error {
	argv := strings.Fields(command)
	if len(argv) == 0 {
		return errors.New("observed: empty agent command")
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, argv[0], append(argv[1:len(argv):len(argv)], "--version")...).Output()
	if err != nil {
		return fmt.Errorf("observed: %s --version: %w", argv[0], err)
	}
	v := strings.TrimSpace(string(out))
	if !slices.Contains(strings.Fields(v), version) {
		return fmt.Errorf("observed: the agent is %q; the observations are of %s", v, version)
	}
	return nil
}
