package loop

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestProfilesAreValid(t *testing.T) {
	for _, name := range Profiles() {
		p, err := Profile(name)
		require.NoError(t, err)
		assert.NoError(t, p.Validate(), "profile %s", name)
		assert.Equal(t, name, p.Name)
	}
	_, err := Profile("nope")
	assert.ErrorContains(t, err, "seed, claude-code", "an unknown profile's error lists the known ones")
}

func TestPolicyValidateNamesFieldAndRange(t *testing.T) {
	cases := []struct {
		field, value, want string
	}{
		{"max_output_recoveries", "-1", "policy field max_output_recoveries = -1: allowed [0, 100]"},
		{"auto_compact_percent", "101", "policy field auto_compact_percent = 101: allowed [0, 100]"},
		{"budget_completion_ratio", "0", "policy field budget_completion_ratio = 0: allowed [0.01, 1]"},
		{"api_error_terminal", "model_error", `policy field api_error_terminal = "model_error": allowed one of completed,api_error`},
		{"stop_hook_cap_action", "max_turns", `policy field stop_hook_cap_action = "max_turns": allowed one of completed,stop_hook_prevented`},
		{"collapse_commit_percent", "50", "policy field collapse_commit_percent = 50: allowed at least collapse_stage_percent (80)"},
		{"max_reactive_compacts_in_row", "0", "policy field max_reactive_compacts_in_row = 0: allowed [1, 100]"},
	}
	for _, c := range cases {
		_, err := Seed().With(c.field, c.value)
		var pe *PolicyError
		if assert.ErrorAs(t, err, &pe, "With(%s, %s)", c.field, c.value) {
			assert.EqualError(t, err, c.want, "With(%s, %s)", c.field, c.value)
		}
	}
}

func TestPolicyWithSetsOneField(t *testing.T) {
	p, err := ClaudeCode().With("stop_hook_block_cap", "3")
	require.NoError(t, err)
	want := ClaudeCode()
	want.StopHookBlockCap = 3
	assert.Equal(t, want, p, "With changes one field")
	p, err = p.With("reactive_only_models", "haiku, sonnet")
	require.NoError(t, err)
	assert.Equal(t, []string{"haiku", "sonnet"}, p.ReactiveOnlyModels, "a list override")
	for _, bad := range [][2]string{{"escalation", "maybe"}, {"max_turns", "three"}, {"no_such_field", "1"}, {"backoff_jitter", "x"}} {
		_, err := Seed().With(bad[0], bad[1])
		assert.ErrorContains(t, err, bad[0], "With(%s, %s) names the field", bad[0], bad[1])
	}
}

func TestPolicyFieldsAreAllSettable(t *testing.T) {
	for _, f := range PolicyFields() {
		if _, err := Seed().With(f, "1"); err != nil {
			assert.NotContains(t, err.Error(), "has no field", "field %s is listed but not settable", f)
		}
	}
}

func TestLimits(t *testing.T) {
	opus1m := ModelInfo{Name: "opus", ContextWindow: 1_000_000, MaxOutputTokens: 128_000}
	l := ClaudeCode().Limits(opus1m)
	want := Limits{Window: 1_000_000, EffectiveWindow: 980_000, AutoCompactThreshold: 967_000, WarningThreshold: 947_000, BlockingLimit: 977_000}
	assert.Equal(t, want, l, "1M window")
	small, err := ClaudeCode().With("context_window", "100000")
	require.NoError(t, err)
	assert.Equal(t, 67_000, small.Limits(opus1m).AutoCompactThreshold, "100k window threshold")
	pct, err := ClaudeCode().With("auto_compact_percent", "50")
	require.NoError(t, err)
	assert.Equal(t, 490_000, pct.Limits(opus1m).AutoCompactThreshold, "50% threshold")
	sonnet := ModelInfo{Name: "sonnet", ContextWindow: 200_000, MaxOutputTokens: 8_000}
	assert.Equal(t, 192_000, Seed().Limits(sonnet).EffectiveWindow, "the reserve is min(max output, 20000)")
	assert.Equal(t, 8_000, Seed().MaxTokens(sonnet), "seed max tokens")
	assert.Equal(t, 128_000, ClaudeCode().MaxTokens(opus1m), "claude-code max tokens")
}

// PolicyFields lists every field but the profile's name, by JSON name, in
// declaration order.
func TestPolicyFieldsListsEveryFieldButTheName(t *testing.T) {
	fields := PolicyFields()
	require.Len(t, fields, reflect.TypeOf(Policy{}).NumField()-1)
	assert.NotContains(t, fields, "name")
	assert.Equal(t, "context_window", fields[0], "declaration order")
	assert.Contains(t, fields, "stream_error_thinking_resends")
}

// A policy context window of one token is a window: it replaces the
// model's.
func TestLimitsWithAOneTokenWindow(t *testing.T) {
	p := Seed()
	p.ContextWindow = 1
	sonnet := ModelInfo{Name: "sonnet", ContextWindow: 200_000, MaxOutputTokens: 8_000}
	assert.Equal(t, 1, p.Limits(sonnet).Window)
}

// An auto-compact percent of 1 is a percent: the threshold is a hundredth
// of the effective window.
func TestLimitsWithAutoCompactAtOnePercent(t *testing.T) {
	p := ClaudeCode()
	p.AutoCompactPercent = 1
	opus1m := ModelInfo{Name: "opus", ContextWindow: 1_000_000, MaxOutputTokens: 128_000}
	l := p.Limits(opus1m)
	assert.Equal(t, l.EffectiveWindow/100, l.AutoCompactThreshold)
}

// A default cap of one token is a cap.
func TestMaxTokensWithAOneTokenDefault(t *testing.T) {
	p := Seed()
	p.DefaultMaxTokens = 1
	assert.Equal(t, 1, p.MaxTokens(ModelInfo{Name: "sonnet", ContextWindow: 200_000, MaxOutputTokens: 8_000}))
}
