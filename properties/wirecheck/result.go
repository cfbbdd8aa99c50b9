package wirecheck

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/fakemodel/wire"
)

// Result is a whole search ([Search]) or differential run ([Differ]):
// its settings, every case played and what was found. It is plain data
// (written as JSON by [Result.Write]) for a report to render.
type Result struct {
	// Agent names the agent checked; Against the second agent of a
	// differential run (empty otherwise).
	Agent   string `json:"agent"`
	Against string `json:"against,omitempty"`
	// Seed is the first case's seed: case i of the search is drawn from
	// Seed+i, so a seed replays the same schedules.
	Seed uint64 `json:"seed"`
	// MaxCases and TimeBudget are the search's bounds (zero: unbounded).
	MaxCases   int     `json:"max_cases,omitempty"`
	TimeBudget float64 `json:"time_budget_seconds,omitempty"`
	// Limits are the limits the agent was held to.
	Limits Limits `json:"limits"`
	// Searched is how many cases the search drew (not counting re-runs
	// and shrinking); Errors how many cases could not be judged.
	Searched int `json:"searched"`
	Errors   int `json:"errors"`
	// Cases are every case played, in order: the search's, the re-runs,
	// the shrinking's candidates and the minimal's replay.
	Cases []CaseResult `json:"cases"`
	// Findings are the cases that broke an invariant (in a differential
	// run: whose outcomes differed), flaky ones included.
	Findings []Finding `json:"findings"`
	// Interrupted says the run was stopped (Ctrl-C) before its bounds:
	// what finished is kept.
	Interrupted bool `json:"interrupted,omitempty"`
	// Seconds is the run's wall-clock time.
	Seconds float64 `json:"seconds"`
}

// Limits are the Options a result was checked under, as data.
type Limits struct {
	APIs            []string `json:"apis"`
	Model           string   `json:"model"`
	ContextWindow   int      `json:"context_window"`
	MaxOutputTokens int      `json:"max_output_tokens"`
	MaxRetries      int      `json:"max_retries"`
	MaxCompactions  int      `json:"max_compactions"`
	RetryAftersMS   []int64  `json:"retry_afters_ms"`
	SlackMS         int64    `json:"retry_after_slack_ms"`
	SessionTimeout  float64  `json:"session_timeout_seconds"`
	MaxSteps        int      `json:"max_steps"`
	Skip            []string `json:"skip,omitempty"`
	// Tolerance is a differential run's request-count tolerance.
	Tolerance int `json:"tolerance,omitempty"`
}

// limitsOf is o (defaults filled) as data.
func limitsOf(o Options) Limits {
	l := Limits{APIs: slices.Clone(o.APIs), Model: o.Model.Name, ContextWindow: o.Model.ContextWindow,
		MaxOutputTokens: o.Model.MaxOutputTokens, MaxRetries: o.MaxRetries, MaxCompactions: o.MaxCompactions,
		SlackMS: o.RetryAfterSlack.Milliseconds(), SessionTimeout: o.SessionTimeout.Seconds(), MaxSteps: o.MaxSteps,
		Skip: slices.Clone(o.Skip)}
	for _, d := range o.RetryAfters {
		l.RetryAftersMS = append(l.RetryAftersMS, d.Milliseconds())
	}
	return l
}

// The phases a case is played in.
const (
	PhaseSearch  = "search"  // drawn by the search
	PhaseRecheck = "recheck" // the same schedule again, after it broke something
	PhaseShrink  = "shrink"  // a smaller schedule tried while shrinking
	PhaseReplay  = "replay"  // the minimal schedule again, once shrinking ended
)

// CaseResult is one case played: its schedule and what came of it.
type CaseResult struct {
	// Seed is the search seed the case belongs to (its re-runs and
	// shrinking share it).
	Seed uint64 `json:"seed"`
	// Phase is one of PhaseSearch, PhaseRecheck, PhaseShrink, PhaseReplay.
	Phase string `json:"phase"`
	// API and Schedule are the case ([Case]); Faults counts its faults.
	API      string           `json:"api"`
	Schedule []fakemodel.Step `json:"schedule"`
	Faults   int              `json:"faults"`
	// Outcome is what the agent did.
	Outcome
	// Against is what the second agent did, in a differential run.
	Against *Outcome `json:"against,omitempty"`
	// Broken names the invariants (and properties) the case broke; in a
	// differential run, the outcomes that differ (exit, final-event,
	// requests).
	Broken []string `json:"broken,omitempty"`
}

// Case is the case played.
func (c CaseResult) Case() Case { return Case{API: c.API, Steps: slices.Clone(c.Schedule)} }

// Outcome is what one agent did with one case.
type Outcome struct {
	// Requests is the request sequence the server saw (M:429, M:text, ...).
	Requests []string `json:"requests"`
	// Exit, FinalEvent and Hung are the run's ([Run]).
	Exit       int    `json:"exit"`
	FinalEvent string `json:"final_event,omitempty"`
	Hung       bool   `json:"hung,omitempty"`
	// Seconds is the session's wall-clock time.
	Seconds float64 `json:"seconds"`
	// Violations are the invariants broken, each with what shows it.
	Violations []string `json:"violations,omitempty"`
	// Error says why the case could not be judged, if it could not.
	Error string `json:"error,omitempty"`
	// Records are the server's records of the session's requests, and
	// Started when the session's server started on the wall clock (their
	// times' origin): for the exporters (check-agent -otlp, -timeline),
	// not in the JSON report.
	Records []wire.Record `json:"-"`
	Started time.Time     `json:"-"`
}

// outcomeOf is a played run (or the error that kept it from being
// judged) as an Outcome, its violations those o does not skip.
func outcomeOf(r Run, err error, o Options) Outcome {
	if err != nil {
		return Outcome{Error: err.Error(), Exit: -1}
	}
	return Outcome{Requests: wire.Labels(r.Records), Exit: r.Exit, FinalEvent: r.FinalEvent, Hung: r.Hung,
		Seconds: r.Elapsed.Seconds(), Violations: o.failures(r), Records: r.Records, Started: r.Started}
}

// Finding is one search seed whose case broke something: the case the
// search drew, whether the same schedule broke the same again, and the
// minimal schedule shrinking reached.
type Finding struct {
	// Seed is the search seed of the case.
	Seed uint64 `json:"seed"`
	// Broken names what the case broke (invariants, or differing
	// outcomes).
	Broken []string `json:"broken"`
	// Flaky says the re-run of the same schedule did not break the same
	// (a flaky finding is not shrunk).
	Flaky bool `json:"flaky"`
	// Found is the case the search drew.
	Found CaseResult `json:"found"`
	// Minimal is the smallest schedule that still broke the same; Found
	// when shrinking found none smaller.
	Minimal CaseResult `json:"minimal"`
	// Shrinks is how many smaller schedules were tried.
	Shrinks int `json:"shrinks"`
	// Reproduced says the minimal schedule, played once more after
	// shrinking, broke the same again (false when it was not played:
	// the run was interrupted).
	Reproduced bool `json:"reproduced"`
	// Scenario is the minimal schedule as a scenario file, and File the
	// name [Result.Write] gives it.
	Scenario string `json:"scenario,omitempty"`
	File     string `json:"file,omitempty"`
	// Replay are the commands that replay the minimal schedule (set by
	// the caller that knows how the agent is run).
	Replay []string `json:"replay,omitempty"`
}

// Real reports whether the result holds a finding that was not flaky.
func (r *Result) Real() bool {
	for _, f := range r.Findings {
		if !f.Flaky {
			return true
		}
	}
	return false
}

// ReportFile is the name of the JSON report [Result.Write] writes.
const ReportFile = "check-agent.json"

// Write writes the result into dir (made if missing): the JSON report
// ([ReportFile]) and each finding's scenario file (its File) with its
// replay commands (File's name with .replay for .yaml). It returns the
// paths written.
func (r *Result) Write(dir string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("wirecheck: the report folder: %w", err)
	}
	var paths []string
	for _, f := range r.Findings {
		if f.File == "" || f.Scenario == "" {
			continue
		}
		path := filepath.Join(dir, f.File)
		if err := os.WriteFile(path, []byte(f.Scenario), 0o644); err != nil {
			return paths, fmt.Errorf("wirecheck: the minimal scenario: %w", err)
		}
		paths = append(paths, path)
		if len(f.Replay) > 0 {
			rp := path[:len(path)-len(filepath.Ext(path))] + ".replay"
			text := ""
			for _, line := range f.Replay {
				text += line + "\n"
			}
			if err := os.WriteFile(rp, []byte(text), 0o644); err != nil {
				return paths, fmt.Errorf("wirecheck: the replay commands: %w", err)
			}
			paths = append(paths, rp)
		}
	}
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return paths, fmt.Errorf("wirecheck: the report: %w", err)
	}
	path := filepath.Join(dir, ReportFile)
	if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		return paths, fmt.Errorf("wirecheck: the report: %w", err)
	}
	return append(paths, path), nil
}
