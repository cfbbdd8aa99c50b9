package loop

import (
	"errors"
	"strings"
	"testing"
)

func TestProfilesAreValid(t *testing.T) {
	for _, name := range Profiles() {
		p, err := Profile(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Validate(); err != nil {
			t.Errorf("profile %s: %v", name, err)
		}
		if p.Name != name {
			t.Errorf("profile %s is named %q", name, p.Name)
		}
	}
	if _, err := Profile("nope"); err == nil || !strings.Contains(err.Error(), "seed, claude-code") {
		t.Errorf("unknown profile error = %v", err)
	}
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
		if !errors.As(err, &pe) {
			t.Errorf("With(%s, %s) = %v, want a *PolicyError", c.field, c.value, err)
			continue
		}
		if err.Error() != c.want {
			t.Errorf("With(%s, %s):\n got %s\nwant %s", c.field, c.value, err, c.want)
		}
	}
}

func TestPolicyWithSetsOneField(t *testing.T) {
	p, err := ClaudeCode().With("stop_hook_block_cap", "3")
	if err != nil {
		t.Fatal(err)
	}
	want := ClaudeCode()
	want.StopHookBlockCap = 3
	if p.StopHookBlockCap != 3 || p.Escalation != want.Escalation || p.MaxReactiveCompactsInRow != 2 {
		t.Errorf("With changed more than one field: %+v", p)
	}
	p, err = p.With("reactive_only_models", "haiku, sonnet")
	if err != nil || len(p.ReactiveOnlyModels) != 2 || p.ReactiveOnlyModels[1] != "sonnet" {
		t.Errorf("list override: %v %v", p.ReactiveOnlyModels, err)
	}
	for _, bad := range [][2]string{{"escalation", "maybe"}, {"max_turns", "three"}, {"no_such_field", "1"}, {"backoff_jitter", "x"}} {
		if _, err := Seed().With(bad[0], bad[1]); err == nil || !strings.Contains(err.Error(), bad[0]) {
			t.Errorf("With(%s, %s) error %v does not name the field", bad[0], bad[1], err)
		}
	}
}

func TestPolicyFieldsAreAllSettable(t *testing.T) {
	for _, f := range PolicyFields() {
		if _, err := Seed().With(f, "1"); err != nil && strings.Contains(err.Error(), "has no field") {
			t.Errorf("field %s is listed but not settable", f)
		}
	}
}

func TestLimits(t *testing.T) {
	opus1m := ModelInfo{Name: "opus", ContextWindow: 1_000_000, MaxOutputTokens: 128_000}
	l := ClaudeCode().Limits(opus1m)
	want := Limits{Window: 1_000_000, EffectiveWindow: 980_000, AutoCompactThreshold: 967_000, WarningThreshold: 947_000, BlockingLimit: 977_000}
	if l != want {
		t.Errorf("1M window: %+v, want %+v", l, want)
	}
	small, _ := ClaudeCode().With("context_window", "100000")
	if got := small.Limits(opus1m).AutoCompactThreshold; got != 67_000 {
		t.Errorf("100k window threshold = %d, want 67000", got)
	}
	pct, _ := ClaudeCode().With("auto_compact_percent", "50")
	if got := pct.Limits(opus1m).AutoCompactThreshold; got != 490_000 {
		t.Errorf("50%% threshold = %d, want 490000", got)
	}
	sonnet := ModelInfo{Name: "sonnet", ContextWindow: 200_000, MaxOutputTokens: 8_000}
	if got := Seed().Limits(sonnet).EffectiveWindow; got != 192_000 {
		t.Errorf("reserve is min(max output, 20000): effective window %d, want 192000", got)
	}
	if got := Seed().MaxTokens(sonnet); got != 8_000 {
		t.Errorf("seed max tokens = %d", got)
	}
	if got := ClaudeCode().MaxTokens(opus1m); got != 128_000 {
		t.Errorf("claude-code max tokens = %d", got)
	}
}
