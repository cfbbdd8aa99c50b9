package scenarios

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/loopsim/loopsim/loop"
	"github.com/loopsim/loopsim/properties"
)

// Outcome is one run of a scenario and its verdict.
type Outcome struct {
	// Scenario is the scenario that ran.
	Scenario *Scenario
	// Result is what the loop returned.
	Result *loop.Result
	// Want is what the scenario expects; Got is what the run did, seen
	// the same way. The run passes when they are equal.
	Want, Got Observed
	// Violations are the invariants the run broke, expected or not.
	Violations []properties.Violation
}

// Observed is a run seen through a scenario's expectations. Counters
// holds only the counters the scenario names.
type Observed struct {
	Terminal    loop.Terminal
	Halted      bool
	Transitions []loop.Transition
	Counters    map[string]int
	// Violated names the invariants broken, sorted.
	Violated []string
	// Harness lists faults of the scenario itself (the script ran out or
	// was not used up); a scenario expects none.
	Harness []string
	// Requests is the request sequence with its transitions (see
	// [TraceRequests]), when the scenario expects one (expect.wire).
	Requests []string
}

// Passed reports whether the run did what the scenario expects.
func (o *Outcome) Passed() bool { return o.Diff() == "" }

// Diff shows how the run departed from the expectation, a line per
// expectation (named by its path in the scenario file) with what was
// wanted and what happened, sequences as strips ("next_turn ×3",
// "M:500 ×11"). It is empty when the run passed.
func (o *Outcome) Diff() string {
	var d diffWriter
	d.scalar("expect.terminal", endOf(o.Want), endOf(o.Got))
	d.sequence("expect.transitions", transitionNames(o.Want.Transitions), transitionNames(o.Got.Transitions))
	d.counters(o.Want.Counters, o.Got.Counters)
	d.set("expect.violated", o.Want.Violated, o.Got.Violated)
	if o.Want.Requests != nil {
		d.sequence("expect.wire.requests", o.Want.Requests, o.Got.Requests)
	}
	d.unexpected("faults of the scenario", o.Got.Harness)
	return d.String()
}

// Compared names, by their paths in the scenario file, what the run was
// compared on: the terminal (or halted), the transitions, the counters
// written, the invariants (every one: those expect.violated lists must
// break, the others hold), the request sequence when expect.wire is
// written, and the script, used up and not run out.
func (o *Outcome) Compared() []string {
	e := o.Scenario.Expect
	out := []string{"expect.terminal"}
	if e.Halted {
		out[0] = "expect.halted"
	}
	out = append(out, "expect.transitions")
	for _, c := range Counters {
		if _, named := e.Counters[c.Name]; named {
			out = append(out, "expect.counters."+c.Name)
		}
	}
	out = append(out, "invariants")
	if e.Wire != nil {
		out = append(out, "expect.wire.requests")
	}
	return append(out, "the script used up")
}

// endOf is how an observed run ends: its terminal, or "halted".
func endOf(o Observed) string {
	if o.Halted {
		return "halted"
	}
	return string(o.Terminal)
}

func transitionNames(ts []loop.Transition) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = string(t)
	}
	return out
}

// Watchdog bounds one run in real time. A scenario the loader accepts
// never comes near it; a run that does (a fake waiting to be cancelled by
// something that never comes) is reported as an error rather than left to
// hang. It never changes the trace of a run that finishes in time.
const Watchdog = 10 * time.Second

var errWatchdog = errors.New("watchdog")

// Run runs s against fresh fakes, checks the invariants and compares the
// run with what s expects. The error is a run that could not be judged:
// the loop refused the scenario's configuration or history, or the run
// did not finish within [Watchdog]. An unmet expectation is not an error:
// it is an Outcome that did not pass.
func Run(ctx context.Context, s *Scenario) (*Outcome, error) {
	wctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	timer := time.AfterFunc(Watchdog, func() { stop(errWatchdog) })
	runCtx, cancel := context.WithCancel(wctx)
	defer cancel()

	fx := s.fixture(cancel)
	res, err := loop.Run(runCtx, fx.cfg, fx.initial)
	if !timer.Stop() {
		return nil, watchdogError(s.Name, res)
	}
	if err != nil {
		return nil, fmt.Errorf("scenario %s: %w", s.Name, err)
	}
	return s.judge(&fx, res), nil
}

// judge checks a finished run of s's fixture against the invariants and
// what s expects.
func (s *Scenario) judge(fx *fixture, res *loop.Result) *Outcome {
	violations := properties.Check(properties.Run{Policy: s.policy, Initial: fx.initial, Result: res,
		Models: s.models(), ScriptSteps: s.scriptSteps()})
	return &Outcome{
		Scenario:   s,
		Result:     res,
		Want:       s.want(),
		Got:        s.observe(res, violations, fx.model),
		Violations: violations,
	}
}

// want is the scenario's expectation as an Observed.
func (s *Scenario) want() Observed {
	e := s.Expect
	violated := slices.Clone(e.Violated)
	slices.Sort(violated)
	return Observed{
		Terminal:    e.Terminal,
		Halted:      e.Halted,
		Transitions: expandTransitions(e.Transitions),
		Counters:    e.Counters,
		Violated:    violated,
		Requests:    s.wantRequests(),
	}
}

// wantRequests is expect.wire.requests as entries, nil when not written.
func (s *Scenario) wantRequests() []string {
	if s.Expect.Wire == nil {
		return nil
	}
	return wantWire(s.wire, true)
}

// observe sees res the way the scenario's expectation does.
func (s *Scenario) observe(res *loop.Result, violations []properties.Violation, model *watchedModel) Observed {
	got := Observed{
		Terminal:    res.Terminal,
		Halted:      res.Halted,
		Transitions: res.Trace.Transitions(),
	}
	if len(s.Expect.Counters) > 0 {
		got.Counters = map[string]int{}
		for name := range s.Expect.Counters {
			c, _ := counter(name)
			got.Counters[name] = c.Of(res)
		}
	}
	for _, v := range violations {
		if !slices.Contains(got.Violated, v.Invariant) {
			got.Violated = append(got.Violated, v.Invariant)
		}
	}
	slices.Sort(got.Violated)
	if s.Expect.Wire != nil {
		got.Requests = matchWire(s.wire, TraceRequests(res.Trace))
	}
	if model.fault != nil {
		got.Harness = append(got.Harness, model.fault.Error())
	}
	if !model.Done() {
		got.Harness = append(got.Harness, fmt.Sprintf("the script was not used up: only %d requests reached the model", len(model.Requests)))
	}
	return got
}

// watchdogError says where a run the watchdog stopped was: the abort
// the watchdog sends ends it in the step it was waiting in.
func watchdogError(name string, res *loop.Result) error {
	where := "before its first iteration ended"
	if res != nil {
		n := res.Stats.Iterations
		switch res.Terminal {
		case loop.AbortedTools:
			where = fmt.Sprintf("waiting in the tool batch of iteration %d (a slow tool that nothing aborts?)", n)
		case loop.AbortedStreaming:
			where = fmt.Sprintf("waiting for the model in iteration %d (a slow model step that nothing aborts?)", n)
		default:
			where = fmt.Sprintf("in iteration %d, ended %q by the watchdog's abort (a slow stop hook, compaction or summary, or more iterations than fit in the watchdog?)", n, res.Terminal)
		}
	}
	return fmt.Errorf("scenario %s: the run did not finish within %s: stopped %s", name, Watchdog, where)
}
