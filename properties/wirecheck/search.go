package wirecheck

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"pgregory.net/rapid"
)

// SearchConfig bounds a [Search] and says where its progress goes.
type SearchConfig struct {
	// Seed is the first case's seed (case i is drawn from Seed+i); it
	// must not be zero.
	Seed uint64
	// Cases bounds how many cases the search draws; zero: Time alone
	// bounds it.
	Cases int
	// Time bounds the whole search, shrinking included: no case is drawn
	// after it, and a finding is shrunk until it ends, or for a quarter
	// of it when less is left. Zero: Cases alone bounds the search, and
	// ShrinkTime the shrinking.
	Time time.Duration
	// ShrinkTime bounds the shrinking when Time is zero; zero means
	// [DefaultShrinkTime].
	ShrinkTime time.Duration
	// Progress, when set, is called after every case played.
	Progress func(Progress)
}

// DefaultShrinkTime bounds the shrinking of a search bounded by cases.
const DefaultShrinkTime = 10 * time.Minute

// Progress is where a search is, after a case.
type Progress struct {
	// Done is how many cases the search has drawn; Max its bound (zero:
	// none).
	Done, Max int
	// Phase is the phase of the case just played.
	Phase string
	// Findings, Flaky and Errors count the real findings, the flaky ones
	// and the cases that could not be judged so far; the finding being
	// re-run, shrunk or replayed counts already (a violation until its
	// re-run breaks another set: flaky).
	Findings, Flaky, Errors int
	// Shrinks counts the shrinking's candidates so far, of the finding
	// being shrunk.
	Shrinks int
	// Elapsed is the search's time so far; ETA an estimate of what is
	// left (from the pace so far against Max, or from the time budget),
	// zero when there is no estimate (while shrinking).
	Elapsed, ETA time.Duration
}

// Search checks the agent that play runs under rapid, a case at a time,
// until cfg's bounds, the first real finding, or ctx's end (Ctrl-C),
// and returns every case played and the finding. A case that breaks an
// invariant is played again on the same schedule: when the re-run does
// not break the same, the finding is flaky, recorded, and the search goes
// on; when it does, rapid shrinks the schedule to a minimal one (a
// candidate a run), which is played once more to confirm it, and the
// search ends. Case i is drawn from cfg.Seed+i, so a seed replays the
// same schedules.
//
// Search is [TestAgent] for an agent run outside `go test` (a process a
// case, [Process]); searches run one at a time (rapid's settings are
// its command-line flags).
func Search(ctx context.Context, play Player, o Options, cfg SearchConfig) (*Result, error) {
	o = o.withDefaults()
	if err := o.validate(); err != nil {
		return nil, fmt.Errorf("wirecheck: %w", err)
	}
	res := &Result{Agent: o.Name, Limits: limitsOf(o)}
	try := func(ctx context.Context, c Case) CaseResult {
		r, err := play(ctx, c, o)
		out := outcomeOf(r, err, o)
		return CaseResult{API: c.API, Schedule: c.Steps, Faults: c.Faults(), Outcome: out, Broken: brokenNames(out.Violations)}
	}
	err := hunt(ctx, res, o, cfg, try, func(f *Finding) {
		f.Scenario, f.File = findingScenario(o, f, fmt.Sprintf("wirecheck found %s breaking %s on this schedule (served on the %s API).",
			agentName(o.Name, "check-agent"), strings.Join(f.Broken, ", "), f.Minimal.API), invariantsOf(f.Broken))
	})
	return res, err
}

// findingScenario is the finding's minimal schedule as a scenario file
// (its expectation is what loopsim's claude-code loop does with it; broke,
// the invariants to re-check, none for a differential finding) and the
// file's name.
func findingScenario(o Options, f *Finding, desc string, broke []string) (string, string) {
	name := scenarioName(o.Name, "check-agent")
	if f.Flaky {
		name = fmt.Sprintf("%s-flaky-%d", name, f.Seed)
	}
	desc += " The expectation is what loopsim's claude-code loop does with it (simulate run)"
	if len(broke) > 0 {
		desc += "; simulate agent plays it to the agent and re-checks recheck's invariants under its limits"
	}
	text, err := f.Minimal.Case().referenceFile(o, name, desc+".", broke)
	if err != nil {
		return "", ""
	}
	return string(text), name + ".yaml"
}

// invariantsOf are the wire invariants among the names a finding broke
// (a user's own property is not re-checked from a file).
func invariantsOf(broken []string) []string {
	var out []string
	for _, name := range broken {
		if slices.Contains(InvariantNames(), name) {
			out = append(out, name)
		}
	}
	return out
}

// hunt is the search loop shared by [Search] and [Differ]: try plays one
// case and names what it broke; done completes a finding.
func hunt(ctx context.Context, res *Result, o Options, cfg SearchConfig, try func(context.Context, Case) CaseResult, done func(*Finding)) error {
	if cfg.Seed == 0 {
		return errors.New("wirecheck: the search's seed must not be zero")
	}
	if cfg.Cases <= 0 && cfg.Time <= 0 {
		return errors.New("wirecheck: the search needs a bound: a number of cases or a time")
	}
	rapidMu.Lock()
	defer rapidMu.Unlock()
	restore, err := rapidSettings()
	if err != nil {
		return err
	}
	defer restore()
	res.Seed, res.MaxCases, res.TimeBudget = cfg.Seed, cfg.Cases, cfg.Time.Seconds()
	h := &hunter{ctx: ctx, res: res, cfg: cfg, try: try, gen: caseGen(o), start: time.Now()}
	defer func() { res.Seconds = time.Since(h.start).Seconds() }()
	for i := 0; ctx.Err() == nil; i++ {
		if cfg.Cases > 0 && i >= cfg.Cases || cfg.Time > 0 && time.Since(h.start) >= cfg.Time {
			return nil
		}
		f, err := h.seed(cfg.Seed + uint64(i))
		if err != nil {
			return err
		}
		if f != nil {
			done(f)
			res.Findings = append(res.Findings, *f)
			if !f.Flaky {
				return nil
			}
		}
	}
	res.Interrupted = true
	return nil
}

// hunter is one hunt's state.
type hunter struct {
	ctx   context.Context
	res   *Result
	cfg   SearchConfig
	try   func(context.Context, Case) CaseResult
	gen   *rapid.Generator[Case]
	start time.Time
	// shrinks counts the current finding's candidates.
	shrinks int
	// current is the seed being played, its finding (once its case broke
	// something) counted in the progress while it is re-run and shrunk.
	current *seedState
}

// seedState is what the property has seen of one seed's calls.
type seedState struct {
	seed  uint64
	calls int
	tb    *searchTB
	found *CaseResult
	// recheck is the re-run's case; nil when it was not played.
	recheck *CaseResult
	best    CaseResult
	replay  *CaseResult
	// deadline ends the shrinking.
	deadline time.Time
	// tried are the shrinking's cases played so far, by their text:
	// rapid reaches one case from many choices, and a process agent's
	// case is not played twice.
	tried map[string]CaseResult
}

// phase is the phase of the property's current call: the first is the
// search's; after a failure rapid plays the same case again, then its
// shrinking's candidates, then (once it has reported) the minimal.
func (st *seedState) phase() string {
	switch {
	case st.calls == 1:
		return PhaseSearch
	case st.tb.reported:
		return PhaseReplay
	case st.calls == 2:
		return PhaseRecheck
	}
	return PhaseShrink
}

// seed runs rapid over one seed: one case, and when it breaks something
// its re-run, shrinking and replay. The finding is nil when the case
// broke nothing.
func (h *hunter) seed(seed uint64) (*Finding, error) {
	st := &seedState{seed: seed, tb: &searchTB{}, tried: map[string]CaseResult{}}
	st.deadline = h.shrinkDeadline()
	h.current = st
	defer func() { h.current = nil }()
	if err := setRapidFlag("rapid.seed", fmt.Sprint(seed)); err != nil {
		return nil, err
	}
	if err := setRapidFlag("rapid.shrinktime", time.Until(st.deadline).String()); err != nil {
		return nil, err
	}
	h.shrinks = 0
	rapid.Check(st.tb, func(rt *rapid.T) {
		c := h.gen.Draw(rt, "case")
		st.calls++
		phase := st.phase()
		key := c.String()
		if !h.shouldPlay(st, phase) || phase == PhaseReplay && key != st.best.Case().String() {
			return // rapid's replay of another case than the minimal kept: confirmed below
		}
		cr, seen := st.tried[key]
		if !seen || phase != PhaseShrink {
			cr = h.try(h.ctx, c)
			if h.ctx.Err() != nil {
				return // interrupted: the run is not a result
			}
			cr.Seed, cr.Phase = seed, phase
			h.record(st, cr)
			st.tried[key] = cr
		}
		if phase == PhaseShrink && slices.Equal(cr.Broken, st.found.Broken) {
			st.best = cr // rapid keeps it: smaller, and failing the same
		}
		if len(cr.Broken) > 0 {
			rt.Fatalf("wirecheck: broke %s", strings.Join(cr.Broken, ", "))
		}
	})
	if st.found == nil {
		return nil, nil
	}
	if st.recheck != nil && slices.Equal(st.recheck.Broken, st.found.Broken) && st.replay == nil && h.ctx.Err() == nil {
		// the minimal case played once more, to confirm it
		cr := h.try(h.ctx, st.best.Case())
		if h.ctx.Err() == nil {
			cr.Seed, cr.Phase = seed, PhaseReplay
			h.record(st, cr)
		}
	}
	f := &Finding{Seed: seed, Broken: st.found.Broken, Found: *st.found, Minimal: *st.found, Shrinks: h.shrinks}
	f.Flaky = st.recheck == nil || !slices.Equal(st.recheck.Broken, st.found.Broken)
	if st.recheck == nil && h.ctx.Err() != nil {
		f.Flaky = false // interrupted before the re-run: not known to be flaky
	}
	if !f.Flaky {
		f.Minimal = st.best
		f.Reproduced = st.replay != nil && slices.Equal(st.replay.Broken, f.Broken)
	}
	return f, nil
}

// shouldPlay says whether the property's call plays its case: not once
// ctx has ended, not a shrinking candidate past the deadline, not the
// replay of a flaky finding (rapid replays what it reports).
func (h *hunter) shouldPlay(st *seedState, phase string) bool {
	switch {
	case h.ctx.Err() != nil:
		return false
	case phase == PhaseShrink:
		return time.Now().Before(st.deadline)
	case phase == PhaseReplay:
		return st.recheck != nil && slices.Equal(st.recheck.Broken, st.found.Broken)
	}
	return true
}

// record keeps a played case in the result and the seed's state, and
// reports progress.
func (h *hunter) record(st *seedState, cr CaseResult) {
	h.res.Cases = append(h.res.Cases, cr)
	if cr.Error != "" {
		h.res.Errors++
	}
	switch cr.Phase {
	case PhaseSearch:
		h.res.Searched++
		if len(cr.Broken) > 0 {
			st.found, st.best = &cr, cr
		}
	case PhaseRecheck:
		st.recheck = &cr
	case PhaseShrink:
		h.shrinks++
	case PhaseReplay:
		st.replay = &cr
	}
	if h.cfg.Progress != nil {
		h.cfg.Progress(h.progress(cr.Phase))
	}
}

// progress is the search's progress after a case of phase.
func (h *hunter) progress(phase string) Progress {
	p := Progress{Done: h.res.Searched, Max: h.cfg.Cases, Phase: phase, Errors: h.res.Errors, Shrinks: h.shrinks,
		Elapsed: time.Since(h.start)}
	for _, f := range h.res.Findings {
		if f.Flaky {
			p.Flaky++
		} else {
			p.Findings++
		}
	}
	if st := h.current; st != nil && st.found != nil {
		// the finding under way: flaky once its re-run broke another set
		if st.recheck != nil && !slices.Equal(st.recheck.Broken, st.found.Broken) {
			p.Flaky++
		} else {
			p.Findings++
		}
	}
	if phase != PhaseSearch {
		return p
	}
	if p.Max > 0 && p.Done > 0 {
		p.ETA = p.Elapsed / time.Duration(p.Done) * time.Duration(p.Max-p.Done)
	}
	if h.cfg.Time > 0 {
		left := max(h.cfg.Time-p.Elapsed, 0)
		if p.ETA == 0 || left < p.ETA {
			p.ETA = left
		}
	}
	return p
}

// shrinkDeadline is when a finding drawn now stops being shrunk: the
// time budget's end, or a quarter of the budget from now when less is
// left; without a budget, ShrinkTime from now.
func (h *hunter) shrinkDeadline() time.Time {
	now := time.Now()
	if h.cfg.Time <= 0 {
		return now.Add(cmpOr(h.cfg.ShrinkTime, DefaultShrinkTime))
	}
	end := h.start.Add(h.cfg.Time)
	if least := now.Add(h.cfg.Time / 4); end.Before(least) {
		return least
	}
	return end
}

func cmpOr(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}
