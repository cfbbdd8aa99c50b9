package properties

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"slices"

	"github.com/google/go-cmp/cmp"
	"github.com/loopsim/loopsim/loop"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// TestReferenceAgreesWithLoop drives the real loop and the reference
// model (Decide) with the same iteration outcomes, drawn by rapid as a
// state machine, and requires the same decision at every step and the
// same counters after it (the loop's read from its transitions' field
// changes), the same retry-layer actions (retries, the outer layer's
// retries, non-streaming switches, fallbacks; see RetryLayer) for the
// failures drawn before each reply, the same auto-compactions attempted before each request (the
// replies report context sizes drawn around the policy's thresholds), and
// the same stop_hook_active handed to the stop hooks. A
// run that ends starts the next one. The policy is a built-in profile as
// it is or drawn swarm-style from it (PolicyGen).
func TestReferenceAgreesWithLoop(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		base := rapid.SampledFrom([]loop.Policy{loop.Seed(), loop.ClaudeCode(), loop.Codex()}).Draw(rt, "profile")
		p := base
		if rapid.Bool().Draw(rt, "swarm policy") {
			p = PolicyGen(base).Draw(rt, "policy")
		}
		p.MaxTurns = rapid.SampledFrom([]int{0, 3}).Draw(rt, "max turns")
		// snip frees the sizes of the messages it drops, which the
		// reference does not model
		p.Snip = false
		// a non-streaming cap under the models' maximum, so that it binds
		p.NonStreamingMaxTokens = rapid.SampledFrom([]int{64_000, 4_000}).Draw(rt, "non_streaming_max_tokens")
		// the driver's conversation keeps more exchanges than the drawn
		// minimums; the largest minimum makes the rules that need them
		// (auto-compaction and a 413 compacted as one, reactive
		// compaction) refuse. The later auto-compaction's minimum goes
		// with the first's: the reference does not know whether the
		// conversation begins with a summary.
		if rapid.Bool().Draw(rt, "too few exchanges for auto-compaction") {
			p.MinExchangesToCompact, p.MinExchangesToLaterCompact = 1000, 1000
		}
		if rapid.Bool().Draw(rt, "too few exchanges for reactive compaction") {
			p.MinExchangesToReactiveCompact = 1000
		}
		m := &refMachine{p: p, budget: rapid.SampledFrom([]int{0, 3_000}).Draw(rt, "token budget"),
			pressure: rapid.Bool().Draw(rt, "context pressure")}
		primary := loop.ModelInfo{Name: primaryName, ContextWindow: 200_000, MaxOutputTokens: 64_000}
		m.env = RefEnv{Headroom: min(p.EscalatedMaxTokens, primary.MaxOutputTokens) > p.MaxTokens(primary),
			TokenBudget: m.budget, Compactable: true, FallbackModel: rapid.Bool().Draw(rt, "fallback model"),
			Limits: p.Limits(primary), ReactiveOnly: slices.Contains(p.ReactiveOnlyModels, primaryName),
			// the driver's history has six exchanges; its compactions drop
			// one message
			Exchanges: 5}
		m.start()
		defer func() { m.d.stop() }()
		actions := map[string]func(*rapid.T){}
		for _, r := range Replies {
			actions[string(r)] = func(rt *rapid.T) { m.play(rt, r) }
		}
		rt.Repeat(actions)
	})
}

// refMachine is the state machine: the running loop, the reference's
// state and a mirror of the loop's counters.
type refMachine struct {
	p      loop.Policy
	env    RefEnv
	budget int
	// pressure: the replies mostly report a context over the auto-compact
	// threshold.
	pressure bool
	d        *driver
	ref      RefState
	mirror   RefState
	// log is the run so far, for failure messages.
	log []string
}

func (m *refMachine) start() {
	m.d = startDriver(m.p, m.budget, m.env.FallbackModel)
	m.ref, m.mirror = NewRefState(), NewRefState()
	m.log = nil
}

// play draws an iteration meeting reply r and compares the decisions.
func (m *refMachine) play(t *rapid.T, r Reply) {
	h := Happened{
		Failures: failuresGen().Draw(t, "failures"),
		// over the blocking limit only without context collapse: the loop
		// skips the blocking check under collapse, which the documents do
		// not say (TestBlockingLimitUnderCollapse)
		Context:      contextGen(m.env.Limits, m.pressure, !m.p.ContextCollapse).Draw(t, "context"),
		Reply:        r,
		Output:       rapid.SampledFrom([]int{1, 600, 3_000}).Draw(t, "output"),
		DrainCommits: rapid.Bool().Draw(t, "drain commits"),
		CompactOK:    rapid.Bool().Draw(t, "compact ok"),
		Hook:         rapid.SampledFrom([]Hook{HookPasses, HookBlocks, HookPrevents, HookFails}).Draw(t, "hook"),
		Tools:        rapid.SampledFrom([]ToolsEnd{ToolsOK, ToolsOK, ToolsAborted, ToolsPrevents}).Draw(t, "tools"),
	}
	hooksBefore := len(m.d.hookActiveFlags())
	got, changes, err := m.d.step(h)
	require.NoError(t, err, "driving the loop\n%s", m.history())
	want, next := Decide(m.p, m.env, m.ref, h)
	m.log = append(m.log, fmt.Sprintf("%+v -> loop %s, reference %s", h, got, want))
	require.Equal(t, want, got, "the decision: reference against loop\npolicy %s %v\n%s", m.p.Name, PolicyDiff(m.p), m.history())
	compact, ended, after := PreRequest(m.p, m.env, m.ref, h.CompactOK)
	if want := nonEmpty(refCompactShape(compact, after.Auto)); !slices.Equal(m.d.compacts, want) {
		t.Fatalf("auto-compact differs: loop %q, reference %q\npolicy %s %v\n%s", m.d.compacts, want, m.p.Name, PolicyDiff(m.p), m.history())
	}
	for _, n := range m.d.compactCounts {
		// docs/profile-claude-code.md §3: the last reply's usage plus the (small) sizes
		// appended after it
		if n < m.ref.Context || n >= m.ref.Context+appendedMargin {
			t.Fatalf("auto-compact counted %d tokens; the last kept reply reported %d\n%s", n, m.ref.Context, m.history())
		}
	}
	retry := RetryLayer(m.p, m.env.FallbackModel, m.ref.FellBack, h.Attempts(m.p))
	if ended != "" {
		retry.Actions = nil
	}
	if !slices.Equal(m.d.actions, retry.Actions) {
		t.Fatalf("retry layer differs:\n loop      %q\n reference %q\npolicy %s %v\n%s", m.d.actions, retry.Actions, m.p.Name, PolicyDiff(m.p), m.history())
	}
	if want := m.requests(retry.Actions, ended != ""); !slices.Equal(m.d.requestModels(), want) {
		t.Fatalf("requests sent %q, the reference has %q\n%s", m.d.requestModels(), want, m.history())
	}
	if flags := m.d.hookActiveFlags(); len(flags) > hooksBefore && flags[len(flags)-1] != m.ref.StopHookActive {
		t.Fatalf("stop hooks were given stop_hook_active=%t, the reference has %t\n%s", flags[len(flags)-1], m.ref.StopHookActive, m.history())
	}
	if got.Terminal != "" {
		m.d.stop()
		m.start()
		return
	}
	require.NoError(t, applyChanges(&m.mirror, changes), m.history())
	m.ref = next
	if diff := cmp.Diff(countersOf(m.ref), countersOf(m.mirror)); diff != "" {
		t.Fatalf("counters differ after %s (-reference +loop):\n%s\n%s", got, diff, m.history())
	}
}

func (m *refMachine) history() string {
	s := ""
	for i, l := range m.log {
		s += fmt.Sprintf("  %d. %s\n", i+1, l)
	}
	return s
}

func (d *driver) hookActiveFlags() []bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]bool(nil), d.hookActive...)
}

// countersOf keeps the fields both the reference and the loop's trace
// show.
func countersOf(s RefState) RefState {
	return RefState{Turn: s.Turn, Recoveries: s.Recoveries, ReactiveCompacts: s.ReactiveCompacts,
		OverrideSet: s.OverrideSet, StopHookActive: s.StopHookActive, BlocksInRow: s.BlocksInRow,
		Escalated: s.Escalated, Malformed: s.Malformed, Empty: s.Empty, BudgetContinuations: s.BudgetContinuations}
}

// applyChanges applies a transition's field changes (as the trace writes
// them) to the mirror of the loop's counters.
func applyChanges(s *RefState, changes []loop.FieldChange) error {
	for _, c := range changes {
		var err error
		switch c.Field {
		case "turn_count":
			s.Turn, err = strconv.Atoi(c.To)
		case "max_output_tokens_recovery_count":
			s.Recoveries, err = strconv.Atoi(c.To)
		case "reactive_compacts_in_row":
			s.ReactiveCompacts, err = strconv.Atoi(c.To)
		case "max_output_tokens_override":
			s.OverrideSet = c.To != "unset"
		case "stop_hook_active":
			s.StopHookActive, err = strconv.ParseBool(c.To)
		case "stop_hook_blocks_in_row":
			s.BlocksInRow, err = strconv.Atoi(c.To)
		case "escalated_this_stretch":
			s.Escalated, err = strconv.ParseBool(c.To)
		case "malformed_tool_use_retries":
			s.Malformed, err = strconv.Atoi(c.To)
		case "empty_reply_retries":
			s.Empty, err = strconv.Atoi(c.To)
		case "budget_continuations":
			s.BudgetContinuations, err = strconv.Atoi(c.To)
		}
		if err != nil {
			return fmt.Errorf("field change %s %q -> %q: %w", c.Field, c.From, c.To, err)
		}
	}
	return nil
}

// failureKinds are the failures the retry layer tells apart, in a fixed
// order.
var failureKinds = []loop.ErrorKind{
	loop.KindRateLimited, loop.KindServer, loop.KindOverloaded, loop.KindConnection,
	loop.KindInvalidRequest, loop.KindStream, loop.KindFallbackTriggered,
}

// failuresGen draws what a main request meets before its reply: mostly
// nothing, else up to two runs of one failure kind, long enough to
// exhaust the profiles' retries.
func failuresGen() *rapid.Generator[[]loop.ErrorKind] {
	return rapid.Custom(func(t *rapid.T) []loop.ErrorKind {
		var out []loop.ErrorKind
		runs := rapid.SampledFrom([]int{0, 0, 1, 2}).Draw(t, "failure runs")
		for range runs {
			k := rapid.SampledFrom(failureKinds).Draw(t, "failure kind")
			n := rapid.SampledFrom([]int{1, 2, 3, 11}).Draw(t, "failure count")
			out = append(out, slices.Repeat([]loop.ErrorKind{k}, n)...)
		}
		return out
	})
}

// appendedMargin bounds the sizes the driver's iterations append after a
// reply (tool results, nudges, hook messages); the drawn context sizes
// keep at least this far from every threshold.
const appendedMargin = 2_000

// contextGen draws the context size a reply reports: mostly small (mostly
// over the threshold under pressure), else
// well between the auto-compact threshold and the blocking limit, or
// (with overBlocking) well over the blocking limit (far enough from each that what is appended
// after the reply cannot cross one).
func contextGen(l loop.Limits, pressure, overBlocking bool) *rapid.Generator[int] {
	mid := (l.AutoCompactThreshold + l.BlockingLimit) / 2
	levels := []int{0, 0, 0, mid}
	if pressure {
		levels = []int{0, mid, mid, mid}
	}
	if overBlocking {
		levels = append(levels, l.BlockingLimit+10_000)
	}
	return rapid.SampledFrom(levels)
}

// refCompactShape writes the reference's auto-compaction as
// autoCompactShape writes the loop's.
func refCompactShape(compact string, a RefAutoCompact) string {
	switch compact {
	case CompactOK:
		return CompactOK + " rapid_refills=" + strconv.Itoa(a.RapidRefills)
	case CompactFailed:
		return CompactFailed + " failures=" + strconv.Itoa(a.Failures)
	}
	return compact
}

// nonEmpty is s as a list: empty for "".
func nonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}

// requests is each main request an iteration sends, as requestShape
// writes them: one request, and one more after each retry action; the
// fallback model from the first fallback on (or throughout, if the run
// fell back); non-streaming after a non-streaming switch until a fallback
// (a fresh request), its output cap at most p.NonStreamingMaxTokens
// (docs/profile-claude-code.md §7); the output cap is the escalated one while the override is
// set (docs/spec.md §2.5.3), never above the model's maximum.
func (m *refMachine) requests(actions []string, ended bool) []string {
	if ended {
		return nil
	}
	model := map[bool]string{false: primaryName, true: fallbackName}
	const modelMax = 64_000 // both the driver's models
	capFor := func(nonStreaming bool) int {
		c := m.p.MaxTokens(loop.ModelInfo{MaxOutputTokens: modelMax})
		if m.ref.OverrideSet {
			c = min(m.p.EscalatedMaxTokens, modelMax)
		}
		if nonStreaming {
			c = min(c, m.p.NonStreamingMaxTokens)
		}
		return c
	}
	fellBack, nonStreaming := m.ref.FellBack, false
	out := []string{requestShape(model[fellBack], false, capFor(false))}
	for _, a := range actions {
		switch {
		case a == "fallback":
			fellBack, nonStreaming = true, false
		case strings.HasPrefix(a, "non_streaming "):
			nonStreaming = true
		}
		out = append(out, requestShape(model[fellBack], nonStreaming, capFor(nonStreaming)))
	}
	return out
}
