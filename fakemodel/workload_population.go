package fakemodel

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Population is how sessions differ from each other: each session (one
// user's way of working) scales the workload's parameters by factors
// drawn once at its start, then draws its replies, sizes and tool calls
// from the scaled workload as any session does. Each factor is
// log-normal with median 1; a field is the standard deviation of the
// factor's natural logarithm, so 0 (the zero Population) leaves every
// session the workload as it is. `simulate calibrate` fits them from the
// spread between the sources of the logs.
type Population struct {
	// StartContext is the spread of the factor scaling a session's
	// starting context (its system prompt, tools and project notes).
	StartContext float64 `json:"start_context"`
	// Output is the spread of the factor scaling the median output of a
	// session's replies (terse or verbose users and models).
	Output float64 `json:"output"`
	// Replies is the spread of the factor scaling the median number of
	// calls a session's prompts lead to.
	Replies float64 `json:"replies"`
	// Tools is the spread of the factor scaling the tool calls a
	// session's tool-calling replies make beyond the first (tools.mean
	// minus tools.min): its tool mix, one call at a time or many.
	Tools float64 `json:"tools"`
	// ToolResult is the spread of the factor scaling the median of what
	// a session's tool calls add to the context: its context growth.
	ToolResult float64 `json:"tool_result"`
}

// Spread reports whether any factor varies between sessions.
func (p Population) Spread() bool { return p != Population{} }

// sigmas are the population's fields in the order a session draws them,
// with their names.
func (p *Population) sigmas() []struct {
	name  string
	sigma *float64
} {
	return []struct {
		name  string
		sigma *float64
	}{
		{"start_context", &p.StartContext}, {"output", &p.Output}, {"replies", &p.Replies}, {"tools", &p.Tools},
		{"tool_result", &p.ToolResult},
	}
}

// maxPopulationSigma is the largest spread accepted: a factor whose
// 90% range covers a ratio of about 20,000.
const maxPopulationSigma = 3

func (p Population) validate() error {
	for _, s := range p.sigmas() {
		if !(*s.sigma >= 0 && *s.sigma <= maxPopulationSigma) {
			return fmt.Errorf("%s: spread %v must be in [0, %d]", s.name, *s.sigma, maxPopulationSigma)
		}
	}
	return nil
}

// SessionFactors are the factors one session drew from a [Population],
// in the order of its fields.
type SessionFactors struct {
	StartContext, Output, Replies, Tools, ToolResult float64
}

// Factors draws one session's factors from r: one standard normal draw
// per field, in field order, whatever the spreads, so a change of one
// spread leaves the other factors as they were.
func (p Population) Factors(r *rand.Rand) SessionFactors {
	f := func(sigma float64) float64 { return math.Exp(sigma * r.NormFloat64()) }
	return SessionFactors{StartContext: f(p.StartContext), Output: f(p.Output), Replies: f(p.Replies), Tools: f(p.Tools),
		ToolResult: f(p.ToolResult)}
}

// Session is the workload of one session drawn from w's population with
// r: w with its parameters scaled by the drawn factors. A factor of
// exactly 1 (a zero spread) leaves its parameters bit for bit as they
// were. The result has no population of its own.
func (w Workload) Session(r *rand.Rand) Workload {
	f := w.Population.Factors(r)
	s := w
	s.Population = Population{}
	if f.StartContext != 1 {
		s.StartContext = Uniform{Min: scaleInt(w.StartContext.Min, f.StartContext), Max: scaleInt(w.StartContext.Max, f.StartContext)}
	}
	if f.Output != 1 {
		s.Output.Median = w.Output.Median * f.Output
	}
	if f.Replies != 1 {
		s.Replies.Median = w.Replies.Median * f.Replies
	}
	if f.Tools != 1 {
		s.Tools.Mean = float64(w.Tools.Min) + (w.Tools.Mean-float64(w.Tools.Min))*f.Tools
	}
	if f.ToolResult != 1 {
		s.ToolResult.Median = w.ToolResult.Median * f.ToolResult
	}
	return s
}

// scaleInt scales a non-negative count, rounded, kept within the int
// range.
func scaleInt(n int, f float64) int {
	x := math.Round(float64(n) * f)
	if x >= math.MaxInt32 {
		return math.MaxInt32
	}
	return int(x)
}
