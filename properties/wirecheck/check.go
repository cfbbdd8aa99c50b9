package wirecheck

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/loopsim/loopsim/fakemodel/fakeapi"
	"github.com/loopsim/loopsim/fakemodel/wire"
	"pgregory.net/rapid"
)

// abandonGrace is how long after the session bound a session that has
// not returned is waited for before it is abandoned as hung.
const abandonGrace = time.Second

// TestAgent checks agent under rapid, as a property test inside the
// caller's own test: every case it draws (an API and a fault schedule,
// see [Options]) is served from a fresh fake server, the agent runs one
// session against it, and the run must keep every wire invariant
// ([InvariantNames], but o.Skip) and every one of o.Properties.
//
// A failure is shrunk by rapid to a minimal schedule and reported with
// the checks broken, the requests the agent sent, the schedule as a
// scenario file (written under o.Out when set) and the commands that
// replay it. Invalid Options fail t at once.
//
// t is usually the *testing.T of the caller's test.
func TestAgent(t rapid.TB, agent Agent, o Options) {
	t.Helper()
	check(t, agent, o, nil)
}

// finding is the last failing case rapid played: after shrinking, the
// minimal one.
type finding struct {
	run   Run
	fails []string
}

// check is TestAgent, handing the minimal finding to found when there is
// one (rapid may end the goroutine when it reports, so nothing after
// rapid.Check runs).
func check(t rapid.TB, agent Agent, o Options, found func(*finding)) {
	t.Helper()
	o = o.withDefaults()
	if err := o.validate(); err != nil {
		t.Fatalf("wirecheck.TestAgent: %v", err)
		return
	}
	var last *finding
	defer func() {
		// runs after rapid's report, also when it ends the goroutine
		if last != nil {
			t.Logf("%s", report(t.Name(), o, last))
			if found != nil {
				found(last)
			}
		}
	}()
	gen := caseGen(o)
	// shrinking reaches one case from many of rapid's choices: a case
	// shrinking has played is not played again (the first failure's
	// re-run, rapid's check for a flaky test, is)
	tried := map[string]*finding{}
	calls := 0
	rapid.Check(t, func(rt *rapid.T) {
		c := gen.Draw(rt, "case")
		if last != nil {
			calls++
		}
		f, seen := tried[c.String()]
		if !seen || calls < 2 {
			r, err := Play(context.Background(), agent, c, o)
			if err != nil {
				rt.Fatalf("wirecheck: %v", err)
			}
			f = &finding{run: r, fails: o.failures(r)}
			if last != nil || len(f.fails) > 0 {
				tried[c.String()] = f
			}
		}
		fails := f.fails
		if len(fails) == 0 {
			return
		}
		last = f // rapid's last call replays the minimal case
		// the names only: rapid keeps a smaller case when it fails with the
		// same message, and the details (a request's number, a gap) vary
		rt.Fatalf("wirecheck: broke %s (the minimal case, the details and its scenario file follow rapid's report)", strings.Join(brokenNames(fails), ", "))
	})
}

// failures are the broken checks of r, as lines.
func (o Options) failures(r Run) []string {
	var out []string
	for _, v := range Check(r) {
		if !slices.Contains(o.Skip, v.Invariant) {
			out = append(out, v.Error())
		}
	}
	for _, p := range o.Properties {
		if err := userCheck(p, r); err != nil {
			out = append(out, p.Name+": "+err.Error())
		}
	}
	return out
}

// userCheck runs a user's property, turning a panic into an error.
func userCheck(p Property, r Run) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("the check panicked: %v", v)
		}
	}()
	return p.Check(r)
}

// Play serves c from a fresh fake server, runs one session of agent
// against it and returns the finished run. o's zero fields take their
// defaults. The error is a case that could not be served.
func Play(ctx context.Context, agent Agent, c Case, o Options) (Run, error) {
	o = o.withDefaults()
	s, _, err := c.scenario(o, "wirecheck-case", "a case wirecheck drew", placeholder)
	if err != nil {
		return Run{}, err
	}
	started := time.Now() // the records' times' origin, for the exporters
	srv, _, err := s.Server(wire.Options{})
	if err != nil {
		return Run{}, fmt.Errorf("wirecheck: start the server: %w", err)
	}
	defer srv.Close()
	sess := Session{BaseURL: srv.URL, API: c.API, Env: fakeapi.ClientEnv(srv.URL), Model: o.Model,
		Tools: slices.Clone(o.Tools), Prompt: DefaultPrompt}
	run := Run{Case: c, Limits: o, Started: started}
	sctx, cancel := context.WithTimeout(ctx, o.SessionTimeout)
	defer cancel()
	done := make(chan error, 1)
	start := time.Now()
	go func() { done <- callAgent(sctx, agent, sess) }()
	timer := time.NewTimer(o.SessionTimeout + abandonGrace)
	defer timer.Stop()
	select {
	case err := <-done:
		run.Elapsed = time.Since(start)
		run.Err, run.Failed = err, err != nil
		run.Exit, run.FinalEvent = 0, "success"
		if err != nil {
			run.Exit, run.FinalEvent = 1, "error"
		}
	case <-timer.C:
		run.Elapsed, run.Hung = time.Since(start), true
		run.Exit, run.FinalEvent = -1, "hung"
		run.Err = errors.New("the agent did not return after its context ended")
	}
	cancel()
	srv.Close()
	run.Records = srv.Requests()
	return run, nil
}

// callAgent runs the agent, turning a panic into a failure.
func callAgent(ctx context.Context, agent Agent, s Session) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("the agent panicked: %v", v)
		}
	}()
	return agent(ctx, s)
}

// report is the readable finding: the checks broken, the requests, the
// case as a scenario file, and how to replay it.
func report(test string, o Options, f *finding) string {
	var b strings.Builder
	r := f.run
	fmt.Fprintf(&b, "wirecheck: the agent broke %d check(s) on the minimal case rapid found:\n", len(f.fails))
	for _, line := range f.fails {
		fmt.Fprintf(&b, "  - %s\n", line)
	}
	fmt.Fprintf(&b, "\nthe case: %s", r.Case)
	fmt.Fprintf(&b, "the requests: %s\n", strings.Join(wire.Labels(r.Records), " "))
	if r.Err != nil {
		fmt.Fprintf(&b, "the agent returned: %v\n", r.Err)
	} else {
		b.WriteString("the agent returned: success\n")
	}
	name := scenarioName(o.Name, test)
	broke := invariantsOf(brokenNames(f.fails))
	desc := fmt.Sprintf("wirecheck found %s breaking %s on this schedule (served on the %s API). The expectation is what loopsim's claude-code loop does with it (simulate run)",
		agentName(o.Name, test), strings.Join(brokenNames(f.fails), ", "), r.Case.API)
	if len(broke) > 0 {
		desc += "; simulate agent plays it to the agent and re-checks recheck's invariants under its limits"
	}
	text, err := r.Case.referenceFile(o, name, desc+".", broke)
	if err != nil {
		fmt.Fprintf(&b, "\n(the scenario file could not be made: %v)\n", err)
		return b.String()
	}
	fmt.Fprintf(&b, "\nthe scenario file:\n%s", text)
	file := name + ".yaml"
	if o.Out != "" {
		file = filepath.Join(o.Out, file)
		if err := os.MkdirAll(o.Out, 0o755); err != nil {
			fmt.Fprintf(&b, "(not written: %v)\n", err)
		} else if err := os.WriteFile(file, text, 0o644); err != nil {
			fmt.Fprintf(&b, "(not written: %v)\n", err)
		} else {
			fmt.Fprintf(&b, "(written to %s)\n", file)
		}
	}
	fmt.Fprintf(&b, "\nreplay: go test -run '^%s$' with the -rapid.failfile (or -rapid.seed) rapid names above\n", regexp.QuoteMeta(test))
	if len(broke) > 0 {
		fmt.Fprintf(&b, "        simulate agent --cmd 'YOUR AGENT' %s   (a process agent on the same schedule, re-checking %s: exit 3 when it breaks again)\n",
			file, strings.Join(broke, ", "))
	}
	return b.String()
}

// brokenNames are the invariant (or property) names of failure lines.
func brokenNames(fails []string) []string {
	var out []string
	for _, f := range fails {
		name, _, _ := strings.Cut(f, ":")
		if !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out
}

func agentName(name, test string) string {
	if name != "" {
		return name
	}
	return "the agent of " + test
}

var notNameChar = regexp.MustCompile(`[^a-z0-9]+`)

// scenarioName is a file name for the finding: wirecheck-NAME.
func scenarioName(name, test string) string {
	if name == "" {
		name = test
	}
	n := strings.Trim(notNameChar.ReplaceAllString(strings.ToLower(name), "-"), "-")
	if n == "" {
		n = "agent"
	}
	return "wirecheck-" + n
}
