package loop

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// row is one row of docs/spec.md §3: what a continue does to each counter.
type row struct {
	recovery       string // "0", "kept", "+1"
	hasAttempted   string // "false", "kept", "true"
	override       string // "unset", "kept"
	stopHookActive string // "kept", "unset", "true"
	tracking       string // "kept", "cleared"
	turn           string // "kept", "+1"
}

// specTable is docs/spec.md §3, transcribed.
var specTable = map[Transition]row{
	NextTurn:                {"0", "false", "unset", "kept", "kept", "+1"},
	CollapseDrainRetry:      {"kept", "kept", "unset", "unset", "kept", "kept"},
	ReactiveCompactRetry:    {"kept", "true", "unset", "unset", "cleared", "kept"},
	MaxOutputTokensEscalate: {"kept", "kept", "unset", "unset", "kept", "kept"},
	MaxOutputTokensRecovery: {"+1", "kept", "unset", "unset", "kept", "kept"},
	StopHookBlocking:        {"0", "kept", "unset", "true", "kept", "kept"},
	TokenBudgetContinuation: {"0", "false", "unset", "unset", "kept", "kept"},
}

func TestTransitionTableMatchesSpec(t *testing.T) {
	before := func(stopHookActive, attempted bool) State {
		return State{
			MaxOutputTokensRecoveryCount: 2,
			HasAttemptedReactiveCompact:  attempted,
			MaxOutputTokensOverride:      64000,
			StopHookActive:               stopHookActive,
			AutoCompactTracking:          &AutoCompactTracking{Compacted: true, TurnCounter: 3},
			TurnCount:                    4,
		}
	}
	for _, tr := range Transitions[:7] {
		want := specTable[tr]
		for _, start := range []struct{ active, attempted bool }{{false, false}, {true, true}, {true, false}, {false, true}} {
			s := before(start.active, start.attempted)
			n := s.after(tr)
			checkBool(t, tr, "has_attempted_reactive_compact", want.hasAttempted, s.HasAttemptedReactiveCompact, n.HasAttemptedReactiveCompact)
			checkBool(t, tr, "stop_hook_active", want.stopHookActive, s.StopHookActive, n.StopHookActive)
			got := row{
				recovery:       delta(s.MaxOutputTokensRecoveryCount, n.MaxOutputTokensRecoveryCount),
				hasAttempted:   want.hasAttempted,
				override:       map[bool]string{true: "kept", false: "unset"}[n.MaxOutputTokensOverride == s.MaxOutputTokensOverride],
				stopHookActive: want.stopHookActive,
				tracking:       map[bool]string{true: "kept", false: "cleared"}[n.AutoCompactTracking == s.AutoCompactTracking],
				turn:           delta(s.TurnCount, n.TurnCount),
			}
			if diff := cmp.Diff(want, got, cmp.AllowUnexported(row{})); diff != "" {
				t.Errorf("%s from %+v (-spec +loop):\n%s", tr, start, diff)
			}
			assert.Equal(t, tr, n.Transition, "%s: state.transition", tr)
		}
	}
}

func checkBool(t *testing.T, tr Transition, field, rule string, from, to bool) {
	t.Helper()
	switch rule {
	case "kept":
		assert.Equal(t, from, to, "%s: SPEC keeps %s", tr, field)
	case "unset", "false":
		assert.False(t, to, "%s: SPEC unsets %s", tr, field)
	case "true":
		assert.True(t, to, "%s: SPEC sets %s", tr, field)
	}
}

func delta(a, b int) string {
	switch {
	case b == a:
		return "kept"
	case b == 0:
		return "0"
	case b == a+1:
		return "+1"
	}
	return "changed"
}

func TestAdvanceRecordsChangedFields(t *testing.T) {
	s := State{TurnCount: 1, MaxOutputTokensRecoveryCount: 2, Transition: MaxOutputTokensRecovery}
	r := &run{iterStart: s}
	n := s
	r.advance(&n, NextTurn, []Message{{ID: "a"}, {ID: "b"}})
	require.Equal(t, 2, n.TurnCount, "advance: turn")
	require.Len(t, n.Messages, 2, "advance: messages")
	got := r.trace[0].(TransitionEvent)
	want := TransitionEvent{Transition: NextTurn, Changes: []FieldChange{
		{Field: "messages", From: "0", To: "2"},
		{Field: "max_output_tokens_recovery_count", From: "2", To: "0"},
		{Field: "turn_count", From: "1", To: "2"},
		{Field: "transition", From: "max_output_tokens_recovery", To: "next_turn"},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("transition event (-want +got):\n%s", diff)
	}
}
