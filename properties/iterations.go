package properties

import "github.com/loopsim/loopsim/loop"

// transitionAt is one transition event and its trace index.
type transitionAt struct {
	index int
	loop.TransitionEvent
}

// transitions returns the trace's transition events with their indices.
func transitions(t loop.Trace) []transitionAt {
	var out []transitionAt
	for i, e := range t {
		if x, ok := e.(loop.TransitionEvent); ok {
			out = append(out, transitionAt{index: i, TransitionEvent: x})
		}
	}
	return out
}

// stretchCounter counts one transition between resets and reports each
// occurrence beyond a bound.
type stretchCounter struct {
	name   string
	count  loop.Transition
	resets []loop.Transition
	bound  int
	// field is the policy field (or rule) the bound comes from.
	field string
}

// check walks the transitions of t and reports every occurrence of
// c.count past c.bound since the last reset.
func (c stretchCounter) check(t loop.Trace) []Violation {
	var out []Violation
	n, since := 0, -1
	for i, e := range t {
		x, ok := e.(loop.TransitionEvent)
		if !ok {
			continue
		}
		switch {
		case x.Transition == c.count:
			n++
			if n > c.bound {
				out = append(out, Violation{Invariant: c.name, Event: i,
					Detail: c.detail(n, since)})
			}
		case containsTransition(c.resets, x.Transition):
			n, since = 0, i
		}
	}
	return out
}

func (c stretchCounter) detail(n, since int) string {
	from := "the start of the run"
	if since >= 0 {
		from = "the reset at event " + itoa(since)
	}
	return string(c.count) + " #" + itoa(n) + " since " + from + "; bound " + c.field + " = " + itoa(c.bound)
}

func containsTransition(ts []loop.Transition, t loop.Transition) bool {
	for _, x := range ts {
		if x == t {
			return true
		}
	}
	return false
}
