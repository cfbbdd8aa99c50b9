package loop_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/loop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The claude-code profile, rule by rule of docs/profile-claude-code.md: the
// request sequence (model, max_tokens, message count, what was appended),
// the transitions and the terminal.

// opus is the profile's default model: a 1M window, 128k output.
var opus = loop.ModelInfo{Name: "opus", ContextWindow: 1_000_000, MaxOutputTokens: 128_000}

func cc(t *testing.T, kv ...string) loop.Policy {
	t.Helper()
	p := loop.ClaudeCode()
	for i := 0; i < len(kv); i += 2 {
		var err error
		p, err = p.With(kv[i], kv[i+1])
		require.NoError(t, err)
	}
	return p
}

// ccRun runs the claude-code profile (with overrides) on opus.
func ccRun(t *testing.T, f fixture, kv ...string) (*loop.Result, *fakemodel.Model) {
	t.Helper()
	f.policy = cc(t, kv...)
	if f.primary.Name == "" {
		f.primary = opus
	}
	return run(t, f)
}

// sequence writes the trace in the request notation of docs/profile-claude-code.md (examples): requests as
// M:<reply> or C, failures as M:<status>, transitions by name.
func sequence(tr loop.Trace) string {
	var parts []string
	for _, e := range tr {
		switch x := e.(type) {
		case loop.ResponseEvent:
			if x.Purpose == loop.PurposeCompact {
				parts = append(parts, "C")
				continue
			}
			reply := map[loop.StopReason]string{loop.StopToolUse: "tool", loop.StopEndTurn: "text", loop.StopMaxTokens: "trunc"}[x.StopReason]
			if len(x.ToolUses) > 0 {
				reply = "tool"
			}
			parts = append(parts, "M:"+reply)
		case loop.RequestFailed:
			p := "M"
			if x.Purpose == loop.PurposeCompact {
				p = "C"
			}
			what := string(x.Kind)
			if x.Status != 0 {
				what = fmt.Sprint(x.Status)
			}
			parts = append(parts, p+":"+what)
		case loop.TransitionEvent:
			parts = append(parts, string(x.Transition))
		}
	}
	return strings.Join(parts, " → ")
}

// repeatSeq joins n copies of step with sep between them.
func repeatSeq(step, sep string, n int) string {
	s := make([]string, n)
	for i := range s {
		s[i] = step
	}
	return strings.Join(s, " → "+sep+" → ")
}

// checkSeq compares the run with the request notation of docs/profile-claude-code.md and terminal.
func checkSeq(t *testing.T, res *loop.Result, seq string, term loop.Terminal) {
	t.Helper()
	got := sequence(res.Trace) + " | " + string(res.Terminal)
	if !assert.Equal(t, seq+" | "+string(term), got, "requests and transitions | terminal") {
		var b strings.Builder
		loop.WriteReadable(&b, res.Trace)
		t.Logf("trace:\n%s", b.String())
	}
}

// reqShape is what docs/profile-claude-code.md says must match per request.
type reqShape struct {
	Purpose   loop.Purpose
	Model     string
	MaxTokens int
	Messages  int
	Last      string
}

func shapes(m *fakemodel.Model) []reqShape {
	var out []reqShape
	for _, r := range m.Requests {
		last := ""
		if n := len(r.Messages); n > 0 {
			last = r.Messages[n-1].Kind()
		}
		out = append(out, reqShape{r.Purpose, r.Model, r.MaxTokens, len(r.Messages), last})
	}
	return out
}

// The examples table of docs/profile-claude-code.md, row by row.
func TestClaudeCodeExamples(t *testing.T) {
	endless := fakemodel.Step{ToolUses: []fakemodel.ToolUse{{Name: "Read"}}, Repeat: fakemodel.Forever}
	always := &fakemodel.StopHooks{Outcomes: []fakemodel.StopOutcome{{Block: "not yet"}}}
	rows := []struct {
		name   string
		f      fixture
		kv     []string
		seq    string
		term   loop.Terminal
		shapes []reqShape
	}{
		{"truncated x2, then text", fixture{script: []fakemodel.Step{truncated, truncated, textStep}}, nil,
			"M:trunc → max_output_tokens_recovery → M:trunc → max_output_tokens_recovery → M:text", loop.Completed,
			[]reqShape{{"main", "opus", 128_000, 1, "user"}, {"main", "opus", 128_000, 3, "user:meta"}, {"main", "opus", 128_000, 5, "user:meta"}}},
		{"tool, prompt-too-long, text", fixture{script: []fakemodel.Step{toolStep, ptl, summary, textStep}}, nil,
			"M:tool → next_turn → M:400 → C → reactive_compact_retry → M:text", loop.Completed,
			[]reqShape{{"main", "opus", 128_000, 1, "user"}, {"main", "opus", 128_000, 3, "user:tool_result"},
				{"compact", "opus", 128_000, 4, "user:meta"}, {"main", "opus", 128_000, 1, "user:compact_summary"}}},
		{"endless tool use, max turns 3", fixture{script: []fakemodel.Step{endless}}, []string{"max_turns", "3"},
			"M:tool → next_turn → M:tool → next_turn → M:tool", loop.MaxTurns, nil},
		{"stop hook always blocks", fixture{script: []fakemodel.Step{{Text: "done", Repeat: fakemodel.Forever}}, hooks: always}, nil,
			repeatSeq("M:text", "stop_hook_blocking", 9), loop.Completed, nil},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			res, model := ccRun(t, row.f, row.kv...)
			checkSeq(t, res, row.seq, row.term)
			if row.shapes != nil {
				if diff := cmp.Diff(row.shapes, shapes(model)); diff != "" {
					t.Errorf("requests (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// §1: output truncation.
func TestClaudeCodeTruncation(t *testing.T) {
	t.Run("3rd truncation recovered, 4th ends api_error", func(t *testing.T) {
		three, _ := ccRun(t, fixture{script: []fakemodel.Step{{Kind: fakemodel.Truncated, Repeat: 3}, textStep}})
		checkSeq(t, three, repeatSeq("M:trunc", "max_output_tokens_recovery", 3)+" → max_output_tokens_recovery → M:text", loop.Completed)
		four, _ := ccRun(t, fixture{script: []fakemodel.Step{{Kind: fakemodel.Truncated, Repeat: 4}}})
		checkSeq(t, four, repeatSeq("M:trunc", "max_output_tokens_recovery", 4), loop.APIError)
	})
	t.Run("no escalation: max_tokens never changes", func(t *testing.T) {
		_, model := ccRun(t, fixture{script: []fakemodel.Step{{Kind: fakemodel.Truncated, Repeat: 4}}})
		for i, r := range model.Requests {
			assert.Equal(t, 128_000, r.MaxTokens, "request %d max_tokens", i+1)
		}
	})
	t.Run("the count resets after a tool turn", func(t *testing.T) {
		tr := fakemodel.Step{Kind: fakemodel.Truncated, Repeat: 3}
		res, _ := ccRun(t, fixture{script: []fakemodel.Step{tr, toolStep, tr, textStep}})
		R := "max_output_tokens_recovery"
		checkSeq(t, res, repeatSeq("M:trunc", R, 3)+" → "+R+" → M:tool → next_turn → "+repeatSeq("M:trunc", R, 3)+" → "+R+" → M:text", loop.Completed)
	})
	t.Run("a truncated tool_use is a normal tool turn", func(t *testing.T) {
		step := fakemodel.Step{Kind: fakemodel.Truncated, ToolUses: []fakemodel.ToolUse{{Name: "Read", Input: `{"path":"x"}`}}}
		res, model := ccRun(t, fixture{script: []fakemodel.Step{step, textStep}})
		checkSeq(t, res, "M:tool → next_turn → M:text", loop.Completed)
		got := model.Requests[1].Messages[2]
		require.True(t, got.IsToolResult(), "cut input should give a tool result, got %+v", got.Blocks)
		assert.True(t, got.Blocks[0].IsError, "an error result")
		assert.Equal(t, loop.InputErrorResult, got.Blocks[0].Text)
	})
}

// §2: prompt too long and 413.
func TestClaudeCodePromptTooLong(t *testing.T) {
	t.Run("first request: no compaction", func(t *testing.T) {
		res, _ := ccRun(t, fixture{script: []fakemodel.Step{ptl}})
		checkSeq(t, res, "M:400", loop.PromptTooLong)
		res, _ = ccRun(t, fixture{script: []fakemodel.Step{{Kind: fakemodel.RequestTooLarge}}})
		checkSeq(t, res, "M:413", loop.ImageError)
	})
	t.Run("a 413 compacts as an auto-compaction: not after one round, once after two (observed)", func(t *testing.T) {
		tooLarge := fakemodel.Step{Kind: fakemodel.RequestTooLarge}
		res, _ := ccRun(t, fixture{script: []fakemodel.Step{toolStep, tooLarge, summary, textStep}})
		checkSeq(t, res, "M:tool → next_turn → M:413", loop.ImageError)
		res, model := ccRun(t, fixture{script: []fakemodel.Step{toolStep, toolStep, toolStep, tooLarge, summary, tooLarge, summary, textStep}})
		checkSeq(t, res, "M:tool → next_turn → M:tool → next_turn → M:tool → next_turn → M:413 → C → reactive_compact_retry → M:413", loop.ImageError)
		// the compaction carries the prompt and the first two rounds (and
		// the instruction); the newest round alone is kept
		assert.Len(t, model.Requests[4].Messages, 6, "compaction request")
		if m := model.Requests[5].Messages; assert.Len(t, m, 3, "after the compaction") {
			assert.True(t, m[0].CompactSummary, "after the compaction: the first message is the summary")
		}
		res, _ = ccRun(t, fixture{script: []fakemodel.Step{toolStep, tooLarge, summary, textStep}}, "request_too_large_as_auto", "false")
		checkSeq(t, res, "M:tool → next_turn → M:413 → C → reactive_compact_retry → M:text", loop.Completed)
	})
	t.Run("2nd compaction in a row runs, 3rd does not", func(t *testing.T) {
		// two rounds, so that the first compaction keeps one and the
		// second has something to summarise
		two, _ := ccRun(t, fixture{script: []fakemodel.Step{toolStep, toolStep, ptl, summary, ptl, summary, textStep}})
		checkSeq(t, two, "M:tool → next_turn → M:tool → next_turn → M:400 → C → reactive_compact_retry → M:400 → C → reactive_compact_retry → M:text", loop.Completed)
		three, _ := ccRun(t, fixture{script: []fakemodel.Step{toolStep, toolStep, ptl, summary, ptl, summary, ptl}})
		checkSeq(t, three, "M:tool → next_turn → M:tool → next_turn → M:400 → C → reactive_compact_retry → M:400 → C → reactive_compact_retry → M:400", loop.PromptTooLong)
	})
	t.Run("after one round nothing is kept, and a second prompt-too-long ends (observed)", func(t *testing.T) {
		res, model := ccRun(t, fixture{script: []fakemodel.Step{toolStep, ptl, summary, ptl}})
		checkSeq(t, res, "M:tool → next_turn → M:400 → C → reactive_compact_retry → M:400", loop.PromptTooLong)
		assert.Len(t, model.Requests[2].Messages, 4, "the compaction request carries the prompt, the round and the instruction")
		if m := model.Requests[3].Messages; assert.Len(t, m, 1, "the retry carries the summary alone") {
			assert.True(t, m[0].CompactSummary, "the retry carries the summary alone")
		}
	})
	t.Run("the count restarts after a successful model turn", func(t *testing.T) {
		res, _ := ccRun(t, fixture{script: []fakemodel.Step{toolStep, toolStep, ptl, summary, ptl, summary, toolStep, toolStep, ptl, summary, textStep}})
		checkSeq(t, res, "M:tool → next_turn → M:tool → next_turn → M:400 → C → reactive_compact_retry → M:400 → C → reactive_compact_retry → M:tool → next_turn → M:tool → next_turn → M:400 → C → reactive_compact_retry → M:text", loop.Completed)
	})
	t.Run("compaction off: the first prompt-too-long ends", func(t *testing.T) {
		res, _ := ccRun(t, fixture{script: []fakemodel.Step{toolStep, ptl}}, "reactive_compact", "false")
		checkSeq(t, res, "M:tool → next_turn → M:400", loop.PromptTooLong)
	})
	t.Run("the compaction request keeps the newest round as a tail", func(t *testing.T) {
		res, model := ccRun(t, fixture{script: []fakemodel.Step{toolStep, toolStep, ptl, summary, textStep}})
		checkSeq(t, res, "M:tool → next_turn → M:tool → next_turn → M:400 → C → reactive_compact_retry → M:text", loop.Completed)
		c := model.Requests[3]
		// 3 exchanges: the prompt and 2 tool rounds; the newest is kept
		// (as the released agent does after two rounds)
		assert.Equal(t, loop.PurposeCompact, c.Purpose)
		if assert.Len(t, c.Messages, 4, "compaction request") {
			assert.Equal(t, loop.SummariseInstruction, c.Messages[3].Text())
		}
		retry := model.Requests[4].Messages
		require.Len(t, retry, 3, "retry after compaction")
		assert.True(t, retry[0].CompactSummary, "retry starts with the summary, got %s", retry[0].Kind())
		assert.Equal(t, loop.RoleAssistant, retry[1].Role)
	})
}

// §2: the compaction call's own failures.
func TestClaudeCodeCompactionCallFailures(t *testing.T) {
	bad := fakemodel.Step{Kind: fakemodel.InvalidRequest}
	t.Run("a non-overflow 400 is retried up to 8 calls", func(t *testing.T) {
		ok, _ := ccRun(t, fixture{script: []fakemodel.Step{toolStep, ptl, {Kind: fakemodel.InvalidRequest, Repeat: 7}, summary, textStep}})
		checkSeq(t, ok, "M:tool → next_turn → M:400 → "+strings.Repeat("C:400 → ", 7)+"C → reactive_compact_retry → M:text", loop.Completed)
		fail, _ := ccRun(t, fixture{script: []fakemodel.Step{toolStep, ptl, {Kind: bad.Kind, Repeat: 8}}})
		checkSeq(t, fail, "M:tool → next_turn → M:400 → "+strings.TrimSuffix(strings.Repeat("C:400 → ", 8), " → "), loop.PromptTooLong)
	})
	t.Run("prompt-too-long on it: re-sent once unchanged, then the prompt dropped and every round summarised", func(t *testing.T) {
		res, model := ccRun(t, fixture{script: []fakemodel.Step{toolStep, toolStep, toolStep, ptl, ptl, ptl, summary, textStep}})
		checkSeq(t, res, "M:tool → next_turn → M:tool → next_turn → M:tool → next_turn → M:400 → C:400 → C:400 → C → reactive_compact_retry → M:text", loop.Completed)
		first, resent, trimmed := model.Requests[4].Messages, model.Requests[5].Messages, model.Requests[6].Messages
		assert.Equal(t, messageTexts(first), messageTexts(resent), "the first overflow re-sends the request unchanged")
		require.NotEmpty(t, trimmed)
		assert.Equal(t, loop.OverflowMarker, trimmed[0].Text(), "the prompt is replaced by the marker")
		// the main request's history minus its prompt, every round, the
		// kept tail too, then the summarise instruction
		main := model.Requests[3].Messages
		assert.Len(t, trimmed, len(main)-1+1+1, "every round is carried")
		assert.Equal(t, loop.SummariseInstruction, trimmed[len(trimmed)-1].Text())
		retry := model.Requests[7].Messages
		require.NotEmpty(t, retry)
		assert.True(t, retry[0].CompactSummary, "retry starts with the summary, got %s", retry[0].Kind())
		assert.Len(t, retry, 1, "nothing is kept after the summary")
	})
	t.Run("no summary tags: asked again once, then accepted", func(t *testing.T) {
		untagged := fakemodel.Step{Text: "a summary without tags"}
		res, model := ccRun(t, fixture{script: []fakemodel.Step{toolStep, ptl, untagged, untagged, textStep}})
		checkSeq(t, res, "M:tool → next_turn → M:400 → C → C → reactive_compact_retry → M:text", loop.Completed)
		got := model.Requests[3].Messages
		assert.Equal(t, loop.ReaskInstruction, got[len(got)-1].Text(), "the second compaction call asks again")
	})
	t.Run("an empty reply fails at once", func(t *testing.T) {
		res, _ := ccRun(t, fixture{script: []fakemodel.Step{toolStep, ptl, {Kind: fakemodel.Empty}}})
		checkSeq(t, res, "M:tool → next_turn → M:400 → C", loop.PromptTooLong)
	})
}

// history builds [prompt, reply, tool result, reply, tool result] (two
// tool rounds: enough groups to auto-compact) whose usage-based count is
// total, for the auto-compact boundaries. The bulk is in the prompt (a
// paste), out of reach of the tool-result budget.
func history(total int) []loop.Message {
	u1 := loop.Usage{InputTokens: total - 4_000, OutputTokens: 500}
	u2 := loop.Usage{InputTokens: total - 2_000, OutputTokens: 500}
	return []loop.Message{
		{Role: loop.RoleUser, Tokens: total - 4_000, Blocks: []loop.Block{{Type: loop.BlockText, Text: "task and a large paste"}}},
		{Role: loop.RoleAssistant, Tokens: 500, Usage: &u1, Blocks: []loop.Block{{Type: loop.BlockToolUse, ID: "h1", Name: "Read", Input: "{}"}}},
		{Role: loop.RoleUser, Tokens: 1_500, Blocks: []loop.Block{{Type: loop.BlockToolResult, ToolUseID: "h1", Tokens: 1_500}}},
		{Role: loop.RoleAssistant, Tokens: 500, Usage: &u2, Blocks: []loop.Block{{Type: loop.BlockToolUse, ID: "h2", Name: "Read", Input: "{}"}}},
		{Role: loop.RoleUser, Tokens: 1_500, Blocks: []loop.Block{{Type: loop.BlockToolResult, ToolUseID: "h2", Tokens: 1_500}}},
	}
}

// §3: auto-compact and the blocking limit.
func TestClaudeCodeAutoCompact(t *testing.T) {
	t.Run("966,999 does not compact, 967,000 does", func(t *testing.T) {
		under, _ := ccRun(t, fixture{initial: history(966_999), script: []fakemodel.Step{textStep}})
		checkSeq(t, under, "M:text", loop.Completed)
		at, model := ccRun(t, fixture{initial: history(967_000), script: []fakemodel.Step{summary, textStep}})
		checkSeq(t, at, "C → M:text", loop.Completed)
		assert.Equal(t, loop.PurposeCompact, model.Requests[0].Purpose, "auto-compact runs before the request")
		assert.True(t, model.Requests[1].Messages[0].CompactSummary, "the request starts with the summary")
	})
	t.Run("a percentage override and a smaller window move the threshold", func(t *testing.T) {
		res, _ := ccRun(t, fixture{initial: history(67_000), script: []fakemodel.Step{summary, textStep}}, "context_window", "100000")
		checkSeq(t, res, "C → M:text", loop.Completed)
		res, _ = ccRun(t, fixture{initial: history(66_999), script: []fakemodel.Step{textStep}}, "context_window", "100000")
		checkSeq(t, res, "M:text", loop.Completed)
		res, _ = ccRun(t, fixture{initial: history(490_000), script: []fakemodel.Step{summary, textStep}}, "auto_compact_percent", "50")
		checkSeq(t, res, "C → M:text", loop.Completed)
		res, _ = ccRun(t, fixture{initial: history(489_999), script: []fakemodel.Step{textStep}}, "auto_compact_percent", "50")
		checkSeq(t, res, "M:text", loop.Completed)
	})
	t.Run("the percentage only lowers the threshold (observed)", func(t *testing.T) {
		// 99% of 980,000 is 970,200, above the default 967,000: the
		// default holds
		pct := loop.ClaudeCode()
		pct.AutoCompactPercent = 99
		assert.Equal(t, 967_000, pct.Limits(loop.ModelInfo{ContextWindow: 1_000_000, MaxOutputTokens: 128_000}).AutoCompactThreshold)
		res, _ := ccRun(t, fixture{initial: history(967_000), script: []fakemodel.Step{summary, textStep}}, "auto_compact_percent", "99")
		checkSeq(t, res, "C → M:text", loop.Completed)
		res, _ = ccRun(t, fixture{initial: history(967_000), script: []fakemodel.Step{textStep}},
			"auto_compact_percent", "99", "auto_compact_percent_lowers_only", "false")
		checkSeq(t, res, "M:text", loop.Completed)
	})
	t.Run("one tool round is too few groups, two are enough (observed)", func(t *testing.T) {
		oneRound := history(970_000)
		oneRound = append([]loop.Message{{Role: loop.RoleUser, Tokens: oneRound[0].Tokens + 2_000, Blocks: oneRound[0].Blocks}}, oneRound[3:]...)
		res, _ := ccRun(t, fixture{initial: oneRound, script: []fakemodel.Step{textStep}})
		checkSeq(t, res, "M:text", loop.Completed)
		res, model := ccRun(t, fixture{initial: history(970_000), script: []fakemodel.Step{summary, textStep}})
		checkSeq(t, res, "C → M:text", loop.Completed)
		// the compaction carries the prompt and the first round; the
		// newest round is kept verbatim
		if c := model.Requests[0].Messages; assert.Len(t, c, 4, "compaction request") {
			assert.Equal(t, loop.SummariseInstruction, c[3].Text(), "compaction request's last message")
		}
		if m := model.Requests[1].Messages; assert.Len(t, m, 3, "after the compaction") {
			assert.True(t, m[0].CompactSummary, "after the compaction: the first message is the summary")
			if uses := m[1].ToolUses(); assert.NotEmpty(t, uses, "after the compaction: the kept round's tool uses") {
				assert.Equal(t, "h2", uses[0].ID, "after the compaction: the kept round")
			}
		}
	})
	t.Run("one exchange: skipped unless over the blocking limit", func(t *testing.T) {
		one := func(n int) []loop.Message {
			return []loop.Message{{Role: loop.RoleUser, Tokens: n, Blocks: []loop.Block{{Type: loop.BlockText, Text: "huge paste"}}}}
		}
		res, _ := ccRun(t, fixture{initial: one(970_000), script: []fakemodel.Step{textStep}})
		checkSeq(t, res, "M:text", loop.Completed)
		res, _ = ccRun(t, fixture{initial: one(977_000), script: []fakemodel.Step{summary, textStep}})
		checkSeq(t, res, "C → M:text", loop.Completed)
	})
	t.Run("a failed compaction under the blocking limit sends uncompacted, over it ends", func(t *testing.T) {
		empty := fakemodel.Step{Kind: fakemodel.Empty}
		res, model := ccRun(t, fixture{initial: history(970_000), script: []fakemodel.Step{empty, textStep}})
		checkSeq(t, res, "C → M:text", loop.Completed)
		assert.Len(t, model.Requests[1].Messages, 5, "the uncompacted request")
		res, _ = ccRun(t, fixture{initial: history(977_000), script: []fakemodel.Step{empty}})
		checkSeq(t, res, "C", loop.BlockingLimit)
	})
	t.Run("auto-compact off: the blocking limit ends without a request", func(t *testing.T) {
		res, model := ccRun(t, fixture{initial: history(977_000), script: []fakemodel.Step{textStep}}, "auto_compact", "false")
		checkSeq(t, res, "", loop.BlockingLimit)
		assert.Empty(t, model.Requests, "requests sent")
		res, _ = ccRun(t, fixture{initial: history(976_999), script: []fakemodel.Step{textStep}}, "auto_compact", "false")
		checkSeq(t, res, "M:text", loop.Completed)
	})
	t.Run("auto-compact off: a prompt-too-long is not compacted (observed: compact-off-ptl)", func(t *testing.T) {
		res, model := ccRun(t, fixture{initial: history(100_000), script: []fakemodel.Step{ptl, summary, textStep}}, "auto_compact", "false")
		checkSeq(t, res, "M:400", loop.PromptTooLong)
		assert.Len(t, model.Requests, 1, "requests sent")
		res, _ = ccRun(t, fixture{initial: history(100_000), script: []fakemodel.Step{ptl, summary, textStep}},
			"auto_compact", "false", "reactive_compact_when_auto_off", "true")
		checkSeq(t, res, "M:400 → C → reactive_compact_retry → M:text", loop.Completed)
	})
	t.Run("reactive-only models enforce no threshold and no blocking limit", func(t *testing.T) {
		res, _ := ccRun(t, fixture{initial: history(990_000), script: []fakemodel.Step{ptl, summary, textStep}}, "reactive_only_models", "opus")
		checkSeq(t, res, "M:400 → C → reactive_compact_retry → M:text", loop.Completed)
	})
}

// thrash builds a history at the 100k-window threshold whose newest two
// exchanges alone are still over it, so every compaction refills at once.
func thrash() []loop.Message {
	msgs := []loop.Message{{Role: loop.RoleUser, Tokens: 1_000, Blocks: []loop.Block{{Type: loop.BlockText, Text: "task"}}}}
	for i, n := range []int{34_000, 34_000} {
		id := fmt.Sprintf("h%d", i)
		msgs = append(msgs,
			loop.Message{Role: loop.RoleAssistant, Tokens: 500, Blocks: []loop.Block{{Type: loop.BlockToolUse, ID: id, Name: "Read", Input: "{}"}}},
			loop.Message{Role: loop.RoleUser, Tokens: n, Blocks: []loop.Block{{Type: loop.BlockToolResult, ToolUseID: id, Tokens: n}}})
	}
	return msgs
}

// guardAlone isolates the thrash guard on a 100,000-token window: every
// auto-compaction keeps the newest round, the later ones too (claude-code's
// later ones keep nothing when they are rapid refills:
// TestClaudeCodeLaterAutoCompactKeepsNothing).
var guardAlone = []string{"context_window", "100000", "later_auto_tail", "exchanges"}

// §3: the thrash guard.
func TestClaudeCodeRapidRefill(t *testing.T) {
	big := &fakemodel.Tools{Default: fakemodel.Tool{Tokens: 34_000}}
	tool := fakemodel.Step{ToolUses: []fakemodel.ToolUse{{Name: "Read"}}, OutputTokens: 100}
	t.Run("2nd rapid refill compacts, 3rd trips the breaker", func(t *testing.T) {
		res, _ := ccRun(t, fixture{initial: thrash(), tools: big, script: []fakemodel.Step{summary, tool, summary, tool, summary, textStep}},
			guardAlone...)
		checkSeq(t, res, "C → M:tool → next_turn → C → M:tool → next_turn → C → M:text", loop.Completed)
		rapid := []int{}
		for _, c := range events[loop.Compaction](res.Trace) {
			rapid = append(rapid, c.RapidRefill)
		}
		if diff := cmp.Diff([]int{0, 1, 2}, rapid); diff != "" {
			t.Errorf("rapid refill counts (-want +got):\n%s", diff)
		}
		res, _ = ccRun(t, fixture{initial: thrash(), tools: big, script: []fakemodel.Step{summary, tool, summary, tool, summary, tool}},
			guardAlone...)
		checkSeq(t, res, "C → M:tool → next_turn → C → M:tool → next_turn → C → M:tool → next_turn", loop.RapidRefillBreaker)
	})
	t.Run("refills 3 replies apart never trip it", func(t *testing.T) {
		// each refill comes three replies after the compaction before it
		tools := &fakemodel.Tools{Default: fakemodel.Tool{Tokens: 700}, ByName: map[string]fakemodel.Tool{"Bash": {Tokens: 63_000}}}
		small := fakemodel.Step{ToolUses: []fakemodel.ToolUse{{Name: "Read"}}, OutputTokens: 100}
		large := fakemodel.Step{ToolUses: []fakemodel.ToolUse{{Name: "Bash"}}, OutputTokens: 100}
		initial := []loop.Message{{Role: loop.RoleUser, Tokens: 66_000, Blocks: []loop.Block{{Type: loop.BlockText, Text: "paste"}}},
			{Role: loop.RoleAssistant, Tokens: 500, Blocks: []loop.Block{{Type: loop.BlockText, Text: "ok"}}},
			{Role: loop.RoleUser, Tokens: 500, Blocks: []loop.Block{{Type: loop.BlockText, Text: "go"}}},
			{Role: loop.RoleAssistant, Tokens: 500, Blocks: []loop.Block{{Type: loop.BlockText, Text: "ok"}}},
			{Role: loop.RoleUser, Tokens: 500, Blocks: []loop.Block{{Type: loop.BlockText, Text: "go on"}}}}
		script := []fakemodel.Step{summary, small, small, large, summary, small, small, small, summary, textStep}
		res, _ := ccRun(t, fixture{initial: initial, tools: tools, script: script}, append(guardAlone, "tool_result_budget", "0")...)
		require.Equal(t, loop.Completed, res.Terminal, sequence(res.Trace))
		for _, c := range events[loop.Compaction](res.Trace) {
			assert.True(t, c.OK, "compaction %+v", c)
			assert.Zero(t, c.RapidRefill, "compaction %+v counted as a rapid refill", c)
		}
		var b strings.Builder
		loop.WriteReadable(&b, res.Trace)
		assert.Len(t, events[loop.Compaction](res.Trace), 3, "compactions; trace:\n%s", b.String())
	})
}

// An auto-compaction after an earlier one that is a rapid refill carries
// the summary and every round and keeps nothing (observed:
// compact-auto-later); the first keeps the newest round, and so does a
// later one three or more replies after the last (compact-auto-later-3-
// apart). later_auto_tail exchanges keeps it every time, none never.
func TestClaudeCodeLaterAutoCompactKeepsNothing(t *testing.T) {
	big := &fakemodel.Tools{Default: fakemodel.Tool{Tokens: 34_000}}
	tool := fakemodel.Step{ToolUses: []fakemodel.ToolUse{{Name: "Read"}}, OutputTokens: 100}
	script := []fakemodel.Step{summary, tool, summary, textStep}
	kept := func(res *loop.Result) []int {
		var out []int
		for _, c := range events[loop.Compaction](res.Trace) {
			out = append(out, c.Kept)
		}
		return out
	}
	res, model := ccRun(t, fixture{initial: thrash(), tools: big, script: script}, "context_window", "100000")
	checkSeq(t, res, "C → M:tool → next_turn → C → M:text", loop.Completed)
	assert.Equal(t, []int{2, 0}, kept(res), "messages kept by each compaction")
	require.Len(t, model.Requests, 4)
	assert.Len(t, model.Requests[2].Messages, 6, "the second compaction carries the summary, both rounds and its instruction")
	assert.Len(t, model.Requests[3].Messages, 1, "the request after it carries the summary alone")

	res, _ = ccRun(t, fixture{initial: thrash(), tools: big, script: script}, guardAlone...)
	checkSeq(t, res, "C → M:tool → next_turn → C → M:text", loop.Completed)
	assert.Equal(t, []int{2, 2}, kept(res), "messages kept by each compaction")

	// three replies of 12,000 refill the window after the first
	// compaction: the second is no rapid refill
	mid := &fakemodel.Tools{Default: fakemodel.Tool{Tokens: 12_000}}
	slow := []fakemodel.Step{summary, tool, tool, tool, summary, textStep}
	res, model = ccRun(t, fixture{initial: thrash(), tools: mid, script: slow}, "context_window", "100000")
	checkSeq(t, res, "C → M:tool → next_turn → M:tool → next_turn → M:tool → next_turn → C → M:text", loop.Completed)
	for _, c := range events[loop.Compaction](res.Trace) {
		assert.Zero(t, c.RapidRefill, "compaction %+v counted as a rapid refill", c)
	}
	assert.Equal(t, []int{2, 2}, kept(res), "a later compaction that is no rapid refill keeps the newest round")
	require.Len(t, model.Requests, 6)
	assert.Len(t, model.Requests[5].Messages, 3, "the request after it carries the summary and the newest round")

	res, _ = ccRun(t, fixture{initial: thrash(), tools: mid, script: slow}, "context_window", "100000", "later_auto_tail", "none")
	assert.Equal(t, []int{2, 0}, kept(res), "later_auto_tail none keeps nothing, rapid refill or not")
}

// §4: max turns; stop-hook blocks count as turns.
func TestClaudeCodeMaxTurns(t *testing.T) {
	always := &fakemodel.StopHooks{Outcomes: []fakemodel.StopOutcome{{Block: "again"}}}
	res, model := ccRun(t, fixture{script: []fakemodel.Step{{Text: "done", Repeat: fakemodel.Forever}}, hooks: always}, "max_turns", "2")
	checkSeq(t, res, "M:text → stop_hook_blocking → M:text", loop.MaxTurns)
	assert.Len(t, model.Requests, 2, "exactly N=2 requests")
	mixed, model := ccRun(t, fixture{script: []fakemodel.Step{toolStep, {Text: "done", Repeat: fakemodel.Forever}}, hooks: always}, "max_turns", "3")
	checkSeq(t, mixed, "M:tool → next_turn → M:text → stop_hook_blocking → M:text", loop.MaxTurns)
	assert.Len(t, model.Requests, 3, "exactly N=3 requests")
	one, model := ccRun(t, fixture{script: []fakemodel.Step{{Text: "done", Repeat: fakemodel.Forever}}, hooks: always}, "max_turns", "1")
	checkSeq(t, one, "M:text", loop.MaxTurns)
	assert.Len(t, model.Requests, 1, "a block is the second turn of max_turns=1")
	for _, r := range []*loop.Result{res, mixed, one} {
		assert.Equal(t, []loop.Notice{{Text: loop.MaxTurnsNotice}}, events[loop.Notice](r.Trace), "the user is told why the run stopped")
	}
}

// §5: stop hooks.
func TestClaudeCodeStopHooks(t *testing.T) {
	always := func() *fakemodel.StopHooks {
		return &fakemodel.StopHooks{Outcomes: []fakemodel.StopOutcome{{Block: "again"}}}
	}
	forever := fakemodel.Step{Text: "done", Repeat: fakemodel.Forever}
	t.Run("8th block re-queries, 9th is overridden", func(t *testing.T) {
		res, model := ccRun(t, fixture{script: []fakemodel.Step{forever}, hooks: always()})
		checkSeq(t, res, repeatSeq("M:text", "stop_hook_blocking", 9), loop.Completed)
		last := model.Requests[8].Messages
		assert.Equal(t, loop.StopHookFeedbackPrefix+"again", last[len(last)-1].Text(), "feedback message")
		assert.True(t, last[len(last)-1].Meta, "feedback is a meta message")
		h := events[loop.StopHook](res.Trace)
		require.Len(t, h, 9)
		assert.Equal(t, loop.HookCapOverride, h[8].Outcome, "9th hook outcome")
	})
	t.Run("a configurable cap", func(t *testing.T) {
		res, _ := ccRun(t, fixture{script: []fakemodel.Step{forever}, hooks: always()}, "stop_hook_block_cap", "3")
		checkSeq(t, res, repeatSeq("M:text", "stop_hook_blocking", 4), loop.Completed)
		res, _ = ccRun(t, fixture{script: []fakemodel.Step{forever}, hooks: always()}, "stop_hook_block_cap", "3", "stop_hook_cap_action", "stop_hook_prevented")
		checkSeq(t, res, repeatSeq("M:text", "stop_hook_blocking", 4), loop.StopHookPrevented)
	})
	t.Run("the count resets after a tool turn", func(t *testing.T) {
		script := []fakemodel.Step{{Text: "done", Repeat: 5}, toolStep, forever}
		res, _ := ccRun(t, fixture{script: script, hooks: always()})
		want := repeatSeq("M:text", "stop_hook_blocking", 5) + " → stop_hook_blocking → M:tool → next_turn → " + repeatSeq("M:text", "stop_hook_blocking", 9)
		checkSeq(t, res, want, loop.Completed)
	})
	t.Run("do not continue is not an error", func(t *testing.T) {
		res, _ := ccRun(t, fixture{script: []fakemodel.Step{textStep}, hooks: &fakemodel.StopHooks{Outcomes: []fakemodel.StopOutcome{{Prevent: true}}}})
		checkSeq(t, res, "M:text", loop.StopHookPrevented)
	})
}

// §6: tool hooks.
func TestClaudeCodeToolHooks(t *testing.T) {
	two := fakemodel.Step{ToolUses: []fakemodel.ToolUse{{Name: "Read"}, {Name: "Bash"}}}
	tools := &fakemodel.Tools{ByName: map[string]fakemodel.Tool{"Read": {PreventContinuation: true}}}
	res, _ := ccRun(t, fixture{script: []fakemodel.Step{two}, tools: tools})
	checkSeq(t, res, "M:tool", loop.HookStopped)
	assert.Len(t, tools.CallIDs(), 2, "the batch must run before the query ends")
	deny := &fakemodel.Tools{ByName: map[string]fakemodel.Tool{"Read": {Deny: "not allowed"}}}
	res, model := ccRun(t, fixture{script: []fakemodel.Step{two, textStep}, tools: deny})
	checkSeq(t, res, "M:tool → next_turn → M:text", loop.Completed)
	results := model.Requests[1].Messages[2].Blocks
	assert.True(t, results[0].IsError, "the denied call fails")
	assert.False(t, results[1].IsError, "the other call does not")
}

// §7: API errors, retries and back-off.
func TestClaudeCodeAPIRetries(t *testing.T) {
	for _, kind := range []fakemodel.Kind{fakemodel.RateLimited, fakemodel.ServerError, fakemodel.ConnectionDropped} {
		t.Run(string(kind)+": 10 retries, then api_error", func(t *testing.T) {
			ok, model := ccRun(t, fixture{script: []fakemodel.Step{{Kind: kind, Repeat: 10}, textStep}}, "fallback", "false")
			assert.Equal(t, loop.Completed, ok.Terminal, "10 failures then text")
			assert.Len(t, model.Requests, 11, "10 failures then text")
			for i, r := range model.Requests {
				if !r.NonStreaming {
					assert.Equal(t, 128_000, r.MaxTokens, "retry %d is the same request", i)
				}
				assert.Len(t, r.Messages, 1, "retry %d is the same request", i)
			}
			failing := fakemodel.Step{Kind: kind, Repeat: fakemodel.Forever}
			exhausted, model := ccRun(t, fixture{script: []fakemodel.Step{failing}}, "fallback", "false")
			want := 11 // observed: repeated drops never go non-streaming
			assert.Equal(t, loop.APIError, exhausted.Terminal, "endless failures")
			assert.Len(t, model.Requests, want, "endless failures")
		})
	}
	t.Run("529: without a fallback model the 3rd in a row ends api_error (observed)", func(t *testing.T) {
		res, model := ccRun(t, fixture{script: []fakemodel.Step{{Kind: fakemodel.Overloaded, Repeat: fakemodel.Forever}}}, "fallback", "false")
		checkSeq(t, res, "M:529 → M:529 → M:529", loop.APIError)
		ok, _ := ccRun(t, fixture{script: []fakemodel.Step{{Kind: fakemodel.Overloaded, Repeat: 2}, {Kind: fakemodel.RateLimited}, {Kind: fakemodel.Overloaded, Repeat: 2}, textStep}}, "fallback", "false")
		checkSeq(t, ok, "M:529 → M:529 → M:429 → M:529 → M:529 → M:text", loop.Completed)
		assert.Len(t, model.Requests, 3, "requests")
	})
	t.Run("back-off: min(500 x 2^(k-1), 32000) x (1 + U[0, 0.25])", func(t *testing.T) {
		res, _ := ccRun(t, fixture{script: []fakemodel.Step{{Kind: fakemodel.ServerError, Repeat: 10}, textStep}}, "fallback", "false")
		retries := events[loop.Retry](res.Trace)
		require.Len(t, retries, 10)
		total := 0
		for k, r := range retries {
			base := min(500<<k, 32_000)
			assert.GreaterOrEqual(t, r.DelayMS, base, "retry %d delay", k+1)
			assert.LessOrEqual(t, r.DelayMS, base*5/4, "retry %d delay", k+1)
			total += r.DelayMS
		}
		assert.Equal(t, total, res.Stats.RetryDelayMS, "stats sum against the events' sum")
	})
	t.Run("retry-after x (1 + U[0, 0.25])", func(t *testing.T) {
		res, _ := ccRun(t, fixture{script: []fakemodel.Step{{Kind: fakemodel.RateLimited, RetryAfterMS: 7_000}, textStep}})
		r := events[loop.Retry](res.Trace)
		require.Len(t, r, 1)
		assert.GreaterOrEqual(t, r[0].DelayMS, 7_000, "retry-after delay")
		assert.LessOrEqual(t, r[0].DelayMS, 8_750, "retry-after delay")
	})
	t.Run("delays come from the seeded stream", func(t *testing.T) {
		delays := func(seed uint64) []int {
			f := fixture{policy: loop.ClaudeCode(), primary: opus, script: []fakemodel.Step{{Kind: fakemodel.Overloaded, Repeat: 5}, textStep}}
			res, _ := runSeeded(t, f, seed)
			var out []int
			for _, r := range events[loop.Retry](res.Trace) {
				out = append(out, r.DelayMS)
			}
			return out
		}
		assert.Equal(t, delays(1), delays(1), "same seed, same delays")
		assert.NotEqual(t, delays(1), delays(2), "different seeds, different delays")
	})
}

// runSeeded is run with a retry seed.
func runSeeded(t *testing.T, f fixture, seed uint64) (*loop.Result, *fakemodel.Model) {
	t.Helper()
	model := &fakemodel.Model{Script: f.script, Window: f.primary.ContextWindow, KeepMessages: true}
	res, err := loop.Run(t.Context(), loop.Config{Policy: f.policy, Model: model, Primary: f.primary, Seed: seed},
		[]loop.Message{loop.UserText("go")})
	require.NoError(t, err)
	return res, model
}

// §7: fallback triggers, other 400s and mid-stream errors.
func TestClaudeCodeFallbackAndResends(t *testing.T) {
	sonnetFB := loop.ModelInfo{Name: "sonnet", ContextWindow: 200_000, MaxOutputTokens: 64_000}
	models := func(m *fakemodel.Model) []string {
		var out []string
		for _, r := range m.Requests {
			out = append(out, r.Model)
		}
		return out
	}
	t.Run("3 consecutive 529s switch models", func(t *testing.T) {
		res, model := ccRun(t, fixture{fallback: sonnetFB, script: []fakemodel.Step{{Kind: fakemodel.Overloaded, Repeat: 3}, textStep}})
		assert.Equal(t, loop.Completed, res.Terminal)
		if diff := cmp.Diff([]string{"opus", "opus", "opus", "sonnet"}, models(model)); diff != "" {
			t.Errorf("models (-want +got):\n%s", diff)
		}
		two, model := ccRun(t, fixture{fallback: sonnetFB, script: []fakemodel.Step{{Kind: fakemodel.Overloaded, Repeat: 2}, textStep}})
		assert.Equal(t, loop.Completed, two.Terminal)
		if diff := cmp.Diff([]string{"opus", "opus", "opus"}, models(model)); diff != "" {
			t.Errorf("two 529s must not switch (-want +got):\n%s", diff)
		}
	})
	t.Run("a single 500 switches models", func(t *testing.T) {
		_, model := ccRun(t, fixture{fallback: sonnetFB, script: []fakemodel.Step{{Kind: fakemodel.ServerError}, textStep}})
		if diff := cmp.Diff([]string{"opus", "sonnet"}, models(model)); diff != "" {
			t.Errorf("models (-want +got):\n%s", diff)
		}
		assert.Equal(t, 64_000, model.Requests[1].MaxTokens, "the fallback model's max_tokens")
	})
	t.Run("other 400s: 5 immediate re-sends, then api_error", func(t *testing.T) {
		ok, _ := ccRun(t, fixture{script: []fakemodel.Step{{Kind: fakemodel.InvalidRequest, Repeat: 5}, textStep}})
		checkSeq(t, ok, strings.Repeat("M:400 → ", 5)+"M:text", loop.Completed)
		for _, r := range events[loop.Retry](ok.Trace) {
			assert.Zero(t, r.DelayMS, "re-sends are immediate")
		}
		fail, _ := ccRun(t, fixture{script: []fakemodel.Step{{Kind: fakemodel.InvalidRequest, Repeat: 6}}})
		checkSeq(t, fail, strings.TrimSuffix(strings.Repeat("M:400 → ", 6), " → "), loop.APIError)
	})
	t.Run("a mid-stream error before any content retries once without streaming, max_tokens capped at 64000", func(t *testing.T) {
		res, model := ccRun(t, fixture{script: []fakemodel.Step{{Kind: fakemodel.StreamError}, textStep}})
		assert.Equal(t, loop.Completed, res.Terminal)
		require.Len(t, model.Requests, 2)
		assert.True(t, model.Requests[1].NonStreaming, "the retry is non-streaming")
		assert.Equal(t, 64_000, model.Requests[1].MaxTokens)
		res, _ = ccRun(t, fixture{script: []fakemodel.Step{{Kind: fakemodel.StreamError, Repeat: 2}}})
		checkSeq(t, res, "M:stream_error → M:stream_error", loop.APIError)
	})
	t.Run("the non-streaming attempt has 9 retries of its own (observed)", func(t *testing.T) {
		res, model := ccRun(t, fixture{script: []fakemodel.Step{{Kind: fakemodel.StreamError}, {Kind: fakemodel.ServerError, Repeat: fakemodel.Forever}}}, "fallback", "false")
		checkSeq(t, res, "M:stream_error → "+strings.TrimSuffix(strings.Repeat("M:500 → ", 10), " → "), loop.APIError)
		for _, r := range model.Requests[1:] {
			assert.True(t, r.NonStreaming, "request %+v is not the non-streaming attempt", r)
			assert.Equal(t, 64_000, r.MaxTokens, "request %+v is not the non-streaming attempt", r)
		}
	})
	t.Run("a drop after the response began goes non-streaming once its retries are spent, with none left (observed)", func(t *testing.T) {
		// the sequence shows a drop by its status: 200 once the response
		// began, none (connection) before it or without streaming
		mid := fakemodel.Step{Kind: fakemodel.ConnectionDropped, CutText: "The build", Repeat: fakemodel.Forever}
		res, model := ccRun(t, fixture{script: []fakemodel.Step{mid}}, "fallback", "false", "api_retries", "2")
		checkSeq(t, res, "M:200 → M:200 → M:200 → M:connection", loop.APIError)
		assert.True(t, model.Requests[3].NonStreaming, "the fourth request is the non-streaming attempt")
		before := fakemodel.Step{Kind: fakemodel.ConnectionDropped, Repeat: fakemodel.Forever}
		res, _ = ccRun(t, fixture{script: []fakemodel.Step{before}}, "fallback", "false", "api_retries", "2")
		checkSeq(t, res, "M:connection → M:connection → M:connection", loop.APIError)
	})
	t.Run("the non-streaming budget is the retry budget less one (observed at 2, 4, 10)", func(t *testing.T) {
		for _, n := range []int{1, 2, 4} {
			res, _ := ccRun(t, fixture{script: []fakemodel.Step{{Kind: fakemodel.StreamError}, {Kind: fakemodel.ServerError, Repeat: fakemodel.Forever}}},
				"fallback", "false", "api_retries", strconv.Itoa(n))
			checkSeq(t, res, "M:stream_error → "+strings.TrimSuffix(strings.Repeat("M:500 → ", n), " → "), loop.APIError)
		}
	})
}

// §8: beyond the seed's transitions.
func TestClaudeCodeMalformedAndEmptyReplies(t *testing.T) {
	mal := fakemodel.Step{Kind: fakemodel.MalformedToolUse}
	t.Run("malformed tool use: 2 retries, then exhausted", func(t *testing.T) {
		ok, model := ccRun(t, fixture{script: []fakemodel.Step{mal, mal, textStep}})
		checkSeq(t, ok, "M:tool → malformed_tool_use_retry → M:tool → malformed_tool_use_retry → M:text", loop.Completed)
		require.Len(t, model.Requests[1].Messages, 2, "the retry drops the reply and adds a nudge")
		assert.Equal(t, loop.MalformedNudge, model.Requests[1].Messages[1].Text())
		bad, _ := ccRun(t, fixture{script: []fakemodel.Step{mal, mal, mal}})
		checkSeq(t, bad, "M:tool → malformed_tool_use_retry → M:tool → malformed_tool_use_retry → M:tool", loop.MalformedToolUseExhausted)
	})
	t.Run("an empty reply is re-sent once, then accepted", func(t *testing.T) {
		empty := fakemodel.Step{Kind: fakemodel.Empty}
		res, _ := ccRun(t, fixture{script: []fakemodel.Step{empty, textStep}})
		checkSeq(t, res, "M:text → empty_reply_retry → M:text", loop.Completed)
		res, _ = ccRun(t, fixture{script: []fakemodel.Step{empty, empty}})
		checkSeq(t, res, "M:text → empty_reply_retry → M:text", loop.Completed)
	})
	t.Run("no token budget, collapse or snip", func(t *testing.T) {
		res, _ := ccRun(t, fixture{budget: 1_000_000, script: []fakemodel.Step{textStep}})
		checkSeq(t, res, "M:text", loop.Completed)
	})
}

// The seed profile keeps its behaviour where claude-code differs.
func TestSeedKeepsItsBehaviourWhereClaudeCodeDiffers(t *testing.T) {
	mal := fakemodel.Step{Kind: fakemodel.MalformedToolUse}
	res, _ := run(t, fixture{script: []fakemodel.Step{mal}})
	checkSeq(t, res, "M:tool", loop.Completed)
	res, _ = run(t, fixture{script: []fakemodel.Step{{Kind: fakemodel.Truncated, Repeat: 8}}, policy: seedWith(t, "escalation", "false")})
	checkSeq(t, res, repeatSeq("M:trunc", "max_output_tokens_recovery", 4), loop.Completed)
	res, _ = run(t, fixture{script: []fakemodel.Step{{Kind: fakemodel.Overloaded}}})
	checkSeq(t, res, "M:529", loop.Completed)
}

// Profiles between the two: every rule is a field.
func TestProfilesBetweenSeedAndClaudeCode(t *testing.T) {
	t.Run("claude-code with escalation on (and a cap below it)", func(t *testing.T) {
		res, model := ccRun(t, fixture{script: []fakemodel.Step{truncated, textStep}}, "escalation", "true", "default_max_tokens", "32000")
		checkSeq(t, res, "M:trunc → max_output_tokens_escalate → M:text", loop.Completed)
		assert.Equal(t, 64_000, model.Requests[1].MaxTokens, "escalated max_tokens")
	})
	t.Run("claude-code with a block cap of 3", func(t *testing.T) {
		always := &fakemodel.StopHooks{Outcomes: []fakemodel.StopOutcome{{Block: "x"}}}
		res, _ := ccRun(t, fixture{script: []fakemodel.Step{{Text: "ok", Repeat: fakemodel.Forever}}, hooks: always}, "stop_hook_block_cap", "3")
		checkSeq(t, res, repeatSeq("M:text", "stop_hook_blocking", 4), loop.Completed)
	})
	t.Run("seed with claude-code's two compactions in a row and api_error", func(t *testing.T) {
		res, _ := run(t, fixture{script: []fakemodel.Step{toolStep, ptl, summary, ptl, summary, ptl},
			policy: seedWith(t, "max_reactive_compacts_in_row", "2", "api_error_terminal", "api_error")})
		assert.Len(t, events[loop.Compaction](res.Trace), 2, "compactions")
		assert.Equal(t, loop.PromptTooLong, res.Terminal)
		res, _ = run(t, fixture{script: []fakemodel.Step{{Kind: fakemodel.ServerError}}, policy: seedWith(t, "api_error_terminal", "api_error")})
		checkSeq(t, res, "M:500", loop.APIError)
	})
	t.Run("seed with claude-code's API retries", func(t *testing.T) {
		res, _ := run(t, fixture{script: []fakemodel.Step{{Kind: fakemodel.Overloaded, Repeat: 2}, textStep}, policy: seedWith(t, "api_retries", "10")})
		checkSeq(t, res, "M:529 → M:529 → M:text", loop.Completed)
	})
}

// messageTexts is each message's role and text, to compare requests.
func messageTexts(msgs []loop.Message) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = string(m.Role) + ":" + m.Text()
	}
	return out
}
