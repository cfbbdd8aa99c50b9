package properties

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/loop"
)

// Case is one run of the loop described as plain data: the policy, the
// fault script and every other fake's behaviour. The generators draw
// Cases, the exhaustive explorer enumerates them, and a minimal
// counterexample is one.
type Case struct {
	// Policy is the loop policy.
	Policy loop.Policy `json:"policy"`
	// Primary is the main model.
	Primary loop.ModelInfo `json:"primary"`
	// Fallback is the fallback model; an empty Name means none.
	Fallback loop.ModelInfo `json:"fallback,omitzero"`
	// Script is the model's fault script.
	Script []fakemodel.Step `json:"script"`
	// Tools is how every tool call behaves (ByName wins over Default).
	Tools ToolBehaviour `json:"tools,omitzero"`
	// StopHooks are the stop hooks' verdicts (the last repeats); nil
	// means no stop hooks are configured.
	StopHooks []fakemodel.StopOutcome `json:"stop_hooks,omitempty"`
	// StopFailureHooks are the stop-failure hooks' outcomes (the last
	// repeats), told when the run ends on an API error. They are
	// configured whenever StopHooks are; nil outcomes always succeed.
	StopFailureHooks []fakemodel.StopFailureOutcome `json:"stop_failure_hooks,omitempty"`
	// Compactions are the scripted compactor's outcomes (the last
	// repeats). Nil leaves compaction to the loop's default compactor,
	// which asks the model: its requests then consume script steps.
	Compactions []fakemodel.CompactOutcome `json:"compactions,omitempty"`
	// Summaries are the tool-use summarizer's outcomes; nil means no
	// summarizer.
	Summaries []fakemodel.SummaryOutcome `json:"summaries,omitempty"`
	// Initial is the starting history.
	Initial []loop.Message `json:"initial"`
	// TokenBudget is the run's output token budget; zero means none.
	TokenBudget int `json:"token_budget,omitempty"`
	// Seed seeds the loop's retry jitter.
	Seed uint64 `json:"seed,omitempty"`
	// IterationLimit is the harness's guard; zero derives one from the
	// policy and script (see [Case.Limit]).
	IterationLimit int `json:"iteration_limit,omitempty"`
}

// ToolBehaviour is how the scripted tools behave.
type ToolBehaviour struct {
	// Default is the behaviour of every tool not in ByName.
	Default fakemodel.Tool `json:"default,omitzero"`
	// ByName gives a behaviour per tool name.
	ByName map[string]fakemodel.Tool `json:"by_name,omitempty"`
}

// ToolNames returns the tools every Case offers the model; the generators
// draw tool uses from them.
func ToolNames() []string { return []string{"Read", "Edit", "Bash"} }

// ScriptSteps is how many requests the script can answer, or zero when a
// step repeats forever.
func (c Case) ScriptSteps() int {
	n := 0
	for _, s := range c.Script {
		if s.Repeat == fakemodel.Forever {
			return 0
		}
		n += max(s.Repeat, 1)
	}
	return n
}

// unboundedLimit is the iteration limit of a case no bound covers (a step
// repeats forever and the policy lets a stretch continue without limit),
// before the token budget's share: the generated cases that terminate
// take far fewer iterations (besides budget continuations, at most about
// 20), so a run that reaches it shows a loop that does not end.
const unboundedLimit = 100

// Limit is the iteration limit the case runs with: IterationLimit if set,
// else one past [IterationBound] (so a run over the bound halts at once
// and shows as a termination violation), else 100 plus the most token
// budget continuations the budget allows: each continuation but the
// first BudgetDiminishingAfter and the last must add at least
// BudgetDiminishingDelta output tokens, so there are at most
// budget / delta + after + 2 of them.
func (c Case) Limit() int {
	if c.IterationLimit != 0 {
		return c.IterationLimit
	}
	if b, ok := IterationBound(c.Policy, c.ScriptSteps()); ok {
		return b + 1
	}
	limit := unboundedLimit
	if p := c.Policy; p.TokenBudget && c.TokenBudget > 0 {
		limit += c.TokenBudget/max(p.BudgetDiminishingDelta, 1) + p.BudgetDiminishingAfter + 2
	}
	return limit
}

// Execute runs the case against fresh fakes and returns the finished run.
// The error is a configuration the loop rejects or a harness fault (a
// script step the fake cannot play), never a violation.
func (c Case) Execute() (Run, error) {
	r, _, err := c.execute(nil)
	return r, err
}

// execute is Execute that also reports whether the run asked the model
// for more than the script holds. A run that did not is the run of every
// longer script with the same prefix: the exhaustive explorer's
// reduction. A probe, if given, watches the run and takes the digest of
// the state at the call that found the script empty.
func (c Case) execute(probe *stateProbe) (Run, bool, error) {
	res, ranOut, err := c.play(probe)
	if err != nil {
		return Run{}, false, err
	}
	return c.finished(res, c.models()), ranOut, nil
}

// finished is the Run of c that ended in res; models are c.models().
func (c Case) finished(res *loop.Result, models []loop.ModelInfo) Run {
	return Run{Policy: c.Policy, Initial: c.Initial, Result: res, Models: models, ScriptSteps: c.ScriptSteps()}
}

// models are the models a run of c can send to.
func (c Case) models() []loop.ModelInfo {
	models := []loop.ModelInfo{c.Primary}
	if c.Fallback.Name != "" {
		models = append(models, c.Fallback)
	}
	return models
}

// play runs c: execute without making the Run.
func (c Case) play(probe *stateProbe) (*loop.Result, bool, error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	model := &watchedModel{Model: fakemodel.Model{Script: c.Script, Window: c.Primary.ContextWindow, Cancel: cancel}, probe: probe}
	cfg := loop.Config{
		Policy:         c.Policy,
		Model:          model,
		Primary:        c.Primary,
		FallbackModel:  c.Fallback,
		ToolNames:      ToolNames(),
		Tools:          &fakemodel.Tools{Default: c.Tools.Default, ByName: c.Tools.ByName, Cancel: cancel},
		TokenBudget:    c.TokenBudget,
		Seed:           c.Seed,
		IterationLimit: c.Limit(),
		// the fakes return as soon as the run is cancelled (an abort
		// step cancels it from inside the call): no goroutine per
		// request is needed to guard against a model that hangs
		InlineModelCalls: true,
	}
	if c.StopHooks != nil {
		cfg.StopHooks = &fakemodel.StopHooks{Outcomes: c.StopHooks}
		cfg.StopFailureHooks = &fakemodel.StopFailureHooks{Outcomes: c.StopFailureHooks}
	}
	if c.Compactions != nil {
		cfg.Compactor = &fakemodel.Compactor{Outcomes: c.Compactions}
	}
	if c.Summaries != nil {
		cfg.Summarizer = &fakemodel.Summarizer{Outcomes: c.Summaries}
	}
	if probe != nil {
		cfg.Observer, cfg.OnModelCall = probe.observe, probe.modelCall
		probe.hooks, _ = cfg.StopHooks.(*fakemodel.StopHooks)
		probe.fails, _ = cfg.StopFailureHooks.(*fakemodel.StopFailureHooks)
		probe.compact, _ = cfg.Compactor.(*fakemodel.Compactor)
		probe.budget = c.Policy.TokenBudget && c.TokenBudget > 0
		probe.budgetDone = c.Policy.BudgetCompletionRatio * float64(c.TokenBudget)
		if probe.taken == nil {
			probe.taken = takenIDs(c.Initial)
		}
	}
	res, err := loop.Run(ctx, cfg, c.Initial)
	if err != nil {
		return nil, false, fmt.Errorf("execute case: %w", err)
	}
	if err := model.stepError(); err != nil {
		return nil, false, fmt.Errorf("execute case: %w", err)
	}
	return res, model.ranOut(), nil
}

// takenIDs is the set of a starting history's IDs as the loop assigns
// them (see initialIDs).
func takenIDs(initial []loop.Message) map[string]bool {
	taken := map[string]bool{}
	for _, id := range initialIDs(initial) {
		taken[id] = true
	}
	return taken
}

// watchedModel is a fakemodel.Model that remembers whether the script
// ran out and whether a step could not be played; with a probe, it has
// the probe take the state's digest when the script runs out.
type watchedModel struct {
	fakemodel.Model
	probe     *stateProbe
	mu        sync.Mutex
	exhausted bool
	bad       error
}

// Stream implements [loop.Model].
func (m *watchedModel) Stream(ctx context.Context, req loop.Request, yield func(loop.Block)) (loop.Response, error) {
	resp, err := m.Model.Stream(ctx, req, yield)
	var ex *fakemodel.ExhaustedError
	var se *fakemodel.StepError
	// fakemodel.Model returns these two unwrapped: a type switch finds
	// them without errors.As's walk on every faulted request
	switch e := err.(type) {
	case *fakemodel.ExhaustedError:
		ex = e
	case *fakemodel.StepError:
		se = e
	}
	switch {
	case ex != nil:
		m.mu.Lock()
		if !m.exhausted && m.probe != nil {
			m.probe.take()
		}
		m.exhausted = true
		m.mu.Unlock()
	case se != nil:
		m.mu.Lock()
		if m.bad == nil {
			m.bad = se
		}
		m.mu.Unlock()
	}
	return resp, err
}

func (m *watchedModel) ranOut() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.exhausted
}

func (m *watchedModel) stepError() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.bad
}

// DecodeCase reads a case from JSON (as json.Marshal writes it).
// Unknown fields are errors, and the policy must be valid.
func DecodeCase(data []byte) (Case, error) {
	var c Case
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return Case{}, fmt.Errorf("decode case: %w", err)
	}
	if err := c.Policy.Validate(); err != nil {
		return Case{}, fmt.Errorf("decode case: %w", err)
	}
	if err := fakemodel.ValidateScript(c.Script); err != nil {
		return Case{}, fmt.Errorf("decode case: script: %w", err)
	}
	return c, nil
}
