package properties

import (
	"slices"
	"testing"

	"github.com/loopsim/loopsim/loop"
	"github.com/stretchr/testify/assert"
)

// TestRetryLayerFollowsTheDocuments checks the reference's retry layer
// against the statements of docs/profile-claude-code.md §7 and docs/spec.md §2.3.
func TestRetryLayerFollowsTheDocuments(t *testing.T) {
	seed, cc := loop.Seed(), loop.ClaudeCode()
	rep := func(k loop.ErrorKind, n int) []loop.ErrorKind { return slices.Repeat([]loop.ErrorKind{k}, n) }
	retries := func(k loop.ErrorKind, n int) []string { return slices.Repeat([]string{"retry " + string(k)}, n) }
	tests := []struct {
		name        string
		p           loop.Policy
		hasFallback bool
		fellBack    bool
		failures    []loop.ErrorKind
		actions     []string
		failed      loop.ErrorKind
		fellBackOut bool
	}{
		{"§7: ten 500s are retried, the request then goes through", cc, false, false, rep(loop.KindServer, 10),
			retries(loop.KindServer, 10), "", false},
		{"§7: the 11th 500 exhausts the retries", cc, false, false, rep(loop.KindServer, 11),
			retries(loop.KindServer, 10), loop.KindServer, false},
		{"observed: without a fallback model the 3rd 529 in a row ends the request", cc, false, false, rep(loop.KindOverloaded, 3),
			retries(loop.KindOverloaded, 2), loop.KindOverloaded, false},
		{"§7: 429s and dropped connections share the ten retries; observed: drops never go non-streaming", cc, false, false,
			append(rep(loop.KindRateLimited, 6), rep(loop.KindConnection, 5)...),
			append(retries(loop.KindRateLimited, 6), retries(loop.KindConnection, 4)...), loop.KindConnection, false},
		{"observed: the non-streaming attempt has nine retries of its own", cc, false, false,
			append([]loop.ErrorKind{loop.KindStream}, rep(loop.KindServer, 10)...),
			append([]string{"non_streaming stream_error"}, retries(loop.KindServer, 9)...), loop.KindServer, false},
		{"§7: three consecutive 529s switch to the fallback model", cc, true, false, rep(loop.KindOverloaded, 3),
			[]string{"retry overloaded", "retry overloaded", "fallback"}, "", true},
		{"§7: a 429 breaks the run of 529s", cc, true, false,
			[]loop.ErrorKind{loop.KindOverloaded, loop.KindOverloaded, loop.KindRateLimited, loop.KindOverloaded},
			[]string{"retry overloaded", "retry overloaded", "retry rate_limited", "retry overloaded"}, "", false},
		{"§7: a single 500 switches models", cc, true, false, []loop.ErrorKind{loop.KindServer}, []string{"fallback"}, "", true},
		{"SPEC §2.3: a second switch is never attempted", cc, true, true, []loop.ErrorKind{loop.KindServer},
			[]string{"retry server_error"}, "", true},
		{"§7: without a fallback model a 500 is retried", cc, false, false, []loop.ErrorKind{loop.KindServer},
			[]string{"retry server_error"}, "", false},
		{"§7: other 400s are re-sent five times", cc, false, false, rep(loop.KindInvalidRequest, 6),
			retries(loop.KindInvalidRequest, 5), loop.KindInvalidRequest, false},
		{"§7: a mid-stream error gets one non-streaming retry", cc, false, false, rep(loop.KindStream, 2),
			[]string{"non_streaming stream_error"}, loop.KindStream, false},
		{"SPEC §2.3: the seed falls back on fallback_triggered", seed, true, false, rep(loop.KindFallbackTriggered, 2),
			[]string{"fallback"}, loop.KindFallbackTriggered, true},
		{"SPEC §2.3: without a fallback model fallback_triggered is an error", seed, false, false,
			[]loop.ErrorKind{loop.KindFallbackTriggered}, nil, loop.KindFallbackTriggered, false},
		{"seed: no retry layer", seed, true, false, []loop.ErrorKind{loop.KindOverloaded}, nil, loop.KindOverloaded, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := RetryLayer(tt.p, tt.hasFallback, tt.fellBack, tt.failures)
			assert.Equal(t, tt.actions, got.Actions, "actions")
			assert.Equal(t, tt.failed, got.Failed, "failed")
			assert.Equal(t, tt.fellBackOut, got.FellBack, "fell back")
		})
	}
}

// TestDecideEndsOnExhaustedRetries checks the terminal of an exhausted
// retry layer (docs/profile-claude-code.md §7: api_error; docs/spec.md §2.3: model_error in the seed).
func TestDecideEndsOnExhaustedRetries(t *testing.T) {
	env := RefEnv{Compactable: true}
	for _, p := range []loop.Policy{loop.Seed(), loop.ClaudeCode()} {
		h := Happened{Failures: slices.Repeat([]loop.ErrorKind{loop.KindServer}, 11), Reply: ReplyText}
		d, _ := Decide(p, env, NewRefState(), h)
		assert.Equal(t, p.APIErrorTerminal, d.Terminal, "%s: %s", p.Name, d)
	}
	h := Happened{Failures: slices.Repeat([]loop.ErrorKind{loop.KindServer}, 10), Reply: ReplyText}
	d, _ := Decide(loop.ClaudeCode(), env, NewRefState(), h)
	assert.Equal(t, loop.Completed, d.Terminal, "claude-code after ten 500s: %s", d)
}
