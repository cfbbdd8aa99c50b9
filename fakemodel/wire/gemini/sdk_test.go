package gemini_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/genai"

	"github.com/loopsim/loopsim/fakemodel/wire"
	"github.com/loopsim/loopsim/loop"
)

// parsed is what the genai SDK made of an answer: the parts of every
// response (or chunk), the last finish reason and message, usage and
// ids, and the error it ended with.
type parsed struct {
	parts     []*genai.Part
	finish    genai.FinishReason
	usage     *genai.GenerateContentResponseUsageMetadata
	model, id string
	responses int
	err       error
}

func (p *parsed) add(r *genai.GenerateContentResponse) {
	p.responses++
	p.model, p.id = r.ModelVersion, r.ResponseID
	if r.UsageMetadata != nil {
		p.usage = r.UsageMetadata
	}
	if len(r.Candidates) == 0 {
		return
	}
	c := r.Candidates[0]
	if c.Content != nil {
		p.parts = append(p.parts, c.Content.Parts...)
	}
	if c.FinishReason != "" {
		p.finish = c.FinishReason
	}
}

// text is the parsed parts' text (thoughts left out), as a client joins
// it.
func (p *parsed) text() string {
	var sb strings.Builder
	for _, pt := range p.parts {
		if !pt.Thought {
			sb.WriteString(pt.Text)
		}
	}
	return sb.String()
}

// ask sends one request through the official SDK to a server answering
// ans, streamed or not.
func ask(t *testing.T, ans wire.Answer, stream bool) parsed {
	t.Helper()
	c := client(t, serve(t, ans))
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var p parsed
	cfg := &genai.GenerateContentConfig{MaxOutputTokens: 1000}
	if !stream {
		r, err := c.Models.GenerateContent(ctx, "gemini-test", genai.Text("hi"), cfg)
		if err != nil {
			p.err = err
			return p
		}
		p.add(r)
		return p
	}
	for r, err := range c.Models.GenerateContentStream(ctx, "gemini-test", genai.Text("hi"), cfg) {
		if err != nil {
			p.err = err
			break
		}
		p.add(r)
	}
	return p
}

var reply = wire.Answer{Seq: 7, Outcome: wire.OutcomeReply,
	Blocks: []loop.Block{
		{Type: loop.BlockThinking, Text: "the user wants a file read"},
		{Type: loop.BlockText, Text: strings.Repeat("I will read it. ", 10)},
		{Type: loop.BlockToolUse, ID: "toolu_1", Name: "Read", Input: `{"path":"a.go"}`},
	},
	Response: loop.Response{StopReason: loop.StopToolUse,
		Usage: loop.Usage{InputTokens: 100, CacheReadInputTokens: 900, OutputTokens: 40}}}

// A reply reads, streamed or not, as the API's: thought, text and the
// function call with its id and args, finish STOP, the usage with the
// cache read inside the prompt, the model and response id.
func TestSDKParsesAReply(t *testing.T) {
	for _, stream := range []bool{false, true} {
		p := ask(t, reply, stream)
		require.NoError(t, p.err, "stream %v", stream)
		assert.Equal(t, strings.Repeat("I will read it. ", 10), p.text())
		assert.True(t, p.parts[0].Thought)
		assert.Equal(t, "the user wants a file read", p.parts[0].Text)
		fc := p.parts[len(p.parts)-1].FunctionCall
		require.NotNil(t, fc)
		assert.Equal(t, &genai.FunctionCall{ID: "toolu_1", Name: "Read", Args: map[string]any{"path": "a.go"}}, fc)
		assert.Equal(t, genai.FinishReasonStop, p.finish)
		assert.Equal(t, &genai.GenerateContentResponseUsageMetadata{PromptTokenCount: 1000, CachedContentTokenCount: 900,
			CandidatesTokenCount: 40, TotalTokenCount: 1040,
			PromptTokensDetails: []*genai.ModalityTokenCount{{Modality: genai.MediaModalityText, TokenCount: 1000}}}, p.usage)
		assert.Equal(t, "gemini-test", p.model)
		assert.Equal(t, "loopsim-000001", p.id, "the request's number")
		if stream {
			assert.Greater(t, p.responses, 4, "text in pieces, the call whole")
		} else {
			assert.Equal(t, 1, p.responses)
		}
	}
}

// The other replies: truncated (a cut call sent with empty args), a
// malformed call, an empty reply. (The SDK drops a candidate's
// finishMessage when it reads the Gemini API; the golden transcripts
// show it.)
func TestSDKParsesEveryReply(t *testing.T) {
	tests := []struct {
		name   string
		ans    wire.Answer
		finish genai.FinishReason
		text   string
		calls  int
	}{{
		name: "truncated",
		ans: wire.Answer{Seq: 1, Blocks: []loop.Block{{Type: loop.BlockText, Text: "reading"}, {Type: loop.BlockToolUse, ID: "t", Name: "Read", Input: `{"pa`}},
			Response: loop.Response{StopReason: loop.StopMaxTokens, Usage: loop.Usage{InputTokens: 10, OutputTokens: 1000}}},
		finish: genai.FinishReasonMaxTokens, text: "reading", calls: 1,
	}, {
		name: "malformed call",
		ans: wire.Answer{Seq: 1, Blocks: []loop.Block{{Type: loop.BlockText, Text: "I'll use a tool."}},
			Response: loop.Response{StopReason: loop.StopToolUse, Usage: loop.Usage{InputTokens: 10, OutputTokens: 5}}},
		finish: genai.FinishReasonMalformedFunctionCall, text: "I'll use a tool.",
	}, {
		name:   "empty",
		ans:    wire.Answer{Seq: 1, Response: loop.Response{StopReason: loop.StopEndTurn, Usage: loop.Usage{InputTokens: 10}}},
		finish: genai.FinishReasonStop,
	}}
	for _, tt := range tests {
		for _, stream := range []bool{false, true} {
			t.Run(tt.name, func(t *testing.T) {
				p := ask(t, tt.ans, stream)
				require.NoError(t, p.err, "stream %v", stream)
				assert.Equal(t, tt.finish, p.finish)
				assert.Equal(t, tt.text, p.text())
				calls := 0
				for _, pt := range p.parts {
					if pt.FunctionCall != nil {
						calls++
						assert.Empty(t, pt.FunctionCall.Args, "a cut call has no args")
					}
				}
				assert.Equal(t, tt.calls, calls)
			})
		}
	}
}

// Every fault reads as the API's APIError, streamed or not: code,
// status, message; a rate limit's RetryInfo detail.
func TestSDKParsesEveryError(t *testing.T) {
	tests := []struct {
		err     *loop.RequestError
		code    int
		status  string
		message string
	}{
		{loop.PromptTooLongError(1200, 1000), 400, "INVALID_ARGUMENT", "The input token count (1200) exceeds the maximum number of tokens allowed (1000)."},
		{&loop.RequestError{Kind: loop.KindInvalidRequest, Status: 400, Message: "invalid request"}, 400, "INVALID_ARGUMENT", "invalid request"},
		{&loop.RequestError{Kind: loop.KindMediaTooLarge, Status: 400, Message: "image exceeds 5 MB maximum"}, 400, "INVALID_ARGUMENT", "image exceeds 5 MB maximum"},
		{&loop.RequestError{Kind: loop.KindRequestTooLarge, Status: 413, Message: "too large"}, 413, "INVALID_ARGUMENT", "too large"},
		{&loop.RequestError{Kind: loop.KindRateLimited, Status: 429, Message: "rate limit exceeded", RetryAfterMS: 2500}, 429, "RESOURCE_EXHAUSTED", "rate limit exceeded"},
		{&loop.RequestError{Kind: loop.KindOverloaded, Status: 529, Message: "overloaded"}, 503, "UNAVAILABLE", "overloaded"},
		{&loop.RequestError{Kind: loop.KindFallbackTriggered, Status: 529, Message: "switch"}, 503, "UNAVAILABLE", "switch"},
		{&loop.RequestError{Kind: loop.KindServer, Status: 500, Message: "internal server error"}, 500, "INTERNAL", "internal server error"},
		{&loop.RequestError{Kind: loop.KindServer, Status: 504, Message: "timeout"}, 504, "DEADLINE_EXCEEDED", "timeout"},
		{&loop.RequestError{Kind: loop.KindOther, Status: 403, Message: "status 403"}, 403, "PERMISSION_DENIED", "status 403"},
		{&loop.RequestError{Kind: loop.KindStream, Message: "error event after 0 content blocks"}, 500, "INTERNAL", "error event after 0 content blocks"},
	}
	for _, tt := range tests {
		for _, stream := range []bool{false, true} {
			t.Run(string(tt.err.Kind), func(t *testing.T) {
				p := ask(t, wire.Answer{Seq: 1, Outcome: wire.OutcomeError, Err: tt.err}, stream)
				var ae genai.APIError
				require.ErrorAs(t, p.err, &ae, "stream %v", stream)
				assert.Equal(t, tt.code, ae.Code)
				assert.Equal(t, tt.status, ae.Status)
				assert.Equal(t, tt.message, ae.Message)
				if tt.err.RetryAfterMS > 0 {
					assert.Equal(t, []map[string]any{{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "2.500s"}}, ae.Details)
				} else {
					assert.Empty(t, ae.Details)
				}
				assert.Zero(t, p.responses)
			})
		}
	}
}

// A stream cut after two blocks delivers them, then the API's error
// object, which the SDK returns as an APIError; a cut call is not sent.
// Without a stream the same fault is the error alone.
func TestSDKParsesACutStream(t *testing.T) {
	ans := wire.Answer{Seq: 1, Outcome: wire.OutcomeError,
		Blocks: []loop.Block{{Type: loop.BlockText, Text: "chunk 1"}, {Type: loop.BlockToolUse, ID: "a", Name: "Read", Input: `{}`},
			{Type: loop.BlockToolUse, ID: "b", Name: "Read", Input: `{"pa`}},
		Err: &loop.RequestError{Kind: loop.KindStream, Message: "error event after 3 content blocks"}}
	p := ask(t, ans, true)
	var ae genai.APIError
	require.ErrorAs(t, p.err, &ae)
	assert.Equal(t, genai.APIError{Code: 500, Status: "INTERNAL", Message: "error event after 3 content blocks"}, ae)
	require.Len(t, p.parts, 2)
	assert.Equal(t, "chunk 1", p.parts[0].Text)
	assert.Equal(t, "a", p.parts[1].FunctionCall.ID)
	assert.Empty(t, p.finish, "no finish reason")

	p = ask(t, ans, false)
	require.ErrorAs(t, p.err, &ae)
	assert.Equal(t, 500, ae.Code)
}

// A dropped connection is a transport error, not an APIError: at once,
// or after the blocks of a stream.
func TestSDKSeesADrop(t *testing.T) {
	for _, n := range []int{0, 2} {
		ans := wire.Answer{Seq: 1, Outcome: wire.OutcomeDrop, Err: &loop.RequestError{Kind: loop.KindConnection, Message: "dropped"}}
		for i := range n {
			ans.Blocks = append(ans.Blocks, loop.Block{Type: loop.BlockText, Text: "chunk " + string(rune('1'+i))})
		}
		for _, stream := range []bool{false, true} {
			p := ask(t, ans, stream)
			require.Error(t, p.err, "blocks %d stream %v", n, stream)
			var ae genai.APIError
			assert.False(t, errors.As(p.err, &ae), "a drop is no API error: %v", p.err)
			if stream {
				assert.Equal(t, n, p.responses)
			}
		}
	}
}

// A refused request reads as the API's 400, the model under /v1 and
// any model name alike; countTokens answers the estimate.
func TestSDKParsesRefusalsAndCounts(t *testing.T) {
	srv := serve(t, reply)
	c := client(t, srv)
	_, err := c.Models.GenerateContent(t.Context(), "gemini-test", genai.Text("hi"), &genai.GenerateContentConfig{MaxOutputTokens: 9000})
	var ae genai.APIError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, 400, ae.Code)
	assert.Equal(t, "INVALID_ARGUMENT", ae.Status)
	assert.Contains(t, ae.Message, "maxOutputTokens value of 9000")

	v1, err := genai.NewClient(t.Context(), &genai.ClientConfig{APIKey: "k", Backend: genai.BackendGeminiAPI,
		HTTPOptions: genai.HTTPOptions{BaseURL: srv.URL, APIVersion: "v1"}})
	require.NoError(t, err)
	r, err := v1.Models.GenerateContent(t.Context(), "gemini-2.5-flash-lite", genai.Text("hi"), nil)
	require.NoError(t, err)
	assert.Equal(t, "gemini-2.5-flash-lite", r.ModelVersion)

	n, err := c.Models.CountTokens(t.Context(), "any-model", genai.Text("how long is this?"), nil)
	require.NoError(t, err)
	d, err := decode(t, wire.Route{Endpoint: wire.EndpointCount}, request(user(text("how long is this?"))))
	require.NoError(t, err)
	assert.EqualValues(t, d.Request.InputTokens, n.TotalTokens)
	assert.Positive(t, n.TotalTokens)
}
