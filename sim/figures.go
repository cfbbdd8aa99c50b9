package sim

import "slices"

// Sample is a distribution measured for calibration: a histogram with the
// exact sum beside it for the mean, and the values themselves for
// quantile-quantile plots and distances between distributions.
type Sample struct {
	Hist   Histogram
	Sum    int64
	Values []int64
}

// Add counts v.
func (s *Sample) Add(v int64) {
	s.Hist.Add(v)
	s.Sum += v
	s.Values = append(s.Values, v)
}

// Merge adds o's values to s.
func (s *Sample) Merge(o *Sample) {
	s.Hist.Merge(&o.Hist)
	s.Sum += o.Sum
	s.Values = append(s.Values, o.Values...)
}

// Sorted returns the values in ascending order, as float64.
func (s *Sample) Sorted() []float64 {
	out := make([]float64, len(s.Values))
	for i, v := range s.Values {
		out[i] = float64(v)
	}
	slices.Sort(out)
	return out
}

// N is the number of values.
func (s *Sample) N() int { return int(s.Hist.Count()) }

// Mean is the values' mean, 0 for none.
func (s *Sample) Mean() float64 {
	if s.N() == 0 {
		return 0
	}
	return float64(s.Sum) / float64(s.N())
}

// Quantile is the q-quantile of the values.
func (s *Sample) Quantile(q float64) float64 { return float64(s.Hist.Quantile(q)) }

// Figures are the calibration figures of a set of sessions, real
// (transcripts) or simulated, measured the same way: per API call, as
// the transcripts record calls (successful main requests only).
type Figures struct {
	// Sessions counts the transcripts or episodes.
	Sessions int
	// StartContext is the context of each session's first call.
	StartContext Sample
	// Growth is the context growth from one call to the next, where no
	// compaction came between and the context did not shrink.
	Growth Sample
	// Output is the output of each call reporting more than 5 tokens
	// (the transcripts' smaller figures are streaming snapshots).
	Output Sample
	// Tools is the number of tool_use blocks of each call.
	Tools Sample
	// CallsPerPrompt is the number of calls one user prompt led to (an
	// episode's main replies).
	CallsPerPrompt Sample
	// CompactAt is the context at which each auto-compaction fired.
	CompactAt Sample
	// AfterCompact is the context of the first call after a compaction.
	AfterCompact Sample
}

// Merge adds o's figures to f.
func (f *Figures) Merge(o *Figures) {
	f.Sessions += o.Sessions
	for i, s := range f.samples() {
		s.Merge(o.samples()[i])
	}
}

func (f *Figures) samples() []*Sample {
	return []*Sample{&f.StartContext, &f.Growth, &f.Output, &f.Tools, &f.CallsPerPrompt, &f.CompactAt, &f.AfterCompact}
}

// calls feeds the per-call figures from a sequence of calls, as both the
// transcript reader and the simulation see them.
type calls struct {
	f         *Figures
	n         int  // calls so far
	prev      int  // context of the previous call
	compacted bool // a compaction came after the previous call
	prompt    int  // calls since the last user prompt
}

// call records one successful call.
func (c *calls) call(context, output, tools int) {
	switch {
	case c.n == 0:
		c.f.StartContext.Add(int64(context))
	case c.compacted:
		c.f.AfterCompact.Add(int64(context))
	case context >= c.prev:
		c.f.Growth.Add(int64(context - c.prev))
	}
	if output > 5 {
		c.f.Output.Add(int64(output))
	}
	c.f.Tools.Add(int64(tools))
	c.n++
	c.prompt++
	c.prev, c.compacted = context, false
}

// compaction records a compaction; auto ones at context preTokens.
func (c *calls) compaction(auto bool, preTokens int) {
	if auto {
		c.f.CompactAt.Add(int64(preTokens))
	}
	c.compacted = true
}

// userPrompt records a new user prompt.
func (c *calls) userPrompt() {
	if c.prompt > 0 {
		c.f.CallsPerPrompt.Add(int64(c.prompt))
	}
	c.prompt = 0
}

// end ends a session.
func (c *calls) end() {
	c.userPrompt()
	c.f.sessionEnded()
}

// sessionEnded counts a session in f.
func (f *Figures) sessionEnded() { f.Sessions++ }
