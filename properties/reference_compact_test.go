package properties

import (
	"slices"
	"testing"

	"github.com/loopsim/loopsim/loop"
)

// model200k is the driver's primary model.
var model200k = loop.ModelInfo{Name: primaryName, ContextWindow: 200_000, MaxOutputTokens: 64_000}

// TestLimitsFollowTheDocuments checks the thresholds Policy.Limits gives
// against PROFILE §3's figures.
func TestLimitsFollowTheDocuments(t *testing.T) {
	cc := loop.ClaudeCode()
	for _, tt := range []struct{ window, threshold, blocking int }{
		{1_000_000, 967_000, 977_000}, {100_000, 67_000, 77_000}, {200_000, 167_000, 177_000},
	} {
		l := cc.Limits(loop.ModelInfo{Name: "m", ContextWindow: tt.window, MaxOutputTokens: 128_000})
		if l.AutoCompactThreshold != tt.threshold || l.BlockingLimit != tt.blocking {
			t.Errorf("window %d: threshold %d, blocking %d; want %d, %d", tt.window, l.AutoCompactThreshold, l.BlockingLimit, tt.threshold, tt.blocking)
		}
	}
}

// TestPreRequestFollowsTheDocuments checks the reference's auto-compact
// and blocking limit against SPEC §2.1.6, §2.2 and PROFILE §3.
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
			if attempt != tt.attempt || end != tt.end {
				t.Errorf("attempt %q end %q, want %q %q", attempt, end, tt.attempt, tt.end)
			}
		})
	}
}

// TestThrashGuardFollowsTheDocuments checks PROFILE §3's thrash guard:
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
	if !slices.Equal(got, want) {
		t.Errorf("refilling after every reply:\n got %v\nwant %v", got, want)
	}
	// two rapid refills, a refill three replies later (not rapid: the
	// count restarts), then three rapid ones
	restart := []Happened{full, full, full, light, light, full, full, full, full, full}
	want = append(slices.Repeat([]string{"next_turn"}, 9), "terminal rapid_refill_breaker")
	if got := playRef(cc, env, restart...); !slices.Equal(got, want) {
		t.Errorf("a refill further apart restarts the count:\n got %v\nwant %v", got, want)
	}
	apart := slices.Repeat([]Happened{full, light, light}, 8)
	if got := playRef(cc, env, apart...); !slices.Equal(got, slices.Repeat([]string{"next_turn"}, len(apart))) {
		t.Errorf("refills three replies apart: %v", got)
	}
}
