package scenarios_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/fakemodel/fakeapi"
	"github.com/loopsim/loopsim/fakemodel/wire"
	"github.com/loopsim/loopsim/loop"
	"github.com/loopsim/loopsim/scenarios"
)

func entries(t *testing.T, s string) []string {
	t.Helper()
	es, err := scenarios.ParseWireRequests(s)
	require.NoError(t, err)
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.String()
	}
	return out
}

func TestParseWireRequests(t *testing.T) {
	assert.Equal(t, []string{"M:trunc", "max_output_tokens_recovery", "M:trunc", "max_output_tokens_recovery", "M:text"},
		entries(t, "M:trunc → recovery → M:trunc → recovery → M:text"))
	assert.Equal(t, []string{"M:tool", "next_turn", "M:400", "C", "reactive_compact_retry", "M:text"},
		entries(t, "M:tool -> next_turn -> M:400 -> C -> reactive_compact_retry -> M:text"))
	assert.Equal(t, []string{"M:529", "M:529", "M:529", "M:text"}, entries(t, "M:529 * 3 → M:text"))
	assert.Equal(t, []string{"M:text", "stop_hook_blocking", "M:text", "stop_hook_blocking", "M:text"},
		entries(t, "(M:text → stop_hook_blocking) × 2 → M:text"))
	assert.Equal(t, []string{"C:text"}, entries(t, "(C:text)"))

	for s, msg := range map[string]string{
		"":                    "entry 1: empty entry",
		"M:text →":            "entry 2: empty entry",
		"M:teext":             `entry 1: "M:teext": unknown answer "teext" (known: an HTTP status, text, tool`,
		"M:99":                `unknown answer "99"`,
		"X:text":              `entry 1: "X:text" is neither a request (M:answer, C:answer) nor a transition`,
		"M:text * 0":          "the count after * must be a whole number of 1 or more",
		"(M:text → next_turn": "entry 1: the group opened here is not closed",
		"(M:text) + 2":        `after a group comes "* n", not "+ 2"`,
		"M:text → reactive":   `entry 2: "reactive" is neither`,
	} {
		_, err := scenarios.ParseWireRequests(s)
		assert.ErrorContains(t, err, msg, "%q", s)
	}
}

func TestTraceRequests(t *testing.T) {
	trace := loop.Trace{
		loop.RequestEvent{Purpose: loop.PurposeMain},
		loop.ResponseEvent{StopReason: loop.StopToolUse, Blocks: 1, ToolUses: []string{"t"}},
		loop.TransitionEvent{Transition: "next_turn"},
		loop.RequestEvent{Purpose: loop.PurposeMain},
		loop.RequestFailed{Kind: loop.KindPromptTooLong, Status: 400},
		loop.RequestEvent{Purpose: loop.PurposeCompact},
		loop.ResponseEvent{StopReason: loop.StopEndTurn, Blocks: 1},
		loop.RequestEvent{Purpose: loop.PurposeMain},
		loop.RequestFailed{Kind: loop.KindStream, Blocks: 1},
		loop.RequestEvent{Purpose: loop.PurposeMain, NonStreaming: true},
		loop.RequestFailed{Kind: loop.KindStream},
		loop.RequestEvent{Purpose: loop.PurposeMain},
		loop.RequestFailed{Kind: loop.KindConnection},
		loop.RequestEvent{Purpose: loop.PurposeMain},
		loop.RequestFailed{Kind: loop.KindFallbackTriggered, Status: 529, Blocks: 2},
		loop.RequestEvent{Purpose: loop.PurposeMain},
		loop.ResponseEvent{StopReason: loop.StopMaxTokens, Blocks: 1},
		loop.RequestEvent{Purpose: loop.PurposeMain},
		loop.ResponseEvent{StopReason: loop.StopEndTurn},
	}
	assert.Equal(t, []string{"M:tool", "next_turn", "M:400", "C:text", "M:stream_error", "M:500", "M:drop", "M:stream_error", "M:trunc", "M:empty"},
		scenarios.TraceRequests(trace))
}

// The in-process trace labels a request as the fake server labels the
// same step answered over the wire, for every step kind the wire can
// carry.
func TestTraceLabelsAgreeWithTheServer(t *testing.T) {
	steps := []fakemodel.Step{
		{Text: "done"},
		{ToolUses: []fakemodel.ToolUse{{Name: "Read"}}},
		{Kind: fakemodel.Empty},
		{Kind: fakemodel.MalformedToolUse},
		{Kind: fakemodel.Truncated},
		{Kind: fakemodel.PromptTooLong},
		{Kind: fakemodel.RequestTooLarge},
		{Kind: fakemodel.MediaTooLarge},
		{Kind: fakemodel.Overloaded},
		{Kind: fakemodel.FallbackTriggered},
		{Kind: fakemodel.FallbackTriggered, After: 1},
		{Kind: fakemodel.RateLimited, RetryAfterMS: 10},
		{Kind: fakemodel.ServerError, Status: 503},
		{Kind: fakemodel.ConnectionDropped},
		{Kind: fakemodel.ConnectionDropped, After: 2},
		{Kind: fakemodel.InvalidRequest},
		{Kind: fakemodel.OtherStatus, Status: 403},
		{Kind: fakemodel.StreamError},
		{Kind: fakemodel.StreamError, After: 1},
	}
	info := loop.ModelInfo{Name: "claude-sonnet-4-5", ContextWindow: 200_000, MaxOutputTokens: 32_000}
	for _, step := range steps {
		name := string(step.Kind)
		if step.After > 0 {
			name += " after"
		}
		t.Run(name, func(t *testing.T) {
			script := []fakemodel.Step{step, {Text: "ok", Repeat: fakemodel.Forever}}
			res, err := loop.Run(t.Context(), loop.Config{Policy: loop.ClaudeCode(), Model: &fakemodel.Model{Script: script, Window: info.ContextWindow},
				Primary: info, ToolNames: []string{"Read"}}, []loop.Message{loop.UserText("go")})
			require.NoError(t, err)
			inProcess := scenarios.TraceRequests(res.Trace)[0]

			srv := fakeapi.NewServer(&fakemodel.Model{Script: script, Window: info.ContextWindow}, wire.Options{})
			defer srv.Close()
			resp, err := http.Post(srv.URL+"/v1/messages", "application/json", strings.NewReader(
				`{"model":"claude-sonnet-4-5","max_tokens":32000,"stream":true,"messages":[{"role":"user","content":"go"}]}`))
			if err == nil {
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
			assert.Equal(t, inProcess, wire.Labels(srv.Requests())[0])
		})
	}
}
