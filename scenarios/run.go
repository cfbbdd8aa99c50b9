package scenarios

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

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
func (o *Outcome) Passed() bool { return cmp.Equal(o.Want, o.Got, cmpopts.EquateEmpty()) }

// Diff shows how the run departed from the expectation: "-" lines are
// expected, "+" lines are what happened. It is empty when the run passed.
func (o *Outcome) Diff() string { return cmp.Diff(o.Want, o.Got, cmpopts.EquateEmpty()) }

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
