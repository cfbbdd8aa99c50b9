package properties

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/loop"
	"pgregory.net/rapid"
)

// Property is a user's own predicate over a finished run, checked by
// [Test] alongside the invariants.
type Property struct {
	// Name names the property in a failure report.
	Name string
	// Check returns nil when the run keeps the property. A [Violation]
	// (or an error wrapping one) places the failure at its event, and the
	// report shows the trace around it.
	Check func(r Run) error
}

// Options say what [Test] checks and how it draws runs.
type Options struct {
	// Policy is the policy under test. Required.
	Policy loop.Policy
	// Properties are the user's own predicates, checked on every run.
	Properties []Property
	// Skip names invariants ([InvariantNames]) not to check, e.g. one the
	// policy breaks on purpose.
	Skip []string
	// Scripts, when set, draws the model's fault scripts instead of the
	// built-in generator (the other fakes are still drawn).
	Scripts *rapid.Generator[[]fakemodel.Step]
	// Workload, when set, plays one of its episodes per check (model,
	// tools and stop hooks drawn from its distributions by seeds rapid
	// draws) instead of a scripted case.
	Workload *fakemodel.Workload
	// Model is the main model of a workload episode; zero means a
	// 200,000-token window with 64,000 output tokens.
	Model loop.ModelInfo
}

// Test checks o.Policy under rapid, as a property test inside the
// caller's own test: every run it draws must keep every invariant of docs/spec.md
// §5 (but o.Skip) and every one of o.Properties. Half of the scripted
// cases put one of the policy's guards under pressure: they drive a count
// (consecutive stop-hook blocks, truncations, reactive compactions, API
// retries, malformed or empty replies, turns) to one below, at and past
// the policy's cap, or start the context one token either side of the
// auto-compact threshold or the blocking limit. So a bound a user sets
// below a cap of the policy is met within rapid's default 100 checks.
//
// A failure is shrunk by rapid, then reported with the case (its
// String), each broken check, the trace around the first violation, and
// the command that replays it (rapid's -rapid.failfile, named in the
// lines that follow). An invalid Options fails t at once.
//
// t is usually the *testing.T of the caller's test.
func Test(t rapid.TB, o Options) {
	t.Helper()
	if err := o.validate(); err != nil {
		t.Fatalf("properties.Test: %v", err)
		return
	}
	gen := o.runGen()
	rapid.Check(t, func(rt *rapid.T) {
		d := gen.Draw(rt, "run")
		if d.err != nil {
			rt.Fatalf("properties.Test: %v\n%s", d.err, d.desc)
		}
		if fails := o.check(d.run); len(fails) > 0 {
			rt.Fatalf("%s", report(t.Name(), o.Policy, d, fails))
		}
	})
}

func (o Options) validate() error {
	if err := o.Policy.Validate(); err != nil {
		return err
	}
	for _, name := range o.Skip {
		if !slices.Contains(InvariantNames(), name) {
			return fmt.Errorf("Skip: no invariant named %q (known: %s)", name, strings.Join(InvariantNames(), ", "))
		}
	}
	for i, p := range o.Properties {
		if p.Name == "" || p.Check == nil {
			return fmt.Errorf("Properties[%d] needs a Name and a Check", i)
		}
	}
	if o.Workload != nil {
		if o.Scripts != nil {
			return errors.New("Scripts and Workload exclude each other")
		}
		if err := o.Workload.Validate(); err != nil {
			return fmt.Errorf("Workload: %w", err)
		}
	}
	return nil
}

// drawn is one run Test drew and executed.
type drawn struct {
	run  Run
	desc string
	err  error
}

// GoString keeps rapid's log of the draw short: the report that follows
// describes the run.
func (d drawn) GoString() string {
	if d.run.Result == nil {
		return "a run that did not start (see below)"
	}
	return fmt.Sprintf("a run of %d events ending %s (the report follows)", len(d.run.Result.Trace), terminalOf(d.run.Result))
}

// runGen draws and runs one case, or one workload episode.
func (o Options) runGen() *rapid.Generator[drawn] {
	if o.Workload != nil {
		return rapid.Custom(func(t *rapid.T) drawn {
			seeds := fakemodel.Seeds{Workload: rapid.Uint64().Draw(t, "workload seed"), Faults: rapid.Uint64().Draw(t, "faults seed")}
			jitter := rapid.Uint64().Draw(t, "jitter seed")
			return o.playEpisode(seeds, jitter)
		})
	}
	cases := userCaseGen(o.Policy, o.Scripts)
	return rapid.Custom(func(t *rapid.T) drawn {
		c := cases.Draw(t, "case")
		r, err := c.Execute()
		return drawn{run: r, desc: c.String(), err: err}
	})
}

// playEpisode runs one episode of the workload.
func (o Options) playEpisode(seeds fakemodel.Seeds, jitter uint64) drawn {
	model := o.Model
	if model.Name == "" {
		model = loop.ModelInfo{Name: primaryName, ContextWindow: 200_000, MaxOutputTokens: 64_000}
	}
	desc := fmt.Sprintf("workload episode: workload seed %#x, faults seed %#x, jitter seed %#x; model %s (window %d, max output %d)",
		seeds.Workload, seeds.Faults, jitter, model.Name, model.ContextWindow, model.MaxOutputTokens)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ep := o.Workload.Episode(seeds, model.ContextWindow, cancel)
	initial := ep.Initial()
	cfg := loop.Config{Policy: o.Policy, Model: ep, Primary: model, ToolNames: ToolNames(), Tools: ep, StopHooks: ep,
		Seed: jitter, IterationLimit: workloadIterationLimit}
	res, err := loop.Run(ctx, cfg, initial)
	if err != nil {
		return drawn{desc: desc, err: fmt.Errorf("run episode: %w", err)}
	}
	return drawn{run: Run{Policy: o.Policy, Initial: initial, Result: res, Models: []loop.ModelInfo{model}}, desc: desc}
}

// workloadIterationLimit bounds a workload episode: the workload's
// sessions end far sooner, so an episode that reaches it does not end.
const workloadIterationLimit = 2_000

// failure is one broken check of a run.
type failure struct {
	name  string
	event int
	text  string
}

// check runs the invariants not skipped and the user's properties.
func (o Options) check(r Run) []failure {
	var out []failure
	for _, v := range Check(r) {
		if !slices.Contains(o.Skip, v.Invariant) {
			out = append(out, failure{name: v.Invariant, event: v.Event, text: v.Error()})
		}
	}
	for _, p := range o.Properties {
		err := userCheck(p, r)
		if err == nil {
			continue
		}
		f := failure{name: p.Name, event: -1, text: p.Name + ": " + err.Error()}
		var v Violation
		var vp *Violation
		switch {
		case errors.As(err, &v):
			f.event = v.Event
		case errors.As(err, &vp) && vp != nil:
			f.event = vp.Event
		}
		out = append(out, f)
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

// traceContext is how many events either side of a violation the report
// shows.
const traceContext = 6

// report is the readable failure: what broke, the case, the trace around
// the first located violation, and how to replay it.
func report(test string, p loop.Policy, d drawn, fails []failure) string {
	var b strings.Builder
	fmt.Fprintf(&b, "properties.Test: policy %q broke %d check(s):\n", p.Name, len(fails))
	for _, f := range fails {
		fmt.Fprintf(&b, "  - %s\n", f.text)
	}
	fmt.Fprintf(&b, "\nthe run, as rapid shrank it:\n%s", d.desc)
	if !strings.HasSuffix(d.desc, "\n") {
		b.WriteByte('\n')
	}
	tr := d.run.Result.Trace
	at := -1
	for _, f := range fails {
		if f.event >= 0 && f.event < len(tr) {
			at = f.event
			break
		}
	}
	lo, hi := max(len(tr)-2*traceContext, 0), len(tr)
	where := "the end of the trace"
	if at >= 0 {
		lo, hi = max(at-traceContext, 0), min(at+traceContext+1, len(tr))
		where = fmt.Sprintf("event %d", at)
	}
	fmt.Fprintf(&b, "\nthe trace around %s (%d events in all, terminal %s):\n", where, len(tr), terminalOf(d.run.Result))
	for i := lo; i < hi; i++ {
		mark := "  "
		if i == at {
			mark = "> "
		}
		fmt.Fprintf(&b, "%s%4d  %s\n", mark, i, loop.Describe(tr[i]))
	}
	fmt.Fprintf(&b, "\nreplay: go test -run '^%s$' with the -rapid.failfile (or -rapid.seed) that rapid names next\n",
		regexp.QuoteMeta(test))
	return b.String()
}

func terminalOf(r *loop.Result) string {
	if r.Halted {
		return "none (halted)"
	}
	return string(r.Terminal)
}
