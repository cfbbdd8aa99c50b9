package wirecheck

import (
	"fmt"
	"strings"
	"time"

	"github.com/loopsim/loopsim/fakemodel"
	"pgregory.net/rapid"
)

// Case is one drawn case: the API it is served on and the schedule the
// server plays, one step a main request (compaction requests are
// answered with a summary).
type Case struct {
	// API is the API the session speaks.
	API string
	// Steps is the schedule: each step answers max(Repeat, 1) requests,
	// the last one every request from then on when it repeats forever.
	Steps []fakemodel.Step
}

// Faults is the number of steps that fail or misbehave: every step but a
// plain reply (a step that repeats counts once).
func (c Case) Faults() int {
	n := 0
	for _, s := range c.Steps {
		if s.Kind != "" && s.Kind != fakemodel.Reply {
			n++
		}
	}
	return n
}

// StepFor is the step that answered the n-th main request the model
// played (from 0), and whether there is one.
func (c Case) StepFor(n int) (fakemodel.Step, bool) {
	for _, s := range c.Steps {
		if s.Repeat == fakemodel.Forever {
			return s, true
		}
		k := max(s.Repeat, 1)
		if n < k {
			return s, true
		}
		n -= k
	}
	return fakemodel.Step{}, false
}

// String is the case in one line a step: the API, then each step as the
// scenario file writes it.
func (c Case) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "api %s, %d step(s), %d fault(s):\n", c.API, len(c.Steps), c.Faults())
	for _, s := range c.Steps {
		fmt.Fprintf(&b, "  - %s\n", stepJSON(s))
	}
	return b.String()
}

// GoString keeps rapid's log of a draw to the case.
func (c Case) GoString() string { return c.String() }

// the schedule's step choices, in the order rapid shrinks toward (a tool
// reply first: a fault shrinks into one).
const (
	choiceToolReply = iota
	choiceRateLimited
	choiceServerError
	choiceOverloaded
	choiceDropped
	choiceStreamError
	choicePromptTooLong
	choiceBigInput
	choiceTruncated
	choiceEmpty
	choiceInvalid
	choiceCount
)

// caseGen draws cases for o (defaults filled): up to o.MaxSteps steps,
// faults repeated once, up to, at and past the agent's retry budget, big
// inputs at the compaction edge of the window, retry-afters from
// o.RetryAfters; the schedule ends with the answer that completes the
// session, or with its last fault repeating forever.
func caseGen(o Options) *rapid.Generator[Case] {
	repeats := []int{0, 2, o.MaxRetries, o.MaxRetries + 1, o.MaxRetries + 2}
	step := rapid.Custom(func(t *rapid.T) fakemodel.Step {
		s := drawStep(t, o, rapid.IntRange(0, choiceCount-1).Draw(t, "step"))
		if s.Kind != "" && rapid.Bool().Draw(t, "repeated") {
			s.Repeat = rapid.SampledFrom(repeats).Draw(t, "repeat")
		}
		return s
	})
	return rapid.Custom(func(t *rapid.T) Case {
		// a slice rapid shrinks by dropping any one step, not only the last
		c := Case{API: rapid.SampledFrom(o.APIs).Draw(t, "api"),
			Steps: rapid.SliceOfN(step, 0, o.MaxSteps-1).Draw(t, "steps")}
		last := len(c.Steps) - 1
		if last >= 0 && c.Steps[last].Kind != "" && rapid.Bool().Draw(t, "persistent fault") {
			c.Steps[last].Repeat = fakemodel.Forever
			return c
		}
		// the completing answer repeats: a side request after it is answered
		// (and breaks no-request-after-end), not refused by a spent script
		c.Steps = append(c.Steps, fakemodel.Step{Text: "Done: the test passes.", Repeat: fakemodel.Forever})
		return c
	})
}

// drawStep draws the step of one choice.
func drawStep(t *rapid.T, o Options, choice int) fakemodel.Step {
	window := o.Model.ContextWindow
	switch choice {
	case choiceRateLimited:
		ra := rapid.SampledFrom(o.RetryAfters).Draw(t, "retry after")
		return fakemodel.Step{Kind: fakemodel.RateLimited, RetryAfterMS: int(ra / time.Millisecond)}
	case choiceServerError:
		return fakemodel.Step{Kind: fakemodel.ServerError, Status: rapid.SampledFrom([]int{0, 503}).Draw(t, "status")}
	case choiceOverloaded:
		return fakemodel.Step{Kind: fakemodel.Overloaded}
	case choiceDropped:
		return fakemodel.Step{Kind: fakemodel.ConnectionDropped}
	case choiceStreamError:
		return fakemodel.Step{Kind: fakemodel.StreamError, After: rapid.IntRange(0, 1).Draw(t, "after")}
	case choicePromptTooLong:
		return fakemodel.Step{Kind: fakemodel.PromptTooLong}
	case choiceBigInput:
		// a tool reply reporting an input at the edge of the window: an
		// agent that compacts by usage compacts next
		s := toolReply(t, o)
		s.InputTokens = window - rapid.SampledFrom([]int{1, window / 20}).Draw(t, "room left")
		return s
	case choiceTruncated:
		return fakemodel.Step{Kind: fakemodel.Truncated, Text: "The fix is"}
	case choiceEmpty:
		return fakemodel.Step{Kind: fakemodel.Empty}
	case choiceInvalid:
		return fakemodel.Step{Kind: fakemodel.InvalidRequest}
	}
	return toolReply(t, o)
}

// toolReply draws a reply calling one or two of the tools.
func toolReply(t *rapid.T, o Options) fakemodel.Step {
	n := rapid.IntRange(1, 2).Draw(t, "tool calls")
	s := fakemodel.Step{Text: "Let me look."}
	for range n {
		s.ToolUses = append(s.ToolUses, fakemodel.ToolUse{Name: rapid.SampledFrom(o.Tools).Draw(t, "tool"), Input: `{"path":"main.go"}`})
	}
	return s
}
