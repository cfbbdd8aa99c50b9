package properties

import (
	"slices"
	"testing"

	"github.com/loopsim/loopsim/loop"
	"github.com/stretchr/testify/assert"
)

// playRef runs the reference over a sequence of iterations until a
// terminal, returning each decision.
func playRef(p loop.Policy, env RefEnv, hs ...Happened) []string {
	s := NewRefState()
	var out []string
	for _, h := range hs {
		var d Decision
		d, s = Decide(p, env, s, h)
		out = append(out, d.String())
		if d.Terminal != "" {
			break
		}
	}
	return out
}

func repeatHappened(h Happened, n int) []Happened {
	out := make([]Happened, n)
	for i := range out {
		out[i] = h
	}
	return out
}

// TestDecideFollowsTheDocuments checks the reference against the rows
// and examples of docs/spec.md §2-§5 and docs/profile-claude-code.md.
func TestDecideFollowsTheDocuments(t *testing.T) {
	seed, cc := loop.Seed(), loop.ClaudeCode()
	env := RefEnv{Headroom: true, Compactable: true, Exchanges: 5}
	trunc := Happened{Reply: ReplyTruncated, Output: 8_000}
	ptl := Happened{Reply: ReplyPromptTooLong, CompactOK: true}
	text := Happened{Reply: ReplyText, Output: 10, Hook: HookBlocks}
	tool := Happened{Reply: ReplyToolUse, Tools: ToolsOK}
	ccMaxTurns := cc
	ccMaxTurns.MaxTurns = 3
	onceSeed := seed
	onceSeed.EscalateOncePerStretch = true

	tests := []decideCase{
		{"PROFILE §1: truncated x2 then text", cc, env, []Happened{trunc, trunc, {Reply: ReplyText}},
			[]string{"max_output_tokens_recovery", "max_output_tokens_recovery", "terminal completed"}},
		{"PROFILE §1: the 4th truncation in a row ends api_error", cc, env, repeatHappened(trunc, 4),
			[]string{"max_output_tokens_recovery", "max_output_tokens_recovery", "max_output_tokens_recovery", "terminal api_error"}},
		{"SPEC §5: the seed escalates again after each recovery", seed, env, repeatHappened(trunc, 8),
			[]string{"max_output_tokens_escalate", "max_output_tokens_recovery", "max_output_tokens_escalate", "max_output_tokens_recovery",
				"max_output_tokens_escalate", "max_output_tokens_recovery", "max_output_tokens_escalate", "terminal completed"}},
		{"SPEC §5: escalate_once_per_stretch escalates once", onceSeed, env, repeatHappened(trunc, 5),
			[]string{"max_output_tokens_escalate", "max_output_tokens_recovery", "max_output_tokens_recovery", "max_output_tokens_recovery", "terminal completed"}},
		{"PROFILE §2: at most two compactions in a row", cc, env, repeatHappened(ptl, 3),
			[]string{"reactive_compact_retry", "reactive_compact_retry", "terminal prompt_too_long"}},
		{"PROFILE §2: a 413 is a media error in claude-code", cc, env, []Happened{{Reply: ReplyRequestTooLarge}},
			[]string{"terminal image_error"}},
		{"SPEC §2.5.2: the seed compacts once", seed, env, []Happened{ptl, ptl}, []string{"reactive_compact_retry", "terminal prompt_too_long"}},
		{"SPEC §2.5.1: never two drains in a row", seed, env, repeatHappened(Happened{Reply: ReplyPromptTooLong, DrainCommits: true, CompactOK: true}, 3),
			[]string{"collapse_drain_retry", "reactive_compact_retry", "collapse_drain_retry"}},
		{"PROFILE example: endless tool use, max turns 3", ccMaxTurns, env, repeatHappened(tool, 4),
			[]string{"next_turn", "next_turn", "terminal max_turns"}},
		{"PROFILE example: stop hook always blocks", cc, env, repeatHappened(text, 10),
			append(slices.Repeat([]string{"stop_hook_blocking"}, 8), "terminal completed")},
		{"SPEC §5: the seed's hook that always blocks never ends", seed, env, repeatHappened(text, 50),
			slices.Repeat([]string{"stop_hook_blocking"}, 50)},
		{"SPEC §2.6: a tool hook stops after the batch", cc, env, []Happened{{Reply: ReplyToolUse, Tools: ToolsPrevents}}, []string{"terminal hook_stopped"}},
		{"PROFILE §8: malformed tool use retried twice", cc, env, repeatHappened(Happened{Reply: ReplyMalformed}, 3),
			[]string{"malformed_tool_use_retry", "malformed_tool_use_retry", "terminal malformed_tool_use_exhausted"}},
		{"PROFILE §8: an empty reply is re-sent once, then accepted", cc, env, repeatHappened(Happened{Reply: ReplyEmpty}, 2),
			[]string{"empty_reply_retry", "terminal completed"}},
		{"SPEC §2.5.7: budget continues until diminishing", seed, RefEnv{TokenBudget: 100_000}, repeatHappened(Happened{Reply: ReplyText, Output: 100}, 6),
			// after 3 continuations two deltas under 500 are diminishing
			[]string{"token_budget_continuation", "token_budget_continuation", "token_budget_continuation", "terminal completed"}},
		{"SPEC §2.3, §2.5.5: api errors end the seed with completed (after the stop-failure hooks)", seed, env, []Happened{{Reply: ReplyAPIError}}, []string{"terminal completed"}},
	}
	checkDecisions(t, tests)
}

// decideCase is one row of a table of the reference's decisions: what
// happens to each request of a run under policy p in env, and the
// transitions and terminal the reference should decide.
type decideCase struct {
	name string
	p    loop.Policy
	env  RefEnv
	hs   []Happened
	want []string
}

// checkDecisions plays each row through the reference.
func checkDecisions(t *testing.T, tests []decideCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, playRef(tt.p, tt.env, tt.hs...), "decisions")
		})
	}
}
