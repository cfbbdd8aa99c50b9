package scenarios

import (
	"fmt"
	"slices"
	"strings"

	"github.com/loopsim/loopsim/fakemodel/wire"
)

// Strip writes a sequence of entries (request labels, transitions) the
// way a person reads one: each run of the same entry once, with its
// count, "M:500 ×30 M:text"; "(none)" for an empty sequence.
func Strip(entries []string) string {
	if len(entries) == 0 {
		return "(none)"
	}
	var parts []string
	for i := 0; i < len(entries); {
		j := i
		for j < len(entries) && entries[j] == entries[i] {
			j++
		}
		if n := j - i; n > 1 {
			parts = append(parts, fmt.Sprintf("%s ×%d", entries[i], n))
		} else {
			parts = append(parts, entries[i])
		}
		i = j
	}
	return strings.Join(parts, " ")
}

// diffWriter collects how a run departed from an expectation, one
// expectation (named by its path in the scenario file) at a time: the
// expected value against what happened, sequences as strips.
type diffWriter struct{ b strings.Builder }

// String is every difference written, empty when there is none.
func (d *diffWriter) String() string { return d.b.String() }

// scalar compares one value.
func (d *diffWriter) scalar(path string, want, got any) {
	if want != got {
		fmt.Fprintf(&d.b, "%s: want %v, got %v\n", path, want, got)
	}
}

// sequence compares two sequences, shown as strips, and says where they
// first part.
func (d *diffWriter) sequence(path string, want, got []string) {
	if slices.Equal(want, got) {
		return
	}
	fmt.Fprintf(&d.b, "%s:\n  want %s\n  got  %s\n", path, Strip(want), Strip(got))
	i := 0
	for i < len(want) && i < len(got) && want[i] == got[i] {
		i++
	}
	entry := func(s []string) string {
		if i < len(s) {
			return s[i]
		}
		return "(the end)"
	}
	fmt.Fprintf(&d.b, "  from entry %d of %d (%d wanted): want %s, got %s\n", i+1, len(got), len(want), entry(want), entry(got))
}

// counters compares the counters named in want, in table order.
func (d *diffWriter) counters(want, got map[string]int) {
	for _, c := range Counters {
		w, named := want[c.Name]
		if named && got[c.Name] != w {
			fmt.Fprintf(&d.b, "expect.counters.%s: want %d, got %d\n", c.Name, w, got[c.Name])
		}
	}
}

// set compares two lists whose order does not matter (sorted by the
// caller).
func (d *diffWriter) set(path string, want, got []string) {
	if !slices.Equal(want, got) {
		fmt.Fprintf(&d.b, "%s: want [%s], got [%s]\n", path, strings.Join(want, ", "), strings.Join(got, ", "))
	}
}

// unexpected lists what should not have happened at all.
func (d *diffWriter) unexpected(what string, lines []string) {
	if len(lines) == 0 {
		return
	}
	fmt.Fprintf(&d.b, "%s (want none):\n", what)
	for _, l := range lines {
		fmt.Fprintf(&d.b, "  %s\n", l)
	}
}

// Mark is the kind of verdict a foreign agent's run gets: it says what
// was compared and how it came out.
type Mark string

// The marks of [AgentOutcome.Mark].
const (
	// MarkPass: the scenario expects something the wire shows
	// ([AgentOutcome.Compared]), it was compared, and the agent did it.
	MarkPass Mark = "pass"
	// MarkFail: what was compared differed, a request broke the API's
	// rules, or the scenario's script ran out or was not used up.
	MarkFail Mark = "fail"
	// MarkNothingExpected: the agent ran and kept the API's rules, but
	// the scenario expects nothing the wire shows (its expectations are
	// the loop's own state, or marked loop_only): nothing was compared.
	MarkNothingExpected Mark = "nothing expected"
	// MarkNotApplied: a policy override of the scenario did not reach the
	// agent ([AgentOutcome.NotApplied]), so the run shows the agent at its
	// own setting and the scenario does not judge it; what the comparison
	// found is reported beside. A request that broke the API's rules is
	// still a [MarkFail]: those rules hold whatever the policy.
	MarkNotApplied Mark = "not applied"
)

// Mark is the run's verdict kind.
func (o *AgentOutcome) Mark() Mark {
	switch {
	case len(o.Got.Rejected) > 0:
		return MarkFail
	case len(o.NotApplied) > 0:
		return MarkNotApplied
	case !o.Passed():
		return MarkFail
	case len(o.Compared()) == 0:
		return MarkNothingExpected
	}
	return MarkPass
}

// Compared names, by their paths in the scenario file, the expectations
// the run was compared on: expect.wire's requests (or the entry of
// expect.wire.api for the agent's API), result and exit, and each counter
// of expect.counters the wire shows, but those expect.loop_only names.
// Empty: nothing the scenario expects could be compared.
func (o *AgentOutcome) Compared() []string {
	s := o.Scenario
	if s == nil {
		return nil
	}
	var out []string
	e := s.Expect
	if e.Wire != nil && !slices.Contains(e.LoopOnly, LoopOnlyWire) {
		out = append(out, s.requestsPath(o.Records))
		if e.Wire.Result != "" {
			out = append(out, "expect.wire.result")
		}
		if e.Wire.Exit != nil {
			out = append(out, "expect.wire.exit")
		}
	}
	for _, name := range s.wireCounters() {
		out = append(out, "expect.counters."+name)
	}
	return out
}

// NotCompared names the expectations the run was not compared on, each
// with why: the loop's own (not on the wire: terminal, transitions, a
// counter the wire does not show, violated) or kept from an agent by
// expect.loop_only.
func (o *AgentOutcome) NotCompared() []string {
	s := o.Scenario
	if s == nil {
		return nil
	}
	e := s.Expect
	var wireless, loopOnly []string
	switch {
	case e.Halted:
		wireless = append(wireless, "expect.halted")
	case e.Terminal != "":
		wireless = append(wireless, "expect.terminal")
	}
	if len(e.Transitions) > 0 {
		wireless = append(wireless, "expect.transitions")
	}
	if len(e.Violated) > 0 {
		wireless = append(wireless, "expect.violated")
	}
	for _, c := range Counters {
		if _, named := e.Counters[c.Name]; !named {
			continue
		}
		switch {
		case c.OnWire == nil:
			wireless = append(wireless, "expect.counters."+c.Name)
		case slices.Contains(e.LoopOnly, c.Name):
			loopOnly = append(loopOnly, "expect.counters."+c.Name)
		}
	}
	if e.Wire != nil && slices.Contains(e.LoopOnly, LoopOnlyWire) {
		loopOnly = append(loopOnly, "expect.wire")
	}
	var out []string
	if len(wireless) > 0 {
		out = append(out, strings.Join(wireless, ", ")+" (the loop's own: not on the wire)")
	}
	if len(loopOnly) > 0 {
		out = append(out, strings.Join(loopOnly, ", ")+" (loop_only)")
	}
	return out
}

// wireCounters are the counters of expect.counters compared for an
// agent: those the wire shows, but those expect.loop_only names, in table
// order.
func (s *Scenario) wireCounters() []string {
	var out []string
	for _, c := range Counters {
		if _, named := s.Expect.Counters[c.Name]; named && c.OnWire != nil && !slices.Contains(s.Expect.LoopOnly, c.Name) {
			out = append(out, c.Name)
		}
	}
	return out
}

// requestsPath names the request sequence an agent whose requests are
// recs is compared with: expect.wire.api.API when the file writes one for
// its API, else expect.wire.requests.
func (s *Scenario) requestsPath(recs []wire.Record) string {
	if len(recs) > 0 {
		if _, ok := s.wireByAPI[recs[0].API]; ok {
			return "expect.wire.api." + recs[0].API
		}
	}
	return "expect.wire.requests"
}
