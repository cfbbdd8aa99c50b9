package wirecheck

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/loopsim/loopsim/scenarios"
)

// notCarried are the fields of [Limits] a finding's file does not carry
// in its recheck limits, each with why: what the file says elsewhere, or
// what does not bear on a re-check. TestRecheckCarriesEveryLimit fails
// on a field of Limits neither carried nor listed here.
var notCarried = map[string]string{
	"apis":              "the finding's API is recheck.api",
	"model":             "the file's model",
	"context_window":    "the file's model",
	"max_output_tokens": "the file's model",
	"retry_afters_ms":   "drawn into the schedule, which the file holds",
	"max_steps":         "bounds the schedules drawn, not a run",
	"skip":              "only the invariants that broke are re-checked",
	"tolerance":         "a differential run's, not an invariant's",
}

// recheckLimits are o's limits as a finding's file carries them: every
// number of [Limits] but those of notCarried, by its JSON name.
func recheckLimits(o Options) map[string]float64 {
	data, err := json.Marshal(limitsOf(o))
	if err != nil {
		return nil // plain data: cannot happen
	}
	var all map[string]any
	if err := json.Unmarshal(data, &all); err != nil {
		return nil
	}
	out := map[string]float64{}
	for name, v := range all {
		if x, ok := v.(float64); ok && notCarried[name] == "" {
			out[name] = x
		}
	}
	return out
}

// RecheckOptions are the limits a finding's scenario file (one
// `simulate check-agent` wrote, with a recheck section) holds the agent
// to: its model, its API, its recheck limits, the defaults for a limit
// it does not write. The error names a limit wirecheck does not know,
// or an invariant.
func RecheckOptions(s *scenarios.Scenario) (Options, error) {
	r := s.Recheck
	if r == nil {
		return Options{}, fmt.Errorf("%s: no recheck section: not a check-agent finding", s.File)
	}
	for i, name := range r.Invariants {
		if !slices.Contains(InvariantNames(), name) {
			return Options{}, fmt.Errorf("%s: recheck.invariants[%d]: no wire invariant named %q (known: %s)", s.File, i, name, strings.Join(InvariantNames(), ", "))
		}
	}
	var l Limits
	if len(r.Limits) > 0 {
		for name := range r.Limits {
			if notCarried[name] != "" {
				return Options{}, fmt.Errorf("%s: recheck.limits.%s: not a limit of a re-check (%s)", s.File, name, notCarried[name])
			}
		}
		data, err := json.Marshal(r.Limits)
		if err != nil {
			return Options{}, fmt.Errorf("%s: recheck.limits: %w", s.File, err)
		}
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&l); err != nil {
			return Options{}, fmt.Errorf("%s: recheck.limits: %v (known: %s)", s.File, err, strings.Join(carriedNames(), ", "))
		}
	}
	o := Options{APIs: []string{r.API}, Model: s.Model, MaxRetries: l.MaxRetries, MaxCompactions: l.MaxCompactions,
		RetryAfterSlack: time.Duration(l.SlackMS) * time.Millisecond,
		SessionTimeout:  time.Duration(l.SessionTimeout * float64(time.Second))}.withDefaults()
	if err := o.validate(); err != nil {
		return Options{}, fmt.Errorf("%s: recheck: %w", s.File, err)
	}
	return o, nil
}

// carriedNames are the names a recheck's limits may use, sorted.
func carriedNames() []string {
	var out []string
	for name := range recheckLimits(Options{}.withDefaults()) {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// RecheckCase is the case a finding's file plays: its API and its main
// answers, the schedule.
func RecheckCase(s *scenarios.Scenario) Case {
	c := Case{}
	if s.Recheck != nil {
		c.API = s.Recheck.API
	}
	if s.Answers != nil {
		c.Steps = slices.Clone(s.Answers.Main)
	}
	return c
}

// Rechecked is a finding's file played again to the agent: which of its
// invariants broke again, each with what shows it, and which held.
type Rechecked struct {
	// Broke are the violations of the file's invariants, as lines
	// ("bounded-retries: request 12: ...").
	Broke []string
	// Held names the file's invariants the run kept.
	Held []string
}

// Reproduced says the finding broke again: at least one of its
// invariants did.
func (r Rechecked) Reproduced() bool { return len(r.Broke) > 0 }

// recheck judges run by the invariants named: those it broke, with what
// shows each, and those it kept.
func recheck(invariants []string, run Run) Rechecked {
	var res Rechecked
	broke := map[string]bool{}
	for _, v := range Check(run) {
		if slices.Contains(invariants, v.Invariant) {
			res.Broke = append(res.Broke, v.Error())
			broke[v.Invariant] = true
		}
	}
	for _, name := range invariants {
		if !broke[name] {
			res.Held = append(res.Held, name)
		}
	}
	return res
}

// agentRun is a process agent's run of case c under o as the invariants
// see it: its records, exit status and final event; hung when it was
// killed at the session bound.
func agentRun(c Case, o Options, out *scenarios.AgentOutcome, hung bool, started time.Time) Run {
	run := Run{Case: c, Limits: o, Records: out.Records, Exit: out.Exit, Elapsed: out.Elapsed, Started: started,
		FinalEvent: scenarios.FinalEvent(out.Stdout, out.LastOutput)}
	switch {
	case hung:
		run.Hung, run.Exit = true, -1
		run.Err = fmt.Errorf("killed after %s: the session bound", o.SessionTimeout)
	case out.Exit != 0:
		run.Failed, run.Err = true, fmt.Errorf("exit %d: %s", out.Exit, out.LastOutput)
	}
	return run
}
