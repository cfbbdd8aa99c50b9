package sim

import (
	"context"
	"fmt"

	"github.com/loopsim/loopsim/loop"
)

// Episode is what one simulated episode measured.
type Episode struct {
	// Index is the episode's number in its simulation, from 0.
	Index int `json:"index"`
	// Seed replays the episode (see [Replay]).
	Seed uint64 `json:"seed"`
	// Terminal is how it ended; empty when it halted.
	Terminal loop.Terminal `json:"terminal,omitempty"`
	// Halted is set when it reached the iteration limit without ending.
	Halted bool `json:"halted,omitempty"`
	// AfterAPIError is set when it ended completed after an API error
	// (the seed's path: the error is shown, the stop-failure hooks run and
	// the loop returns completed); it counts as a failure.
	AfterAPIError bool `json:"after_api_error,omitempty"`
	// Values are the metrics, indexed by [Metric].
	Values [numMetrics]int64 `json:"-"`
	// Violations are the invariants it broke, when checked.
	Violations []Violation `json:"violations,omitempty"`
}

// Value is the episode's value of metric m.
func (e *Episode) Value(m Metric) int64 { return e.Values[m] }

// Failed reports whether the episode ended in failure: it halted, its
// terminal is one of [FailureTerminals], or it completed after an API
// error.
func (e *Episode) Failed() bool { return e.Halted || IsFailure(e.Terminal) || e.AfterAPIError }

// FailureTerminals are the terminals that count as a failure of the
// session: the loop gave up on an error or a limit. The others
// (completed, max_turns, the aborts and the hooks' stops) end where the
// user, a hook or the caller's turn cap said.
var FailureTerminals = []loop.Terminal{
	loop.BlockingLimit, loop.ModelError, loop.ImageError, loop.PromptTooLong, loop.APIError,
	loop.RapidRefillBreaker, loop.MalformedToolUseExhausted,
}

// IsFailure reports whether t is one of [FailureTerminals].
func IsFailure(t loop.Terminal) bool {
	for _, f := range FailureTerminals {
		if f == t {
			return true
		}
	}
	return false
}

// toolNames are offered to the model; the workload calls these.
var toolNames = []string{"Read", "Grep", "Edit", "Bash"}

// play runs the episode with seed under s. observe, if not nil, sees
// every event; keepTrace keeps the trace in the result. The returned
// messages are the starting history.
func play(s Setting, seed uint64, observe func(loop.Event), keepTrace bool) (*loop.Result, []loop.Message, *Meter, error) {
	return playStreams(s, seed, StreamsOf(seed), observe, keepTrace)
}

// playStreams is play with the episode's streams given (seed names the
// episode in errors).
func playStreams(s Setting, seed uint64, st Streams, observe func(loop.Event), keepTrace bool) (*loop.Result, []loop.Message, *Meter, error) {
	// The episode gets its own context: the user's abort is the
	// workload's to decide, never the simulation's cancellation.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ep := s.Workload.Episode(st.Model, s.Model.ContextWindow, cancel)
	initial := ep.Initial()
	m := &Meter{}
	obs := m.Observe
	if observe != nil {
		obs = func(e loop.Event) {
			m.Observe(e)
			observe(e)
		}
	}
	cfg := loop.Config{
		Policy: s.Policy, Model: ep, Primary: s.Model, FallbackModel: s.FallbackModel, ToolNames: toolNames,
		Tools: ep, StopHooks: ep, Seed: st.Jitter, Observer: obs, DiscardTrace: !keepTrace,
		IterationLimit: s.IterationLimit,
	}
	res, err := loop.Run(ctx, cfg, initial)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("setting %q, episode seed %#x: %w", s.Name, seed, err)
	}
	return res, initial, m, nil
}

// RunEpisode plays episode index of a simulation with root seed root
// under s, checks it with check when check is not nil, and returns what
// it measured.
func RunEpisode(s Setting, root uint64, index int, prices Prices, check Checker) (Episode, error) {
	seed := EpisodeSeed(root, index)
	res, initial, m, err := play(s, seed, nil, check != nil)
	if err != nil {
		return Episode{}, err
	}
	ep := Episode{Index: index, Seed: seed, Terminal: res.Terminal, Halted: res.Halted}
	m.Finish(&ep, res, prices)
	if check != nil {
		ep.Violations = check(&s, initial, res)
	}
	return ep, nil
}

// Replay plays the episode with seed under s again, trace kept, and
// returns its result and starting history.
func Replay(s Setting, seed uint64) (*loop.Result, []loop.Message, error) {
	res, initial, _, err := play(s, seed, nil, true)
	return res, initial, err
}

// Meter measures an episode as sim does, for a run of the loop played
// elsewhere (sim/replay's replays): it counts, from the events it
// Observes, what loop.Stats does not, and Finish writes the episode's
// metrics. The zero Meter is ready.
type Meter struct {
	v                                 [numMetrics]int64
	input, cacheWrite, cacheRead, out int64
	// stopFailure is set once the stop-failure hooks ran: the run ends on
	// an API error.
	stopFailure bool
}

// Observe counts one event of the run; give it as (or call it from)
// loop.Config.Observer.
func (m *Meter) Observe(e loop.Event) {
	switch x := e.(type) {
	case loop.ResponseEvent:
		m.input += int64(x.Usage.InputTokens)
		m.cacheWrite += int64(x.Usage.CacheCreationInputTokens)
		m.cacheRead += int64(x.Usage.CacheReadInputTokens)
		m.out += int64(x.Usage.OutputTokens)
	case loop.StopFailureHook:
		m.stopFailure = true
	case loop.Retry:
		m.v[Retries]++
	case loop.Fallback:
		m.v[Fallbacks]++
	case loop.Compaction:
		switch {
		case x.OK && x.Trigger == loop.TriggerAuto:
			m.v[AutoCompactions]++
		case x.OK:
			m.v[ReactiveCompactions]++
		case x.Error != "":
			m.v[CompactionFailures]++
		}
	case loop.Stage:
		switch x.Stage {
		case loop.StageSnip:
			m.v[Snips]++
		case loop.StageMicrocompact:
			m.v[Microcompactions]++
		case loop.StageCollapse, loop.StageCollapseDrain:
			m.v[Collapses] += int64(x.Changed)
		}
	case loop.TransitionEvent:
		switch x.Transition {
		case loop.MaxOutputTokensRecovery:
			m.v[Recoveries]++
		case loop.StreamErrorRecovery:
			m.v[StreamCutsKept]++
		case loop.MaxOutputTokensEscalate:
			m.v[Escalations]++
		case loop.StopHookBlocking:
			m.v[StopHookBlocks]++
		}
	}
}

// Finish fills ep's metrics from the meter and the run's totals.
func (m *Meter) Finish(ep *Episode, res *loop.Result, prices Prices) {
	ep.AfterAPIError = m.stopFailure && res.Terminal == loop.Completed
	v := &ep.Values
	*v = m.v
	st := res.Stats
	v[Turns] = int64(res.State.TurnCount)
	v[Iterations] = int64(st.Iterations)
	v[Requests] = int64(st.Requests)
	v[InputTokens] = int64(st.InputTokens)
	v[OutputTokens] = int64(st.OutputTokens)
	v[Tokens] = v[InputTokens] + v[OutputTokens]
	v[CacheReadTokens] = m.cacheRead
	v[CacheWriteTokens] = m.cacheWrite
	v[WastedTokens] = int64(st.FailedInputTokens + st.DiscardedOutputTokens)
	v[PeakContext] = int64(st.PeakTokens)
	v[RetryTimeMS] = int64(st.RetryDelayMS)
	v[CostMicroUSD] = prices.MicroUSD(m.input, m.cacheWrite, m.cacheRead, m.out)
}
