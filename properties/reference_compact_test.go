package properties

import (
	"slices"
	"testing"

	"github.com/loopsim/loopsim/loop"
	"github.com/stretchr/testify/assert"
)

// model200k is the driver's primary model.
var model200k = loop.ModelInfo{Name: primaryName, ContextWindow: 200_000, MaxOutputTokens: 64_000}

// TestLimitsFollowTheDocuments checks the thresholds Policy.Limits gives
// against docs/profile-claude-code.md §3's figures.
func TestLimitsFollowTheDocuments(t *testing.T) {
	cc := loop.ClaudeCode()
	for _, tt := range []struct{ window, threshold, blocking int }{
		{1_000_000, 967_000, 977_000}, {100_000, 67_000, 77_000}, {200_000, 167_000, 177_000},
	} {
		l := cc.Limits(loop.ModelInfo{Name: "m", ContextWindow: tt.window, MaxOutputTokens: 128_000})
		assert.Equal(t, tt.threshold, l.AutoCompactThreshold, "window %d: threshold", tt.window)
		assert.Equal(t, tt.blocking, l.BlockingLimit, "window %d: blocking limit", tt.window)
	}
}

// TestPreRequestFollowsTheDocuments checks the reference's auto-compact
// and blocking limit against docs/spec.md §2.1.6, §2.2 and docs/profile-claude-code.md §3.
func TestPreRequestFollowsTheDocuments(t *testing.T) {
	cc := loop.ClaudeCode()
	lim := cc.Limits(model200k)
	T, B := lim.AutoCompactThreshold, lim.BlockingLimit
	env := RefEnv{Limits: lim, Exchanges: 5}
	oneExchange := env
	oneExchange.Exchanges = 1
	reactiveOnly := env
	reactiveOnly.ReactiveOnly = true
	noAuto := cc
	noAuto.AutoCompact = false
	at := func(count int) RefState { s := NewRefState(); s.Context = count; return s }
	broken := at(B)
	broken.Auto.Failures = cc.MaxAutoCompactFailures
	seedNoCollapse := loop.Seed()
	seedNoCollapse.ContextCollapse = false
	tests := []struct {
		name      string
		p         loop.Policy
		env       RefEnv
		s         RefState
		compactOK bool
		attempt   string
		end       loop.Terminal
	}{
		{"§3: under the threshold nothing happens", cc, env, at(T - 1), true, CompactNone, ""},
		{"§3: at the threshold the conversation is compacted", cc, env, at(T), true, CompactOK, ""},
		{"§3: one exchange is too few to compact", cc, oneExchange, at(T), true, SkippedTooFew, ""},
		{"§3: ...unless the count is over the blocking limit", cc, oneExchange, at(B), true, CompactOK, ""},
		{"§3: a failure under the blocking limit sends uncompacted", cc, env, at(T), false, CompactFailed, ""},
		{"§3: a failure over it ends blocking_limit", cc, env, at(B), false, CompactFailed, loop.BlockingLimit},
		{"§3: auto-compact off, over the blocking limit", noAuto, env, at(B), true, CompactNone, loop.BlockingLimit},
		{"§3: auto-compact off, under it", noAuto, env, at(B - 1), true, CompactNone, ""},
		{"SPEC §2.1.6: the circuit breaker stops trying", cc, env, broken, true, SkippedBreaker, loop.BlockingLimit},
		{"§3: reactive-only models enforce no limit", cc, reactiveOnly, at(B + 10_000), true, CompactNone, ""},
		{"SPEC §2.2: the reactive path owns overflow", seedNoCollapse, env, at(B), false, CompactFailed, ""},
		{"SPEC §2.2: collapse on, auto-compact off: blocking", loop.Seed(), env, at(B), true, CompactNone, loop.BlockingLimit},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			attempt, end, _ := PreRequest(tt.p, tt.env, tt.s, tt.compactOK)
			assert.Equal(t, tt.attempt, attempt, "attempt")
			assert.Equal(t, tt.end, end, "end")
		})
	}
}

// TestThrashGuardFollowsTheDocuments checks docs/profile-claude-code.md §3's thrash guard:
// the 3rd consecutive rapid refill ends rapid_refill_breaker; refills 3
// or more replies apart never trip it.
func TestThrashGuardFollowsTheDocuments(t *testing.T) {
	cc := loop.ClaudeCode()
	lim := cc.Limits(model200k)
	env := RefEnv{Limits: lim, Exchanges: 5, Compactable: true}
	full := Happened{Reply: ReplyToolUse, Tools: ToolsOK, CompactOK: true, Context: lim.AutoCompactThreshold + 1_000}
	light := full
	light.Context = 0
	got := playRef(cc, env, repeatHappened(full, 6)...)
	want := []string{"next_turn", "next_turn", "next_turn", "next_turn", "terminal rapid_refill_breaker"}
	assert.Equal(t, want, got, "refilling after every reply")
	// two rapid refills, a refill three replies later (not rapid: the
	// count restarts), then three rapid ones
	restart := []Happened{full, full, full, light, light, full, full, full, full, full}
	want = append(slices.Repeat([]string{"next_turn"}, 9), "terminal rapid_refill_breaker")
	assert.Equal(t, want, playRef(cc, env, restart...), "a refill further apart restarts the count")
	apart := slices.Repeat([]Happened{full, light, light}, 8)
	assert.Equal(t, slices.Repeat([]string{"next_turn"}, len(apart)), playRef(cc, env, apart...), "refills three replies apart")
}
