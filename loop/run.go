package loop

import (
	"context"
	"fmt"
)

// firstTurns is how many turns the history and the trace first have
// room for: the prompts of the calibration sessions
// (sim/calibration_targets.json) take 12 to 76 model calls, and growing
// copies what was kept so far. A turn adds two messages (the reply and
// its results) and about eventsPerTurn events to a kept trace.
const (
	firstTurns    = 16
	eventsPerTurn = 8
)

// run is one execution of the loop.
type run struct {
	cfg Config
	// p is cfg.Policy (not a copy: the run is allocated once per Run,
	// and a Policy is large)
	p     *Policy
	model ModelInfo
	call  *caller
	trace Trace
	stats Stats
	// ids are the caller's message IDs, which generated IDs skip.
	ids    map[string]bool
	nextID int
	// toolUseIDs are the tool_use ids seen in the run, to reject a reply
	// that reuses one.
	toolUseIDs map[string]bool
	// fellBack is set once the fallback model is in use.
	fellBack bool
	// outputTotal sums the output of every main reply (token budget).
	outputTotal int
	// sizes caches the last history measured.
	sizes sizeCache
	// budgeted is set once the whole history went through the tool-result
	// budget; boundaryScanned once the whole history was searched for a
	// boundary.
	budgeted, boundaryScanned bool
	// microcompacted is set once microcompact has seen the whole history.
	microcompacted bool
	// microFrom is where the next microcompact pass may start.
	microFrom uncleared
	// mainState is the iteration's state while its main request is being
	// sent (Config.OnModelCall).
	mainState *State
	// stuck is set when a seam ignored cancellation and was abandoned.
	stuck *StuckError
	// observerFailed is set once the Observer panicked; it is not called
	// again.
	observerFailed *PanicError
	// validInputs remembers recent valid tool inputs (a ring), checked
	// from the loop's goroutine before any tool of a batch starts.
	validInputs [8]string
	nextValid   int

	// iterStart is the state the iteration started from; rec remembers
	// the history of the last state record.
	iterStart State
	rec       recorder

	// blockLists and idLists hold the blocks and tool_use IDs the run
	// keeps; uses and runs are reused from turn to turn for the tool_use
	// blocks of a reply that has other blocks too and for a batch's calls
	// (nothing keeps them past the turn).
	blockLists chunks[Block]
	idLists    chunks[string]
	uses       []Block
	runs       []toolRun
	// usages hold the replies' usage; changeLists and refLists the
	// transitions' field changes and the state records' message lists,
	// with changes the list a transition's diff is built in (reused).
	usages      chunks[Usage]
	changeLists chunks[FieldChange]
	refLists    chunks[MessageRef]
	changes     []FieldChange

	compactor Compactor
	snipper   Snipper
	micro     Microcompactor
	collapser Collapser
	counter   TokenCounter
	estimator Estimator
}

// Run runs the query loop from messages until a terminal. Every fault met
// while running ends in a terminal recorded in the trace. Run returns an
// error when:
//   - the configuration or the starting history is invalid (see
//     [ValidateHistory]): no result;
//   - the Model ignored cancellation: once ctx is done, Run waits
//     Config.CancelGrace for Stream to return, then abandons the call and
//     returns a [*StuckError] naming the seam, with no result;
//   - the Observer panicked: it is recovered and not called again, the
//     run goes on, and Run returns the result with a [*PanicError].
func Run(ctx context.Context, cfg Config, messages []Message) (*Result, error) {
	if err := cfg.validate(); err != nil {
		return nil, fmt.Errorf("loop: %w", err)
	}
	r := &run{cfg: cfg, model: cfg.Primary, ids: map[string]bool{}, toolUseIDs: map[string]bool{},
		compactor: cfg.Compactor, snipper: cfg.Snipper, micro: cfg.Microcompactor, collapser: cfg.Collapser,
		counter: cfg.Counter, estimator: cfg.Estimator}
	r.p = &r.cfg.Policy
	if r.compactor == nil {
		r.compactor = SummaryCompactor{MaxCalls: r.p.CompactMaxCalls, ReaskMissingTags: r.p.CompactReaskMissingTags,
			DropOldestOnOverflow: r.p.CompactDropOldestOnOverflow, OverflowResends: r.p.CompactOverflowResends,
			OverflowDropsPrompt: r.p.CompactOverflowDropsPrompt}
	}
	if r.snipper == nil {
		r.snipper = OldestSnipper{}
	}
	if r.micro == nil {
		r.micro = KeepRecentMicrocompactor{}
	}
	if r.collapser == nil {
		r.collapser = SpanCollapser{}
	}
	if r.counter == nil {
		r.counter = UsageCounter{}
	}
	if r.estimator == nil {
		r.estimator = CharEstimator{}
	}
	r.call = newCaller(r, cfg.Seed)
	if err := ValidateHistory(messages); err != nil {
		return nil, fmt.Errorf("loop: starting history: %w", err)
	}
	// room for the turns of a typical prompt before the history first
	// grows (firstTurns)
	msgs := make([]Message, len(messages), max(2*len(messages), len(messages)+2*firstTurns))
	for i, m := range messages {
		if m.ID != "" {
			r.ids[m.ID] = true
		}
		for _, b := range m.Blocks {
			if b.Type == BlockToolUse {
				r.toolUseIDs[b.ID] = true
			}
		}
		msgs[i] = m
	}
	for i := range msgs {
		r.prepare(&msgs[i])
	}
	state := State{
		Messages:       msgs,
		ToolUseContext: ToolUseContext{Model: cfg.Primary.Name, Tools: cfg.ToolNames, AgentID: cfg.AgentID},
		TurnCount:      1,
	}
	res := r.loop(ctx, state)
	if r.stuck != nil {
		return nil, fmt.Errorf("loop: %w", r.stuck)
	}
	if r.observerFailed != nil {
		return res, fmt.Errorf("loop: the run went on without its Observer: %w", r.observerFailed)
	}
	return res, nil
}

// prepare gives m an ID and a size if it has none.
func (r *run) prepare(m *Message) {
	if m.ID == "" {
		for {
			r.nextID++
			id := messageID(r.nextID)
			if !r.ids[id] {
				m.ID = id
				break
			}
		}
	}
	if m.Tokens == 0 {
		m.Tokens = r.estimator.Estimate(*m)
	}
}

// newMessage prepares and returns m.
func (r *run) newMessage(m Message) Message {
	r.prepare(&m)
	return m
}

// metaText is a meta user message the loop injects.
func (r *run) metaText(text string) Message {
	return r.newMessage(Message{Role: RoleUser, Meta: true, Blocks: []Block{{Type: BlockText, Text: text}}})
}

// emit hands e to the Observer and keeps it in the trace. When neither
// would see it (Config.DiscardTrace and no Observer, or an Observer
// switched off) it costs nothing: e becomes an Event, which allocates,
// only once something takes it.
func emit[E Event](r *run, e E) {
	if r.listening() {
		r.emitEvent(e)
	}
}

// listening reports whether an event emitted now is kept or observed.
func (r *run) listening() bool {
	return !r.cfg.DiscardTrace || (r.cfg.Observer != nil && r.observerFailed == nil)
}

func (r *run) emitEvent(e Event) {
	if r.cfg.Observer != nil && r.observerFailed == nil {
		r.observe(e)
	}
	if !r.cfg.DiscardTrace {
		if len(r.trace) == cap(r.trace) {
			// doubling: append's growth by a quarter would copy a long
			// trace's events several times over
			t := make(Trace, len(r.trace), max(2*cap(r.trace), eventsPerTurn*firstTurns))
			copy(t, r.trace)
			r.trace = t
		}
		r.trace = append(r.trace, e)
	}
}

// observe hands e to the Observer. A panicking Observer is recovered,
// like every other seam, and not called again: the run goes on, a notice
// in the trace says so, and Run returns the result with an error.
func (r *run) observe(e Event) {
	defer func() {
		if v := recover(); v != nil {
			r.observerFailed = panicError("observer", v).(*PanicError)
			emit(r, Notice{Text: "observer panicked and was switched off: " + r.observerFailed.Value})
		}
	}()
	r.cfg.Observer(e)
}

// finish ends the run.
func (r *run) finish(s State, history []Message, t Terminal, msg string) *Result {
	s.Messages = history
	r.recordState(&s)
	r.settle(&s)
	emit(r, TerminalEvent{Terminal: t, Turn: s.TurnCount, Iterations: r.stats.Iterations, Message: msg})
	return &Result{Terminal: t, State: s, Trace: r.trace, Stats: r.stats}
}

// advance applies transition t to *s in place (the docs/spec.md §3
// table), then the values the transition computed (edit), and records it.
// Every branch advances the state in place: a copy of State, which holds
// pointers, costs a write-barrier flush while the collector marks.
func (r *run) advance(s *State, t Transition, messages []Message, edit ...func(*State)) {
	r.advanceDropping(s, t, messages, "", edit...)
}

// advanceDropping is advance for a continue that discards the reply with
// ID dropped (escalation, malformed tool use, empty reply): the reply never
// enters the history, and the transition event names it.
func (r *run) advanceDropping(s *State, t Transition, messages []Message, dropped string, edit ...func(*State)) {
	s.apply(t)
	s.Messages = messages
	for _, e := range edit {
		e(s)
	}
	if r.listening() {
		r.changes = diffState(r.changes[:0], &r.iterStart, s)
		emit(r, TransitionEvent{Transition: t, Changes: r.changeLists.clone(r.changes), Dropped: dropped})
	}
	r.recordState(s)
}

// apiErrorMessage is the assistant message that shows an error.
func (r *run) apiErrorMessage(text string) Message {
	emit(r, ErrorEmitted{Message: text})
	return r.newMessage(Message{Role: RoleAssistant, APIError: true, Synthetic: true, Model: r.model.Name,
		Blocks: []Block{{Type: BlockText, Text: text}}})
}

// syntheticResults answers every tool_use of uses with a synthetic error
// result, recording each.
func (r *run) syntheticResults(uses []Block, text string) []Block {
	out := r.blockLists.cut(len(uses))[:0]
	for _, u := range uses {
		b := Block{Type: BlockToolResult, ToolUseID: u.ID, Text: text, IsError: true}
		emit(r, ToolResultEvent{ToolUseID: u.ID, Name: u.Name, Synthetic: true, IsError: true, Tokens: blockTokens(b)})
		out = append(out, b)
	}
	return out
}

// resultMessage wraps tool_result blocks in one user message.
func (r *run) resultMessage(blocks []Block, synthetic bool) Message {
	return r.newMessage(Message{Role: RoleUser, Blocks: blocks, Synthetic: synthetic})
}

// join concatenates message lists into a new slice. The paths every turn
// takes (next_turn, recovery, stop hooks, budget) append to the history
// instead: the loop owns it, every holder of an older view of it (a
// request, a hook input) sees only its own length, and appends only ever
// write past the end of the newest history, so growth stays amortised
// O(1) per message.
func join(parts ...[]Message) []Message {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	out := make([]Message, 0, n)
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// afterBoundary returns the messages after the last compact boundary. The
// caller's history may hold a boundary anywhere; after the first
// iteration the loop's own histories hold one only at the front (a
// compaction builds [boundary, summary, tail...]), so only the front is
// looked at.
func (r *run) afterBoundary(msgs []Message) []Message {
	if !r.boundaryScanned {
		r.boundaryScanned = true
		return afterBoundary(msgs)
	}
	if len(msgs) > 0 && msgs[0].CompactBoundary {
		return msgs[1:]
	}
	return msgs
}

// afterBoundary returns the messages after the last compact boundary.
func afterBoundary(msgs []Message) []Message {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].CompactBoundary {
			return msgs[i+1:]
		}
	}
	return msgs
}
