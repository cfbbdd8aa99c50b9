package reports

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"github.com/loopsim/loopsim/loop"
	"github.com/loopsim/loopsim/scenarios"
)

// Behaviour is the scenario library as one commit's loop played it:
// what a record carries so that a comparison across commits can say
// which scenario changed, without the other commit's code.
type Behaviour struct {
	// Scenarios are the library's scenarios in library order.
	Scenarios []ScenarioRun `json:"scenarios"`
}

// ScenarioRun is one scenario's run.
type ScenarioRun struct {
	// Name and File name the scenario.
	Name string `json:"name"`
	File string `json:"file"`
	// Skip is why the scenario is not run (it shows a known loop bug);
	// a skipped scenario has nothing else.
	Skip string `json:"skip,omitempty"`
	// Verdict is pass, fail (an expectation unmet), skip or error (the
	// run could not be judged).
	Verdict string `json:"verdict"`
	// Error is why the run could not be judged.
	Error string `json:"error,omitempty"`
	// Terminal is how the run ended; empty when it halted.
	Terminal loop.Terminal `json:"terminal,omitempty"`
	// Halted is set when it reached the iteration limit.
	Halted bool `json:"halted,omitempty"`
	// Transitions are the continue transitions, in order.
	Transitions []loop.Transition `json:"transitions,omitempty"`
	// Requests counts the requests sent.
	Requests int `json:"requests"`
	// Violated names the invariants broken, sorted.
	Violated []string `json:"violated,omitempty"`
	// Digest is the SHA-256 of the trace as JSON Lines.
	Digest string `json:"digest,omitempty"`
	// Trace is the trace as JSON Lines.
	Trace string `json:"trace,omitempty"`
}

// The verdicts of a scenario run.
const (
	VerdictPass  = "pass"
	VerdictFail  = "fail"
	VerdictSkip  = "skip"
	VerdictError = "error"
)

// PlayLibrary runs every scenario of the built-in library but the
// skipped ones and returns what each did.
func PlayLibrary(ctx context.Context) (*Behaviour, error) {
	list, err := scenarios.Library()
	if err != nil {
		return nil, fmt.Errorf("scenario library: %w", err)
	}
	return Play(ctx, list)
}

// Play runs the scenarios of list but the skipped ones and returns what
// each did.
func Play(ctx context.Context, list []*scenarios.Scenario) (*Behaviour, error) {
	b := &Behaviour{}
	for _, s := range list {
		run := ScenarioRun{Name: s.Name, File: s.File}
		if s.Skip != "" {
			run.Verdict, run.Skip = VerdictSkip, s.Skip
			b.Scenarios = append(b.Scenarios, run)
			continue
		}
		out, err := scenarios.Run(ctx, s)
		if err != nil {
			if ctx.Err() != nil {
				return nil, fmt.Errorf("scenario %s: %w", s.Name, ctx.Err())
			}
			run.Verdict, run.Error = VerdictError, err.Error()
			b.Scenarios = append(b.Scenarios, run)
			continue
		}
		run.Verdict = VerdictFail
		if out.Passed() {
			run.Verdict = VerdictPass
		}
		res := out.Result
		run.Terminal, run.Halted, run.Transitions, run.Violated = res.Terminal, res.Halted, res.Trace.Transitions(), out.Got.Violated
		run.Requests = res.Stats.Requests
		var buf bytes.Buffer
		if err := res.Trace.WriteJSONL(&buf); err != nil {
			return nil, fmt.Errorf("scenario %s: trace: %w", s.Name, err)
		}
		sum := sha256.Sum256(buf.Bytes())
		run.Digest, run.Trace = hex.EncodeToString(sum[:]), buf.String()
		b.Scenarios = append(b.Scenarios, run)
	}
	return b, nil
}

// ScenarioChange is a scenario that behaves differently in the
// candidate.
type ScenarioChange struct {
	// Name names the scenario.
	Name string `json:"name"`
	// What lists what changed: added, removed, verdict, terminal,
	// transitions, requests, violations, trace.
	What []string `json:"what"`
	// Base and Candidate are the verdicts ("" when absent).
	Base      string `json:"base_verdict"`
	Candidate string `json:"candidate_verdict"`
	// Diff shows the change, "-" base and "+" candidate: terminal,
	// transitions, requests and invariants, then the first lines where
	// the traces part.
	Diff string `json:"diff,omitempty"`
}

// CompareBehaviour lists the scenarios whose verdict, terminal,
// transitions, requests, violations or trace differ between base and
// candidate, in the candidate's order then the ones it lost.
func CompareBehaviour(base, cand *Behaviour) []ScenarioChange {
	byName := map[string]*ScenarioRun{}
	for i := range base.Scenarios {
		byName[base.Scenarios[i].Name] = &base.Scenarios[i]
	}
	var out []ScenarioChange
	seen := map[string]bool{}
	for i := range cand.Scenarios {
		c := &cand.Scenarios[i]
		seen[c.Name] = true
		b := byName[c.Name]
		if b == nil {
			out = append(out, ScenarioChange{Name: c.Name, What: []string{"added"}, Candidate: c.Verdict})
			continue
		}
		if ch, ok := changeOf(b, c); ok {
			out = append(out, ch)
		}
	}
	for _, b := range base.Scenarios {
		if !seen[b.Name] {
			out = append(out, ScenarioChange{Name: b.Name, What: []string{"removed"}, Base: b.Verdict})
		}
	}
	return out
}

func changeOf(b, c *ScenarioRun) (ScenarioChange, bool) {
	ch := ScenarioChange{Name: c.Name, Base: b.Verdict, Candidate: c.Verdict}
	if b.Verdict != c.Verdict {
		ch.What = append(ch.What, "verdict")
	}
	if b.Terminal != c.Terminal || b.Halted != c.Halted {
		ch.What = append(ch.What, "terminal")
	}
	if !slices.Equal(b.Transitions, c.Transitions) {
		ch.What = append(ch.What, "transitions")
	}
	if b.Requests != c.Requests {
		ch.What = append(ch.What, "requests")
	}
	if !slices.Equal(b.Violated, c.Violated) {
		ch.What = append(ch.What, "violations")
	}
	if b.Digest != c.Digest {
		ch.What = append(ch.What, "trace")
	}
	if len(ch.What) == 0 {
		return ch, false
	}
	ch.Diff = fieldDiff(b, c)
	if b.Digest != c.Digest {
		ch.Diff += traceDiff(b.Trace, c.Trace)
	}
	return ch, true
}

// fieldDiff shows the observed fields that differ, "-" base, "+"
// candidate. (go-cmp's diff is deliberately unstable; a report is
// compared as a whole.)
func fieldDiff(b, c *ScenarioRun) string {
	var sb strings.Builder
	show := func(name, x, y string) {
		if x != y {
			fmt.Fprintf(&sb, "- %s: %s\n+ %s: %s\n", name, x, name, y)
		}
	}
	end := func(r *ScenarioRun) string {
		if r.Halted {
			return "halted"
		}
		return string(r.Terminal)
	}
	list := func(ts []loop.Transition) string {
		parts := make([]string, len(ts))
		for i, t := range ts {
			parts[i] = string(t)
		}
		return "[" + strings.Join(parts, " ") + "]"
	}
	show("terminal", end(b), end(c))
	show("transitions", list(b.Transitions), list(c.Transitions))
	show("requests", fmt.Sprint(b.Requests), fmt.Sprint(c.Requests))
	show("violated", "["+strings.Join(b.Violated, " ")+"]", "["+strings.Join(c.Violated, " ")+"]")
	return sb.String()
}

// traceContext is how many lines a trace diff shows from where the
// traces part.
const traceContext = 3

// traceDiff shows where two traces (JSON Lines) first differ: the last
// common event and a few lines of each from there.
func traceDiff(base, cand string) string {
	bl, cl := strings.Split(strings.TrimSuffix(base, "\n"), "\n"), strings.Split(strings.TrimSuffix(cand, "\n"), "\n")
	i := 0
	for i < len(bl) && i < len(cl) && bl[i] == cl[i] {
		i++
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "trace: %d events -> %d events, first difference at event %d\n", len(bl), len(cl), i)
	if i > 0 {
		fmt.Fprintf(&sb, "  %s\n", bl[i-1])
	}
	for _, l := range bl[i:min(len(bl), i+traceContext)] {
		fmt.Fprintf(&sb, "- %s\n", l)
	}
	for _, l := range cl[i:min(len(cl), i+traceContext)] {
		fmt.Fprintf(&sb, "+ %s\n", l)
	}
	return sb.String()
}
