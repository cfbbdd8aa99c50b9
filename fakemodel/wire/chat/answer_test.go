package chat_test

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/ssestream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/fakemodel/wire"
	"github.com/loopsim/loopsim/fakemodel/wire/chat"
	"github.com/loopsim/loopsim/loop"
)

var update = flag.Bool("update", false, "rewrite the golden stream transcripts in testdata/")

func text(s string) loop.Block { return loop.Block{Type: loop.BlockText, Text: s} }
func use(id, name, input string) loop.Block {
	return loop.Block{Type: loop.BlockToolUse, ID: id, Name: name, Input: input}
}

func reply(stop loop.StopReason, u loop.Usage, blocks ...loop.Block) *wire.Answer {
	return &wire.Answer{Seq: 1, Outcome: wire.OutcomeReply, Blocks: blocks, Response: loop.Response{StopReason: stop, Usage: u}}
}

// answers are the outcomes every test below writes, by name.
var answers = []struct {
	name   string
	answer *wire.Answer
	finish string
}{
	{"text", reply(loop.StopEndTurn, loop.Usage{InputTokens: 90, CacheReadInputTokens: 10, OutputTokens: 5}, text(strings.Repeat("é", 40)+" done")), "stop"},
	{"tools", reply(loop.StopToolUse, loop.Usage{InputTokens: 50, CacheCreationInputTokens: 7, OutputTokens: 12},
		loop.Block{Type: loop.BlockThinking, Text: "let me look"}, text("checking"),
		use("call_1", "Read", `{"path":"a.go"}`), use("call_2", "Grep", `{"pattern":"`+strings.Repeat("x", 80)+`"}`)), "tool_calls"},
	{"truncated", reply(loop.StopMaxTokens, loop.Usage{InputTokens: 40, OutputTokens: 100}, text("cut"), use("call_3", "Edit", `{"file":"a.`)), "length"},
	{"empty", reply(loop.StopEndTurn, loop.Usage{InputTokens: 40}), "stop"},
	{"malformed", reply(loop.StopToolUse, loop.Usage{InputTokens: 40, OutputTokens: 3}, text("I'll use a tool.")), "tool_calls"},
}

// Every reply, not streamed, is a chat.completion the official SDK
// reads: the content, the tool calls with their arguments as the model
// wrote them, the finish reason and the usage.
func TestReplyIsAChatCompletionTheSDKReads(t *testing.T) {
	for _, c := range answers {
		t.Run(c.name, func(t *testing.T) {
			d, err := decode(t, request(user("go")))
			require.NoError(t, err)
			raw := mustJSON(t, chat.API{}.Reply(d, c.answer))
			var got openai.ChatCompletion
			require.NoError(t, json.Unmarshal(raw, &got))
			assert.Equal(t, "chat.completion", string(got.Object))
			assert.Equal(t, "chatcmpl-loopsim000001", got.ID)
			assert.Equal(t, "gpt-test", got.Model)
			require.Len(t, got.Choices, 1)
			ch := got.Choices[0]
			assert.Equal(t, c.finish, ch.FinishReason)
			assert.Equal(t, wantText(c.answer), ch.Message.Content)
			assert.Equal(t, wantCalls(c.answer), callsOf(ch.Message.ToolCalls))
			u := c.answer.Response.Usage
			prompt := int64(u.InputTokens + u.CacheReadInputTokens + u.CacheCreationInputTokens)
			assert.Equal(t, prompt, got.Usage.PromptTokens)
			assert.Equal(t, int64(u.OutputTokens), got.Usage.CompletionTokens)
			assert.Equal(t, prompt+int64(u.OutputTokens), got.Usage.TotalTokens)
			assert.Equal(t, int64(u.CacheReadInputTokens), got.Usage.PromptTokensDetails.CachedTokens)
			assert.Equal(t, int64(u.CacheCreationInputTokens), got.Usage.PromptTokensDetails.CacheWriteTokens)
		})
	}
}

// Every reply, streamed, is chunks the official SDK accumulates into the
// same message, with the usage chunk when asked for, ending [DONE]; the
// transcript is pinned in testdata/NAME.sse (go test -update rewrites
// it).
func TestStreamIsChunksTheSDKAccumulates(t *testing.T) {
	for _, c := range answers {
		for _, usage := range []bool{false, true} {
			name := c.name
			if usage {
				name += "-usage"
			}
			t.Run(name, func(t *testing.T) {
				b := request(user("go")).with("stream", true)
				if usage {
					b = b.with("stream_options", map[string]any{"include_usage": true})
				}
				d, err := decode(t, b)
				require.NoError(t, err)
				raw := streamed(t, d, c.answer)
				golden(t, name+".sse", raw)
				ls := lines(raw)
				assert.Equal(t, "data: [DONE]", ls[len(ls)-1])
				acc, chunks, err := sdkStream(raw)
				require.NoError(t, err)
				assert.Equal(t, "assistant", string(chunks[0].Choices[0].Delta.Role), "the role comes first")
				require.Len(t, acc.Choices, 1)
				assert.Equal(t, c.finish, acc.Choices[0].FinishReason)
				assert.Equal(t, wantText(c.answer), acc.Choices[0].Message.Content)
				assert.Equal(t, wantCalls(c.answer), callsOf(acc.Choices[0].Message.ToolCalls))
				last := chunks[len(chunks)-1]
				if usage {
					assert.Empty(t, last.Choices, "the usage chunk has no choices")
					assert.Equal(t, int64(c.answer.Response.Usage.OutputTokens), last.Usage.CompletionTokens)
					for _, ch := range chunks[:len(chunks)-1] {
						assert.Contains(t, ch.RawJSON(), `"usage":null`)
					}
				} else {
					assert.Equal(t, c.finish, last.Choices[0].FinishReason)
					assert.NotContains(t, string(raw), `"usage"`)
				}
			})
		}
	}
}

// A thinking block travels as reasoning_content, which the SDK keeps in
// the raw JSON.
func TestThinkingIsReasoningContent(t *testing.T) {
	d, err := decode(t, request(user("go")).with("stream", true))
	require.NoError(t, err)
	_, chunks, err := sdkStream(streamed(t, d, answers[1].answer))
	require.NoError(t, err)
	assert.Equal(t, "let me look", chunks[1].Choices[0].Delta.JSON.ExtraFields["reasoning_content"].Raw()[1:12])
	var got openai.ChatCompletion
	require.NoError(t, json.Unmarshal(mustJSON(t, chat.API{}.Reply(d, answers[1].answer)), &got))
	assert.JSONEq(t, `"let me look"`, got.Choices[0].Message.JSON.ExtraFields["reasoning_content"].Raw())
}

// A stream that fails after its blocks ends with an error data line,
// which the SDK raises; no [DONE].
func TestStreamErrorIsAnErrorLineTheSDKRaises(t *testing.T) {
	d, err := decode(t, request(user("go")).with("stream", true))
	require.NoError(t, err)
	a := &wire.Answer{Seq: 1, Outcome: wire.OutcomeError, Blocks: []loop.Block{text("partial"), use("call_9", "Edit", `{"fi`)},
		Err: &loop.RequestError{Kind: loop.KindStream, Message: "error event after 2 blocks"}}
	raw := streamed(t, d, a)
	golden(t, "stream-error.sse", raw)
	assert.NotContains(t, string(raw), "[DONE]")
	acc, _, err := sdkStream(raw)
	var se *ssestream.StreamError
	require.ErrorAs(t, err, &se)
	assert.Contains(t, se.Message, "error event after 2 blocks")
	assert.Equal(t, "server_error", gjsonString(t, se.Event.Data, "error", "type"))
	assert.Equal(t, "partial", acc.Choices[0].Message.Content, "what came before the error was read")
}

// A dropped or aborted stream ends without its finish chunk or [DONE].
func TestDroppedStreamEndsWithoutItsEnd(t *testing.T) {
	d, err := decode(t, request(user("go")).with("stream", true))
	require.NoError(t, err)
	for _, out := range []wire.Outcome{wire.OutcomeDrop, wire.OutcomeAbort} {
		raw := streamed(t, d, &wire.Answer{Seq: 1, Outcome: out, Blocks: []loop.Block{text("partial")},
			Err: &loop.RequestError{Kind: loop.KindConnection, Message: "dropped"}})
		assert.NotContains(t, string(raw), "[DONE]")
		assert.NotContains(t, string(raw), "finish_reason\":\"")
		_, chunks, err := sdkStream(raw)
		require.NoError(t, err, "the SDK sees a stream that just ends: the caller must see no finish_reason")
		assert.Len(t, chunks, 2)
	}
}

func gjsonString(t testing.TB, raw []byte, path ...string) string {
	t.Helper()
	var v any
	require.NoError(t, json.Unmarshal(raw, &v))
	for _, p := range path {
		v = v.(map[string]any)[p]
	}
	s, _ := v.(string)
	return s
}

// wantText is the content a client reads: the text blocks, joined.
func wantText(a *wire.Answer) string {
	var sb strings.Builder
	for _, b := range a.Blocks {
		if b.Type == loop.BlockText {
			sb.WriteString(b.Text)
		}
	}
	return sb.String()
}

// call is a tool call as a client reads it.
type call struct{ ID, Name, Arguments string }

func wantCalls(a *wire.Answer) []call {
	var out []call
	for _, b := range a.Blocks {
		if b.Type == loop.BlockToolUse {
			out = append(out, call{b.ID, b.Name, b.Input})
		}
	}
	return out
}

func callsOf(tcs []openai.ChatCompletionMessageToolCallUnion) []call {
	var out []call
	for _, tc := range tcs {
		out = append(out, call{tc.ID, tc.Function.Name, tc.Function.Arguments})
	}
	return out
}

// golden compares raw with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, raw []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(path, raw, 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test -update to write %s", path)
	assert.Equal(t, string(want), string(raw), "transcript %s (go test -update rewrites it)", path)
}
