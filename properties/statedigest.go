package properties

import (
	"crypto/sha256"
	"encoding/binary"
	"strconv"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/loop"
)

// stateDigest is the hash of the canonical form of everything that
// decides a run's future at one model call (see [ExploreStates] and
// docs/model-checker.md for what is in it and why that is enough).
type stateDigest [sha256.Size]byte

// stateProbe watches one run (the loop's Observer and OnModelCall) and,
// when the model's script runs out, takes the digest of the state at the
// call that found it empty: the state every extension of the script
// starts its first new step from. Besides the loop's state it keeps what
// the invariants remember of the past (monitor), so that two runs that
// hash equal are judged alike by every invariant from then on.
type stateProbe struct {
	call loop.ModelCall
	mon  monitor
	// taken are the starting history's IDs: the loop's generated IDs skip
	// them.
	taken map[string]bool
	// budget: the run has a token budget that the policy acts on, and
	// budgetDone the output total at which it counts as used up: from
	// then on the total (which only grows) and the budget tracker decide
	// nothing.
	budget     bool
	budgetDone float64
	// exactIterations: hash the iterations (see slackOnly in
	// ExploreStates); otherwise iterations holds them apart.
	exactIterations bool
	iterations      int
	hooks           *fakemodel.StopHooks
	fails           *fakemodel.StopFailureHooks
	compact         *fakemodel.Compactor
	digest          stateDigest
	// took: the script ran out and the probe looked; mergeable: the
	// call was a main request, so digest holds its state.
	took, mergeable bool
	err             error
	// w writes the canonical form; its buffers are kept from run to run
	w canonWriter
}

// reset readies p for a new run of an exploration, keeping the buffers
// of its monitor and writer.
func (p *stateProbe) reset(spec probeSpec) {
	kinds, gone, w := p.mon.kinds[:0], p.mon.gone, p.w
	clear(gone)
	*p = stateProbe{taken: spec.taken, exactIterations: spec.exactIterations}
	p.mon.kinds, p.mon.gone = kinds, gone
	p.w = w
}

// monitor is, for each invariant that reads the trace, what it remembers
// of the events so far: the running state of its check at this point.
type monitor struct {
	// recoveries, reactive and escalations are the stretch counters of
	// three_recoveries, one_reactive_compact and escalate_once; last is
	// the last transition (no_double_drain).
	recoveries, reactive, escalations int
	last                              loop.Transition
	// flag and sinceRecord are checkReactiveFlag's: the flag of the last
	// state record and the transition since it.
	flag        bool
	sinceRecord loop.Transition
	// turn is checkTurns' turn count.
	turn int
	// cause, emitted and hooked are checkNoHooksAfterErrors' in the
	// current iteration: a failure that forbids stop hooks, an emitted
	// error, and stop-failure hooks after it.
	cause, emitted, hooked bool
	// kinds are the kinds of the current iteration's events so far.
	kinds []loop.EventKind
	// gone are the IDs a stage or compaction removed, or an event said it
	// dropped (checkNothingLost).
	gone map[string]bool
}

// observe is the loop's Observer: it advances every monitor.
func (p *stateProbe) observe(e loop.Event) {
	m := &p.mon
	if m.turn == 0 {
		m.turn = 1
	}
	if _, ok := e.(loop.IterationStart); ok {
		m.kinds = m.kinds[:0]
		m.cause, m.emitted, m.hooked = false, false, false
	}
	m.kinds = append(m.kinds, e.EventKind())
	switch x := e.(type) {
	case loop.IterationStart:
		m.turn = x.Turn
	case loop.TransitionEvent:
		m.transition(x)
	case loop.StateRecord:
		m.flag, m.sinceRecord = x.HasAttemptedReactiveCompact, ""
	case loop.RequestEvent:
		if x.Purpose == loop.PurposeMain {
			m.cause = false
		}
	case loop.RequestFailed:
		m.cause = m.cause || x.Purpose == loop.PurposeMain
	case loop.Withheld:
		m.cause = m.cause || x.Kind == loop.WithheldPromptTooLong || x.Kind == loop.WithheldMedia
	case loop.ErrorEmitted:
		m.cause, m.emitted, m.hooked = true, true, false
	case loop.StopFailureHook:
		m.hooked = true
	case loop.Stage:
		m.goneAll(x.Removed)
	case loop.Compaction:
		m.goneAll(x.Removed)
	case loop.Fallback:
		m.goneAll([]string{x.Dropped})
	}
}

// transition advances the monitors that count transitions.
func (m *monitor) transition(x loop.TransitionEvent) {
	switch x.Transition {
	case loop.MaxOutputTokensRecovery:
		m.recoveries++
	case loop.ReactiveCompactRetry:
		m.reactive++
	case loop.MaxOutputTokensEscalate:
		m.escalations++
	case loop.NextTurn:
		m.recoveries, m.reactive, m.escalations = 0, 0, 0
	case loop.StopHookBlocking:
		m.recoveries = 0
	case loop.TokenBudgetContinuation:
		m.recoveries, m.reactive = 0, 0
	}
	if _, to, changed, err := turnChange(x.Changes); changed && err == nil {
		m.turn = to
	}
	m.last, m.sinceRecord = x.Transition, x.Transition
	m.goneAll([]string{x.Dropped})
}

func (m *monitor) goneAll(ids []string) {
	for _, id := range ids {
		if id == "" {
			continue
		}
		if m.gone == nil {
			m.gone = map[string]bool{}
		}
		m.gone[id] = true
	}
}

// modelCall is the loop's OnModelCall.
func (p *stateProbe) modelCall(c loop.ModelCall) { p.call = c }

// take computes the digest of the call in progress; it runs inside the
// model's Stream, while the request's messages are still valid. Only a
// main request's state is known whole (a compaction request runs inside
// a compactor whose own progress the loop does not expose): at any other
// the probe marks the run as not mergeable.
func (p *stateProbe) take() {
	p.took = true
	c := p.call
	if c.Request.Purpose != loop.PurposeMain {
		return
	}
	p.mergeable = true
	p.iterations = c.Stats.Iterations
	w := &p.w
	w.reset()
	// the request
	w.str(c.Request.Model)
	w.ints(c.Request.MaxTokens, c.Request.InputTokens)
	w.strs(c.Request.Tools)
	w.bools(c.Request.NonStreaming)
	w.messages(c.Request.Messages)
	// the retry layer (the attempt's number only labels events)
	w.ints(c.Retries, c.Overloads, c.Resends, c.ThinkingResends, c.StreamRetries)
	// the state, with the budget tracker and the output total only while
	// a token budget can still continue the run; of the state the
	// iteration started from, only what its transition's diff tells an
	// invariant (the turn): the diff is all it is read for
	live := p.budget && float64(c.OutputTotal) < p.budgetDone
	w.state(c.State, live)
	w.ints(c.Iteration.TurnCount)
	w.bools(live)
	if live {
		w.ints(c.OutputTotal)
	}
	// the iterations, where an absolute limit can read them (otherwise
	// the explorer compares their slack against the script's length)
	w.bools(p.exactIterations)
	if p.exactIterations {
		w.ints(c.Stats.Iterations)
	}
	w.bools(c.FellBack)
	// the fakes' cursors, where they still decide
	w.ints(hooksCursor(p.hooks), failsCursor(p.fails), compactCursor(p.compact))
	// the invariants' memory
	m := &p.mon
	w.ints(m.recoveries, m.reactive, m.escalations, m.turn)
	w.str(string(m.last))
	w.str(string(m.sinceRecord))
	w.bools(m.flag, m.cause, m.emitted, m.hooked)
	w.ints(len(m.kinds))
	for _, k := range m.kinds {
		w.str(string(k))
	}
	p.lostSummary(w, c)
	p.digest = sha256.Sum256(w.buf)
}

// lostSummary writes what checkNothingLost will make of the messages the
// loop made so far, in the order of their numbers: each one still in a
// history by its canonical name, one mark for every run of messages
// neither in a history nor accounted for (removed or dropped), and
// whether such a message comes before an accounted one (then the check
// fails whatever follows). Accounted messages are otherwise left out:
// once accounted, always accounted.
func (p *stateProbe) lostSummary(w *canonWriter, c loop.ModelCall) {
	doomed, open := false, false
	id := make([]byte, 0, 24)
	for n := 1; n <= c.MessagesMade; n++ {
		id = strconv.AppendInt(append(id[:0], 'm'), int64(n), 10)
		if p.taken[string(id)] {
			continue
		}
		name, present := w.names[string(id)]
		switch {
		case present:
			w.ints(1, name)
			open = false
		case p.mon.gone[string(id)]:
			doomed = doomed || open
		case !open:
			w.ints(2)
			open = true
		}
	}
	w.bools(doomed)
}

// outcomesCursor is how many calls a fake with these outcomes has
// answered, counted only up to the call from which the last outcome
// answers every later one: past it every call is alike. times reads an
// outcome's Times (each fake has its own outcome type).
func outcomesCursor[O any](calls int, outcomes []O, times func(O) int) int {
	bound := 0
	for _, o := range outcomes[:max(len(outcomes)-1, 0)] {
		bound += max(times(o), 1)
	}
	return min(calls, bound)
}

func hooksCursor(h *fakemodel.StopHooks) int {
	if h == nil {
		return -1
	}
	return outcomesCursor(len(h.Inputs), h.Outcomes, func(o fakemodel.StopOutcome) int { return o.Times })
}

func failsCursor(h *fakemodel.StopFailureHooks) int {
	if h == nil {
		return -1
	}
	return outcomesCursor(len(h.Inputs), h.Outcomes, func(o fakemodel.StopFailureOutcome) int { return o.Times })
}

func compactCursor(c *fakemodel.Compactor) int {
	if c == nil {
		return -1
	}
	return outcomesCursor(len(c.Requests), c.Outcomes, func(o fakemodel.CompactOutcome) int { return o.Times })
}

// canonWriter writes a state's canonical bytes: length-prefixed fields
// (no two different sequences of fields write the same bytes), and every
// message or tool-use ID replaced by the order of its first appearance.
type canonWriter struct {
	buf   []byte
	names map[string]int
}

// reset empties w, keeping its buffers.
func (w *canonWriter) reset() {
	w.buf = w.buf[:0]
	if w.names == nil {
		w.names = map[string]int{}
	}
	clear(w.names)
}

func (w *canonWriter) ints(ns ...int) {
	for _, n := range ns {
		w.buf = binary.AppendVarint(w.buf, int64(n))
	}
}

func (w *canonWriter) bools(bs ...bool) {
	for _, b := range bs {
		if b {
			w.buf = append(w.buf, 1)
		} else {
			w.buf = append(w.buf, 0)
		}
	}
}

func (w *canonWriter) str(s string) {
	w.ints(len(s))
	w.buf = append(w.buf, s...)
}

func (w *canonWriter) strs(ss []string) {
	w.ints(len(ss))
	for _, s := range ss {
		w.str(s)
	}
}

// id writes an ID as its canonical name: 0 for none, else its rank of
// first appearance.
func (w *canonWriter) id(s string) {
	if s == "" {
		w.ints(0)
		return
	}
	n, ok := w.names[s]
	if !ok {
		n = len(w.names) + 1
		w.names[s] = n
	}
	w.ints(n)
}

func (w *canonWriter) messages(msgs []loop.Message) {
	w.ints(len(msgs))
	for i := range msgs {
		w.message(&msgs[i])
	}
}

func (w *canonWriter) message(m *loop.Message) {
	w.id(m.ID)
	w.str(string(m.Role))
	w.ints(len(m.Blocks))
	for i := range m.Blocks {
		b := &m.Blocks[i]
		w.str(string(b.Type))
		w.str(b.Text)
		w.id(b.ID)
		w.str(b.Name)
		w.str(b.Input)
		w.id(b.ToolUseID)
		w.bools(b.IsError)
		w.ints(b.Tokens)
	}
	w.ints(m.Tokens)
	w.bools(m.Usage != nil)
	if u := m.Usage; u != nil {
		w.ints(u.InputTokens, u.OutputTokens, u.CacheReadInputTokens, u.CacheCreationInputTokens)
	}
	w.str(m.Model)
	w.str(string(m.StopReason))
	w.bools(m.Meta, m.APIError, m.CompactBoundary, m.CompactSummary, m.Synthetic)
}

// state writes s; budget: with its budget tracker.
func (w *canonWriter) state(s loop.State, budget bool) {
	w.messages(s.Messages)
	w.str(s.ToolUseContext.Model)
	w.strs(s.ToolUseContext.Tools)
	w.str(s.ToolUseContext.AgentID)
	w.bools(s.AutoCompactTracking != nil)
	if t := s.AutoCompactTracking; t != nil {
		w.bools(t.Compacted)
		w.str(t.TurnID)
		w.ints(t.TurnCounter, t.ConsecutiveFailures, t.RepliesSinceCompact, t.RapidRefills)
	}
	w.ints(s.MaxOutputTokensRecoveryCount, s.MaxOutputTokensOverride, s.TurnCount,
		s.ReactiveCompactsInRow, s.StopHookBlocksInRow, s.MalformedToolUseRetries, s.EmptyReplyRetries)
	w.bools(s.HasAttemptedReactiveCompact, s.PendingToolUseSummary != nil, s.StopHookActive, s.EscalatedThisStretch)
	w.str(string(s.Transition))
	w.ints(len(s.StagedCollapses))
	for _, sp := range s.StagedCollapses {
		w.id(sp.First)
		w.id(sp.Last)
	}
	if budget {
		w.ints(s.Budget.Continuations, s.Budget.LastDelta, s.Budget.LastTotal)
	}
}
