package scenarios

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/fakemodel/fakeapi"
	"github.com/loopsim/loopsim/fakemodel/wire"
	"github.com/loopsim/loopsim/fakemodel/wire/messages"
	"github.com/loopsim/loopsim/loop"
)

// DefaultAgentTimeout bounds one agent run when [Agent.Timeout] is zero:
// long enough for an agent that retries ten times with back-off up to 32
// seconds, short enough that a hung agent is reported.
const DefaultAgentTimeout = 5 * time.Minute

// DummyAPIKey is the ANTHROPIC_API_KEY an agent gets: the fake server
// accepts any key, and a real one must never reach it.
const DummyAPIKey = messages.DummyAPIKey

// Agent is a foreign agent: a shell command that calls a model API the
// fake server speaks (the Messages API at ANTHROPIC_BASE_URL, or another
// of fakeapi.APIs at its own base-URL variable).
type Agent struct {
	// Command is run with `sh -c`, in its own process group, with every
	// API's base-URL variable set to the scenario's server and its key
	// to a dummy one (fakeapi.ClientEnv: ANTHROPIC_BASE_URL,
	// ANTHROPIC_API_KEY = [DummyAPIKey], ...) and LOOPSIM_SCENARIO to the
	// scenario's name, on top of the variables of [AgentBaseEnv] and Env.
	Command string
	// Env adds variables ("NAME=value") to the command's environment.
	Env []string
	// InheritEnv passes this process's whole environment on to the
	// command instead of only [AgentBaseEnv]'s variables (for an agent
	// that needs more to start; its verdict may then depend on the
	// caller's shell).
	InheritEnv bool
	// Timeout bounds the run; zero means [DefaultAgentTimeout]. When it
	// expires the command's process group is killed.
	Timeout time.Duration
	// Options configure the server; Addr and OnAbort are set by
	// [RunAgent]. Models is extended with the scenario's models and the
	// catalog.
	Options wire.Options
	// Prepare, when set, is called once the scenario's server is up and
	// before the command starts, with the server's base URL: it makes
	// what the agent needs for this run (a fresh home holding a config
	// file that names the URL, say) and returns it. Its Cleanup runs when
	// the run ends.
	Prepare func(baseURL string) (AgentWorkspace, error)
	// Configure, when set, is called with the scenario before each run
	// starts: it says how the scenario's policy overrides reach the agent
	// (its own variables and arguments) and which of them cannot. Nil:
	// the agent has no known settings, so every override of the
	// scenario's policy is not applied.
	Configure func(s *Scenario) (AgentConfig, error)
}

// AgentConfig is how one scenario's policy reaches an agent: what
// [Agent.Configure] returns.
type AgentConfig struct {
	// Command, when not empty, replaces [Agent.Command] for the run: the
	// command with the agent's own arguments for the policy.
	Command string
	// Env adds variables to the command's environment, after
	// [Agent.Env] (so the scenario's policy wins over a variable of the
	// same name there) and before the workspace's.
	Env []string
	// Applied says, for each policy override the agent takes, the
	// setting it got: "api_retries=2: CLAUDE_CODE_MAX_RETRIES=2".
	Applied []string
	// NotApplied names, by their JSON names, the policy overrides the
	// agent cannot take.
	NotApplied []string
}

// AgentWorkspace is what [Agent.Prepare] made for one run.
type AgentWorkspace struct {
	// Env adds variables to the command's environment, after
	// [Agent.Env] (HOME=..., a config directory's variable).
	Env []string
	// Dir is the command's working directory; empty: this process's.
	Dir string
	// Cleanup undoes what Prepare made; nil when there is nothing to undo.
	Cleanup func()
}

// AgentOutcome is one scenario run with a foreign agent, and its
// verdict.
type AgentOutcome struct {
	// Scenario is the scenario that ran.
	Scenario *Scenario
	// Records are the requests the server received, normalized.
	Records []wire.Record
	// Calls are the model's answers to them, timed on the server's clock
	// (a retry-after honoured or not).
	Calls []ModelCall
	// Exit is the command's exit status; -1 when it was killed.
	Exit int
	// LastOutput is the last non-empty line the command wrote (standard
	// output, else standard error).
	LastOutput string
	// Stdout and Stderr are the ends (64 KiB) of the command's output.
	Stdout, Stderr string
	// Want and Got are what the scenario expects and what the agent did,
	// seen through expect.wire. The run passes when they are equal.
	Want, Got AgentObserved
	// Elapsed is the run's wall-clock time.
	Elapsed time.Duration
	// Applied says how each policy override the agent took reached it
	// ([AgentConfig.Applied]).
	Applied []string
	// NotApplied names the scenario's policy overrides that did not
	// reach the agent ([AgentConfig.NotApplied]; every override for an
	// agent without [Agent.Configure]): the run shows the agent at its
	// own setting of each, so a verdict must say "not applied: FIELD"
	// instead of judging the agent by them.
	NotApplied []string
}

// AgentObserved is an agent run seen through a scenario's expect.wire.
type AgentObserved struct {
	// Requests is the request sequence (without transitions, which the
	// wire cannot show).
	Requests []string
	// Result is what the agent reported, when expect.wire.result is
	// written.
	Result string
	// Exit is the exit status, when expect.wire.exit is written.
	Exit *int
	// Counters are the counters of expect.counters the wire shows (but
	// those of expect.loop_only), counted from the server's records.
	Counters map[string]int
	// Rejected lists the requests that broke the API's rules; a scenario
	// expects none.
	Rejected []string
	// Harness lists faults of the scenario itself: its script ran out, or
	// was not used up (the agent stopped before every step was played).
	Harness []string
}

// Passed reports whether the agent did what the scenario expects (and
// kept the API's rules, and used the script up without running out). A
// run that was compared on nothing passes too: see [AgentOutcome.Mark].
func (o *AgentOutcome) Passed() bool { return o.Diff() == "" }

// Diff shows how the agent departed from the expectation, a line per
// expectation (named by its path in the scenario file) with what was
// wanted and what happened, request sequences as strips
// ("M:500 ×30"); empty when it did not.
func (o *AgentOutcome) Diff() string {
	var d diffWriter
	path := "expect.wire.requests"
	if o.Scenario != nil {
		path = o.Scenario.requestsPath(o.Records)
	}
	d.sequence(path, o.Want.Requests, o.Got.Requests)
	d.scalar("expect.wire.result", o.Want.Result, o.Got.Result)
	if o.Want.Exit != nil && o.Got.Exit != nil {
		d.scalar("expect.wire.exit", *o.Want.Exit, *o.Got.Exit)
	}
	d.counters(o.Want.Counters, o.Got.Counters)
	d.unexpected("requests the API refused", o.Got.Rejected)
	d.unexpected("faults of the scenario", o.Got.Harness)
	return d.String()
}

// AgentError is a run that could not be judged: the command could not
// start, timed out, or never called the server.
type AgentError struct {
	// Scenario names the scenario.
	Scenario string
	// Msg says what went wrong.
	Msg string
	// Outcome is what was collected before it went wrong.
	Outcome *AgentOutcome
}

// Error implements error.
func (e *AgentError) Error() string { return fmt.Sprintf("scenario %s: agent: %s", e.Scenario, e.Msg) }

// Server starts the fake API server (every API of fakeapi.APIs) playing s: its script or
// answers (with no base size: the server measures what the agent sends),
// the window of its model, and the output maxima of its models and of the
// catalog. The returned model is the one the server plays.
func (s *Scenario) Server(opts wire.Options) (*wire.Server, *fakemodel.Model, error) {
	srv, model, _, err := s.server(opts)
	return srv, model, err
}

// server is [Scenario.Server], with the model's calls timed.
func (s *Scenario) server(opts wire.Options) (*wire.Server, *fakemodel.Model, *timedModel, error) {
	model := s.scriptedModel(nil)
	model.Hold = true // a step's hold_ms holds the request on the wire
	opts.EventDelay = max(opts.EventDelay, time.Duration(s.EventDelayMS)*time.Millisecond)
	opts.Models = append(append(slices.Clone(opts.Models), s.models()...), catalogModels()...)
	timed := newTimedModel(model)
	h := fakeapi.NewHandler(timed, opts)
	model.Cancel = h.Abort
	srv, err := h.Listen()
	if err != nil {
		return nil, nil, nil, err
	}
	return srv, model, timed, nil
}

func catalogModels() []loop.ModelInfo {
	out := make([]loop.ModelInfo, len(loop.Catalog))
	for i, k := range loop.Catalog {
		out[i] = k.ModelInfo
	}
	return out
}

// RunAgent runs the agent command against a fresh server playing s and
// compares what it sent and reported with expect.wire. A scenario without
// expect.wire is compared on pairing and harness faults alone. An abort
// step sends the agent's process group SIGINT (the user pressing
// escape). The error is an *AgentError when the run could not be judged;
// the server and every process the command started are gone when
// RunAgent returns.
func RunAgent(ctx context.Context, s *Scenario, a Agent) (*AgentOutcome, error) {
	timeout := a.Timeout
	if timeout <= 0 {
		timeout = DefaultAgentTimeout
	}
	conf, err := a.configure(s)
	if err != nil {
		return nil, fmt.Errorf("scenario %s: configuring the agent: %w", s.Name, err)
	}
	var group processGroup
	opts := a.Options
	opts.OnAbort = group.interrupt
	srv, model, timed, err := s.server(opts)
	if err != nil {
		return nil, fmt.Errorf("scenario %s: %w", s.Name, err)
	}
	defer srv.Close()

	rctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var ws AgentWorkspace
	if a.Prepare != nil {
		if ws, err = a.Prepare(srv.URL); err != nil {
			return nil, fmt.Errorf("scenario %s: preparing the agent: %w", s.Name, err)
		}
		if ws.Cleanup != nil {
			defer ws.Cleanup()
		}
	}
	command := a.Command
	if conf.Command != "" {
		command = conf.Command
	}
	cmd := exec.CommandContext(rctx, "sh", "-c", command)
	cmd.Env = append(append(a.environ(srv.URL, s.Name, s.prompt()), conf.Env...), ws.Env...)
	cmd.Dir = ws.Dir
	stdout, stderr, removeOutput, err := outputFiles()
	if err != nil {
		return nil, fmt.Errorf("scenario %s: %w", s.Name, err)
	}
	defer removeOutput()
	cmd.Stdout, cmd.Stderr = stdout, stderr
	group.prepare(cmd)

	began := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, &AgentError{Scenario: s.Name, Msg: fmt.Sprintf("command %q did not start: %v", command, err)}
	}
	group.started(cmd)
	waitErr := cmd.Wait()
	group.kill() // whatever the command left running
	srv.Close()

	stdoutText, stderrText := tail(stdout), tail(stderr)
	out := &AgentOutcome{Scenario: s, Records: srv.Requests(), Calls: timed.Calls(), Exit: cmd.ProcessState.ExitCode(),
		Stdout: stdoutText, Stderr: stderrText, Elapsed: time.Since(began), Applied: conf.Applied, NotApplied: conf.NotApplied}
	out.LastOutput = lastLine(stdoutText)
	if out.LastOutput == "" {
		out.LastOutput = lastLine(out.Stderr)
	}
	if why, ok := unjudged(ctx, rctx, out, timeout, waitErr); ok {
		return out, &AgentError{Scenario: s.Name, Outcome: out, Msg: why}
	}
	out.Want, out.Got = s.wantAgent(out.Records), s.observeAgent(out, stdoutText)
	if left := model.Unplayed(); len(left) > 0 {
		// a step that repeats forever need not have answered: an agent's
		// requests are not counted in advance (fakemodel.Model.Unplayed)
		out.Got.Harness = append(out.Got.Harness, fmt.Sprintf("the script was not used up: the agent stopped after %d requests (%s not played)",
			len(out.Records), strings.Join(left, ", ")))
	}
	return out, nil
}

// configure is how s's policy reaches the agent: [Agent.Configure]'s
// answer, or, without one, every override not applied.
func (a Agent) configure(s *Scenario) (AgentConfig, error) {
	if a.Configure == nil {
		return AgentConfig{NotApplied: s.PolicyFields()}, nil
	}
	return a.Configure(s)
}

// outputFiles are temporary files for the command's standard output and
// error, and the function that closes and removes them. Output goes to
// files, not pipes: Wait returns when the command exits, even if
// something it started still holds its output open.
func outputFiles() (stdout, stderr *os.File, remove func(), err error) {
	stdout, err = os.CreateTemp("", "loopsim-agent-stdout-")
	if err != nil {
		return nil, nil, nil, err
	}
	stderr, err = os.CreateTemp("", "loopsim-agent-stderr-")
	if err != nil {
		stdout.Close()
		os.Remove(stdout.Name())
		return nil, nil, nil, err
	}
	return stdout, stderr, func() {
		stderr.Close()
		os.Remove(stderr.Name())
		stdout.Close()
		os.Remove(stdout.Name())
	}, nil
}

// unjudged says why a finished run cannot be judged, if it cannot: it
// timed out (rctx) or was interrupted (ctx), never called the server, or
// its command failed other than by exiting.
func unjudged(ctx, rctx context.Context, out *AgentOutcome, timeout time.Duration, waitErr error) (string, bool) {
	switch {
	case rctx.Err() != nil && ctx.Err() == nil:
		return fmt.Sprintf("did not finish within %s (%d requests); its process group was killed", timeout, len(out.Records)), true
	case ctx.Err() != nil:
		return "interrupted: " + ctx.Err().Error(), true
	case len(out.Records) == 0:
		return fmt.Sprintf("exited %d without calling the server (last output: %q)", out.Exit, out.LastOutput), true
	}
	var exitErr *exec.ExitError
	if waitErr != nil && !errors.As(waitErr, &exitErr) {
		return waitErr.Error(), true
	}
	return "", false
}

// wantAgent is what a foreign agent whose requests are recs is compared
// with: expect.wire, unless expect.loop_only names it, and the counters
// of expect.counters the wire shows.
func (s *Scenario) wantAgent(recs []wire.Record) AgentObserved {
	var want AgentObserved
	if w := s.agentWire(); w != nil {
		want = AgentObserved{Requests: wantWire(s.wireFor(recs), false), Result: w.Result, Exit: w.Exit}
	}
	for _, name := range s.wireCounters() {
		if want.Counters == nil {
			want.Counters = map[string]int{}
		}
		want.Counters[name] = s.Expect.Counters[name]
	}
	return want
}

// agentWire is expect.wire as a foreign agent is compared with it: nil
// when not written or loop_only.
func (s *Scenario) agentWire() *Wire {
	if slices.Contains(s.Expect.LoopOnly, LoopOnlyWire) {
		return nil
	}
	return s.Expect.Wire
}

// wireFor is the expected request sequence for an agent whose requests
// are recs: the one for the API of its first request (see
// [Scenario.WireRequestsFor]).
func (s *Scenario) wireFor(recs []wire.Record) []WireEntry {
	if len(recs) == 0 {
		return s.wire
	}
	return s.wireEntriesFor(recs[0].API)
}

// observeAgent sees an agent run the way expect.wire does.
func (s *Scenario) observeAgent(out *AgentOutcome, stdout string) AgentObserved {
	var got AgentObserved
	w := s.agentWire()
	if w != nil {
		got.Requests = matchWire(requestEntries(s.wireFor(out.Records)), wire.Labels(out.Records))
		if w.Result != "" {
			got.Result = ReportedResult(stdout)
		}
		if w.Exit != nil {
			exit := out.Exit
			got.Exit = &exit
		}
	}
	for _, name := range s.wireCounters() {
		if got.Counters == nil {
			got.Counters = map[string]int{}
		}
		c, _ := counter(name)
		got.Counters[name] = c.OnWire(out.Records)
	}
	for _, r := range out.Records {
		switch r.Answer {
		case "rejected":
			got.Rejected = append(got.Rejected, fmt.Sprintf("request %d: %s", r.Seq, r.Error))
		case "fault":
			got.Harness = append(got.Harness, fmt.Sprintf("request %d: %s", r.Seq, r.Error))
		}
	}
	return got
}

// ReportedResult is what an agent reports at the end of its output: the
// subtype of the last {"type":"result"} JSON line (Claude Code's
// stream-json), else the last non-empty line.
func ReportedResult(output string) string {
	lines := strings.Split(output, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		line := strings.TrimSpace(lines[i])
		if !strings.HasPrefix(line, "{") {
			continue
		}
		var r struct {
			Type    string `json:"type"`
			Subtype string `json:"subtype"`
		}
		if json.Unmarshal([]byte(line), &r) == nil && r.Type == "result" {
			return r.Subtype
		}
	}
	return lastLine(output)
}

func lastLine(s string) string {
	sc := bufio.NewScanner(strings.NewReader(s))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	last := ""
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" {
			last = l
		}
	}
	return last
}

// tailBytes is how much of an agent's output is kept.
const tailBytes = 64 << 10

// tail is the last tailBytes of f.
func tail(f *os.File) string {
	info, err := f.Stat()
	if err != nil {
		return ""
	}
	off := max(info.Size()-tailBytes, 0)
	buf := make([]byte, info.Size()-off)
	n, _ := f.ReadAt(buf, off)
	return string(buf[:n])
}
